package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the processes the runner watches: with
// FUZZCAMPAIGN_HELPER set it acts as a CPU burner (proctree_test.go) or
// as a fake fuzz binary (fuzzrun_test.go) instead of running tests.
func TestMain(m *testing.M) {
	switch mode := os.Getenv("FUZZCAMPAIGN_HELPER"); mode {
	case "":
		os.Exit(m.Run())
	case "burn-leader":
		burnLeader()
	case "burn":
		burnCPU(200 * time.Millisecond)
	default:
		os.Exit(fakeFuzzer(mode))
	}
}

// burn spins for d of wall time.
func burn(d time.Duration) {
	x := 0
	for start := time.Now(); time.Since(start) < d; {
		for i := range 1000 {
			x += i
		}
	}
	if x == 42 {
		fmt.Println()
	}
}

// burnCPU spins until the process has used d of CPU time.
func burnCPU(d time.Duration) {
	for {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			panic(err)
		}
		if time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= d {
			return
		}
		burn(time.Millisecond)
	}
}

// burnLeader starts a burning child, burns, waits for the child (so
// its time moves to this process's cutime), prints "ready" and waits
// for its standard input to close.
func burnLeader() {
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "FUZZCAMPAIGN_HELPER=burn")
	if err := child.Start(); err != nil {
		panic(err)
	}
	burnCPU(100 * time.Millisecond)
	if err := child.Wait(); err != nil {
		panic(err)
	}
	fmt.Println("ready")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// fakeFuzzer prints what go test -fuzz prints and burns CPU until
// SIGINT; mode chooses how it ends:
//
//	ok     exits 0 on SIGINT after a last status line
//	race   on SIGINT fails with only "context canceled" (golang/go#75804)
//	crash  fails at once with a failing input, as a finding
//	exit   exits 1 at once without a failing input
//	deaf   does not end on SIGINT (the runner must kill it)
//
// or, for replay-pass and replay-fail, how a replay of one input ends,
// and for list-inputs what go test -v prints of a replay.
func fakeFuzzer(mode string) int {
	switch mode { // replaying one input (confirmHang), listing the inputs (corpusView.inputs)
	case "replay-pass":
		return 0
	case "list-inputs":
		fmt.Println("=== RUN   FuzzX\n=== RUN   FuzzX/seed#0\n=== RUN   FuzzX/seed#1\n=== RUN   FuzzX/0123456789abcdef\n--- PASS: FuzzX (0.01s)\n=== RUN   FuzzXY/seed#0\nPASS")
		return 0
	case "replay-fail":
		fmt.Println("--- FAIL: FuzzX/0123456789abcdef\nFAIL")
		return 1
	}
	fmt.Println("fuzz: elapsed: 0s, gathering baseline coverage: 0/7 completed")
	fmt.Println("fuzz: elapsed: 0s, gathering baseline coverage: 7/7 completed, now fuzzing with 2 workers")
	switch mode {
	case "crash":
		fmt.Println("--- FAIL: FuzzX (0.12s)\n    --- FAIL: FuzzX (0.00s)\n        testing.go:1: planted")
		fmt.Println("    Failing input written to testdata/fuzz/FuzzX/0123456789abcdef")
		fmt.Println("    To re-run:\n    go test -run=FuzzX/0123456789abcdef\nFAIL")
		return 1
	case "exit":
		fmt.Println("panic: the coordinator fell over")
		return 2
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	execs := 0
	for {
		select {
		case <-sig:
			if mode == "deaf" { // does not stop, but stops burning CPU while the runner waits
				time.Sleep(time.Hour)
			}
			fmt.Printf("fuzz: elapsed: 1s, execs: %d (0/sec), new interesting: 3 (total: 10)\n", execs)
			if mode == "race" {
				fmt.Println("--- FAIL: FuzzX (1.02s)\n    context canceled\nFAIL")
				return 1
			}
			fmt.Println("PASS")
			return 0
		default:
		}
		burn(50 * time.Millisecond)
		execs += 1000
		fmt.Printf("fuzz: elapsed: 1s, execs: %d (%d/sec), new interesting: 3 (total: 10)\n", execs, execs)
	}
}
