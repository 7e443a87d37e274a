package scenario

import (
	"fmt"

	"github.com/ccsim/ccsim/topo"
)

// validateTopology checks the topology section, builds the graph of a
// named kind to resolve node names against (returned; nil for the other
// kinds or when it could not be built) and records whether the section
// is sound.
func (s *Scenario) validateTopology(errs *Errors) *topo.Graph {
	n := len(*errs)
	t := &s.Topology
	s.validateTopologyKind(errs)
	s.validateLongHaulKinds(errs)
	t.validateHostLinks(errs)
	t.validateLinks(errs)
	// node names resolve against the graph the section builds
	named, known := s.namedGraph(len(*errs) == n, errs)
	s.nodeNames, s.namesKnown = nil, known
	if named != nil {
		s.nodeNames = named.Names
	}
	badNodes := s.resolveNames(&t.HostLinks, "topology.host_links", errs)
	s.sound.Topology = len(*errs) == n && !badNodes
	return named
}

// validateTopologyKind checks the kind and the shape fields it takes
// (cross_dc and two_site: validateLongHaulKinds).
func (s *Scenario) validateTopologyKind(errs *Errors) {
	t := &s.Topology
	switch t.Kind {
	case "star":
		// routing tables are nodes × hosts entries: 4096 hosts ≈ 134 MB
		if t.Hosts < 2 || t.Hosts > 4096 {
			*errs = append(*errs, fmt.Errorf("topology.hosts = %d out of range [2, 4096]", t.Hosts))
		}
		if t.File != "" {
			*errs = append(*errs, fmt.Errorf("topology.file is only valid with kind ns3"))
		}
	case "ns3":
		if t.File == "" {
			*errs = append(*errs, fmt.Errorf("topology.file is required with kind ns3"))
		}
	case "leaf_spine":
		rangef(errs, "topology.spines", float64(t.Spines), 1, 4096)
		rangef(errs, "topology.leaves", float64(t.Leaves), 1, 4096)
		rangef(errs, "topology.hosts_per_leaf", float64(t.HostsPerLeaf), 1, 4096)
		if t.Leaves*t.HostsPerLeaf > 8192 {
			*errs = append(*errs, fmt.Errorf("topology: leaves × hosts_per_leaf = %d hosts out of range [1, 8192]", t.Leaves*t.HostsPerLeaf))
		}
	case "fat_tree":
		if t.K < 2 || t.K > 32 || t.K%2 != 0 {
			*errs = append(*errs, fmt.Errorf("topology.k = %d: must be even, in [2, 32]", t.K))
		}
		if t.HostsPerEdge != 0 {
			rangef(errs, "topology.hosts_per_edge", float64(t.HostsPerEdge), 1, 512)
		}
	case "fat320":
	case "cross_dc", "two_site":
		// validateLongHaulKinds
	case "dcon_testbed":
		for _, f := range t.shapeFields() {
			if f.v != 0 {
				*errs = append(*errs, fmt.Errorf("topology.%s = %d: kind dcon_testbed has a fixed shape (3 leaves, 2 spines, 8 + 8 + 2 hosts); set only the link rates and delays", f.name, f.v))
			}
		}
		if t.File != "" {
			*errs = append(*errs, fmt.Errorf("topology.file is only valid with kind ns3"))
		}
	default:
		*errs = append(*errs, fmt.Errorf("topology.kind = %q: allowed values star, ns3, leaf_spine, fat_tree, fat320, dcon_testbed, cross_dc, two_site", t.Kind))
	}
}

// shapeField is one integer shape field of the topology section.
type shapeField struct {
	name string
	v    int
}

// shapeFields lists the shape fields of the generic kinds, which the kinds
// of a fixed or own shape (dcon_testbed, cross_dc, two_site) reject.
func (t *Topology) shapeFields() []shapeField {
	return []shapeField{{"hosts", t.Hosts}, {"spines", t.Spines}, {"leaves", t.Leaves}, {"hosts_per_leaf", t.HostsPerLeaf}, {"k", t.K}, {"hosts_per_edge", t.HostsPerEdge}}
}

// validateHostLinks checks topology.host_links (their hosts are resolved
// by validateTopology).
func (t *Topology) validateHostLinks(errs *Errors) {
	for i, hl := range t.HostLinks {
		f := fmt.Sprintf("topology.host_links[%d]", i)
		if len(hl.Hosts) == 0 {
			*errs = append(*errs, fmt.Errorf("%s.hosts: at least one host is required", f))
		}
		if hl.Gbps != nil {
			rangef(errs, f+".gbps", *hl.Gbps, 0.001, 10_000)
		}
		if hl.DelayNs != nil {
			rangef(errs, f+".delay_ns", *hl.DelayNs, 0, 1e9)
		}
		if hl.Gbps == nil && hl.DelayNs == nil {
			*errs = append(*errs, fmt.Errorf("%s: set gbps and/or delay_ns", f))
		}
	}
}

// validateLinks checks the link rates and delays of the section.
func (t *Topology) validateLinks(errs *Errors) {
	if t.FabricGbps != nil {
		rangef(errs, "topology.fabric_gbps", *t.FabricGbps, 0.001, 10_000)
	}
	if t.FabricDelayNs != nil {
		rangef(errs, "topology.fabric_delay_ns", *t.FabricDelayNs, 0, 1e9)
	}
	rangef(errs, "topology.link_gbps", t.LinkGbps, 0.001, 10_000)
	rangef(errs, "topology.link_delay_ns", t.LinkDelayNs, 0, 1e9)
}
