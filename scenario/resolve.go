package scenario

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/ccsim/ccsim/workload"
)

// ParseIn parses a scenario document whose relative paths are relative to
// dir (as Load does for a file in dir) and checks that its files exist.
func ParseIn(data []byte, dir string) (*Scenario, error) {
	s, err := Parse(data)
	if s != nil {
		s.dir = dir
	}
	if err != nil {
		return s, err
	}
	if err := s.checkFiles(); err != nil {
		return s, err
	}
	return s, nil
}

// InputFiles lists the files the scenario reads (topology file, flow file,
// CDF files), as written in the scenario, and resolved against its
// directory.
func (s *Scenario) InputFiles() (names, paths []string) {
	add := func(n string) {
		if n == "" {
			return
		}
		names = append(names, n)
		paths = append(paths, s.path(n))
	}
	if s.Topology.Kind == "ns3" {
		add(s.Topology.File)
	}
	if s.Workload.File != "" {
		add(s.Workload.File)
	}
	cdf := func(name string) {
		if name == "" {
			return
		}
		if _, err := workload.BuiltinCDF(name); err != nil {
			add(name)
		}
	}
	if p := s.Workload.Poisson; p != nil {
		cdf(p.CDF)
	}
	if p := s.Workload.LongShort; p != nil {
		cdf(p.ShortCDF)
	}
	return names, paths
}

// Resolved returns the scenario as YAML after defaults, restricted to one
// algorithm whose parameters are written out in full (`params: {cc:
// {every parameter}}`). It parses back to the same scenario, so it is
// both the exact record of a run's inputs and a runnable file.
func (s *Scenario) Resolved(cc string) ([]byte, error) {
	p := s.ccParams[cc]
	if p == nil {
		return nil, fmt.Errorf("scenario: algorithm %q is not in the scenario's cc list", cc)
	}
	var node yaml.Node
	if err := node.Encode(p); err != nil {
		return nil, err
	}
	c := *s
	c.CC = []string{cc}
	c.Params = map[string]yaml.Node{cc: node}
	return yaml.Marshal(&c)
}
