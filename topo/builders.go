package topo

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ccsim/ccsim/sim"
)

// Limits that the builders enforce on their parameters.
const (
	// MaxBuilderNodes caps the node count of a built topology: node ids
	// must fit the 16 bits of the reference addressing (RefIP,
	// RefNodeOfIP). Note that Graph.NextHops needs memory proportional to
	// nodes × hosts, which is the practical limit well before this one.
	MaxBuilderNodes = 1 << 16
	// MaxBuilderBps is the largest link rate a builder accepts, b/s
	// (100 Tb/s).
	MaxBuilderBps = int64(100e12)
	// MaxBuilderDelay is the largest one-way link delay a builder accepts.
	MaxBuilderDelay = 10 * sim.Second

	maxSwitchCount = 4096 // per tier / per pod counts
	maxPortCount   = 4096 // hosts per switch
)

// paramErrs collects validation errors that name the parameter and its
// allowed range.
type paramErrs struct {
	prefix string // e.g. "leaf_spine"
	errs   []error
}

func (e *paramErrs) add(format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf("topo: "+e.prefix+"."+format, args...))
}

func (e *paramErrs) intIn(name string, v, lo, hi int) {
	if v < lo || v > hi {
		e.add("%s = %d: must be in [%d, %d]", name, v, lo, hi)
	}
}

func (e *paramErrs) bps(name string, v int64) {
	if v < 1 || v > MaxBuilderBps {
		e.add("%s = %d: must be in [1, %g] b/s", name, v, float64(MaxBuilderBps))
	}
}

func (e *paramErrs) delay(name string, v sim.Time) {
	if v < 0 || v > MaxBuilderDelay {
		e.add("%s = %s: must be in [0, %v]", name, FormatDelay(v), MaxBuilderDelay)
	}
}

// nodes checks the total node count.
func (e *paramErrs) nodes(n int64) {
	if n > MaxBuilderNodes {
		e.errs = append(e.errs, fmt.Errorf("topo: %s: %d nodes exceed the limit %d (node ids must fit the 16-bit reference addressing)", e.prefix, n, MaxBuilderNodes))
	}
}

func (e *paramErrs) err() error { return errors.Join(e.errs...) }

// LeafSpineParams describes a two-tier leaf-spine (folded Clos) fabric in
// which every leaf connects to every spine.
type LeafSpineParams struct {
	Spines int // spine switches, in [1, 4096]
	Leaves int // leaf switches, in [1, 4096]
	// HostsPerLeaf is the number of hosts on every leaf, in [1, 4096]. It
	// is ignored when LeafHosts is set.
	HostsPerLeaf int
	// LeafHosts optionally gives each leaf its own host count (len must be
	// Leaves, each in [0, 4096], total at least 1), for uneven testbeds
	// such as the DCON one (T4: 8, 8 and 2 hosts). Nil = HostsPerLeaf
	// everywhere.
	LeafHosts   []int
	HostBps     int64    // host–leaf link rate, b/s, in [1, 1e14]
	FabricBps   int64    // leaf–spine link rate, b/s, in [1, 1e14]
	HostDelay   sim.Time // host–leaf one-way propagation delay, in [0, 10 s]
	FabricDelay sim.Time // leaf–spine one-way propagation delay, in [0, 10 s]
	// LinksPerPair is the number of parallel links between each leaf and
	// each spine; 0 means 1. Only 1 is accepted: the routing (NextHops,
	// like the reference simulator) keeps only the last of parallel links
	// between two nodes, so extra links would carry no traffic. Model a
	// fatter pair with a higher FabricBps instead.
	LinksPerPair int
}

// hostsOn returns the number of hosts on leaf l.
func (p LeafSpineParams) hostsOn(l int) int {
	if p.LeafHosts != nil {
		return p.LeafHosts[l]
	}
	return p.HostsPerLeaf
}

// Oversubscription returns the leaf oversubscription ratio: downlink
// capacity over uplink capacity, HostsPerLeaf·HostBps /
// (Spines·LinksPerPair·FabricBps), e.g. 3 for T5 (24 × 40 G down, 8 × 40 G
// up). With LeafHosts set the most loaded leaf counts. It returns 0 if the
// uplink capacity is not positive.
func (p LeafSpineParams) Oversubscription() float64 {
	lpp := max(p.LinksPerPair, 1)
	up := float64(p.Spines) * float64(lpp) * float64(p.FabricBps)
	if !(up > 0) {
		return 0
	}
	h := p.HostsPerLeaf
	if p.LeafHosts != nil {
		h = 0
		for _, n := range p.LeafHosts {
			h = max(h, n)
		}
	}
	return float64(h) * float64(p.HostBps) / up
}

// HostLoadForCoreLoad converts a core-layer load ρ_c — the expected
// utilisation of the leaf→spine uplinks — into the per-host offered load
// ρ_h (a fraction of each host's link, what workload.Poisson's Load is) for
// traffic between uniformly random host pairs (paper 003's E3,
// docs/papers.md §5.3). With L leaves of H hosts, S spines, host links of
// rate r_h and uplinks of rate r_f, a fraction
//
//	f = (L−1)·H / (L·H − 1)
//
// of a host's traffic goes to another leaf; a leaf sends H·ρ_h·r_h·f up,
// spread over its S uplinks (ECMP), so ρ_c = H·ρ_h·r_h·f / (S·r_f) and
//
//	ρ_h = ρ_c · S·r_f / (H·r_h·f).
//
// For T5 (8 spines, 10 leaves, 24 hosts, 40 Gb/s everywhere) f = 216/239
// ≈ 0.904 and ρ_h ≈ 0.369·ρ_c. It needs even leaves (no LeafHosts), at
// least 2 leaves and valid parameters; ρ_h is not capped (a caller that
// needs ρ_h ≤ 1 checks it).
func (p LeafSpineParams) HostLoadForCoreLoad(core float64) (float64, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	switch {
	case p.LeafHosts != nil:
		return 0, fmt.Errorf("topo: leaf_spine: core load needs the same number of hosts on every leaf (no leaf_hosts)")
	case p.Leaves < 2:
		return 0, fmt.Errorf("topo: leaf_spine.leaves = %d: with one leaf no traffic crosses the spines, a core load is undefined", p.Leaves)
	case p.HostsPerLeaf*p.Leaves < 2:
		return 0, fmt.Errorf("topo: leaf_spine: a core load needs at least 2 hosts")
	}
	l, h, s := float64(p.Leaves), float64(p.HostsPerLeaf), float64(p.Spines)
	f := (l - 1) * h / (l*h - 1)
	return core * s * float64(p.FabricBps) / (h * float64(p.HostBps) * f), nil
}

// Validate checks the parameters; the errors name each offending parameter
// (as leaf_spine.<snake_case name>) and its allowed range.
func (p LeafSpineParams) Validate() error {
	e := &paramErrs{prefix: "leaf_spine"}
	e.intIn("spines", p.Spines, 1, maxSwitchCount)
	e.intIn("leaves", p.Leaves, 1, maxSwitchCount)
	hosts := int64(0)
	if p.LeafHosts == nil {
		e.intIn("hosts_per_leaf", p.HostsPerLeaf, 1, maxPortCount)
		hosts = int64(max(p.Leaves, 0)) * int64(max(p.HostsPerLeaf, 0))
	} else {
		if len(p.LeafHosts) != p.Leaves {
			e.add("leaf_hosts has %d entries: must have leaves = %d", len(p.LeafHosts), p.Leaves)
		}
		for i, n := range p.LeafHosts {
			e.intIn(fmt.Sprintf("leaf_hosts[%d]", i), n, 0, maxPortCount)
			hosts += int64(max(n, 0))
		}
		if hosts < 1 {
			e.add("leaf_hosts: total %d hosts: must be at least 1", hosts)
		}
	}
	e.bps("host_bps", p.HostBps)
	e.bps("fabric_bps", p.FabricBps)
	e.delay("host_delay", p.HostDelay)
	e.delay("fabric_delay", p.FabricDelay)
	if p.LinksPerPair != 0 && p.LinksPerPair != 1 {
		e.add("links_per_pair = %d: must be 1 (or 0 for the default 1): routing keeps only the last of parallel links between two nodes, as the reference simulator does; raise fabric_bps instead", p.LinksPerPair)
	}
	if len(e.errs) == 0 {
		e.nodes(hosts + int64(p.Leaves) + int64(p.Spines))
	}
	return e.err()
}

// LeafSpine builds a two-tier leaf-spine fabric.
//
// Numbering: hosts 0..H-1 leaf-major (leaf l's hosts are consecutive, leaf
// 0 first), then leaves H..H+Leaves-1, then spines H+Leaves ..
// H+Leaves+Spines-1. Links: first one per host (A = host, B = its leaf, in
// host order), then the leaf–spine links leaf-major (A = leaf, B = spine,
// spines ascending). So a host's port 0 is its leaf; leaf l's ports are its
// hosts in order, then the spines in ascending order; spine s's port l is
// leaf l.
//
// T5 (DCON E3) is LeafSpineParams{Spines: 8, Leaves: 10, HostsPerLeaf: 24,
// HostBps: 40e9, FabricBps: 40e9, HostDelay: 5 µs, FabricDelay: 5 µs}:
// 240 hosts, 3:1 oversubscribed.
func LeafSpine(p LeafSpineParams) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	h := 0
	for l := range p.Leaves {
		h += p.hostsOn(l)
	}
	leaf0, spine0 := h, h+p.Leaves
	g := &Graph{
		Kinds: make([]NodeKind, h+p.Leaves+p.Spines),
		Links: make([]Link, 0, h+p.Leaves*p.Spines),
	}
	for i := h; i < len(g.Kinds); i++ {
		g.Kinds[i] = Switch
	}
	host := 0
	for l := range p.Leaves {
		for range p.hostsOn(l) {
			g.Links = append(g.Links, Link{A: host, B: leaf0 + l, Bps: p.HostBps, Delay: p.HostDelay})
			host++
		}
	}
	for l := range p.Leaves {
		for s := range p.Spines {
			g.Links = append(g.Links, Link{A: leaf0 + l, B: spine0 + s, Bps: p.FabricBps, Delay: p.FabricDelay})
		}
	}
	return g, nil
}

// HPCCFatTreeParams describes a three-tier pod-based Clos in the layout of
// the HPCC reference fat tree (fat_topology.txt): Pods pods of ToRsPerPod
// ToRs and AggsPerPod aggregation switches, every ToR of a pod connected to
// every aggregation switch of the pod, and AggsPerPod·CoresPerAgg cores in
// AggsPerPod groups: aggregation switch j of every pod connects to the
// CoresPerAgg cores of group j.
type HPCCFatTreeParams struct {
	Pods        int      // pods, in [1, 4096]
	ToRsPerPod  int      // ToR (edge) switches per pod, in [1, 4096]
	AggsPerPod  int      // aggregation switches per pod, in [1, 4096]
	CoresPerAgg int      // cores per core group (uplinks per aggregation switch), in [1, 4096]
	HostsPerToR int      // hosts per ToR, in [1, 4096]
	HostBps     int64    // host–ToR link rate, b/s, in [1, 1e14]
	FabricBps   int64    // ToR–agg and agg–core link rate, b/s, in [1, 1e14]
	HostDelay   sim.Time // host–ToR one-way propagation delay, in [0, 10 s]
	FabricDelay sim.Time // switch–switch one-way propagation delay, in [0, 10 s]
}

// RefFat320Params returns the parameters of the HPCC reference fat tree
// (docs/reference-simulator.md §12 and Appendix A; topology T2 of
// docs/papers.md §7.1): 5 pods × (4 ToRs, 4 aggregation switches), 16
// cores (4 per aggregation switch), 16 hosts per ToR = 320 hosts; hosts at
// 100 Gb/s, fabric at 400 Gb/s, 1000 ns per link.
func RefFat320Params() HPCCFatTreeParams {
	return HPCCFatTreeParams{
		Pods: 5, ToRsPerPod: 4, AggsPerPod: 4, CoresPerAgg: 4, HostsPerToR: 16,
		HostBps: 100e9, FabricBps: 400e9,
		HostDelay: 1000 * sim.Nanosecond, FabricDelay: 1000 * sim.Nanosecond,
	}
}

// RefFat320 returns HPCCFatTree(RefFat320Params()): exactly the graph that
// ReadNS3 reads from the reference fat_topology.txt (same node kinds, same
// links in the same order, hence the same port numbering).
func RefFat320() *Graph {
	g, err := HPCCFatTree(RefFat320Params())
	if err != nil {
		panic(err) // the parameters are constant and valid
	}
	return g
}

// Validate checks the parameters; the errors name each offending parameter
// (as hpcc_fat_tree.<snake_case name>) and its allowed range.
func (p HPCCFatTreeParams) Validate() error {
	return p.validate("hpcc_fat_tree")
}

func (p HPCCFatTreeParams) validate(prefix string) error {
	e := &paramErrs{prefix: prefix}
	e.intIn("pods", p.Pods, 1, maxSwitchCount)
	e.intIn("tors_per_pod", p.ToRsPerPod, 1, maxSwitchCount)
	e.intIn("aggs_per_pod", p.AggsPerPod, 1, maxSwitchCount)
	e.intIn("cores_per_agg", p.CoresPerAgg, 1, maxSwitchCount)
	e.intIn("hosts_per_tor", p.HostsPerToR, 1, maxPortCount)
	e.bps("host_bps", p.HostBps)
	e.bps("fabric_bps", p.FabricBps)
	e.delay("host_delay", p.HostDelay)
	e.delay("fabric_delay", p.FabricDelay)
	if len(e.errs) == 0 {
		pods := int64(p.Pods)
		tors := pods * int64(p.ToRsPerPod)
		e.nodes(tors*int64(p.HostsPerToR) + tors + pods*int64(p.AggsPerPod) + int64(p.AggsPerPod)*int64(p.CoresPerAgg))
	}
	return e.err()
}

// HPCCFatTree builds a three-tier pod Clos in the layout of the HPCC
// reference fat tree.
//
// Numbering (T = Pods·ToRsPerPod, A = Pods·AggsPerPod, H = T·HostsPerToR):
// hosts 0..H-1, ToR-major (ToR t holds hosts t·HostsPerToR ..); ToRs
// H..H+T-1, pod-major (pod p holds ToRs H+p·ToRsPerPod ..); aggregation
// switches H+T..H+T+A-1, pod-major (aggregation j of pod p is
// H+T+p·AggsPerPod+j); cores H+T+A .. H+T+A+AggsPerPod·CoresPerAgg-1
// (core group j is cores H+T+A+j·CoresPerAgg ..).
//
// Links, in this order (the lower tier is always A): host–ToR in host order;
// ToR–aggregation, ToR-major, aggregation switches ascending within the pod;
// aggregation–core, aggregation-major, the CoresPerAgg cores of its group
// ascending. Ports follow (see Graph.Ports): a ToR's ports are its hosts
// then its pod's aggregation switches; an aggregation switch's ports are
// its pod's ToRs then its cores; core c's port p leads to pod p.
//
// With RefFat320Params this is the reference fat_topology.txt (hosts 0–319,
// ToRs 320–339, aggregation 340–359, cores 360–375, 480 links).
func HPCCFatTree(p HPCCFatTreeParams) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return buildPodClos(p), nil
}

// buildPodClos builds the graph documented at HPCCFatTree from valid
// parameters.
func buildPodClos(p HPCCFatTreeParams) *Graph {
	tors := p.Pods * p.ToRsPerPod
	aggs := p.Pods * p.AggsPerPod
	cores := p.AggsPerPod * p.CoresPerAgg
	hosts := tors * p.HostsPerToR
	tor0, agg0, core0 := hosts, hosts+tors, hosts+tors+aggs
	g := &Graph{
		Kinds: make([]NodeKind, core0+cores),
		Links: make([]Link, 0, hosts+tors*p.AggsPerPod+aggs*p.CoresPerAgg),
	}
	for i := tor0; i < len(g.Kinds); i++ {
		g.Kinds[i] = Switch
	}
	for h := range hosts {
		g.Links = append(g.Links, Link{A: h, B: tor0 + h/p.HostsPerToR, Bps: p.HostBps, Delay: p.HostDelay})
	}
	for t := range tors {
		pod := t / p.ToRsPerPod
		for j := range p.AggsPerPod {
			g.Links = append(g.Links, Link{A: tor0 + t, B: agg0 + pod*p.AggsPerPod + j, Bps: p.FabricBps, Delay: p.FabricDelay})
		}
	}
	for a := range aggs {
		j := a % p.AggsPerPod
		for c := range p.CoresPerAgg {
			g.Links = append(g.Links, Link{A: agg0 + a, B: core0 + j*p.CoresPerAgg + c, Bps: p.FabricBps, Delay: p.FabricDelay})
		}
	}
	return g
}

// FatTreeParams describes the standard three-tier k-ary fat tree (Al-Fares
// et al.): k pods of k/2 edge and k/2 aggregation switches, (k/2)² cores,
// k/2 hosts per edge switch, so k³/4 hosts and full bisection bandwidth
// when HostBps = FabricBps.
type FatTreeParams struct {
	K int // switch radix and pod count; even, in [2, 64]
	// HostsPerEdge overrides the k/2 hosts per edge switch (0 = k/2), in
	// [1, 4096]: more hosts oversubscribe the edge by HostsPerEdge/(k/2)
	// at equal rates.
	HostsPerEdge int
	HostBps      int64    // host–edge link rate, b/s, in [1, 1e14]
	FabricBps    int64    // edge–agg and agg–core link rate, b/s, in [1, 1e14]
	Delay        sim.Time // one-way propagation delay of every link, in [0, 10 s]
}

// podParams maps a fat tree to the pod Clos layout.
func (p FatTreeParams) podParams() HPCCFatTreeParams {
	hpe := p.HostsPerEdge
	if hpe == 0 {
		hpe = p.K / 2
	}
	return HPCCFatTreeParams{
		Pods: p.K, ToRsPerPod: p.K / 2, AggsPerPod: p.K / 2, CoresPerAgg: p.K / 2, HostsPerToR: hpe,
		HostBps: p.HostBps, FabricBps: p.FabricBps, HostDelay: p.Delay, FabricDelay: p.Delay,
	}
}

// Validate checks the parameters; the errors name each offending parameter
// (as fat_tree.<snake_case name>) and its allowed range.
func (p FatTreeParams) Validate() error {
	e := &paramErrs{prefix: "fat_tree"}
	if p.K < 2 || p.K > 64 || p.K%2 != 0 {
		e.add("k = %d: must be even, in [2, 64]", p.K)
	}
	if p.HostsPerEdge != 0 {
		e.intIn("hosts_per_edge", p.HostsPerEdge, 1, maxPortCount)
	}
	e.bps("host_bps", p.HostBps)
	e.bps("fabric_bps", p.FabricBps)
	e.delay("delay", p.Delay)
	if len(e.errs) == 0 {
		if err := p.podParams().validate("fat_tree"); err != nil {
			return err // only the node count can fail here
		}
	}
	return e.err()
}

// FatTree builds a k-ary fat tree, numbered like HPCCFatTree with k pods,
// k/2 ToRs ("edge") and k/2 aggregation switches per pod and (k/2)² cores
// in k/2 groups: hosts 0..H-1 (H = k²/2·HostsPerEdge, edge-major), edges
// H..H+k²/2-1 (pod-major), aggregation switches H+k²/2..H+k²-1
// (pod-major), cores H+k²..H+k²+k²/4-1; aggregation switch j of every pod
// connects to cores j·k/2 .. j·k/2+k/2-1 of the core block. Links: host
// links, then edge–agg, then agg–core, as in HPCCFatTree.
//
// T6's data centres are FatTree(FatTreeParams{K: 4, HostBps: 100e9,
// FabricBps: 100e9, Delay: 1 µs}): 16 hosts, 8 edge, 8 aggregation, 4 core.
func FatTree(p FatTreeParams) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return buildPodClos(p.podParams()), nil
}

// Summary describes g in one line for CLI output: node counts by kind, the
// range of switch port counts, and the links grouped by rate, delay and
// error rate (ascending rate), e.g.
//
//	376 nodes (320 hosts, 56 switches with 8-20 ports), 480 links: 320 × 100Gbps 1000ns, 160 × 400Gbps 1000ns
func (g *Graph) Summary() string {
	var hosts, switches int
	for _, k := range g.Kinds {
		if k == Host {
			hosts++
		} else {
			switches++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s", plural(len(g.Kinds), "node"), plural(hosts, "host"), plural(switches, "switch"))
	if switches > 0 {
		deg := make([]int, len(g.Kinds))
		for _, l := range g.Links {
			if l.A >= 0 && l.A < len(deg) {
				deg[l.A]++
			}
			if l.B >= 0 && l.B < len(deg) {
				deg[l.B]++
			}
		}
		lo, hi := -1, 0
		for i, k := range g.Kinds {
			if k != Host {
				if lo < 0 || deg[i] < lo {
					lo = deg[i]
				}
				hi = max(hi, deg[i])
			}
		}
		if lo == hi {
			fmt.Fprintf(&b, " with %d ports", lo)
		} else {
			fmt.Fprintf(&b, " with %d-%d ports", lo, hi)
		}
	}
	fmt.Fprintf(&b, "), %s", plural(len(g.Links), "link"))
	type class struct {
		bps   int64
		delay sim.Time
		err   float64
	}
	count := map[class]int{}
	var classes []class
	for _, l := range g.Links {
		c := class{l.Bps, l.Delay, l.ErrRate}
		if count[c] == 0 {
			classes = append(classes, c)
		}
		count[c]++
	}
	slices.SortFunc(classes, func(x, y class) int {
		return cmp.Or(cmp.Compare(x.bps, y.bps), cmp.Compare(x.delay, y.delay), cmp.Compare(x.err, y.err))
	})
	for i, c := range classes {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%d × %s %s", sep, count[c], FormatRate(c.bps), FormatDelay(c.delay))
		if c.err != 0 {
			fmt.Fprintf(&b, " loss %s", formatErrRate(c.err))
		}
	}
	return b.String()
}

// plural formats n and noun, adding "s" ("es" after "ch") unless n is 1.
func plural(n int, noun string) string {
	switch {
	case n == 1:
	case strings.HasSuffix(noun, "ch"):
		noun += "es"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}
