package env

import (
	"errors"
	"iter"
)

// ErrClosed is the error of an episode whose Stepper was closed before
// the episode's end.
var ErrClosed = errors.New("env: stepper closed before the episode's end")

// Decision is a flow's boundary waiting for its action (Stepper.Next).
type Decision struct {
	Flow int
	// Window is the flow's window of observations (History × ObsDim,
	// oldest first), valid until the next call of Next.
	Window []float64
	// Prev is the index in Stepper.T of the flow's transition recorded at
	// this boundary (its reward is T.Rew[Prev]), −1 at its first one.
	Prev int
}

// Stepper runs one episode step by step, for a learner that drives the
// loop itself: Next runs the simulation to the next boundary of any flow
// and returns it, Act sets that flow's action, the next Next applies it
// and continues (docs/env.md §2.2). The simulation runs in a coroutine
// (iter.Pull); a Stepper is for one goroutine.
type Stepper struct {
	next   func() (Decision, bool)
	stop   func()
	act    float64
	last   []int // per flow: its transition recorded at the current boundary
	t      *Transitions
	ep     *Episode
	err    error
	closed bool
}

// Stepper starts episode k (seed Seed + k); nothing runs before the first
// Next.
func (e *Env) Stepper(k int) *Stepper {
	s := &Stepper{}
	s.next, s.stop = iter.Pull(func(yield func(Decision) bool) {
		s.ep, s.err = e.Episode(k, &stepPolicy{s: s, yield: yield})
	})
	return s
}

// stepPolicy hands each decision to the Stepper's caller.
type stepPolicy struct {
	s       *Stepper
	yield   func(Decision) bool
	stopped bool
}

func (p *stepPolicy) Recorded(t *Transitions, i int) {
	s := p.s
	s.t = t
	f := int(t.Flow[i])
	for len(s.last) <= f {
		s.last = append(s.last, -1)
	}
	s.last[f] = i
}

func (p *stepPolicy) Act(flow int, window []float64, out []float64) error {
	if p.stopped {
		return ErrClosed
	}
	s := p.s
	prev := -1
	if flow < len(s.last) {
		prev, s.last[flow] = s.last[flow], -1
	}
	if !p.yield(Decision{Flow: flow, Window: window, Prev: prev}) {
		p.stopped = true
		return ErrClosed
	}
	out[0] = s.act
	return nil
}

// Next runs to the next decision; false when the episode ended (then
// Episode returns it).
func (s *Stepper) Next() (Decision, bool) {
	if s.closed {
		return Decision{}, false
	}
	d, ok := s.next()
	if !ok {
		s.closed = true
	}
	return d, ok
}

// Act sets the action of the decision the last Next returned (the
// default, if Act is not called, is the previous decision's action).
func (s *Stepper) Act(a float64) { s.act = a }

// T is the episode's transitions so far (nil before the first is
// recorded).
func (s *Stepper) T() *Transitions { return s.t }

// Close ends the stepping: the rest of the episode runs without
// decisions (the fabric cannot stop mid-run) and Episode returns
// ErrClosed if it had not ended.
func (s *Stepper) Close() {
	s.closed = true
	s.stop()
}

// Episode returns the finished episode (after Next returned false or
// Close).
func (s *Stepper) Episode() (*Episode, error) {
	if !s.closed {
		return nil, errors.New("env: stepper: episode still running (call Next until false, or Close)")
	}
	return s.ep, s.err
}
