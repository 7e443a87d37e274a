// Package topo describes network topologies as plain graphs and builds them:
// a star (single-switch incast) builder, and import of the reference
// simulator's topology file format. Routing (equal-cost next-hop lists) and
// per-pair path constants (base RTT, bottleneck rate) are computed here so the
// fabric only consumes flat tables.
package topo

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
)

// NodeKind tells hosts from switches.
type NodeKind uint8

const (
	// Host is an end host with one NIC port.
	Host NodeKind = iota
	// Switch is a packet switch.
	Switch
)

// Link is a full-duplex point-to-point link between nodes A and B, with the
// same rate and propagation delay in both directions.
type Link struct {
	A, B    int      // node ids
	Bps     int64    // bandwidth, bits per second
	Delay   sim.Time // one-way propagation delay
	ErrRate float64  // per-packet loss probability (0 = none)
}

// Graph is a topology: nodes identified by dense ids 0..len(Kinds)-1 and links
// in a fixed order. A node's ports are numbered in link order: port k of node
// n is the k-th link (0-based) in Links that touches n. This matches the
// reference simulator's device numbering minus its loopback device.
//
// Names optionally names the nodes (nil, or one distinct non-empty name per
// node), e.g. "H0" or "S1" in the DCON testbed (DCONTestbed); scenario
// files may then refer to nodes by name. Names do not affect simulation.
//
// Domains optionally gives each node the id of its datacenter (nil = every
// node in domain 0), for cross-datacenter topologies: WRCC's INT extension
// carries it (docs/algorithms/wrcc.md) and cross-DC workloads draw hosts by
// domain. Roles optionally tags each node with its role ("host", "tor",
// "agg", "core", "dci", "spine", "leaf", ...; nil = none) so that scenarios
// can give switches of one role their own settings (buffer, PFC) and
// switch features can act only at some roles (BiCC at the DCI switches).
type Graph struct {
	Kinds   []NodeKind
	Links   []Link
	Names   []string
	Domains []uint16
	Roles   []string
}

// Domain returns the datacenter id of node id (0 without Domains).
func (g *Graph) Domain(id int) uint16 {
	if id < 0 || id >= len(g.Domains) {
		return 0
	}
	return g.Domains[id]
}

// Role returns the role of node id, or "" if it has none.
func (g *Graph) Role(id int) string {
	if id < 0 || id >= len(g.Roles) {
		return ""
	}
	return g.Roles[id]
}

// NodesWithRole returns the ids of the nodes whose role is role, ascending.
func (g *Graph) NodesWithRole(role string) []int {
	var ids []int
	for i, r := range g.Roles {
		if r == role {
			ids = append(ids, i)
		}
	}
	return ids
}

// NumNodes returns the number of nodes.
func (g *Graph) NumNodes() int { return len(g.Kinds) }

// Hosts returns the ids of all hosts in ascending order.
func (g *Graph) Hosts() []int {
	var hs []int
	for i, k := range g.Kinds {
		if k == Host {
			hs = append(hs, i)
		}
	}
	return hs
}

// PortRef describes one port of a node: the link it attaches to and what is
// at the other end of that link.
type PortRef struct {
	Link     int // index into Graph.Links
	Peer     int // node id at the other end
	PeerPort int // port index of this link at Peer
}

// Ports returns, for every node, its ports in order: port k of node n is the
// k-th link (0-based, in Links order) that touches n. The reference
// simulator numbers the same ports from 1 because device 0 is a loopback.
func (g *Graph) Ports() [][]PortRef {
	ports := make([][]PortRef, len(g.Kinds))
	for i, l := range g.Links {
		pa := len(ports[l.A])
		pb := len(ports[l.B])
		if l.A == l.B {
			pb = pa + 1
		}
		ports[l.A] = append(ports[l.A], PortRef{Link: i, Peer: l.B, PeerPort: pb})
		ports[l.B] = append(ports[l.B], PortRef{Link: i, Peer: l.A, PeerPort: pa})
	}
	return ports
}

// NodeByName returns the id of the node called name, and whether there is
// one.
func (g *Graph) NodeByName(name string) (int, bool) {
	if name == "" {
		return 0, false
	}
	for i, s := range g.Names {
		if s == name {
			return i, true
		}
	}
	return 0, false
}

// Name returns the name of node id, or "" if it has none.
func (g *Graph) Name(id int) string {
	if id < 0 || id >= len(g.Names) {
		return ""
	}
	return g.Names[id]
}

// Validate checks that every link joins two distinct existing nodes, has a
// positive rate, a non-negative delay and an error rate in [0, 1], and
// that Names, if set, gives every node a distinct non-empty name.
func (g *Graph) Validate() error {
	n := len(g.Kinds)
	if g.Names != nil {
		if len(g.Names) != n {
			return fmt.Errorf("topo: %d names for %d nodes", len(g.Names), n)
		}
		seen := make(map[string]int, n)
		for i, s := range g.Names {
			if s == "" {
				return fmt.Errorf("topo: node %d: empty name", i)
			}
			if j, dup := seen[s]; dup {
				return fmt.Errorf("topo: nodes %d and %d are both named %q", j, i, s)
			}
			seen[s] = i
		}
	}
	if g.Domains != nil && len(g.Domains) != n {
		return fmt.Errorf("topo: %d domains for %d nodes", len(g.Domains), n)
	}
	if g.Roles != nil && len(g.Roles) != n {
		return fmt.Errorf("topo: %d roles for %d nodes", len(g.Roles), n)
	}
	for i, k := range g.Kinds {
		if k != Host && k != Switch {
			return fmt.Errorf("topo: node %d: unknown kind %d", i, k)
		}
	}
	for i, l := range g.Links {
		switch {
		case l.A < 0 || l.A >= n:
			return fmt.Errorf("topo: link %d: node %d out of range [0, %d)", i, l.A, n)
		case l.B < 0 || l.B >= n:
			return fmt.Errorf("topo: link %d: node %d out of range [0, %d)", i, l.B, n)
		case l.A == l.B:
			return fmt.Errorf("topo: link %d: self link on node %d", i, l.A)
		case l.Bps <= 0:
			return fmt.Errorf("topo: link %d: rate %d b/s is not positive", i, l.Bps)
		case l.Delay < 0:
			return fmt.Errorf("topo: link %d: negative delay %v", i, l.Delay)
		case !(l.ErrRate >= 0 && l.ErrRate <= 1):
			return fmt.Errorf("topo: link %d: error rate %v not in [0, 1]", i, l.ErrRate)
		}
	}
	return nil
}

// Star builds a single-switch topology: hosts 0..hosts-1, one switch with id
// hosts, and one link per host (host i to the switch, in host order), each
// with rate bps and one-way propagation delay delay. Star(21, 100e9,
// 1000*sim.Nanosecond) is the reference incast20 topology. It panics if
// hosts < 1.
func Star(hosts int, bps int64, delay sim.Time) *Graph {
	if hosts < 1 {
		panic("topo: Star needs at least one host")
	}
	g := &Graph{Kinds: make([]NodeKind, hosts+1), Links: make([]Link, hosts)}
	g.Kinds[hosts] = Switch
	for i := range hosts {
		g.Links[i] = Link{A: i, B: hosts, Bps: bps, Delay: delay}
	}
	return g
}
