package assemble

import (
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// twoDCGraph: two datacenters (domains 1 and 2) of 3 hosts, a ToR and a
// DCI switch each, 100 Gb/s host links, 400 Gb/s ToR-DCI, and the given
// long-haul links between the DCI switches. Hosts 0-2 (A), 3-5 (B), ToRs
// 6, 7, DCIs 8, 9.
func twoDCGraph(longHaul ...topo.Link) *topo.Graph {
	g := &topo.Graph{}
	for i := range 10 {
		k, d, r := topo.Host, uint16(1+i/3), "host"
		switch {
		case i >= 8:
			k, d, r = topo.Switch, uint16(i-7), "dci"
		case i >= 6:
			k, d, r = topo.Switch, uint16(i-5), "tor"
		}
		g.Kinds, g.Domains, g.Roles = append(g.Kinds, k), append(g.Domains, d), append(g.Roles, r)
	}
	for h := range 6 {
		g.Links = append(g.Links, topo.Link{A: h, B: 6 + h/3, Bps: 100e9, Delay: sim.Microsecond})
	}
	g.Links = append(g.Links, topo.Link{A: 6, B: 8, Bps: 400e9, Delay: sim.Microsecond}, topo.Link{A: 7, B: 9, Bps: 400e9, Delay: sim.Microsecond})
	g.Links = append(g.Links, longHaul...)
	return g
}

func mustParseInternal(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func crossDCScenario(t *testing.T, section string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte("topology: {kind: star, hosts: 6}\nworkload:\n  cross_dc: {" + section + "}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCrossDCWorkloadFromTopology: the domains, the long haul (capacity, delay)
// and the incast size (its bandwidth-delay product) come from the graph
// unless given.
func TestCrossDCWorkloadFromTopology(t *testing.T) {
	lh := topo.Link{A: 8, B: 9, Bps: 400e9, Delay: sim.Millisecond}
	g := twoDCGraph(lh)
	s := crossDCScenario(t, "")
	c := s.Workload.CrossDC
	if c.CDF != "websearch" || c.Load != 0.6 || c.LoadBasis != "longhaul" || c.CrossToIntra != 5 || c.IncastShare != 0.5 ||
		c.IncastFanin != 4 || c.DurationMs != 20 || c.Prio != 3 {
		t.Errorf("defaults: %+v", c)
	}
	c.IncastFanin = 3
	p, err := crossDCParams(s, g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.DomainA, []int{0, 1, 2}) || !slices.Equal(p.DomainB, []int{3, 4, 5}) || p.LongHaulBps != 400e9 ||
		p.IncastSize != 100_000_000 || p.HostsBps != 600e9 || p.Basis != workload.BasisLongHaul || p.Duration != 20*sim.Millisecond {
		t.Errorf("resolved: A %v B %v long haul %d b/s incast %d B hosts %d b/s basis %d", p.DomainA, p.DomainB, p.LongHaulBps, p.IncastSize, p.HostsBps, p.Basis)
	}
	// two long-haul links: their capacities add up; the longest delay counts
	g2 := twoDCGraph(lh, topo.Link{A: 8, B: 9, Bps: 100e9, Delay: 2 * sim.Millisecond})
	if bps, d, n := LongHaul(g2); bps != 500e9 || d != 2*sim.Millisecond || n != 2 {
		t.Errorf("LongHaul: %d b/s, %v, %d links", bps, d, n)
	}
	// explicit fields win
	s = crossDCScenario(t, "longhaul_gbps: 200, longhaul_delay_us: 500, incast_fanin: 2, load_basis: host, domain_a: [1, 2], domain_b: [4, 5]")
	p, err = crossDCParams(s, g)
	if err != nil {
		t.Fatal(err)
	}
	if p.LongHaulBps != 200e9 || p.IncastSize != 25_000_000 || p.Basis != workload.BasisHost || p.HostsBps != 400e9 || !slices.Equal(p.DomainA, []int{1, 2}) {
		t.Errorf("explicit: %+v", p)
	}
	s = crossDCScenario(t, "incast_size_bytes: 1000, incast_fanin: 3")
	if p, err = crossDCParams(s, g); err != nil || p.IncastSize != 1000 {
		t.Errorf("incast_size_bytes: %d, %v", p.IncastSize, err)
	}
	// the cross_dc topology kind: paper 002's T6
	s = mustParseInternal(t, "topology: {kind: cross_dc}\nworkload:\n  cross_dc: {}\n")
	tg, err := Graph(s)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = crossDCParams(s, tg); err != nil {
		t.Fatal(err)
	}
	if len(p.DomainA) != 32 || len(p.DomainB) != 32 || p.DomainA[0] != 0 || p.DomainB[0] != 32 || p.LongHaulBps != 400e9 ||
		p.IncastSize != 100_000_000 || p.HostsBps != 6400e9 {
		t.Errorf("kind cross_dc: A %v B %v long haul %d b/s incast %d B hosts %d b/s", p.DomainA, p.DomainB, p.LongHaulBps, p.IncastSize, p.HostsBps)
	}
	// generation through the scenario
	s = crossDCScenario(t, "incast_fanin: 3, incast_events: 2, duration_ms: 1")
	fl, err := generated(s, g)
	if err != nil || len(fl) != 1 {
		t.Fatal(err)
	}
	var n [4]int
	for _, f := range fl[0] {
		n[f.Group]++
	}
	if n[workload.GroupIncast] != 2*2*3 || n[workload.GroupCross] == 0 {
		t.Errorf("flows per group %v", n)
	}
}

// TestCrossDCWorkloadErrors: every invalid field or missing topology
// property is named.
func TestCrossDCWorkloadErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"load: 0", "workload.cross_dc.load = 0 out of range [1e-06, 1]"},
		{"load_basis: bisection", `workload.cross_dc.load_basis = "bisection": allowed values longhaul, host`},
		{"cross_to_intra: 0", "workload.cross_dc.cross_to_intra = 0 out of range"},
		{"incast_share: 1.5", "workload.cross_dc.incast_share = 1.5 out of range [0, 1]"},
		{"incast_fanin: 0", "workload.cross_dc.incast_fanin = 0 out of range"},
		{"incast_size_bytes: 0", "workload.cross_dc.incast_size_bytes = 0 out of range [1, 1e12]; omit it"},
		{"incast_events: 0", "workload.cross_dc.incast_events = 0 out of range"},
		{"longhaul_gbps: 0", "workload.cross_dc.longhaul_gbps = 0 out of range"},
		{"longhaul_delay_us: 0", "workload.cross_dc.longhaul_delay_us = 0 out of range"},
		{"duration_ms: 0", "workload.cross_dc.duration_ms = 0 out of range"},
		{"cdf: ''", "workload.cross_dc.cdf is empty"},
		{"prio: 0", "workload.cross_dc.prio = 0 out of range [1, 7]"},
		{"domain_a: [0, 1]", "workload.cross_dc.domain_a and domain_b: give both"},
	} {
		_, err := scenario.Parse([]byte("topology: {kind: star, hosts: 6}\nworkload:\n  cross_dc: {" + c.yaml + "}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.want)
		}
	}
	lh := topo.Link{A: 8, B: 9, Bps: 400e9, Delay: sim.Millisecond}
	for _, c := range []struct {
		yaml string
		g    *topo.Graph
		want string
	}{
		{"", topo.Star(6, 100e9, sim.Microsecond), "the topology's hosts are in 1 domain(s), a cross-DC workload needs two"},
		{"domain_a: [0, 1, 2], domain_b: [3, 4, 5]", topo.Star(6, 100e9, sim.Microsecond), "no link between two domains (the long haul): give longhaul_gbps and longhaul_delay_us"},
		{"domain_a: [0, 1, 2], domain_b: [3, 4, 5], longhaul_gbps: 100, incast_share: 0", topo.Star(6, 100e9, sim.Microsecond), ""},
		{"", twoDCGraph(lh), "workload.cross_dc.incast_fanin = 4: more than the 3 hosts"},
		{"cdf: nosuch, incast_fanin: 3", twoDCGraph(lh), `workload.cross_dc.cdf "nosuch": neither a built-in`},
	} {
		s := crossDCScenario(t, c.yaml)
		_, err := crossDCParams(s, c.g)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.want)
		}
	}
}
