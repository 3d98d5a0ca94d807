package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat: 100
// on every Linux architecture Go supports (the kernel converts its
// internal HZ to it for user space).
const clockTicks = 100

// groupCPU returns the CPU time (user + system) spent so far by the
// processes of the process group pgid: for each live member its own
// time plus that of its children it has waited for (cutime, cstime),
// so a fuzz worker that exited and was reaped by the coordinator is
// still counted once, through the coordinator. Processes that vanish
// while /proc is read are skipped.
func groupCPU(pgid int) (time.Duration, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, err
	}
	var ticks int64
	found := false
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process exited
		}
		st, err := parseStat(string(data))
		if err != nil {
			return 0, fmt.Errorf("%s: %v", path, err)
		}
		if st.pgrp == pgid {
			found = true
			ticks += st.utime + st.stime + st.cutime + st.cstime
		}
	}
	if !found {
		return 0, fmt.Errorf("no process in group %d", pgid)
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

type procStat struct {
	pgrp                         int
	utime, stime, cutime, cstime int64
}

// parseStat reads the fields groupCPU needs from the text of a
// /proc/<pid>/stat file (proc(5)): the command name, field 2, is in
// parentheses and may itself hold spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStat(s string) (procStat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("no command name in %q", s)
	}
	// f[0] is field 3 (state), so field n is f[n-3].
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("%d fields after the command name, want at least 15", len(f))
	}
	var st procStat
	var err error
	num := func(n int) int64 {
		v, e := strconv.ParseInt(f[n-3], 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("field %d: %v", n, e)
		}
		return v
	}
	st.pgrp = int(num(5))
	st.utime, st.stime, st.cutime, st.cstime = num(14), num(15), num(16), num(17)
	return st, err
}
