package topo

import (
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

func TestCrossDCDefaults(t *testing.T) {
	p := DefaultCrossDCParams()
	g, err := CrossDC(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	// per DC: 32 hosts, 8 ToR, 8 agg, 4 core, 1 DCI; links 32 + 16 + 16 + 4
	if g.NumNodes() != 106 || len(g.Links) != 137 || len(g.Hosts()) != 64 {
		t.Fatalf("%d nodes, %d links, %d hosts; want 106, 137, 64", g.NumNodes(), len(g.Links), len(g.Hosts()))
	}
	l := p.Layout()
	for id, want := range map[int]string{0: "A.h0", 31: "A.h31", 32: "B.h0", 63: "B.h31", 64: "A.tor0", 71: "A.tor7",
		72: "A.agg0", 79: "A.agg7", 80: "A.core0", 83: "A.core3", 84: "A.dci", 85: "B.tor0", 93: "B.agg0", 101: "B.core0", 105: "B.dci"} {
		if g.Names[id] != want {
			t.Errorf("node %d named %q, want %q", id, g.Names[id], want)
		}
	}
	if l.DCI != [2]int{84, 105} || l.Cores[1][3] != 104 || l.ToRs[0][0] != 64 || l.Hosts[1][0] != 32 || l.LongHaul != 136 {
		t.Errorf("layout %+v", l)
	}
	count := map[string]int{}
	for i, r := range g.Roles {
		count[r]++
		want := uint16(1)
		if strings.HasPrefix(g.Names[i], "B.") {
			want = 2
		}
		if g.Domains[i] != want {
			t.Errorf("node %d (%s): domain %d, want %d", i, g.Names[i], g.Domains[i], want)
		}
		if (g.Kinds[i] == Host) != (r == RoleHost) {
			t.Errorf("node %d: kind %d role %s", i, g.Kinds[i], r)
		}
	}
	if count[RoleHost] != 64 || count[RoleToR] != 16 || count[RoleAgg] != 16 || count[RoleCore] != 8 || count[RoleDCI] != 2 {
		t.Errorf("roles %v", count)
	}
	// wiring: ToR t of pod t/2 to both aggregation switches of its pod;
	// aggregation j of every pod to cores 2j, 2j+1; DCI to the 4 cores
	// then the long haul
	ports := g.Ports()
	peers := func(id int) []int {
		var ps []int
		for _, pr := range ports[id] {
			ps = append(ps, pr.Peer)
		}
		return ps
	}
	for d := range 2 {
		for ti, tor := range l.ToRs[d] {
			pod := ti / 2
			want := append(slices.Clone(l.Hosts[d][4*ti:4*ti+4]), l.Aggs[d][2*pod], l.Aggs[d][2*pod+1])
			if got := peers(tor); !slices.Equal(got, want) {
				t.Errorf("DC %d ToR %d peers %v, want %v", d, ti, got, want)
			}
		}
		for ai, agg := range l.Aggs[d] {
			pod, j := ai/2, ai%2
			want := []int{l.ToRs[d][2*pod], l.ToRs[d][2*pod+1], l.Cores[d][2*j], l.Cores[d][2*j+1]}
			if got := peers(agg); !slices.Equal(got, want) {
				t.Errorf("DC %d agg %d peers %v, want %v", d, ai, got, want)
			}
		}
		want := append(slices.Clone(l.Cores[d]), l.DCI[1-d])
		if got := peers(l.DCI[d]); !slices.Equal(got, want) {
			t.Errorf("DCI %d peers %v, want %v", d, got, want)
		}
		for _, c := range l.Cores[d] {
			if ps := peers(c); len(ps) != 5 || ps[4] != l.DCI[d] {
				t.Errorf("core %d peers %v: want 4 aggregation switches then the DCI", c, ps)
			}
		}
	}
	if lh := g.Links[l.LongHaul]; lh.A != 84 || lh.B != 105 || lh.Bps != 400e9 || lh.Delay != sim.Millisecond {
		t.Errorf("long haul %+v", lh)
	}
}

// Base RTTs (paper 002 §4.1.1): intra-DC at most 6 links = 12 µs, cross-DC
// 2 × (8 × 1 µs + 1 ms) = 2.016 ms, plus the payload's serialization per
// link (1000 B: 80 ns at 100 G, 20 ns at 400 G).
func TestCrossDCBaseRTT(t *testing.T) {
	g, err := CrossDC(DefaultCrossDCParams())
	if err != nil {
		t.Fatal(err)
	}
	r := g.NextHops()
	ns := sim.Nanosecond
	for _, c := range []struct {
		src, dst, hops int
		rtt            sim.Time
	}{
		{0, 1, 2, 4*sim.Microsecond + 2*80*ns},                      // same ToR
		{0, 4, 4, 8*sim.Microsecond + 4*80*ns},                      // same pod
		{0, 31, 6, 12*sim.Microsecond + 6*80*ns},                    // other pod: the intra-DC maximum
		{0, 32, 9, 2016*sim.Microsecond + 8*80*ns + 20*ns},          // A.h0 → B.h0
		{63, 0, 9, 2016*sim.Microsecond + 8*80*ns + 20*ns},          // B.h31 → A.h0
		{17, 45, 9, 2*(8*sim.Microsecond+sim.Millisecond) + 660*ns}, // any cross pair
	} {
		pi := r.PathInfo(c.src, c.dst, 1000)
		if pi.Hops != c.hops || pi.BaseRTT() != c.rtt {
			t.Errorf("%d → %d: %d hops, base RTT %v; want %d, %v", c.src, c.dst, pi.Hops, pi.BaseRTT(), c.hops, c.rtt)
		}
	}
	if rtt, bdp := g.MaxRTT(1000); rtt != 2016660*ns || bdp != 25_208_250 {
		t.Errorf("MaxRTT = %v, %d B; want 2.01666 ms, 25208250 B (at the 100 G host rate)", rtt, bdp)
	}
}

func TestCrossDCParamsValidate(t *testing.T) {
	p := DefaultCrossDCParams()
	p.Pods, p.HostsPerToR, p.LongHaulBps, p.DCIDelay, p.LongHaulLinks = 0, 600, 0, -1, 2
	_, err := CrossDC(p)
	for _, want := range []string{"cross_dc.pods = 0: must be in [1, 64]", "cross_dc.hosts_per_tor = 600: must be in [1, 512]",
		"cross_dc.long_haul_bps = 0: must be in [1, 1e+14] b/s", "cross_dc.dci_delay = ", "cross_dc.long_haul_links = 2: must be 1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	// smaller and larger shapes build
	p = DefaultCrossDCParams()
	p.Pods, p.ToRsPerPod, p.AggsPerPod, p.CoresPerAgg, p.HostsPerToR = 1, 1, 1, 1, 1
	g, err := CrossDC(p)
	if err != nil || g.NumNodes() != 2*5 || len(g.Links) != 2*4+1 {
		t.Errorf("smallest: %v, %d nodes", err, g.NumNodes())
	}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
}

func TestTwoSite(t *testing.T) {
	g, err := TwoSite(DefaultTwoSiteParams())
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Names, []string{"A", "B", "C", "SW1", "SW2"}) || !slices.Equal(g.Domains, []uint16{1, 1, 2, 1, 2}) ||
		!slices.Equal(g.Roles, []string{"host", "host", "host", "dci", "dci"}) {
		t.Errorf("names %v domains %v roles %v", g.Names, g.Domains, g.Roles)
	}
	// A → C: 2 × (3.2 ms + 2 µs) + 3 × 20 ns (1000 B at 400 G)
	ns := sim.Nanosecond
	if pi := g.PathInfo(0, 2, 1000); pi.Hops != 3 || pi.BaseRTT() != 6_404_060*ns || pi.MinBps != 400e9 {
		t.Errorf("A → C: %+v, RTT %v", pi, pi.BaseRTT())
	}
	if pi := g.PathInfo(0, 1, 1000); pi.BaseRTT() != 4*sim.Microsecond+40*ns {
		t.Errorf("A → B: RTT %v", pi.BaseRTT())
	}
	p := DefaultTwoSiteParams()
	if p.LongHaulDelay != 3200*sim.Microsecond {
		t.Errorf("640 km = %v, want 3.2 ms", p.LongHaulDelay)
	}
	p.SingleSwitch = true
	g, err = TwoSite(p)
	if err != nil || !slices.Equal(g.Names, []string{"A", "B", "C", "SW1"}) || len(g.Links) != 3 || g.Domain(2) != 1 || g.Role(3) != "tor" {
		t.Fatalf("short: %v %+v", err, g)
	}
	if pi := g.PathInfo(0, 2, 1000); pi.BaseRTT() != 4*sim.Microsecond+40*ns {
		t.Errorf("short A → C: RTT %v", pi.BaseRTT())
	}
	p = DefaultTwoSiteParams()
	p.HostBps, p.LongHaulDelay = 0, 11*sim.Second
	if _, err := TwoSite(p); err == nil || !strings.Contains(err.Error(), "two_site.host_bps = 0") || !strings.Contains(err.Error(), "two_site.long_haul_delay = ") {
		t.Errorf("err = %v", err)
	}
}
