package topo

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
)

// The DCON testbed (topology T4 of docs/papers.md §7.1; paper 003's E0–E2,
// §5.3): a leaf-spine of three leaves L0, L1, L2 and two spines S0, S1,
// every leaf with one link to each spine; senders H0–H7 on L0 and H8–H15 on
// L1, receivers R0 and R1 on L2; 40 Gb/s and 5 µs per link, so the base RTT
// host–leaf–spine–leaf–host is 8 × 5 µs = 40 µs (plus serialization).
//
// It is LeafSpine with Spines 2, Leaves 3 and LeafHosts {8, 8, 2}, so the
// numbering is LeafSpine's, fixed here as part of the API:
//
//	node  0–15  H0–H15  (H0–H7 on L0, H8–H15 on L1)
//	node 16, 17 R0, R1  (on L2)
//	node 18–20  L0, L1, L2
//	node 21, 22 S0, S1
//
// Ports (Graph.Ports order): a host's port 0 is its leaf. L0 and L1: ports
// 0–7 are their hosts in id order (Hi is port i of L0, H(8+i) port i of
// L1), port 8 faces S0, port 9 faces S1. L2: port 0 is R0, port 1 R1, port
// 2 faces S0, port 3 faces S1. S0 and S1: port l faces leaf Ll (0, 1, 2).
// Links: the 18 host links in host order, then L0–S0, L0–S1, L1–S0, L1–S1,
// L2–S0, L2–S1. The nodes are named (Graph.Names) "H0".."H15", "R0", "R1",
// "L0".."L2", "S0", "S1".

// DCONTestbedParams sets the link rates and delays of the DCON testbed.
type DCONTestbedParams struct {
	HostBps     int64    // host–leaf links, b/s, in [1, 1e14]
	FabricBps   int64    // leaf–spine links, b/s, in [1, 1e14]
	HostDelay   sim.Time // host–leaf one-way delay, in [0, 10 s]
	FabricDelay sim.Time // leaf–spine one-way delay, in [0, 10 s]
}

// DefaultDCONTestbedParams returns the testbed's links: 40 Gb/s and 5 µs
// everywhere.
func DefaultDCONTestbedParams() DCONTestbedParams {
	return DCONTestbedParams{HostBps: 40e9, FabricBps: 40e9, HostDelay: 5 * sim.Microsecond, FabricDelay: 5 * sim.Microsecond}
}

// NodePort names one port: a node id and a port index at that node (see
// Graph.Ports). Its egress queue holds what the node sends over that link.
type NodePort struct {
	Node, Port int
}

// DCONTestbedIDs holds the node ids and the sampled ports of the DCON
// testbed. The values are constants (see the numbering above); they come in
// a struct so that experiments name them instead of repeating numbers.
type DCONTestbedIDs struct {
	H [16]int // senders H0–H15: nodes 0–15
	R [2]int  // receivers R0, R1: nodes 16, 17
	L [3]int  // leaves L0, L1, L2: nodes 18, 19, 20
	S [2]int  // spines S0, S1: nodes 21, 22

	// The ports paper 003 samples (E0, E1):
	//
	// P2L2 ("P2/L2") is L2's port to R1, {20, 1}: its egress queue is R1's
	// downlink, where the burst to R1 converges.
	P2L2 NodePort
	// P1L2 ("P1/L2") is L2's port on the L2–S1 link, {20, 3}: its egress
	// queue holds what L2 sends to S1, and its ingress receives from S1
	// (the paper's "P1/L2 ingress from S1"; PFC pauses L2 sends upstream
	// to S1 leave through this port).
	P1L2 NodePort
	// P0S1 ("P0/S1") is S1's port towards L2, {22, 2}: its egress queue
	// holds the traffic crossing S1 to L2 (f0, f1 pinned via S1).
	P0S1 NodePort
}

// DCONTestbedNodes returns the testbed's ids and ports (no graph built).
func DCONTestbedNodes() DCONTestbedIDs {
	var ids DCONTestbedIDs
	for i := range ids.H {
		ids.H[i] = i
	}
	ids.R = [2]int{16, 17}
	ids.L = [3]int{18, 19, 20}
	ids.S = [2]int{21, 22}
	ids.P2L2 = NodePort{Node: 20, Port: 1}
	ids.P1L2 = ids.LeafUplink(2, 1)
	ids.P0S1 = ids.SpineDownlink(1, 2)
	return ids
}

// dconLeafHosts is the host count of L0, L1, L2.
var dconLeafHosts = [3]int{8, 8, 2}

// LeafUplink returns leaf Lleaf's port facing spine Sspine (leaf in 0..2,
// spine in 0..1): {L0|L1, 8+spine} or {L2, 2+spine}. It panics on other
// indices.
func (ids DCONTestbedIDs) LeafUplink(leaf, spine int) NodePort {
	if leaf < 0 || leaf > 2 || spine < 0 || spine > 1 {
		panic(fmt.Sprintf("topo: DCON testbed has no leaf %d / spine %d", leaf, spine))
	}
	return NodePort{Node: 18 + leaf, Port: dconLeafHosts[leaf] + spine}
}

// SpineDownlink returns spine Sspine's port facing leaf Lleaf: {S, leaf}.
// It panics on other indices.
func (ids DCONTestbedIDs) SpineDownlink(spine, leaf int) NodePort {
	if leaf < 0 || leaf > 2 || spine < 0 || spine > 1 {
		panic(fmt.Sprintf("topo: DCON testbed has no spine %d / leaf %d", spine, leaf))
	}
	return NodePort{Node: 21 + spine, Port: leaf}
}

// HostDownlink returns the leaf port facing host node h (0–17; H0–H15,
// R0 = 16, R1 = 17). It panics on other ids.
func (ids DCONTestbedIDs) HostDownlink(h int) NodePort {
	switch {
	case h >= 0 && h < 8:
		return NodePort{Node: 18, Port: h}
	case h >= 8 && h < 16:
		return NodePort{Node: 19, Port: h - 8}
	case h == 16 || h == 17:
		return NodePort{Node: 20, Port: h - 16}
	}
	panic(fmt.Sprintf("topo: DCON testbed has no host %d", h))
}

// DCONTestbedNames returns the node names, indexed by node id: "H0".."H15",
// "R0", "R1", "L0", "L1", "L2", "S0", "S1".
func DCONTestbedNames() []string {
	names := make([]string, 0, 23)
	for i := range 16 {
		names = append(names, fmt.Sprintf("H%d", i))
	}
	return append(names, "R0", "R1", "L0", "L1", "L2", "S0", "S1")
}

// Validate checks the parameters; the errors name each offending parameter
// (as dcon_testbed.<snake_case name>) and its allowed range.
func (p DCONTestbedParams) Validate() error {
	e := &paramErrs{prefix: "dcon_testbed"}
	e.bps("host_bps", p.HostBps)
	e.bps("fabric_bps", p.FabricBps)
	e.delay("host_delay", p.HostDelay)
	e.delay("fabric_delay", p.FabricDelay)
	return e.err()
}

// LeafSpine returns the testbed as leaf-spine parameters (Spines 2, Leaves
// 3, LeafHosts {8, 8, 2}).
func (p DCONTestbedParams) LeafSpine() LeafSpineParams {
	return LeafSpineParams{Spines: 2, Leaves: 3, LeafHosts: dconLeafHosts[:],
		HostBps: p.HostBps, FabricBps: p.FabricBps, HostDelay: p.HostDelay, FabricDelay: p.FabricDelay}
}

// DCONTestbed builds the DCON testbed (T4) with named nodes, and returns
// its ids and sampled ports (DCONTestbedNodes).
func DCONTestbed(p DCONTestbedParams) (*Graph, DCONTestbedIDs, error) {
	if err := p.Validate(); err != nil {
		return nil, DCONTestbedIDs{}, err
	}
	g, err := LeafSpine(p.LeafSpine())
	if err != nil {
		return nil, DCONTestbedIDs{}, err
	}
	g.Names = DCONTestbedNames()
	return g, DCONTestbedNodes(), nil
}
