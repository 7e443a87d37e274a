package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// Check reads the scenario file at path and checks it as `ccsim run` uses
// it, without simulating: every field (Parse), the files it names, and
// everything a run builds — the topology graph, the workload's flows, the
// fabric configuration and each algorithm's network (PFC headroom, queue
// ports). It reports every error found at once (as Errors). ccNames, if
// not nil, replaces the scenario's algorithm list (run --cc). `ccsim
// validate` and `ccsim run` both call it, so that a file validate accepts is
// one run accepts.
func Check(path string, ccNames []string) (_ *Scenario, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: internal error checking the scenario: %v", path, p)
		}
	}()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, errs, err := safeDecode(data)
	if err != nil {
		if errors.Is(err, errParserPanic) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	s.dir = filepath.Dir(path)
	if ccNames != nil {
		s.CC = ccNames
	}
	if errs = s.check(errs); len(errs) > 0 {
		return s, errs
	}
	return s, nil
}

// Check re-validates a parsed scenario and builds everything a run builds,
// as the function Check does for a file.
func (s *Scenario) Check() error {
	if errs := s.check(nil); len(errs) > 0 {
		return errs
	}
	return nil
}

// check appends to prior (errors of decoding) the errors of validation,
// of the referenced files and of building.
func (s *Scenario) check(prior Errors) Errors {
	errs := append(prior, s.validate()...)
	if err := s.checkFiles(); err != nil {
		errs = appendErr(errs, err)
	}
	errs = append(errs, s.checkBuild()...)
	return dedupe(errs)
}

// checkBuild builds what a run builds from the sections that passed
// validation, and returns the errors.
func (s *Scenario) checkBuild() Errors {
	var errs Errors
	var g *topo.Graph
	if s.sound.topology {
		var err error
		if g, err = s.Graph(); err != nil {
			errs = appendErr(errs, err)
			g = nil
		}
	}
	var flows []workload.Flow
	if g != nil && s.sound.workload {
		var err error
		if flows, err = s.Flows(g); err != nil {
			errs = appendErr(errs, err)
		}
	}
	if !s.sound.fabric {
		return errs
	}
	cfg := s.FabricConfig()
	if err := cfg.Validate(); err != nil {
		return append(errs, fmt.Errorf("switch/host: %w", err))
	}
	if g == nil {
		return errs
	}
	// The network without an algorithm: buffer and headroom, queue ports.
	net, err := s.newNetwork(g, cfg)
	if err != nil {
		return appendErr(errs, err)
	}
	if _, err := s.queuePorts(net); err != nil {
		errs = appendErr(errs, err)
	}
	// Each algorithm's network: its switch features, its reference preset's
	// settings, the queue ports. An error every algorithm gives is
	// reported once, others name the algorithms.
	var order []string
	by := map[string][]string{}
	built := 0
	for _, name := range s.CC {
		if s.ccParams[name] == nil {
			continue // unknown algorithm or bad parameters: reported by validate
		}
		built++
		_, err := s.build(name, RunOptions{}, g, flows)
		if err == nil {
			continue
		}
		for _, e := range appendErr(nil, err) {
			m := e.Error()
			if by[m] == nil {
				order = append(order, m)
			}
			by[m] = append(by[m], name)
		}
	}
	for _, m := range order {
		if len(by[m]) == built {
			errs = append(errs, errors.New(m))
		} else {
			errs = append(errs, fmt.Errorf("cc %s: %s", strings.Join(by[m], ", "), m))
		}
	}
	return errs
}

// appendErr appends err, flattened if it is an Errors.
func appendErr(errs Errors, err error) Errors {
	var list Errors
	if errors.As(err, &list) {
		for _, e := range list {
			errs = appendErr(errs, e)
		}
		return errs
	}
	return append(errs, err)
}

// dedupe drops repeated messages, keeping the first.
func dedupe(errs Errors) Errors {
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
