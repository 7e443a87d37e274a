package topo

import (
	"reflect"
	"testing"
	"time"

	"github.com/ccsim/ccsim/sim"
)

func TestPorts(t *testing.T) {
	// 0 - 2 - 1, plus a parallel link 2 - 1 and a link 3 - 2.
	g := &Graph{
		Kinds: []NodeKind{Host, Host, Switch, Host},
		Links: []Link{{A: 0, B: 2}, {A: 2, B: 1}, {A: 1, B: 2}, {A: 3, B: 2}},
	}
	want := [][]PortRef{
		{{Link: 0, Peer: 2, PeerPort: 0}},
		{{Link: 1, Peer: 2, PeerPort: 1}, {Link: 2, Peer: 2, PeerPort: 2}},
		{{Link: 0, Peer: 0, PeerPort: 0}, {Link: 1, Peer: 1, PeerPort: 0}, {Link: 2, Peer: 1, PeerPort: 1}, {Link: 3, Peer: 3, PeerPort: 0}},
		{{Link: 3, Peer: 2, PeerPort: 3}},
	}
	if got := g.Ports(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Ports() = %v\nwant %v", got, want)
	}
}

func TestValidate(t *testing.T) {
	ok := Link{A: 0, B: 1, Bps: 1e9, Delay: 1}
	tests := []struct {
		name string
		mod  func(*Link)
		bad  bool
	}{
		{"ok", func(*Link) {}, false},
		{"range", func(l *Link) { l.B = 2 }, true},
		{"negative", func(l *Link) { l.A = -1 }, true},
		{"self", func(l *Link) { l.B = 0 }, true},
		{"rate", func(l *Link) { l.Bps = 0 }, true},
		{"delay", func(l *Link) { l.Delay = -1 }, true},
		{"err rate", func(l *Link) { l.ErrRate = 2 }, true},
	}
	for _, tc := range tests {
		l := ok
		tc.mod(&l)
		g := &Graph{Kinds: []NodeKind{Host, Switch}, Links: []Link{l}}
		if err := g.Validate(); (err != nil) != tc.bad {
			t.Errorf("%s: Validate() = %v, want error %v", tc.name, err, tc.bad)
		}
	}
}

// diamond: host 0 - s2, s2 - s3, s2 - s4, s3 - s5, s4 - s5, s5 - host 1, with
// a 2 µs detour through s4 and 1 µs links elsewhere.
func diamond() *Graph {
	us := sim.Microsecond
	return &Graph{
		Kinds: []NodeKind{Host, Host, Switch, Switch, Switch, Switch},
		Links: []Link{
			{A: 0, B: 2, Bps: 100e9, Delay: us},    // 0: port 0 of 0, port 0 of 2
			{A: 2, B: 3, Bps: 100e9, Delay: us},    // 1: port 1 of 2, port 0 of 3
			{A: 2, B: 4, Bps: 40e9, Delay: 2 * us}, // 2: port 2 of 2, port 0 of 4
			{A: 3, B: 5, Bps: 100e9, Delay: us},    // 3: port 1 of 3, port 0 of 5
			{A: 4, B: 5, Bps: 40e9, Delay: 2 * us}, // 4: port 1 of 4, port 1 of 5
			{A: 5, B: 1, Bps: 100e9, Delay: us},    // 5: port 2 of 5, port 0 of 1
		},
	}
}

func TestNextHopsDiamond(t *testing.T) {
	g := diamond()
	r := g.NextHops()
	tests := []struct {
		node, dst int
		next      []int32
		dist      int
	}{
		{0, 1, []int32{0}, 4},
		{2, 1, []int32{2, 1}, 3}, // s4 before s3: switches dequeued by descending id
		{3, 1, []int32{1}, 2},
		{4, 1, []int32{1}, 2},
		{5, 1, []int32{2}, 1},
		{1, 1, []int32{}, 0},
		{1, 0, []int32{0}, 4},
		{5, 0, []int32{1, 0}, 3}, // s4 (port 1) before s3 (port 0)
		{2, 0, []int32{0}, 1},
		{3, 0, []int32{0}, 2},
		{0, 0, []int32{}, 0},
		{0, 2, nil, -1}, // not a host
		{9, 0, nil, -1}, // out of range
	}
	for _, tc := range tests {
		got := r.Next(tc.node, tc.dst)
		if len(got) != len(tc.next) || (len(got) > 0 && !reflect.DeepEqual(got, tc.next)) {
			t.Errorf("Next(%d, %d) = %v, want %v", tc.node, tc.dst, got, tc.next)
		}
		if d := r.Dist(tc.node, tc.dst); d != tc.dist {
			t.Errorf("Dist(%d, %d) = %d, want %d", tc.node, tc.dst, d, tc.dist)
		}
	}
	if r.NumHosts() != 2 || r.HostIndex(1) != 1 || r.HostIndex(2) != -1 || r.HostIndex(-1) != -1 {
		t.Errorf("NumHosts %d HostIndex(1) %d HostIndex(2) %d", r.NumHosts(), r.HostIndex(1), r.HostIndex(2))
	}

	// The pair constants follow the first path: through s4, the longer one.
	us := sim.Microsecond
	want := PathInfo{
		Hops:       4,
		Nodes:      []int{0, 2, 4, 5, 1},
		Links:      []int{0, 2, 4, 5},
		LinkBps:    []int64{100e9, 40e9, 40e9, 100e9},
		Delay:      6 * us,
		MinBps:     40e9,
		TxDelay:    (80 + 200 + 200 + 80) * sim.Nanosecond,
		TxDelayRef: (80 + 200 + 200 + 80) * sim.Nanosecond,
	}
	for name, p := range map[string]PathInfo{"Graph": g.PathInfo(0, 1, 1000), "Routes": r.PathInfo(0, 1, 1000)} {
		if !reflect.DeepEqual(p, want) {
			t.Errorf("%s.PathInfo(0, 1) = %+v\nwant %+v", name, p, want)
		}
	}
	if p := want; p.BaseRTT() != 12560*sim.Nanosecond || p.RefRTT() != 12560*sim.Nanosecond || p.RefBDPBytes() != 62800 {
		t.Errorf("BaseRTT %v RefRTT %v RefBDP %d", p.BaseRTT(), p.RefRTT(), p.RefBDPBytes())
	}
	// Reverse direction: from host 1 the first hop of s5 is s4 as well.
	if p := g.PathInfo(1, 0, 1000); !reflect.DeepEqual(p.Nodes, []int{1, 5, 4, 2, 0}) {
		t.Errorf("PathInfo(1, 0).Nodes = %v", p.Nodes)
	}
	rtt, bdp := g.MaxRTT(1000)
	if rtt != 12560*sim.Nanosecond || bdp != 62800 {
		t.Errorf("MaxRTT = %v, %d; want 12560ns, 62800", rtt, bdp)
	}
}

func TestPathInfoEdgeCases(t *testing.T) {
	// Hosts 0, 1 on switch 2; host 3 isolated; host 4 reachable only via
	// host 1 (hosts are never transit nodes).
	g := &Graph{
		Kinds: []NodeKind{Host, Host, Switch, Host, Host},
		Links: []Link{{A: 0, B: 2, Bps: 10e9, Delay: 100}, {A: 1, B: 2, Bps: 10e9, Delay: 100}, {A: 1, B: 4, Bps: 10e9, Delay: 100}},
	}
	r := g.NextHops()
	tests := []struct {
		src, dst int
		hops     int
	}{
		{0, 1, 2}, {0, 0, 0}, {0, 3, -1}, {3, 0, -1}, {0, 4, -1}, {1, 4, 1}, {0, 2, -1}, {-1, 0, -1}, {2, 0, 1},
	}
	for _, tc := range tests {
		for name, p := range map[string]PathInfo{"Graph": g.PathInfo(tc.src, tc.dst, 1000), "Routes": r.PathInfo(tc.src, tc.dst, 1000)} {
			if p.Hops != tc.hops || len(p.Nodes) != max(p.Hops+1, 0) {
				t.Errorf("%s.PathInfo(%d, %d) = %+v, want %d hops", name, tc.src, tc.dst, p, tc.hops)
			}
		}
	}
	if f := IdealFCT(g.PathInfo(0, 3, 1000), 1000, 1000, 48); f != sim.Never {
		t.Errorf("IdealFCT(unreachable) = %v", f)
	}
	if f := IdealFCT(g.PathInfo(0, 0, 1000), 1000, 1000, 48); f != 0 {
		t.Errorf("IdealFCT(self) = %v", f)
	}
	// 0-1 via the switch and 1-4 direct: 0 and 4 cannot reach each other.
	rtt, _ := g.MaxRTT(1000)
	if want := 2*200 + 2*800*sim.Nanosecond; rtt != want {
		t.Errorf("MaxRTT = %v, want %v", rtt, want)
	}
}

func TestParallelLinks(t *testing.T) {
	// Two parallel links between the switches: the reference keeps only the
	// last one (its neighbour map is overwritten link by link).
	g := &Graph{
		Kinds: []NodeKind{Host, Host, Switch, Switch},
		Links: []Link{
			{A: 0, B: 2, Bps: 1e9, Delay: 1},
			{A: 2, B: 3, Bps: 1e9, Delay: 1},
			{A: 3, B: 2, Bps: 2e9, Delay: 5},
			{A: 3, B: 1, Bps: 1e9, Delay: 1},
		},
	}
	r := g.NextHops()
	if got := r.Next(2, 1); !reflect.DeepEqual(got, []int32{2}) {
		t.Errorf("Next(2, 1) = %v, want [2]", got)
	}
	if got := r.Next(3, 0); !reflect.DeepEqual(got, []int32{1}) {
		t.Errorf("Next(3, 0) = %v, want [1]", got)
	}
	if p := g.PathInfo(0, 1, 1000); !reflect.DeepEqual(p.Links, []int{0, 2, 3}) || p.Delay != 7 {
		t.Errorf("PathInfo(0, 1) = %+v", p)
	}
}

func TestMultiNICHost(t *testing.T) {
	// Host 0 on switches 2 and 3; host 1 on switch 3 only. Host 0's list
	// towards 1 holds only the port one hop closer (3: port 1); towards a
	// host reachable both ways it holds both, switches by descending id.
	g := &Graph{
		Kinds: []NodeKind{Host, Host, Switch, Switch, Host, Switch},
		Links: []Link{
			{A: 0, B: 2, Bps: 1e9}, {A: 0, B: 3, Bps: 1e9}, {A: 3, B: 1, Bps: 1e9},
			{A: 2, B: 5, Bps: 1e9}, {A: 3, B: 5, Bps: 1e9}, {A: 5, B: 4, Bps: 1e9},
		},
	}
	r := g.NextHops()
	if got := r.Next(0, 1); !reflect.DeepEqual(got, []int32{1}) {
		t.Errorf("Next(0, 1) = %v, want [1]", got)
	}
	if got := r.Next(0, 4); !reflect.DeepEqual(got, []int32{1, 0}) {
		t.Errorf("Next(0, 4) = %v, want [1 0]", got)
	}
}

func TestStarRoutes(t *testing.T) {
	g := readRef(t, "incast20_topology.txt")
	r := g.NextHops()
	for h := range 21 {
		for v := range 21 {
			want := []int32{0}
			if v == h {
				want = []int32{}
			}
			if got := r.Next(v, h); !reflect.DeepEqual(got, want) {
				t.Fatalf("Next(%d, %d) = %v, want %v", v, h, got, want)
			}
		}
		if got := r.Next(21, h); !reflect.DeepEqual(got, []int32{int32(h)}) {
			t.Fatalf("Next(switch, %d) = %v", h, got)
		}
	}
	p := r.PathInfo(3, 20, 1000)
	want := PathInfo{Hops: 2, Nodes: []int{3, 21, 20}, Links: []int{3, 20}, LinkBps: []int64{100e9, 100e9},
		Delay: 2 * sim.Microsecond, MinBps: 100e9, TxDelay: 160 * sim.Nanosecond, TxDelayRef: 160 * sim.Nanosecond}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("PathInfo(3, 20) = %+v", p)
	}
	rtt, bdp := g.MaxRTT(1000)
	if rtt != 4160*sim.Nanosecond || bdp != 52000 {
		t.Fatalf("MaxRTT = %v, %d; want 4160ns, 52000 (docs/reference-simulator.md §1.4)", rtt, bdp)
	}
	fcts := []struct {
		size int64
		want sim.Time
	}{
		{1_000_000, 88_000 * sim.Nanosecond},
		{10_000_000, 842_560 * sim.Nanosecond},
		{1, (4160 + 3) * sim.Nanosecond},     // 49 B = 392 bits: 3.92 ns
		{1000, (4160 + 83) * sim.Nanosecond}, // 1048 B: 83.84 ns
		{1001, (4160 + 87) * sim.Nanosecond}, // 1097 B: 87.76 ns
	}
	for _, tc := range fcts {
		if got := IdealFCT(p, tc.size, 1000, 48); got != tc.want {
			t.Errorf("IdealFCT(%d B) = %v, want %v", tc.size, got, tc.want)
		}
	}
}

func TestFatTree(t *testing.T) {
	g := readRef(t, "fat_topology.txt")
	start := time.Now()
	r := g.NextHops()
	rtt, bdp := g.MaxRTT(1000)
	if el := time.Since(start); el > time.Second {
		t.Errorf("NextHops+MaxRTT took %v", el)
	}
	if rtt != 12240*sim.Nanosecond || bdp != 153000 {
		t.Fatalf("MaxRTT = %v, %d; want 12240ns, 153000 (docs/reference-simulator.md §1.4)", rtt, bdp)
	}
	// ToR 320 (hosts 0-15) has uplinks on ports 16..19 to aggregations
	// 340..343; towards a remote host the list is by descending switch id.
	ports := g.Ports()
	for _, tc := range []struct {
		node, dst int
		peers     []int
	}{
		{320, 200, []int{343, 342, 341, 340}},
		{320, 5, []int{5}},
		{0, 200, []int{320}},
		{340, 200, []int{363, 362, 361, 360}}, // agg 340 to cores 360..363
		{340, 63, []int{323}},                 // same pod: down to ToR 323
		{360, 200, []int{352}},                // core down to the pod of host 200
	} {
		var peers []int
		for _, p := range r.Next(tc.node, tc.dst) {
			peers = append(peers, ports[tc.node][p].Peer)
		}
		if !reflect.DeepEqual(peers, tc.peers) {
			t.Errorf("Next(%d, %d) peers = %v, want %v", tc.node, tc.dst, peers, tc.peers)
		}
	}
	// Standalone FCTs from the reference's fct file (hp95ai50 run).
	for _, tc := range []struct {
		src, dst int
		size     int64
		wantNs   int64
		hops     int
	}{
		{297, 179, 1005, 12328, 6},
		{15, 317, 18104, 13761, 6},
		{117, 134, 1971, 12405, 6},
		{218, 239, 13843, 9361, 4},
		{22, 24, 20593, 5888, 2},
		{87, 92, 87, 4170, 2},
		{211, 295, 29811733, 2511656, 6},
		{245, 279, 29983288, 2526041, 6},
	} {
		p := r.PathInfo(tc.src, tc.dst, 1000)
		if p.Hops != tc.hops {
			t.Errorf("PathInfo(%d, %d).Hops = %d, want %d", tc.src, tc.dst, p.Hops, tc.hops)
		}
		if got := IdealFCT(p, tc.size, 1000, 48); got != sim.Time(tc.wantNs)*sim.Nanosecond {
			t.Errorf("IdealFCT(%d->%d, %d B) = %v, want %dns", tc.src, tc.dst, tc.size, got, tc.wantNs)
		}
	}
	// Graph.PathInfo and Routes.PathInfo agree.
	for s := 0; s < 320; s += 7 {
		for d := 3; d < 320; d += 11 {
			if a, b := g.PathInfo(s, d, 1000), r.PathInfo(s, d, 1000); !reflect.DeepEqual(a, b) {
				t.Fatalf("PathInfo(%d, %d): Graph %+v, Routes %+v", s, d, a, b)
			}
		}
	}
}

func TestNextNoAlloc(t *testing.T) {
	g := readRef(t, "fat_topology.txt")
	r := g.NextHops()
	var sink int
	if n := testing.AllocsPerRun(100, func() {
		sink += len(r.Next(320, 200)) + r.Dist(320, 200)
	}); n != 0 {
		t.Fatalf("Next allocates %v times", n)
	}
	_ = sink
	// The returned slice is capped: appending cannot clobber the table.
	next := r.Next(320, 200)
	_ = append(next, 99)
	if got := r.Next(320, 200); !reflect.DeepEqual(got, []int32{19, 18, 17, 16}) {
		t.Fatalf("Next(320, 200) = %v after append", got)
	}
}

func BenchmarkNextHopsFat(b *testing.B) {
	g := readRef(b, "fat_topology.txt")
	for b.Loop() {
		g.NextHops()
	}
}

func BenchmarkMaxRTTFat(b *testing.B) {
	g := readRef(b, "fat_topology.txt")
	for b.Loop() {
		g.MaxRTT(1000)
	}
}

func BenchmarkGraphPathInfoFat(b *testing.B) {
	g := readRef(b, "fat_topology.txt")
	for b.Loop() {
		g.PathInfo(297, 179, 1000)
	}
}

func BenchmarkRoutesPathInfoFat(b *testing.B) {
	g := readRef(b, "fat_topology.txt")
	r := g.NextHops()
	for b.Loop() {
		r.PathInfo(297, 179, 1000)
	}
}

// TestRoutesPathInfoMatchesGraph checks, on the reference fat-tree and an
// oversubscribed leaf-spine with two link speeds, that the precomputed
// routes give every sampled host pair the same path (nodes, hops, rates,
// delays) as the graph's own breadth-first walk. The run's ideal FCTs use
// the routes.
func TestRoutesPathInfoMatchesGraph(t *testing.T) {
	ls, err := LeafSpine(LeafSpineParams{Spines: 4, Leaves: 6, HostsPerLeaf: 8, HostBps: 25e9, FabricBps: 100e9,
		HostDelay: 1000 * sim.Nanosecond, FabricDelay: 2000 * sim.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*Graph{"fat320": RefFat320(), "leaf-spine": ls} {
		r := g.NextHops()
		var hosts []int
		for i, k := range g.Kinds {
			if k == Host {
				hosts = append(hosts, i)
			}
		}
		if c := r.PathConsts(hosts[0], hosts[0], 1000); c.Hops != 0 || c.Nodes != nil {
			t.Fatalf("%s: PathConsts to itself = %+v", name, c)
		}
		for k := 0; k < 300; k++ {
			src, dst := hosts[(k*37)%len(hosts)], hosts[(k*101+7)%len(hosts)]
			want, got := g.PathInfo(src, dst, 1000), r.PathInfo(src, dst, 1000)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: PathInfo(%d, %d): routes %+v, graph %+v", name, src, dst, got, want)
			}
			// PathConsts: the same scalars, no slices
			c := r.PathConsts(src, dst, 1000)
			want.Nodes, want.Links, want.LinkBps = nil, nil, nil
			if !reflect.DeepEqual(c, want) {
				t.Fatalf("%s: PathConsts(%d, %d) = %+v, want %+v", name, src, dst, c, want)
			}
		}
	}
}

// fullTable is the table before single-neighbour hosts lost their rows:
// for every node and destination host, the list the BFS records and its
// distance, straight from Graph.bfs.
func fullTable(g *Graph) (next map[[2]int][]int32, dist map[[2]int]int) {
	n := len(g.Kinds)
	nb := g.neighbours()
	next, dist = map[[2]int][]int32{}, map[[2]int]int{}
	d := make([]int32, n)
	for h, k := range g.Kinds {
		if k != Host {
			continue
		}
		lists := make([][]int32, n)
		g.bfs(nb, h, d, nil, nil, func(now int32, e nbr) { lists[e.node] = append(lists[e.node], e.peerPort) })
		for v := range n {
			next[[2]int{v, h}], dist[[2]int{v, h}] = lists[v], int(d[v])
		}
	}
	return next, dist
}

// TestRoutesMatchFullTable: with the rows of single-neighbour hosts
// dropped, Next and Dist give every (node, destination host) pair the list
// and distance the full table held, on the reference fat-tree and star,
// the built-in leaf-spine and cross-DC fabrics, and hand-made corner
// cases: a multi-NIC host, parallel links, hosts linked to each other
// (directly and in a chain), an isolated host; and the fat-tree's table
// keeps rows for its switches only.
func TestRoutesMatchFullTable(t *testing.T) {
	cross, err := CrossDC(DefaultCrossDCParams())
	if err != nil {
		t.Fatal(err)
	}
	ls, err := LeafSpine(LeafSpineParams{Spines: 2, Leaves: 3, LeafHosts: []int{3, 2, 1}, HostBps: 1e9, FabricBps: 4e9})
	if err != nil {
		t.Fatal(err)
	}
	graphs := map[string]*Graph{
		"fat":        readRef(t, "fat_topology.txt"),
		"star":       readRef(t, "incast20_topology.txt"),
		"cross-dc":   cross,
		"leaf-spine": ls,
		"multi-nic": {Kinds: []NodeKind{Host, Host, Switch, Switch, Host, Switch}, Links: []Link{
			{A: 0, B: 2, Bps: 1e9}, {A: 0, B: 3, Bps: 1e9}, {A: 3, B: 1, Bps: 1e9},
			{A: 2, B: 5, Bps: 1e9}, {A: 3, B: 5, Bps: 1e9}, {A: 5, B: 4, Bps: 1e9}}},
		"parallel": {Kinds: []NodeKind{Host, Host, Switch, Switch}, Links: []Link{
			{A: 0, B: 2, Bps: 1e9}, {A: 0, B: 2, Bps: 2e9}, {A: 2, B: 3, Bps: 1e9}, {A: 3, B: 2, Bps: 2e9}, {A: 3, B: 1, Bps: 1e9}}},
		// 0–1 hosts linked directly; 2–3–switch 4–host 5: host 2 reaches
		// only host 3 (a host is not expanded), 6 is isolated
		"host-links": {Kinds: []NodeKind{Host, Host, Host, Host, Switch, Host, Host}, Links: []Link{
			{A: 0, B: 1, Bps: 1e9}, {A: 2, B: 3, Bps: 1e9}, {A: 3, B: 4, Bps: 1e9}, {A: 4, B: 5, Bps: 1e9}}},
	}
	for name, g := range graphs {
		r := g.NextHops()
		next, dist := fullTable(g)
		checked := 0
		for p, want := range next {
			got := r.Next(p[0], p[1])
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("%s: Next(%d, %d) = %v, the full table %v", name, p[0], p[1], got, want)
			}
			if d := r.Dist(p[0], p[1]); d != dist[p] {
				t.Fatalf("%s: Dist(%d, %d) = %d, the full table %d", name, p[0], p[1], d, dist[p])
			}
			checked++
		}
		if g.RouteRows() != r.Rows() {
			t.Errorf("%s: RouteRows %d, the table has %d", name, g.RouteRows(), r.Rows())
		}
		t.Logf("%s: %d pairs, %d of %d nodes with rows", name, checked, r.Rows(), len(g.Kinds))
	}
	fat := graphs["fat"]
	switches := 0
	for _, k := range fat.Kinds {
		if k == Switch {
			switches++
		}
	}
	if r := fat.NextHops(); r.Rows() != switches {
		t.Errorf("fat-tree: %d rows, want its %d switches", r.Rows(), switches)
	}
}
