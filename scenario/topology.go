package scenario

import (
	"fmt"
	"slices"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// The graphs the topology section describes by parameters. Validation
// builds the graph of a named kind to resolve node names against it;
// assemble.Graph builds the run's graph (and reads kind ns3's file).

// NsTime converts a scenario field in nanoseconds to simulated time,
// rounded to the nearest picosecond.
func NsTime(ns float64) sim.Time { return sim.Time(ns*float64(sim.Nanosecond) + 0.5) }

// UsTime converts a scenario field in microseconds to simulated time,
// rounded to the nearest picosecond.
func UsTime(us float64) sim.Time { return sim.Time(us*float64(sim.Microsecond) + 0.5) }

// MsTime converts a scenario field in milliseconds to simulated time,
// rounded to the nearest picosecond.
func MsTime(ms float64) sim.Time { return sim.Time(ms*float64(sim.Millisecond) + 0.5) }

// Generate builds the graph of a kind given by parameters: every kind but
// ns3, whose graph is a file. topology.host_links are not applied
// (assemble.Graph applies them).
func (t *Topology) Generate() (*topo.Graph, error) {
	hb, fb, hd, fd := t.linkParams()
	switch t.Kind {
	case "star":
		return topo.Star(t.Hosts, int64(t.LinkGbps*1e9), NsTime(t.LinkDelayNs)), nil
	case "leaf_spine":
		return topo.LeafSpine(t.LeafSpine())
	case "fat_tree":
		return topo.FatTree(topo.FatTreeParams{K: t.K, HostsPerEdge: t.HostsPerEdge, HostBps: hb, FabricBps: fb, Delay: hd})
	case "dcon_testbed":
		g, _, err := topo.DCONTestbed(topo.DCONTestbedParams{HostBps: hb, FabricBps: fb, HostDelay: hd, FabricDelay: fd})
		return g, err
	case "cross_dc":
		return topo.CrossDC(t.crossDCTopoParams())
	case "two_site":
		return topo.TwoSite(t.twoSiteParams())
	case "fat320":
		p := topo.RefFat320Params()
		if t.FabricGbps != nil {
			p.FabricBps = fb
		}
		p.HostBps = hb
		p.HostDelay, p.FabricDelay = hd, fd
		return topo.HPCCFatTree(p)
	}
	return nil, fmt.Errorf("topology.kind %q unknown", t.Kind)
}

// linkParams returns the host and fabric link rates and delays of the
// topology section.
func (t *Topology) linkParams() (hb, fb int64, hd, fd sim.Time) {
	hb = int64(t.LinkGbps * 1e9)
	fb = hb
	if t.FabricGbps != nil {
		fb = int64(*t.FabricGbps * 1e9)
	}
	hd = NsTime(t.LinkDelayNs)
	fd = hd
	if t.FabricDelayNs != nil {
		fd = NsTime(*t.FabricDelayNs)
	}
	return hb, fb, hd, fd
}

// LeafSpine returns the builder parameters of kind leaf_spine (also what
// converts workload.poisson.core_load to a per-host load).
func (t *Topology) LeafSpine() topo.LeafSpineParams {
	hb, fb, hd, fd := t.linkParams()
	return topo.LeafSpineParams{Spines: t.Spines, Leaves: t.Leaves, HostsPerLeaf: t.HostsPerLeaf,
		HostBps: hb, FabricBps: fb, HostDelay: hd, FabricDelay: fd}
}

// namedGraph builds the graph of a named topology kind (no host_links:
// they are resolved against it) when the topology section's fields are
// valid; it returns nil for the other kinds. ok is false when the kind
// names its nodes but the graph was not built (invalid fields, reported
// by validation, or the builder's error, appended to errs).
func (s *Scenario) namedGraph(valid bool, errs *Errors) (g *topo.Graph, ok bool) {
	if !slices.Contains(namedKinds, s.Topology.Kind) {
		return nil, true
	}
	if !valid {
		return nil, false
	}
	g, err := s.Topology.Generate()
	if err != nil {
		*errs = AppendError(*errs, err)
		return nil, false
	}
	return g, true
}
