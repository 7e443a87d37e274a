package assemble

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// Check reads the scenario file at path and checks it as `ccsim run` uses
// it, without simulating: every field (scenario.Parse), the files it
// names, and everything a run builds — the topology graph, the workload's
// flows, the fabric configuration and each algorithm's network (PFC
// headroom, queue ports). It reports every error found at once (as
// scenario.Errors). ccNames, if not nil, replaces the scenario's algorithm
// list (run --cc). `ccsim validate` and `ccsim run` both call it, so that a
// file validate accepts is one run accepts.
func Check(path string, ccNames []string) (*scenario.Scenario, error) {
	return CheckWith(path, ccNames, DefaultLimits())
}

// CheckWith is Check with the size limits lim (estimate.go).
func CheckWith(path string, ccNames []string, lim Limits) (_ *scenario.Scenario, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: internal error checking the scenario: %v", path, p)
		}
	}()
	s, errs, err := scenario.DecodeFile(path)
	if err != nil {
		return nil, err
	}
	if ccNames != nil {
		s.CC = ccNames
	}
	if errs = check(s, errs, lim); len(errs) > 0 {
		return s, errs
	}
	return s, nil
}

// CheckScenario re-validates a parsed scenario and builds everything a run
// builds, as Check does for a file.
func CheckScenario(s *scenario.Scenario) error {
	if errs := check(s, nil, DefaultLimits()); len(errs) > 0 {
		return errs
	}
	return nil
}

// check appends to prior (errors of decoding) the errors of validation,
// of the referenced files and of building, each message once.
func check(s *scenario.Scenario, prior scenario.Errors, lim Limits) scenario.Errors {
	errs := append(prior, s.Validate()...)
	errs = append(errs, checkBuild(s, lim)...)
	return dedupe(errs)
}

// checkBuild builds what a run builds from the sections that passed
// validation, and returns the errors. What would need more memory than
// lim allows is refused before it is built.
func checkBuild(s *scenario.Scenario, lim Limits) scenario.Errors {
	var errs scenario.Errors
	sound := s.Sound()
	var g *topo.Graph
	if sound.Topology {
		var err error
		if g, err = Graph(s); err != nil {
			errs = scenario.AppendError(errs, err)
			g = nil
		}
	}
	big := false
	if g != nil {
		if err := lim.tooBig(estimateGraph(s, g)); err != nil {
			errs, big = append(errs, err), true
		}
	}
	var flows []workload.Flow
	if g != nil && sound.Workload {
		nflows := 0.0
		if it, ok := estimateFlows(s, g); ok {
			nflows = it.bytes / flowBytes
			if err := lim.tooBig(it); err != nil {
				errs, big = append(errs, err), true
			}
		}
		if !big {
			var err error
			if flows, err = Flows(s, g); err != nil {
				errs = scenario.AppendError(errs, err)
			}
			warnLateFlows(s, flows)
			nflows = float64(len(flows))
		}
		for _, it := range estimateSamples(s, nflows) {
			if err := lim.tooBig(it); err != nil {
				errs, big = append(errs, err), true
			}
		}
	}
	if big {
		return errs // building the rest would take the memory refused
	}
	if !sound.Fabric {
		return errs
	}
	cfg := FabricConfig(s)
	if err := cfg.Validate(); err != nil {
		return append(errs, fmt.Errorf("switch/host: %w", err))
	}
	if g == nil {
		return errs
	}
	// one routing table for every network built here (issue 19 §2: each
	// algorithm's network computed its own)
	cfg.Routes = g.NextHops()
	// The network without an algorithm: buffer and headroom, queue ports.
	net, err := newNetwork(s, g, cfg)
	if err != nil {
		return scenario.AppendError(errs, err)
	}
	if _, err := queuePorts(s, net); err != nil {
		errs = scenario.AppendError(errs, err)
	}
	return append(errs, checkAlgorithms(s, g, flows, cfg.Routes)...)
}

// checkAlgorithms builds each algorithm's network: its switch features,
// its reference preset's settings, the recorders. An error every
// algorithm gives is reported once, others name the algorithms.
func checkAlgorithms(s *scenario.Scenario, g *topo.Graph, flows []workload.Flow, routes *topo.Routes) scenario.Errors {
	var order []string
	by := map[string][]string{}
	built := 0
	for _, name := range s.CC {
		if s.ParamsOf(name) == nil {
			continue // unknown algorithm or bad parameters: reported by validate
		}
		built++
		_, err := build(s, name, Options{routes: routes}, g, flows)
		if err == nil {
			continue
		}
		for _, e := range scenario.AppendError(nil, err) {
			m := e.Error()
			if by[m] == nil {
				order = append(order, m)
			}
			by[m] = append(by[m], name)
		}
	}
	var errs scenario.Errors
	for _, m := range order {
		if len(by[m]) == built {
			errs = append(errs, errors.New(m))
		} else {
			errs = append(errs, fmt.Errorf("cc %s: %s", strings.Join(by[m], ", "), m))
		}
	}
	return errs
}

// dedupe drops repeated messages, keeping the first.
func dedupe(errs scenario.Errors) scenario.Errors {
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		if m := e.Error(); !seen[m] {
			seen[m] = true
			out = append(out, e)
		}
	}
	return out
}

// warnLateFlows warns of flows that start at or after the stop time, which
// is stop_ms after the first flow's start (Built.setTimes): they never send
// a byte and count as unfinished (issue 19 §3.10: they passed without a
// word).
func warnLateFlows(s *scenario.Scenario, flows []workload.Flow) {
	start := sim.Never
	for _, f := range flows {
		if !f.HasAfter { // a chained flow's Start is not a start time
			start = min(start, f.Start)
		}
	}
	if start == sim.Never {
		return
	}
	stop := start + scenario.MsTime(s.StopMs)
	late, first := 0, -1
	for i, f := range flows {
		if f.Start >= stop && !f.HasAfter {
			if late++; first < 0 {
				first = i
			}
		}
	}
	if late > 0 {
		s.Warn("workload: %d of %d flows start at or after the stop time, stop_ms = %v after the first start at %v (the first of them: flow %d at %v): they never send and count as unfinished",
			late, len(flows), s.StopMs, start, first, flows[first].Start)
	}
}
