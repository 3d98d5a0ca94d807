package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// runOpts are the settings of one fuzzing run.
type runOpts struct {
	budget      time.Duration // CPU time of the process tree
	parallel    int           // -test.parallel: fuzz workers
	nice        int
	cacheRoot   string // like $GOCACHE/fuzz: entries in cacheRoot/<import path>/<target>
	minimize    string // -test.fuzzminimizetime, "" for go test's default
	grace       time.Duration
	progress    io.Writer // gets a progress line every progressDur
	progressDur time.Duration
	check       time.Duration // how often the CPU time is read; 0 for every second
}

// runResult is what a run reports.
type runResult struct {
	CPU, Wall       time.Duration
	Execs           int64 // from the fuzzer's last status line
	Baseline        int   // corpus entries it started from (seeds, testdata, cache)
	NewInteresting  int   // as the fuzzer counts them
	ExitErr         string
	Reproducer      string // absolute path of the failing input the fuzzer wrote
	Rerun           string // the go test -run argument it printed
	FailureExcerpt  string
	Interrupted     bool // the runner was asked to stop
	StoppedByBudget bool
}

// The fuzzer's status lines (testing and internal/fuzz), e.g.
//
//	fuzz: elapsed: 0s, gathering baseline coverage: 0/24 completed
//	fuzz: elapsed: 3s, execs: 21201 (7051/sec), new interesting: 8 (total: 10)
//	Failing input written to testdata/fuzz/FuzzX/582528ddfad69eb5
//	go test -run=FuzzX/582528ddfad69eb5
var (
	baselineLine = regexp.MustCompile(`^fuzz: elapsed: \S+, gathering baseline coverage: \d+/(\d+) completed`)
	statusLine   = regexp.MustCompile(`^fuzz: elapsed: \S+, execs: (\d+) \(\d+/sec\), new interesting: (\d+) \(total: \d+\)`)
	failingLine  = regexp.MustCompile(`Failing input written to (\S+)`)
	rerunLine    = regexp.MustCompile(`go test -run=(\S+)`)
)

// outputParser follows the fuzzer's output line by line.
type outputParser struct {
	mu  sync.Mutex
	res *runResult
	// failing collects the lines from the first "--- FAIL" on.
	failing []string
}

func (p *outputParser) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := baselineLine.FindStringSubmatch(s); m != nil {
		p.res.Baseline, _ = strconv.Atoi(m[1])
	}
	if m := statusLine.FindStringSubmatch(s); m != nil {
		p.res.Execs, _ = strconv.ParseInt(m[1], 10, 64)
		p.res.NewInteresting, _ = strconv.Atoi(m[2])
	}
	if m := failingLine.FindStringSubmatch(s); m != nil {
		p.res.Reproducer = m[1]
	}
	if m := rerunLine.FindStringSubmatch(s); m != nil {
		p.res.Rerun = m[1]
	}
	if strings.HasPrefix(strings.TrimSpace(s), "--- FAIL") || len(p.failing) > 0 {
		if len(p.failing) < 60 {
			p.failing = append(p.failing, s)
		}
	}
}

// fuzz runs the fuzz binary on target t until the CPU time of its
// process tree (coordinator and workers) reaches o.budget, then
// interrupts it as Ctrl-C does: the coordinator stops its workers and
// exits 0 unless it found a failure. stop, when closed, interrupts it
// early (Interrupted). The fuzzer's output goes to log.
func fuzz(t target, binary string, o runOpts, log io.Writer, stop <-chan struct{}) (*runResult, error) {
	args := []string{"-n", strconv.Itoa(o.nice), binary, "-test.run", "^$", "-test.fuzz", "^" + t.Name + "$",
		"-test.parallel", strconv.Itoa(o.parallel), "-test.fuzzcachedir", filepath.Join(o.cacheRoot, t.Pkg)}
	if o.minimize != "" {
		args = append(args, "-test.fuzzminimizetime", o.minimize)
	}
	cmd := exec.Command("nice", args...) // nice execs the binary: the same process
	cmd.Dir = t.Dir
	// Its own process group, whose CPU time groupCPU sums; and if the
	// runner dies (SIGKILL), the coordinator gets SIGINT and stops its
	// workers as at the end of a budget (without it, it would die of
	// SIGPIPE at its next status line).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGINT}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	res := &runResult{}
	p := &outputParser{res: res}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			p.line(sc.Text())
		}
		pr.Close()
	}()
	exited := make(chan error, 1)
	go func() { <-done; exited <- cmd.Wait() }()

	pgid := cmd.Process.Pid
	every := o.check
	if every <= 0 {
		every = time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	var interruptedAt time.Time
	lastProgress := start
	var waitErr error
loop:
	for {
		select {
		case waitErr = <-exited:
			break loop
		case <-stop:
			if interruptedAt.IsZero() {
				res.Interrupted = true
				interruptedAt = time.Now()
				cmd.Process.Signal(os.Interrupt)
			}
			stop = nil
		case now := <-tick.C:
			cpu, err := groupCPU(pgid)
			if err == nil {
				res.CPU = cpu
			}
			if interruptedAt.IsZero() && res.CPU >= o.budget {
				res.StoppedByBudget = true
				interruptedAt = now
				cmd.Process.Signal(os.Interrupt)
			}
			if !interruptedAt.IsZero() && now.Sub(interruptedAt) > o.grace {
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
			if o.progress != nil && now.Sub(lastProgress) >= o.progressDur {
				lastProgress = now
				p.mu.Lock()
				fmt.Fprintf(o.progress, "  %s: CPU %s of %s, wall %s, execs %d, new interesting %d\n", t.ID(),
					res.CPU.Round(time.Second), o.budget.Round(time.Second), now.Sub(start).Round(time.Second), res.Execs, res.NewInteresting)
				p.mu.Unlock()
			}
		}
	}
	res.Wall = time.Since(start)
	// The child's rusage from wait4 includes the workers it reaped.
	if st := cmd.ProcessState; st != nil {
		if cpu := st.UserTime() + st.SystemTime(); cpu > res.CPU {
			res.CPU = cpu
		}
	}
	if waitErr != nil {
		res.ExitErr = waitErr.Error()
	}
	if res.Reproducer != "" && !filepath.IsAbs(res.Reproducer) {
		res.Reproducer = filepath.Join(t.Dir, res.Reproducer)
	}
	res.FailureExcerpt = strings.Join(p.failing, "\n")
	return res, nil
}

// classify turns a run's result into its status (see run.Status), an
// error for a run that neither passed nor failed, and a note. Go 1.26's
// fuzz coordinator may fail a target that it was asked to stop, by
// -fuzztime or, as here, by SIGINT, with only "context canceled" or
// "context deadline exceeded" (golang/go#75804, fixed in Go 1.27): such
// a run spent its budget without a finding, and counts as ok.
func classify(res *runResult, logPath string) (status, errMsg, note string) {
	switch {
	case res.Reproducer != "":
		return "failed", res.ExitErr, ""
	case res.Interrupted:
		// Stopped by the runner's own interruption, which may come
		// before the fuzzer handles SIGINT.
		if res.ExitErr != "" {
			note = "the fuzzer exited with " + res.ExitErr + " when interrupted"
		}
		return "interrupted", "", note
	case res.ExitErr != "" && res.StoppedByBudget && isStopRace(res.FailureExcerpt):
		return "ok", "", "the fuzzer exited with " + res.ExitErr + " after its budget was spent, reporting only a cancelled context (golang/go#75804), not a finding"
	case res.ExitErr != "" || !res.StoppedByBudget:
		return "error", fmt.Sprintf("the fuzzer exited (%s) before its budget was spent, without a failing input; see %s", orNone(res.ExitErr), logPath), ""
	}
	return "ok", "", ""
}

// isStopRace reports whether a failure report is golang/go#75804's: a
// "--- FAIL" line whose only message is the coordinator's context error.
func isStopRace(excerpt string) bool {
	sawFail, sawCtx := false, false
	for _, line := range strings.Split(excerpt, "\n") {
		switch l := strings.TrimSpace(line); {
		case strings.HasPrefix(l, "--- FAIL: "):
			sawFail = true
		case l == "context canceled" || l == "context deadline exceeded":
			sawCtx = true
		case l == "" || l == "FAIL":
		default:
			return false
		}
	}
	return sawFail && sawCtx
}

func orNone(s string) string {
	if s == "" {
		return "exit status 0"
	}
	return s
}

// Go's fuzz coordinator reports "fuzzing process hung or terminated
// unexpectedly" for a worker that died without reporting a failure, and
// a worker ends itself when one call of the fuzz function runs for
// hangLimit of wall time (internal/fuzz's RunFuzzWorker): at nice 19 on a
// busy machine a starved worker can reach it with an input that takes
// milliseconds.
const (
	hangText  = "fuzzing process hung or terminated unexpectedly"
	hangLimit = 10 * time.Second
)

// maxUnconfirmed is how many unconfirmed hangs in a row end a target's
// runs as a failure.
const maxUnconfirmed = 3

// keepReproducer copies the failing input of run x to the output
// directory, so that the evidence survives whatever happens to the tree,
// and confirms a hang (confirmHang).
func keepReproducer(c config, t target, b *binaries, x *run) error {
	dir := filepath.Join(c.out, "reproducers", strings.ReplaceAll(t.ID(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	x.Kept = filepath.Join(dir, filepath.Base(x.Reproducer))
	if err := copyNew(x.Reproducer, x.Kept); err != nil {
		return fmt.Errorf("keeping the reproducer: %v", err)
	}
	if strings.Contains(x.FailureExcerpt, hangText) {
		return confirmHang(c, t, b, x)
	}
	return nil
}

// confirmHang replays the input of a reported hang with the fuzz binary,
// as go test -run does. If it passes within hangLimit, the run was not a
// finding: its status becomes "unconfirmed" and the input leaves
// testdata (where every later run would replay it), its copy staying in
// the output directory. Otherwise it stays a failure.
func confirmHang(c config, t target, b *binaries, x *run) error {
	cmd := exec.Command("nice", "-n", strconv.Itoa(c.nice), b.fuzz, "-test.run", "^"+t.Name+"$/^"+regexp.QuoteMeta(filepath.Base(x.Reproducer))+"$")
	cmd.Dir = t.Dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	x.ReplaySeconds = d.Seconds()
	if err != nil || d >= hangLimit {
		x.Note = fmt.Sprintf("the replay of the input failed too (%v, %s): a finding\n%s", err, d.Round(time.Millisecond), out)
		return nil
	}
	if err := os.Remove(x.Reproducer); err != nil {
		return err
	}
	x.Status = "unconfirmed"
	x.Note = fmt.Sprintf("the fuzzer reported a hung worker (a call of the fuzz function reaching %s of wall time ends a worker, as starvation at nice %d can on a busy machine); the input, replayed, passed in %s: not a finding. It left testdata; a copy is %s",
		hangLimit, c.nice, d.Round(time.Millisecond), x.Kept)
	return nil
}
