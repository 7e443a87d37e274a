package topo

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestDCONTestbed: T4's node ids, names, links and the sampled ports are
// the documented constants, and it is the leaf-spine builder's graph.
func TestDCONTestbed(t *testing.T) {
	g, ids, err := DCONTestbed(DefaultDCONTestbedParams())
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	ls := must(LeafSpine(t4Params))
	if !reflect.DeepEqual(g.Kinds, ls.Kinds) || !reflect.DeepEqual(g.Links, ls.Links) {
		t.Fatal("DCONTestbed differs from LeafSpine(T4)")
	}
	if g.NumNodes() != 23 || len(g.Links) != 24 {
		t.Fatalf("%d nodes, %d links; want 23, 24", g.NumNodes(), len(g.Links))
	}
	for _, l := range g.Links {
		if l.Bps != 40e9 || l.Delay != 5*us {
			t.Fatalf("link %+v: want 40 Gb/s, 5 µs", l)
		}
	}
	want := map[string]int{"H0": 0, "H7": 7, "H8": 8, "H15": 15, "R0": 16, "R1": 17, "L0": 18, "L1": 19, "L2": 20, "S0": 21, "S1": 22}
	for name, id := range want {
		if got, ok := g.NodeByName(name); !ok || got != id {
			t.Errorf("NodeByName(%q) = %d, %v; want %d", name, got, ok, id)
		}
		if g.Name(id) != name {
			t.Errorf("Name(%d) = %q, want %q", id, g.Name(id), name)
		}
	}
	if _, ok := g.NodeByName("H16"); ok {
		t.Error("H16 exists")
	}
	for i, h := range ids.H {
		if h != i || g.Kinds[h] != Host {
			t.Errorf("H%d = %d", i, h)
		}
	}
	if ids.R != [2]int{16, 17} || ids.L != [3]int{18, 19, 20} || ids.S != [2]int{21, 22} {
		t.Errorf("ids %+v", ids)
	}
	for _, sw := range append(ids.L[:], ids.S[:]...) {
		if g.Kinds[sw] != Switch {
			t.Errorf("node %d is not a switch", sw)
		}
	}
	ports := g.Ports()
	peer := func(np NodePort) int { return ports[np.Node][np.Port].Peer }
	if ids.P2L2 != (NodePort{20, 1}) || peer(ids.P2L2) != ids.R[1] {
		t.Errorf("P2/L2 = %+v leads to %d, want {20 1} to R1", ids.P2L2, peer(ids.P2L2))
	}
	if ids.P1L2 != (NodePort{20, 3}) || peer(ids.P1L2) != ids.S[1] {
		t.Errorf("P1/L2 = %+v leads to %d, want {20 3} to S1", ids.P1L2, peer(ids.P1L2))
	}
	if ids.P0S1 != (NodePort{22, 2}) || peer(ids.P0S1) != ids.L[2] {
		t.Errorf("P0/S1 = %+v leads to %d, want {22 2} to L2", ids.P0S1, peer(ids.P0S1))
	}
	for l := range 3 {
		for s := range 2 {
			if up := ids.LeafUplink(l, s); up.Node != ids.L[l] || peer(up) != ids.S[s] {
				t.Errorf("LeafUplink(%d, %d) = %+v leads to %d", l, s, up, peer(up))
			}
			if dn := ids.SpineDownlink(s, l); dn.Node != ids.S[s] || peer(dn) != ids.L[l] {
				t.Errorf("SpineDownlink(%d, %d) = %+v leads to %d", s, l, dn, peer(dn))
			}
		}
	}
	for h := range 18 {
		if d := ids.HostDownlink(h); peer(d) != h || ports[h][0].Peer != d.Node {
			t.Errorf("HostDownlink(%d) = %+v", h, d)
		}
	}
	// base RTT host–leaf–spine–leaf–host: 8 × 5 µs
	if p := g.PathInfo(0, 16, 1000); p.Hops != 4 || 2*p.Delay != 40*us {
		t.Errorf("H0 → R0: %d hops, 2·delay %v; want 4, 40 µs", p.Hops, 2*p.Delay)
	}
	if p := g.PathInfo(0, 7, 1000); p.Hops != 2 {
		t.Errorf("H0 → H7: %d hops, want 2", p.Hops)
	}
	if _, _, err := DCONTestbed(DCONTestbedParams{HostBps: 0, FabricBps: 40e9}); err == nil || !strings.Contains(err.Error(), "dcon_testbed.host_bps") {
		t.Errorf("zero host rate: %v", err)
	}
}

func TestGraphNames(t *testing.T) {
	g := Star(2, 1e9, 0)
	if _, ok := g.NodeByName("x"); ok || g.Name(0) != "" {
		t.Error("unnamed graph has names")
	}
	g.Names = []string{"a", "b"}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "2 names for 3 nodes") {
		t.Errorf("short names: %v", err)
	}
	g.Names = []string{"a", "b", "a"}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), `nodes 0 and 2 are both named "a"`) {
		t.Errorf("duplicate names: %v", err)
	}
	g.Names = []string{"a", "", "c"}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "node 1: empty name") {
		t.Errorf("empty name: %v", err)
	}
	g.Names = []string{"a", "b", "sw"}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
}

func TestCheckVia(t *testing.T) {
	g, ids, err := DCONTestbed(DefaultDCONTestbedParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src, dst, via int
		err           string
	}{
		{ids.H[0], ids.R[0], ids.S[1], ""},
		{ids.H[1], ids.R[1], ids.S[0], ""},
		{ids.H[0], ids.R[0], ids.L[0], ""},
		{ids.H[0], ids.R[0], ids.L[2], ""},
		{ids.H[0], ids.R[0], ids.L[1], "switch 19 is not on a shortest path from host 0 to host 16 (6 hops through it, 4 on a shortest path)"},
		{ids.H[0], ids.H[1], ids.S[1], "switch 22 is not on a shortest path from host 0 to host 1 (4 hops through it, 2 on a shortest path)"},
		{ids.H[0], ids.R[0], ids.H[3], "node 3 is a host, not a switch"},
		{ids.H[0], ids.R[0], 23, "node 23 does not exist (nodes are 0..22)"},
		{ids.H[0], ids.S[0], ids.S[1], "endpoints must be hosts"},
	} {
		err := g.CheckVia(tc.src, tc.dst, tc.via)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckVia(%d, %d, %d) = %v, want %q", tc.src, tc.dst, tc.via, err, tc.err)
		}
	}
	d := g.DistFrom(ids.S[1])
	if d[ids.S[1]] != 0 || d[ids.L[0]] != 1 || d[ids.H[0]] != 2 || d[ids.S[0]] != 2 {
		t.Errorf("DistFrom(S1) = %v", d)
	}
}

// TestHostLoadForCoreLoad: T5 (8 spines × 10 leaves × 24 hosts, 40 Gb/s):
// f = 216/239, ρ_h = ρ_c · 8 / (24 · 216/239) ≈ 0.369 ρ_c.
func TestHostLoadForCoreLoad(t *testing.T) {
	f := 216.0 / 239.0
	if math.Abs(f-0.9037656903765690) > 1e-15 {
		t.Fatalf("f = %v", f)
	}
	for _, core := range []float64{0.4, 0.5, 0.6, 0.7, 0.8, 1} {
		got, err := t5Params.HostLoadForCoreLoad(core)
		if err != nil {
			t.Fatal(err)
		}
		want := core * 8 * 239 / (24 * 216) // = core · 0.36882716...
		if math.Abs(got-want) > 1e-15 {
			t.Errorf("core %v: host load %v, want %v", core, got, want)
		}
	}
	got, _ := t5Params.HostLoadForCoreLoad(1)
	if math.Abs(got-0.3688271604938272) > 1e-15 {
		t.Errorf("ρ_h/ρ_c = %v, want 0.3688271604938272 (≈ 0.369)", got)
	}
	got, _ = t5Params.HostLoadForCoreLoad(0.8)
	if math.Abs(got-0.29506172839506173) > 1e-15 {
		t.Errorf("core 0.8: host load %v, want 0.29506 (≈ 0.295)", got)
	}
	// uplinks twice as fast: half the host load for the same core load
	p := t5Params
	p.FabricBps = 20e9
	if h, _ := p.HostLoadForCoreLoad(0.8); math.Abs(h-0.29506172839506173/2) > 1e-15 {
		t.Errorf("20 G uplinks: %v", h)
	}
	p = t5Params
	p.Leaves = 1
	if _, err := p.HostLoadForCoreLoad(0.5); err == nil || !strings.Contains(err.Error(), "leaves = 1") {
		t.Errorf("one leaf: %v", err)
	}
	if _, err := t4Params.HostLoadForCoreLoad(0.5); err == nil || !strings.Contains(err.Error(), "leaf_hosts") {
		t.Errorf("uneven leaves: %v", err)
	}
}
