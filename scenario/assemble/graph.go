package assemble

import (
	"fmt"
	"os"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/topo"
)

// Graph builds the scenario's topology, with topology.host_links applied.
func Graph(s *scenario.Scenario) (*topo.Graph, error) {
	g, err := baseGraph(s)
	if err != nil {
		return nil, err
	}
	return g, applyHostLinks(s, g)
}

// applyHostLinks sets the rate and delay of the links of the hosts listed
// in topology.host_links.
func applyHostLinks(s *scenario.Scenario, g *topo.Graph) error {
	for i, hl := range s.Topology.HostLinks {
		for j, hid := range hl.Hosts {
			h := int(hid)
			if h < 0 || h >= g.NumNodes() || g.Kinds[h] != topo.Host {
				return fmt.Errorf("topology.host_links[%d].hosts[%d] = %d is not a host of the topology (%d nodes)", i, j, h, g.NumNodes())
			}
			for li := range g.Links {
				l := &g.Links[li]
				if l.A != h && l.B != h {
					continue
				}
				if hl.Gbps != nil {
					l.Bps = int64(*hl.Gbps * 1e9)
				}
				if hl.DelayNs != nil {
					l.Delay = scenario.NsTime(*hl.DelayNs)
				}
			}
		}
	}
	return nil
}

// baseGraph builds the topology section's graph: kind ns3's file, or the
// graph of the kind's parameters.
func baseGraph(s *scenario.Scenario) (*topo.Graph, error) {
	t := &s.Topology
	if t.Kind != "ns3" {
		return t.Generate()
	}
	f, err := os.Open(s.Resolve(t.File))
	if err != nil {
		return nil, fmt.Errorf("topology.file: %w", err)
	}
	defer f.Close()
	g, err := topo.ReadNS3(f)
	if err != nil {
		return nil, fmt.Errorf("topology.file %s: %w", t.File, err)
	}
	return g, nil
}
