package topo

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

const (
	us = sim.Microsecond
	ns = sim.Nanosecond
)

// Named shapes of the topology table (docs/papers.md §7.1).
var (
	// T5: DCON E3 leaf-spine, 8 spines × 10 leaves × 24 hosts, 40 G, 5 µs.
	t5Params = LeafSpineParams{Spines: 8, Leaves: 10, HostsPerLeaf: 24,
		HostBps: 40e9, FabricBps: 40e9, HostDelay: 5 * us, FabricDelay: 5 * us}
	// T4: DCON testbed, L0 (H0–H7), L1 (H8–H15), L2 (R0, R1); S0, S1.
	t4Params = LeafSpineParams{Spines: 2, Leaves: 3, LeafHosts: []int{8, 8, 2},
		HostBps: 40e9, FabricBps: 40e9, HostDelay: 5 * us, FabricDelay: 5 * us}
	// T3: 4 ToRs × 16 nodes under 4 spines, 400 G, 1 µs.
	t3Params = LeafSpineParams{Spines: 4, Leaves: 4, HostsPerLeaf: 16,
		HostBps: 400e9, FabricBps: 400e9, HostDelay: us, FabricDelay: us}
	// T6: one data centre, k=4 fat tree, 100 G, 1 µs.
	t6Params = FatTreeParams{K: 4, HostBps: 100e9, FabricBps: 100e9, Delay: us}
)

// must returns g, panicking on a builder error (the parameters of the
// tests are valid; TestBuilderValidation covers the errors).
func must(g *Graph, err error) *Graph {
	if err != nil {
		panic(err)
	}
	return g
}

// builderCase is a built topology with its expected shape.
type builderCase struct {
	name          string
	g             *Graph
	hosts, nodes  int
	links         int
	tors, torBase int // leaves/ToRs: ids torBase..torBase+tors-1
	// torOf returns the ToR (leaf) index of host h; podOf the pod of a ToR
	// index (leaf-spine: every leaf is its own pod).
	torOf, podOf func(int) int
	uplinks      int // equal-cost uplinks of a ToR/leaf
	maxHops      int // host-to-host links between pods (4 or 6)
}

func builderCases() []builderCase {
	div := func(n int) func(int) int { return func(x int) int { return x / n } }
	id := func(x int) int { return x }
	odd := HPCCFatTreeParams{Pods: 3, ToRsPerPod: 2, AggsPerPod: 3, CoresPerAgg: 2, HostsPerToR: 5,
		HostBps: 25e9, FabricBps: 50e9, HostDelay: 500 * ns, FabricDelay: 2 * us}
	t4Leaf := func(h int) int { return min(h/8, 2) }
	return []builderCase{
		{"T5 leaf-spine 8x10x24", must(LeafSpine(t5Params)), 240, 258, 320, 10, 240, div(24), id, 8, 4},
		{"T4 leaf-spine 2x3 (8,8,2)", must(LeafSpine(t4Params)), 18, 23, 24, 3, 18, t4Leaf, id, 2, 4},
		{"T3 leaf-spine 4x4x16", must(LeafSpine(t3Params)), 64, 72, 80, 4, 64, div(16), id, 4, 4},
		{"leaf-spine 1 leaf", must(LeafSpine(LeafSpineParams{Spines: 1, Leaves: 1, HostsPerLeaf: 3, HostBps: 1e9, FabricBps: 1e9})), 3, 5, 4, 1, 3, div(3), id, 1, 4},
		{"T6 fat-tree k=4", must(FatTree(t6Params)), 16, 36, 48, 8, 16, div(2), div(2), 2, 6},
		{"fat-tree k=8", must(FatTree(FatTreeParams{K: 8, HostBps: 10e9, FabricBps: 40e9, Delay: us})), 128, 208, 384, 32, 128, div(4), div(4), 4, 6},
		{"fat-tree k=4, 6 hosts/edge", must(FatTree(FatTreeParams{K: 4, HostsPerEdge: 6, HostBps: 10e9, FabricBps: 10e9})), 48, 68, 80, 8, 48, div(6), div(2), 2, 6},
		{"fat-tree k=2", must(FatTree(FatTreeParams{K: 2, HostBps: 1e9, FabricBps: 1e9})), 2, 7, 6, 2, 2, id, id, 1, 6},
		{"HPCC fat tree 320", RefFat320(), 320, 376, 480, 20, 320, div(16), div(4), 4, 6},
		{"pod Clos 3x(2,3)x2x5", must(HPCCFatTree(odd)), 30, 51, 66, 6, 30, div(5), div(2), 3, 6},
	}
}

func TestBuilderCounts(t *testing.T) {
	for _, tc := range builderCases() {
		g := tc.g
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if g.NumNodes() != tc.nodes || len(g.Links) != tc.links || len(g.Hosts()) != tc.hosts {
			t.Errorf("%s: %d nodes, %d links, %d hosts; want %d, %d, %d",
				tc.name, g.NumNodes(), len(g.Links), len(g.Hosts()), tc.nodes, tc.links, tc.hosts)
			continue
		}
		// Hosts are 0..H-1, switches after them; host links come first,
		// in host order, to the host's ToR.
		for i, k := range g.Kinds {
			if want := Switch; i < tc.hosts {
				want = Host
				if k != want {
					t.Fatalf("%s: node %d is %v, want host", tc.name, i, k)
				}
				l := g.Links[i]
				if l.A != i || l.B != tc.torBase+tc.torOf(i) {
					t.Fatalf("%s: link %d = %+v, want host %d to ToR %d", tc.name, i, l, i, tc.torBase+tc.torOf(i))
				}
			} else if k != want {
				t.Fatalf("%s: node %d is %v, want switch", tc.name, i, k)
			}
		}
		// Every switch-switch link goes upwards (A < B), in ascending order.
		for i := tc.hosts + 1; i < len(g.Links); i++ {
			a, b := g.Links[i-1], g.Links[i]
			if b.A >= b.B || a.A > b.A || a.A == b.A && a.B >= b.B {
				t.Fatalf("%s: links %d, %d = %+v, %+v not in ascending (lower, upper) order", tc.name, i-1, i, a, b)
			}
		}
		// The reference format writes and reads the graph back unchanged.
		var buf bytes.Buffer
		if err := WriteNS3(&buf, g); err != nil {
			t.Fatalf("%s: WriteNS3: %v", tc.name, err)
		}
		back, err := ReadNS3(&buf)
		if err != nil || !reflect.DeepEqual(back, g) {
			t.Fatalf("%s: ReadNS3(WriteNS3(g)) differs (err %v)", tc.name, err)
		}
	}
}

func TestHPCCFatTreeMatchesReferenceFile(t *testing.T) {
	want := readRef(t, "fat_topology.txt")
	got := RefFat320()
	if !reflect.DeepEqual(got.Kinds, want.Kinds) {
		t.Fatalf("RefFat320 kinds differ from fat_topology.txt")
	}
	if len(got.Links) != len(want.Links) {
		t.Fatalf("RefFat320 has %d links, file %d", len(got.Links), len(want.Links))
	}
	for i := range want.Links {
		if got.Links[i] != want.Links[i] {
			t.Fatalf("link %d = %+v, file has %+v", i, got.Links[i], want.Links[i])
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("RefFat320 differs from ReadNS3(fat_topology.txt)")
	}
	// FatTree is the same layout with k/2 everywhere.
	ft := must(FatTree(t6Params))
	pc := must(HPCCFatTree(HPCCFatTreeParams{Pods: 4, ToRsPerPod: 2, AggsPerPod: 2, CoresPerAgg: 2,
		HostsPerToR: 2, HostBps: 100e9, FabricBps: 100e9, HostDelay: us, FabricDelay: us}))
	if !reflect.DeepEqual(ft, pc) {
		t.Fatal("FatTree(k=4) differs from the equivalent HPCCFatTree")
	}
}

func TestBuilderLayout(t *testing.T) {
	peers := func(g *Graph, node int) []int {
		var ps []int
		for _, p := range g.Ports()[node] {
			ps = append(ps, p.Peer)
		}
		return ps
	}
	// k=4: hosts 0-15, edges 16-23, aggs 24-31, cores 32-35.
	ft := must(FatTree(t6Params))
	t4 := must(LeafSpine(t4Params))
	for _, tc := range []struct {
		name  string
		g     *Graph
		node  int
		peers []int
	}{
		{"k=4 edge 16", ft, 16, []int{0, 1, 24, 25}},
		{"k=4 edge 19 (pod 1)", ft, 19, []int{6, 7, 26, 27}},
		{"k=4 agg 24 (pod 0, j 0)", ft, 24, []int{16, 17, 32, 33}},
		{"k=4 agg 27 (pod 1, j 1)", ft, 27, []int{18, 19, 34, 35}},
		{"k=4 core 34 (group 1)", ft, 34, []int{25, 27, 29, 31}},
		{"T4 L2", t4, 20, []int{16, 17, 21, 22}},
		{"T4 S1", t4, 22, []int{18, 19, 20}},
		{"T4 R1", t4, 17, []int{20}},
	} {
		if got := peers(tc.g, tc.node); !reflect.DeepEqual(got, tc.peers) {
			t.Errorf("%s: port peers %v, want %v", tc.name, got, tc.peers)
		}
	}
	if got := t4.Links[len(t4.Links)-1]; got != (Link{A: 20, B: 22, Bps: 40e9, Delay: 5 * us}) {
		t.Errorf("T4 last link %+v", got)
	}
}

// TestBuilderRoutes checks reachability and hop counts for every host pair
// (a host-switch-host path is 2 links), and that the next-hop lists of a
// ToR/leaf towards a host of another pod hold exactly its uplinks.
func TestBuilderRoutes(t *testing.T) {
	for _, tc := range builderCases() {
		g := tc.g
		r := g.NextHops()
		ports := g.Ports()
		for s := range tc.hosts {
			for d := range tc.hosts {
				ts, td := tc.torOf(s), tc.torOf(d)
				want := tc.maxHops
				switch {
				case s == d:
					want = 0
				case ts == td:
					want = 2
				case tc.podOf(ts) == tc.podOf(td):
					want = 4
				}
				if got := r.Dist(s, d); got != want {
					t.Fatalf("%s: Dist(%d, %d) = %d, want %d", tc.name, s, d, got, want)
				}
				if s%7 == 0 && d%5 == 0 {
					if p := r.PathInfo(s, d, 1000); p.Hops != want {
						t.Fatalf("%s: PathInfo(%d, %d).Hops = %d, want %d", tc.name, s, d, p.Hops, want)
					}
				}
			}
		}
		// Uplink lists: from every ToR to every host outside its pod.
		for tor := range tc.tors {
			node := tc.torBase + tor
			var up []int
			for _, p := range ports[node] {
				if g.Kinds[p.Peer] == Switch {
					up = append(up, p.Peer)
				}
			}
			if len(up) != tc.uplinks {
				t.Fatalf("%s: ToR %d has %d uplinks, want %d", tc.name, node, len(up), tc.uplinks)
			}
			for d := range tc.hosts {
				if tc.podOf(tc.torOf(d)) == tc.podOf(tor) {
					continue
				}
				var got []int
				for _, p := range r.Next(node, d) {
					got = append(got, ports[node][p].Peer)
				}
				slices.Sort(got)
				if !slices.Equal(got, up) {
					t.Fatalf("%s: Next(%d, %d) peers %v, want all uplinks %v", tc.name, node, d, got, up)
				}
			}
		}
	}
}

func TestBuilderMaxRTT(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    *Graph
		rtt  sim.Time
		bdp  int64
	}{
		// 3 switches deep: 2·6 µs + 2·80 ns + 4·20 ns (docs/reference-simulator.md §1.4).
		{"HPCC fat tree", RefFat320(), 12240 * ns, 153000},
		// 4 links of 5 µs at 40 G: 2·20 µs + 4·200 ns.
		{"T5", must(LeafSpine(t5Params)), 40800 * ns, 204000},
		{"T4", must(LeafSpine(t4Params)), 40800 * ns, 204000},
		// 6 links of 1 µs at 100 G: 2·6 µs + 6·80 ns.
		{"T6 k=4", must(FatTree(t6Params)), 12480 * ns, 156000},
	} {
		rtt, bdp := tc.g.MaxRTT(1000)
		if rtt != tc.rtt || bdp != tc.bdp {
			t.Errorf("%s: MaxRTT(1000) = %v, %d B; want %v, %d B", tc.name, rtt, bdp, tc.rtt, tc.bdp)
		}
	}
}

// TestECMPSpread hashes many synthetic flows (varying source port) at a
// switch towards a host of another pod and checks that the choice
// hash % len(next) is uniform over the equal-cost next hops: Pearson's
// chi-square statistic must stay below the critical value at significance
// 0.001 for len(next)-1 degrees of freedom.
func TestECMPSpread(t *testing.T) {
	const flows = 40000
	// Upper 0.001 quantiles of the chi-square distribution by degrees of
	// freedom.
	critical := map[int]float64{1: 10.828, 2: 13.816, 3: 16.266, 7: 24.322}
	ft := must(FatTree(t6Params))
	fat := RefFat320()
	t5 := must(LeafSpine(t5Params))
	flowHash := func(src, dst int, sport uint16, sw int) uint32 {
		return FlowHash(src, dst, sport, 4791, uint32(sw))
	}
	refHash := func(src, dst int, sport uint16, sw int) uint32 {
		return RefECMPHash(RefIP(src), RefIP(dst), sport, 100, sw)
	}
	for _, tc := range []struct {
		name       string
		g          *Graph
		sw         int // switch doing the ECMP choice
		src, dst   int
		hash       func(src, dst int, sport uint16, sw int) uint32
		wantFanout int
	}{
		{"k=4 edge 16 -> pod 1, FlowHash", ft, 16, 0, 6, flowHash, 2},
		{"k=4 edge 21 -> pod 0, FlowHash", ft, 21, 11, 1, flowHash, 2},
		{"k=4 agg 24 -> pod 3, FlowHash", ft, 24, 0, 15, flowHash, 2},
		{"HPCC ToR 320 -> host 200, FlowHash", fat, 320, 3, 200, flowHash, 4},
		{"HPCC ToR 337 -> host 17, FlowHash", fat, 337, 280, 17, flowHash, 4},
		{"HPCC agg 343 -> host 200, FlowHash", fat, 343, 3, 200, flowHash, 4},
		{"HPCC ToR 320 -> host 200, reference Murmur3", fat, 320, 3, 200, refHash, 4},
		{"T5 leaf 240 -> leaf 9, FlowHash", t5, 240, 0, 239, flowHash, 8},
	} {
		next := tc.g.NextHops().Next(tc.sw, tc.dst)
		if len(next) != tc.wantFanout {
			t.Fatalf("%s: %d next hops, want %d", tc.name, len(next), tc.wantFanout)
		}
		count := make([]int, len(next))
		for sport := range flows {
			count[tc.hash(tc.src, tc.dst, uint16(sport), tc.sw)%uint32(len(next))]++
		}
		exp := float64(flows) / float64(len(next))
		chi2 := 0.0
		for _, c := range count {
			chi2 += (float64(c) - exp) * (float64(c) - exp) / exp
		}
		crit, ok := critical[len(next)-1]
		if !ok {
			t.Fatalf("%s: no critical value for %d degrees of freedom", tc.name, len(next)-1)
		}
		t.Logf("%s: counts %v, chi-square %.3f (critical %.3f)", tc.name, count, chi2, crit)
		if chi2 >= crit {
			t.Errorf("%s: counts %v, chi-square %.3f >= %.3f (df %d, alpha 0.001)", tc.name, count, chi2, crit, len(next)-1)
		}
	}
}

func TestOversubscription(t *testing.T) {
	for _, tc := range []struct {
		p    LeafSpineParams
		want float64
	}{
		{t5Params, 3},
		{t4Params, 4}, // L0: 8 × 40 G down, 2 × 40 G up
		{t3Params, 4},
		{LeafSpineParams{Spines: 4, HostsPerLeaf: 16, HostBps: 25e9, FabricBps: 100e9}, 1},
		{LeafSpineParams{Spines: 4, HostsPerLeaf: 16, HostBps: 25e9, FabricBps: 100e9, LinksPerPair: 2}, 0.5},
		{LeafSpineParams{}, 0},
	} {
		if got := tc.p.Oversubscription(); got != tc.want {
			t.Errorf("%+v.Oversubscription() = %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestBuilderValidation(t *testing.T) {
	ls := func(mod func(*LeafSpineParams)) error {
		p := t5Params
		mod(&p)
		_, err := LeafSpine(p)
		return err
	}
	ft := func(mod func(*FatTreeParams)) error {
		p := t6Params
		mod(&p)
		_, err := FatTree(p)
		return err
	}
	hp := func(mod func(*HPCCFatTreeParams)) error {
		p := RefFat320Params()
		mod(&p)
		_, err := HPCCFatTree(p)
		return err
	}
	for _, tc := range []struct {
		name string
		err  error
		want []string // substrings; nil = no error
	}{
		{"fat k ok", ft(func(*FatTreeParams) {}), nil},
		{"fat k=3", ft(func(p *FatTreeParams) { p.K = 3 }), []string{"topo: fat_tree.k = 3: must be even, in [2, 64]"}},
		{"fat k=0", ft(func(p *FatTreeParams) { p.K = 0 }), []string{"fat_tree.k = 0: must be even, in [2, 64]"}},
		{"fat k=66", ft(func(p *FatTreeParams) { p.K = 66 }), []string{"fat_tree.k = 66: must be even, in [2, 64]"}},
		{"fat k=64 too many nodes", ft(func(p *FatTreeParams) { p.K = 64 }), []string{"fat_tree: 70656 nodes exceed the limit 65536"}},
		{"fat k=64, 1 host/edge", ft(func(p *FatTreeParams) { p.K, p.HostsPerEdge = 64, 1 }), nil},
		{"fat hosts/edge", ft(func(p *FatTreeParams) { p.HostsPerEdge = -1 }), []string{"fat_tree.hosts_per_edge = -1: must be in [1, 4096]"}},
		{"fat host rate", ft(func(p *FatTreeParams) { p.HostBps = 0 }), []string{"fat_tree.host_bps = 0: must be in [1, 1e+14] b/s"}},
		{"fat delay", ft(func(p *FatTreeParams) { p.Delay = -1 }), []string{"fat_tree.delay = -1ps: must be in [0, 10s]"}},
		{"fat several", ft(func(p *FatTreeParams) { p.K, p.FabricBps = 5, 2e14 }),
			[]string{"fat_tree.k = 5", "fat_tree.fabric_bps = 200000000000000: must be in [1, 1e+14] b/s"}},
		{"ls ok", ls(func(*LeafSpineParams) {}), nil},
		{"ls links per pair 1", ls(func(p *LeafSpineParams) { p.LinksPerPair = 1 }), nil},
		{"ls links per pair 2", ls(func(p *LeafSpineParams) { p.LinksPerPair = 2 }),
			[]string{"leaf_spine.links_per_pair = 2: must be 1", "parallel links"}},
		{"ls spines", ls(func(p *LeafSpineParams) { p.Spines = 0 }), []string{"leaf_spine.spines = 0: must be in [1, 4096]"}},
		{"ls leaves", ls(func(p *LeafSpineParams) { p.Leaves = 5000 }), []string{"leaf_spine.leaves = 5000: must be in [1, 4096]"}},
		{"ls hosts", ls(func(p *LeafSpineParams) { p.HostsPerLeaf = 0 }), []string{"leaf_spine.hosts_per_leaf = 0: must be in [1, 4096]"}},
		{"ls leaf hosts len", ls(func(p *LeafSpineParams) { p.LeafHosts = []int{1, 2} }),
			[]string{"leaf_spine.leaf_hosts has 2 entries: must have leaves = 10"}},
		{"ls leaf hosts neg", ls(func(p *LeafSpineParams) { p.Leaves, p.LeafHosts = 2, []int{1, -2} }),
			[]string{"leaf_spine.leaf_hosts[1] = -2: must be in [0, 4096]"}},
		{"ls leaf hosts none", ls(func(p *LeafSpineParams) { p.Leaves, p.LeafHosts = 2, []int{0, 0} }),
			[]string{"leaf_spine.leaf_hosts: total 0 hosts: must be at least 1"}},
		{"ls fabric delay", ls(func(p *LeafSpineParams) { p.FabricDelay = 11 * sim.Second }),
			[]string{"leaf_spine.fabric_delay = 11000000000ns: must be in [0, 10s]"}},
		{"ls too many nodes", ls(func(p *LeafSpineParams) { p.Leaves, p.HostsPerLeaf = 4096, 16 }),
			[]string{"leaf_spine: 69640 nodes exceed the limit 65536"}},
		{"hpcc ok", hp(func(*HPCCFatTreeParams) {}), nil},
		{"hpcc pods", hp(func(p *HPCCFatTreeParams) { p.Pods = 0 }), []string{"hpcc_fat_tree.pods = 0: must be in [1, 4096]"}},
		{"hpcc tors", hp(func(p *HPCCFatTreeParams) { p.ToRsPerPod = -3 }), []string{"hpcc_fat_tree.tors_per_pod = -3: must be in [1, 4096]"}},
		{"hpcc cores", hp(func(p *HPCCFatTreeParams) { p.CoresPerAgg = 0 }), []string{"hpcc_fat_tree.cores_per_agg = 0: must be in [1, 4096]"}},
		{"hpcc host delay", hp(func(p *HPCCFatTreeParams) { p.HostDelay = -5 * ns }), []string{"hpcc_fat_tree.host_delay = -5ns: must be in [0, 10s]"}},
	} {
		switch {
		case tc.want == nil && tc.err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, tc.err)
		case tc.want != nil && tc.err == nil:
			t.Errorf("%s: no error, want %q", tc.name, tc.want)
		case tc.want != nil:
			for _, w := range tc.want {
				if !strings.Contains(tc.err.Error(), w) {
					t.Errorf("%s: error %q does not contain %q", tc.name, tc.err, w)
				}
			}
		}
	}
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		g    *Graph
		want string
	}{
		{RefFat320(), "376 nodes (320 hosts, 56 switches with 5-20 ports), 480 links: 320 × 100Gbps 1000ns, 160 × 400Gbps 1000ns"},
		{must(LeafSpine(t5Params)), "258 nodes (240 hosts, 18 switches with 10-32 ports), 320 links: 320 × 40Gbps 5000ns"},
		{Star(21, 100e9, 1000*ns), "22 nodes (21 hosts, 1 switch with 21 ports), 21 links: 21 × 100Gbps 1000ns"},
		{&Graph{Kinds: []NodeKind{Host, Host}, Links: []Link{{A: 0, B: 1, Bps: 25e9, Delay: 1500, ErrRate: 0.01}}},
			"2 nodes (2 hosts, 0 switches), 1 link: 1 × 25Gbps 1500ps loss 0.010000"},
		{&Graph{}, "0 nodes (0 hosts, 0 switches), 0 links"},
	} {
		if got := tc.g.Summary(); got != tc.want {
			t.Errorf("Summary() = %q\nwant        %q", got, tc.want)
		}
	}
}
