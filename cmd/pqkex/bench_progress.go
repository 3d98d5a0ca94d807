package main

import (
	"fmt"
	"io"
	"time"
)

// benchProgress shows bench's progress: the step's number out of all,
// what it measures and an estimate of the time left, on one line
// rewritten in place (a terminal) or a line per step (lines).
type benchProgress struct {
	w          io.Writer // nil: show nothing
	lines      bool
	d          time.Duration
	total      int     // steps
	unitsTotal float64 // a step's units: the -time-long figures it measures
	now        func() time.Time

	start     time.Time
	done      int
	unitsDone float64
	cur       float64 // units of the step running
}

// step starts the next step, label, measuring units figures of -time
// each: the previous step is done.
func (p *benchProgress) step(label string, units float64) {
	if p.done == 0 && p.cur == 0 {
		p.start = p.now()
	} else {
		p.done++
		p.unitsDone += p.cur
	}
	p.cur = units
	switch {
	case p.w == nil:
	case p.lines:
		fmt.Fprintf(p.w, "pqkex bench: [%d/%d] %s, %s left\n", p.done+1, p.total, label, p.left())
	default:
		fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s, %s left", p.done+1, p.total, label, p.left())
	}
}

// left estimates the time left: the time per unit so far (before any step
// is done, -time per unit and a third more for calibration), times the
// units left including the running step's.
func (p *benchProgress) left() string {
	per := float64(p.d) * 4 / 3
	if p.unitsDone > 0 {
		per = float64(p.now().Sub(p.start)) / p.unitsDone
	}
	d := time.Duration(per * (p.unitsTotal - p.unitsDone))
	if d < time.Second {
		return "under 1 s"
	}
	if d < time.Minute {
		return fmt.Sprintf("about %d s", int(d.Seconds()+0.5))
	}
	return fmt.Sprintf("about %d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
}

// end clears the line.
func (p *benchProgress) end() {
	if p.w != nil && !p.lines {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
