package env

import (
	"fmt"
	"sync"
)

// Batch is the outcome of K environments: their episodes in environment
// order and their transitions merged in that order.
type Batch struct {
	Episodes []*Episode
	T        Transitions
}

// Run runs K episodes of e (environment k with seed Seed + k) on workers
// goroutines (0 = 1), each environment with its own policy from
// newPolicy(k), built before any episode starts, so that a policy's state
// (e.g. an exploration noise source seeded from k) does not depend on which
// worker runs it. The transitions merge in environment order: the result is
// the same, bit for bit, for any number of workers (docs/env.md §6). The
// policies must not share mutable state (a frozen network is shared safely
// only if its Act keeps no scratch: give each environment its own copy).
func (e *Env) Run(k, workers int, newPolicy func(k int) (Policy, error)) (*Batch, error) {
	if k < 1 || k > 1<<16 {
		return nil, fmt.Errorf("env: run: k = %d out of range [1, 65536]", k)
	}
	if workers < 0 || workers > 1024 {
		return nil, fmt.Errorf("env: run: workers = %d out of range [1, 1024] (0 = 1)", workers)
	}
	if newPolicy == nil {
		return nil, fmt.Errorf("env: run: nil policy constructor")
	}
	workers = min(max(1, workers), k)
	pols := make([]Policy, k)
	for i := range pols {
		p, err := newPolicy(i)
		if err != nil {
			return nil, fmt.Errorf("env: run: policy %d: %w", i, err)
		}
		pols[i] = p
	}
	eps := make([]*Episode, k)
	errs := make([]error, k)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				eps[i], errs[i] = e.Episode(i, pols[i])
			}
		}()
	}
	for i := range k {
		next <- i
	}
	close(next)
	wg.Wait()
	b := &Batch{Episodes: eps, T: Transitions{ObsDim: e.obsDim}}
	for i, ep := range eps {
		if errs[i] != nil {
			return nil, fmt.Errorf("env: run: environment %d: %w", i, errs[i])
		}
		if err := b.T.Append(&ep.T); err != nil {
			return nil, err
		}
	}
	return b, nil
}
