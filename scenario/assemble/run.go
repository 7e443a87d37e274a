package assemble

import (
	"fmt"
	"runtime"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// RunAll runs the scenario once per algorithm, in parallel on up to
// `workers` cores (0 = all), and returns results in the order of names. A
// failing run yields an error in its slot and does not affect the others.
func RunAll(s *scenario.Scenario, names []string, opt Options, workers int, progress func(name string, done bool)) ([]*result.Result, []error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := make([]*result.Result, len(names))
	errs := make([]error, len(names))
	// one graph and one routing table for every run (read only during the
	// runs; issue 19 §2: each run computed its own); the flows stay per run
	g, err := Graph(s)
	if err != nil {
		for i, name := range names {
			errs[i] = fmt.Errorf("%s: %w", name, err)
		}
		return res, errs
	}
	opt.routes = g.NextHops()
	sem := make(chan struct{}, workers)
	done := make(chan int, len(names))
	for i, name := range names {
		go func(i int, name string) {
			sem <- struct{}{}
			defer func() { <-sem; done <- i }()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("%s: internal error: %v", name, p)
				}
			}()
			if progress != nil {
				progress(name, false)
			}
			b, err := buildOn(s, name, opt, g)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", name, err)
				return
			}
			if opt.Progress != nil {
				b.Net.Progress = func(now sim.Time) { opt.Progress(name, now-b.first) }
			}
			res[i] = b.Run()
		}(i, name)
	}
	for range names {
		i := <-done
		if progress != nil {
			progress(names[i], true)
		}
	}
	return res, errs
}
