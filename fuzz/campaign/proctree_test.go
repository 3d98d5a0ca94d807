package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// A command name with spaces and a ')' of its own; fields after it
	// as proc(5) numbers them from 3.
	line := "4242 (a) b) (c) S 1 4240 4240 0 -1 4194560 100 0 0 0 17 5 23 11 20 0 1 0 9 100 10 18446744073709551615\n"
	st, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procStat{pgrp: 4240, utime: 17, stime: 5, cutime: 23, cstime: 11}); st != want {
		t.Errorf("parseStat = %+v, want %+v", st, want)
	}
	for _, bad := range []string{"", "1 (x S 1 2", "1 (x) S 1 2 3", "1 (x) S 1 z 4240 0 -1 0 0 0 0 0 17 5 23 11"} {
		if _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) accepted", bad)
		}
	}
}

// TestGroupCPU runs a process group whose leader burns 100ms of CPU time
// and reaps a child that burns 200ms: groupCPU must count both, agreeing
// with the leader's rusage from wait4 (which includes the reaped child),
// within the 10ms ticks of /proc.
func TestGroupCPU(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "FUZZCAMPAIGN_HELPER=burn-leader")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("leader printed %q, %v", line, err)
	}
	got, err := groupCPU(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	st, err := parseStat(string(data))
	if err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	want := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	t.Logf("groupCPU %v, leader's rusage (with its reaped child) %v, child's ticks in cutime+cstime %d", got, want, st.cutime+st.cstime)
	if st.cutime+st.cstime == 0 {
		t.Error("the reaped child's CPU time is not in the leader's cutime")
	}
	if d := got - want; got < 250*time.Millisecond || d < -40*time.Millisecond || d > 40*time.Millisecond {
		t.Errorf("groupCPU = %v, rusage = %v, want about 300ms", got, want)
	}
	if _, err := groupCPU(cmd.Process.Pid); err == nil {
		t.Error("groupCPU of an exited group succeeded")
	}
}
