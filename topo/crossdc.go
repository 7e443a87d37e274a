package topo

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
)

// Cross-datacenter topologies of paper 002 (WRCC): T6, two fat-tree
// datacenters joined by their DCI switches over a long-haul link (the
// large-scale simulations, §4.1.1), and T7, the prototype's two sites over
// 640 km of fibre and its single-switch short-distance variant (§4.2).
// Both set Names, Domains (datacenter 1 and 2) and Roles.

// Node roles set by the builders (Graph.Roles).
const (
	RoleHost = "host"
	RoleToR  = "tor"
	RoleAgg  = "agg"
	RoleCore = "core"
	RoleDCI  = "dci"
)

// CrossDCParams describes T6: two datacenters A (domain 1) and B (domain
// 2), each a pod Clos in the layout of HPCCFatTree (Pods pods of ToRsPerPod
// ToRs and AggsPerPod aggregation switches, every ToR linked to every
// aggregation switch of its pod, aggregation switch j of every pod linked
// to the CoresPerAgg cores of core group j), one DCI switch per datacenter
// linked to every core of it, and the long haul DCI_A – DCI_B.
type CrossDCParams struct {
	Pods        int // pods per datacenter, in [1, 64]
	ToRsPerPod  int // ToRs per pod, in [1, 64]
	AggsPerPod  int // aggregation switches per pod, in [1, 64]
	CoresPerAgg int // cores per core group, in [1, 64]; cores per DC = AggsPerPod × CoresPerAgg
	HostsPerToR int // hosts per ToR, in [1, 512]

	HostBps   int64    // host–ToR links, b/s, in [1, 1e14]
	HostDelay sim.Time // host–ToR one-way delay, in [0, 10 s]
	// FabricBps and FabricDelay are the ToR–aggregation and
	// aggregation–core links.
	FabricBps   int64
	FabricDelay sim.Time
	// DCIBps and DCIDelay are the core–DCI links.
	DCIBps   int64
	DCIDelay sim.Time
	// LongHaulBps and LongHaulDelay are the DCI_A – DCI_B link.
	LongHaulBps   int64
	LongHaulDelay sim.Time
	// LongHaulLinks is the number of DCI–DCI links; only 1 is accepted
	// (0 means 1): routing keeps only the last of parallel links between
	// two nodes (see LeafSpineParams.LinksPerPair). Model a fatter long
	// haul with a higher LongHaulBps.
	LongHaulLinks int
}

// DefaultCrossDCParams returns paper 002's T6 (§4.1.1 and its wiring
// interpretation): per datacenter 4 pods × (2 ToRs + 2 aggregation
// switches), 4 cores (aggregation switch 0 of every pod to cores 0 and 1,
// aggregation switch 1 to cores 2 and 3), 4 hosts per ToR = 32 hosts;
// hosts, fabric and DCI links 100 Gb/s and 1 µs; the long haul 400 Gb/s
// and 1 ms.
func DefaultCrossDCParams() CrossDCParams {
	us := sim.Microsecond
	return CrossDCParams{Pods: 4, ToRsPerPod: 2, AggsPerPod: 2, CoresPerAgg: 2, HostsPerToR: 4,
		HostBps: 100e9, HostDelay: us, FabricBps: 100e9, FabricDelay: us,
		DCIBps: 100e9, DCIDelay: us, LongHaulBps: 400e9, LongHaulDelay: sim.Millisecond, LongHaulLinks: 1}
}

// Validate checks the parameters; the errors name each offending parameter
// (as cross_dc.<snake_case name>) and its allowed range.
func (p CrossDCParams) Validate() error {
	e := &paramErrs{prefix: "cross_dc"}
	e.intIn("pods", p.Pods, 1, 64)
	e.intIn("tors_per_pod", p.ToRsPerPod, 1, 64)
	e.intIn("aggs_per_pod", p.AggsPerPod, 1, 64)
	e.intIn("cores_per_agg", p.CoresPerAgg, 1, 64)
	e.intIn("hosts_per_tor", p.HostsPerToR, 1, 512)
	e.bps("host_bps", p.HostBps)
	e.bps("fabric_bps", p.FabricBps)
	e.bps("dci_bps", p.DCIBps)
	e.bps("long_haul_bps", p.LongHaulBps)
	e.delay("host_delay", p.HostDelay)
	e.delay("fabric_delay", p.FabricDelay)
	e.delay("dci_delay", p.DCIDelay)
	e.delay("long_haul_delay", p.LongHaulDelay)
	if p.LongHaulLinks != 0 && p.LongHaulLinks != 1 {
		e.add("long_haul_links = %d: must be 1 (or 0 for the default 1): routing keeps only the last of parallel links between two nodes; raise long_haul_bps instead", p.LongHaulLinks)
	}
	if len(e.errs) == 0 {
		e.nodes(2 * int64(p.dcNodes()))
	}
	return e.err()
}

// pod returns the parameters of one datacenter's pod Clos.
func (p CrossDCParams) pod() HPCCFatTreeParams {
	return HPCCFatTreeParams{Pods: p.Pods, ToRsPerPod: p.ToRsPerPod, AggsPerPod: p.AggsPerPod, CoresPerAgg: p.CoresPerAgg,
		HostsPerToR: p.HostsPerToR, HostBps: p.HostBps, FabricBps: p.FabricBps, HostDelay: p.HostDelay, FabricDelay: p.FabricDelay}
}

// HostsPerDC is the number of hosts of one datacenter.
func (p CrossDCParams) HostsPerDC() int { return p.Pods * p.ToRsPerPod * p.HostsPerToR }

// dcNodes is the node count of one datacenter (DCI included).
func (p CrossDCParams) dcNodes() int {
	return p.HostsPerDC() + p.Pods*p.ToRsPerPod + p.Pods*p.AggsPerPod + p.AggsPerPod*p.CoresPerAgg + 1
}

// CrossDCLayout gives the node ids of a cross_dc graph per datacenter
// (index 0 = A, 1 = B).
type CrossDCLayout struct {
	Hosts [2][]int // hosts of A, of B, ascending
	ToRs  [2][]int
	Aggs  [2][]int
	Cores [2][]int
	DCI   [2]int
	// LongHaul is the index of the DCI_A – DCI_B link in Graph.Links; its
	// port is the last port of each DCI switch.
	LongHaul int
}

// Layout returns the node ids CrossDC assigns for p (p must be valid).
//
// Numbering: all hosts first, A's then B's (A's hosts 0..H-1, B's
// H..2H-1, H = HostsPerDC, ToR-major within a datacenter as in
// HPCCFatTree); then A's switches — ToRs (pod-major), aggregation switches
// (pod-major), cores (group-major), the DCI — then B's in the same order.
// With the defaults: A.h0–A.h31 = 0–31, B.h0–B.h31 = 32–63, A.tor0–7 =
// 64–71, A.agg0–7 = 72–79, A.core0–3 = 80–83, A.dci = 84, B.tor0–7 =
// 85–92, B.agg0–7 = 93–100, B.core0–3 = 101–104, B.dci = 105.
func (p CrossDCParams) Layout() CrossDCLayout {
	var l CrossDCLayout
	h := p.HostsPerDC()
	tors, aggs, cores := p.Pods*p.ToRsPerPod, p.Pods*p.AggsPerPod, p.AggsPerPod*p.CoresPerAgg
	sw := tors + aggs + cores + 1
	seq := func(from, n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = from + i
		}
		return s
	}
	for dc := range 2 {
		l.Hosts[dc] = seq(dc*h, h)
		base := 2*h + dc*sw
		l.ToRs[dc] = seq(base, tors)
		l.Aggs[dc] = seq(base+tors, aggs)
		l.Cores[dc] = seq(base+tors+aggs, cores)
		l.DCI[dc] = base + sw - 1
	}
	l.LongHaul = 2 * (h + tors*p.AggsPerPod + aggs*p.CoresPerAgg + cores)
	return l
}

// CrossDC builds T6 with named nodes ("A.h0".., "A.tor0".., "A.agg0"..,
// "A.core0"..,"A.dci", then "B.…"), Domains 1 (A) and 2 (B) and Roles
// host, tor, agg, core, dci. Numbering: see CrossDCParams.Layout.
//
// Links, in this order: A's pod Clos (host–ToR, ToR–aggregation,
// aggregation–core, in HPCCFatTree's order), A's core–DCI links (cores
// ascending), then B's the same, then the long haul (A = DCI_A). So a DCI
// switch's ports are its cores in order, then the long haul; a core's last
// port leads to its DCI.
func CrossDC(p CrossDCParams) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	l := p.Layout()
	dc := buildPodClos(p.pod())
	h := p.HostsPerDC()
	n := 2 * p.dcNodes()
	g := &Graph{
		Kinds:   make([]NodeKind, n),
		Names:   make([]string, n),
		Domains: make([]uint16, n),
		Roles:   make([]string, n),
		Links:   make([]Link, 0, 2*(len(dc.Links)+len(l.Cores[0]))+1),
	}
	for d, prefix := range []string{"A.", "B."} {
		// node k of the pod Clos (hosts, ToRs, aggs, cores) in datacenter d
		id := func(k int) int {
			if k < h {
				return l.Hosts[d][k]
			}
			return l.ToRs[d][0] + k - h
		}
		set := func(ids []int, kind NodeKind, role, name string) {
			for i, v := range ids {
				g.Kinds[v], g.Roles[v], g.Domains[v] = kind, role, uint16(d+1)
				g.Names[v] = fmt.Sprintf("%s%s%d", prefix, name, i)
			}
		}
		set(l.Hosts[d], Host, RoleHost, "h")
		set(l.ToRs[d], Switch, RoleToR, "tor")
		set(l.Aggs[d], Switch, RoleAgg, "agg")
		set(l.Cores[d], Switch, RoleCore, "core")
		dci := l.DCI[d]
		g.Kinds[dci], g.Roles[dci], g.Domains[dci], g.Names[dci] = Switch, RoleDCI, uint16(d+1), prefix+"dci"
		for _, lk := range dc.Links {
			lk.A, lk.B = id(lk.A), id(lk.B)
			g.Links = append(g.Links, lk)
		}
		for _, c := range l.Cores[d] {
			g.Links = append(g.Links, Link{A: c, B: dci, Bps: p.DCIBps, Delay: p.DCIDelay})
		}
	}
	g.Links = append(g.Links, Link{A: l.DCI[0], B: l.DCI[1], Bps: p.LongHaulBps, Delay: p.LongHaulDelay})
	return g, nil
}

// FiberDelayPerKm is the one-way propagation delay of optical fibre per km
// (light at about 2·10^8 m/s): 5 µs, so 640 km ≈ 3.2 ms (paper 002's
// prototype, interpretation in its §4.2 reading).
const FiberDelayPerKm = 5 * sim.Microsecond

// TwoSiteParams describes T7, paper 002's prototype. Long distance: hosts A
// and B on switch SW1 (site 1, domain 1), host C on SW2 (site 2, domain 2),
// SW1 – SW2 the long haul. Short distance (SingleSwitch): A, B and C on
// one switch SW1 (domain 1).
type TwoSiteParams struct {
	SingleSwitch  bool     // the short-distance variant: one switch, no long haul
	HostBps       int64    // host links, b/s, in [1, 1e14]
	HostDelay     sim.Time // host links, one way, in [0, 10 s]
	LongHaulBps   int64    // SW1 – SW2, b/s, in [1, 1e14] (ignored with SingleSwitch)
	LongHaulDelay sim.Time // SW1 – SW2 one way, in [0, 10 s] (ignored with SingleSwitch)
}

// DefaultTwoSiteParams returns the prototype's long-distance setting: 400
// Gb/s everywhere, 1 µs host links, 640 km of fibre = 3.2 ms one way.
func DefaultTwoSiteParams() TwoSiteParams {
	return TwoSiteParams{HostBps: 400e9, HostDelay: sim.Microsecond, LongHaulBps: 400e9, LongHaulDelay: 640 * FiberDelayPerKm}
}

// Validate checks the parameters; the errors name each offending parameter
// (as two_site.<snake_case name>) and its allowed range.
func (p TwoSiteParams) Validate() error {
	e := &paramErrs{prefix: "two_site"}
	e.bps("host_bps", p.HostBps)
	e.delay("host_delay", p.HostDelay)
	if !p.SingleSwitch {
		e.bps("long_haul_bps", p.LongHaulBps)
		e.delay("long_haul_delay", p.LongHaulDelay)
	}
	return e.err()
}

// TwoSite builds T7. Nodes: A = 0, B = 1, C = 2, SW1 = 3 and (long
// distance) SW2 = 4, named "A", "B", "C", "SW1", "SW2". Links: A–SW1,
// B–SW1, then C–SW2 and SW1–SW2 (long distance) or C–SW1 (short). So SW1's
// ports are A, B, then the long haul (or C); SW2's are C, then the long
// haul. Long distance: domains A, B, SW1 = 1, C, SW2 = 2, and SW1, SW2
// have role dci (they carry the long haul); short distance: every node in
// domain 1, SW1 has role tor.
func TwoSite(p TwoSiteParams) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.SingleSwitch {
		return &Graph{
			Kinds: []NodeKind{Host, Host, Host, Switch},
			Links: []Link{
				{A: 0, B: 3, Bps: p.HostBps, Delay: p.HostDelay},
				{A: 1, B: 3, Bps: p.HostBps, Delay: p.HostDelay},
				{A: 2, B: 3, Bps: p.HostBps, Delay: p.HostDelay},
			},
			Names:   []string{"A", "B", "C", "SW1"},
			Domains: []uint16{1, 1, 1, 1},
			Roles:   []string{RoleHost, RoleHost, RoleHost, RoleToR},
		}, nil
	}
	return &Graph{
		Kinds: []NodeKind{Host, Host, Host, Switch, Switch},
		Links: []Link{
			{A: 0, B: 3, Bps: p.HostBps, Delay: p.HostDelay},
			{A: 1, B: 3, Bps: p.HostBps, Delay: p.HostDelay},
			{A: 2, B: 4, Bps: p.HostBps, Delay: p.HostDelay},
			{A: 3, B: 4, Bps: p.LongHaulBps, Delay: p.LongHaulDelay},
		},
		Names:   []string{"A", "B", "C", "SW1", "SW2"},
		Domains: []uint16{1, 1, 2, 1, 2},
		Roles:   []string{RoleHost, RoleHost, RoleHost, RoleDCI, RoleDCI},
	}, nil
}
