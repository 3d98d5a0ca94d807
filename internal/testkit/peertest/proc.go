// What Linux's /proc says about a process: the TCP ports it listens on
// and the processes below it.

package peertest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ListeningPorts returns the TCP ports that process pid listens on, from
// its descriptors and /proc/net/tcp{,6} (Linux), or none if it has
// exited. Reading the owner, not dialing, means no other process's port
// is mistaken for the one wanted, and makes no connection a server would
// log.
func ListeningPorts(pid int) ([]int, error) {
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return nil, nil // exited meanwhile; the caller sees that
	}
	inodes := map[string]bool{}
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if ino, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	ls, err := listeners()
	if err != nil {
		return nil, err
	}
	var ports []int
	for _, l := range ls {
		if inodes[l.inode] {
			ports = append(ports, l.port)
		}
	}
	return ports, nil
}

// Listening reports whether any process listens on TCP port.
func Listening(port int) (bool, error) {
	ls, err := listeners()
	for _, l := range ls {
		if l.port == port {
			return true, nil
		}
	}
	return false, err
}

// listener is a TCP socket in state LISTEN.
type listener struct {
	inode string
	port  int
}

// listeners returns the TCP listeners of /proc/net/tcp{,6}.
func listeners() ([]listener, error) {
	var out []listener
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) && f == "/proc/net/tcp6" {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(data), "\n")[1:] {
			fs := strings.Fields(l)
			if len(fs) < 10 || fs[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(fs[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
				out = append(out, listener{fs[9], int(p)})
			}
		}
	}
	return out, nil
}

// liveDescendants returns the processes below pid that have not exited
// (zombies are left out: they are dead, and their parent reaps them).
func liveDescendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...", where comm may hold spaces and ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fs := strings.Fields(string(stat[i+1:]))
		if len(fs) < 2 || fs[0] == "Z" || fs[0] == "X" {
			continue
		}
		if pp, err := strconv.Atoi(fs[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, children[p]...)
		queue = append(queue, children[p]...)
	}
	return out
}
