package fabric

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// payloadThrough is the data payload switch sw transmitted on all its ports.
func payloadThrough(n *Network, sw int) int64 {
	nd := &n.Nodes[sw]
	var b int64
	for p := nd.FirstPort; p < nd.FirstPort+nd.NumPorts; p++ {
		b += n.Ports[p].Stats.TxPayloadBytes
	}
	return b
}

// dataEgress is the egress port (local index at the switch) that QP qp's
// data packets took at the hop-th switch of their path, from the route
// cache.
func dataEgress(n *Network, qp, hop int) int {
	v := n.routeCache[(qp*2)*routeCacheHops+hop]
	if v == 0 {
		return -1
	}
	out := v - 1
	return int(out - n.Nodes[n.Ports[out].Node].FirstPort)
}

// TestRoutePinningTestbed: on the DCON testbed, f0 (H0 → R0) and f1 (H1 →
// R1) pinned via S1 cross S1 whatever the ECMP hash (both hash functions,
// several seeds), while unpinned flows keep spreading over both spines; and
// without the pin the same two flows do not always take S1.
func TestRoutePinningTestbed(t *testing.T) {
	g, ids, err := topo.DCONTestbed(topo.DefaultDCONTestbedParams())
	if err != nil {
		t.Fatal(err)
	}
	s0, s1 := ids.S[0], ids.S[1]
	const size = 20_000
	unpinnedViaS0 := 0
	spineUse := map[int]int{} // uplink port at the first leaf -> unpinned flows
	for _, ref := range []bool{false, true} {
		for seed := uint64(1); seed <= 6; seed++ {
			cfg := DefaultConfig()
			cfg.RefECMP, cfg.Seed = ref, seed
			flows := []workload.Flow{
				{Src: ids.H[0], Dst: ids.R[0], Prio: 3, SizeBytes: size, Via: s1, HasVia: true},
				{Src: ids.H[1], Dst: ids.R[1], Prio: 3, SizeBytes: size, Via: s1, HasVia: true},
			}
			// pinned alone: S0 carries none of their data
			n := buildNet(t, g, cfg, flows, fixedCtor(5e9))
			n.Run()
			if n.Stats.FlowsDone != 2 {
				t.Fatalf("ref %v seed %d: %d flows done", ref, seed, n.Stats.FlowsDone)
			}
			if got := payloadThrough(n, s1); got != 2*size {
				t.Errorf("ref %v seed %d: S1 carried %d payload bytes, want %d", ref, seed, got, 2*size)
			}
			if got := payloadThrough(n, s0); got != 0 {
				t.Errorf("ref %v seed %d: S0 carried %d payload bytes, want 0", ref, seed, got)
			}
			p0s1 := n.Nodes[ids.P0S1.Node].FirstPort + int32(ids.P0S1.Port)
			if got := n.Ports[p0s1].Stats.TxPayloadBytes; got != 2*size {
				t.Errorf("ref %v seed %d: P0/S1 sent %d payload bytes, want %d", ref, seed, got, 2*size)
			}
			// the same flows unpinned
			free := []workload.Flow{flows[0], flows[1]}
			free[0].HasVia, free[1].HasVia = false, false
			n = buildNet(t, g, cfg, free, fixedCtor(5e9))
			n.Run()
			if payloadThrough(n, s0) > 0 {
				unpinnedViaS0++
			}
			// pinned f0, f1 among 14 unpinned senders to R1
			mixed := append([]workload.Flow{}, flows...)
			for h := 2; h < 16; h++ {
				mixed = append(mixed, workload.Flow{Src: ids.H[h], Dst: ids.R[h%2], Prio: 3, SizeBytes: size})
			}
			n = buildNet(t, g, cfg, mixed, fixedCtor(2e9))
			n.Run()
			if n.Stats.FlowsDone != len(mixed) {
				t.Fatalf("ref %v seed %d: %d of %d flows done", ref, seed, n.Stats.FlowsDone, len(mixed))
			}
			for q := range mixed {
				up, spine, down := dataEgress(n, q, 0), dataEgress(n, q, 1), dataEgress(n, q, 2)
				leaf := 0
				if mixed[q].Src >= 8 {
					leaf = 1
				}
				if q < 2 {
					want := ids.LeafUplink(leaf, 1).Port
					if up != want || spine != ids.SpineDownlink(1, 2).Port || down != mixed[q].Dst-16 {
						t.Errorf("ref %v seed %d: pinned flow %d took ports %d, %d, %d; want %d (to S1), %d, %d", ref, seed, q, up, spine, down,
							want, ids.SpineDownlink(1, 2).Port, mixed[q].Dst-16)
					}
					continue
				}
				spineUse[up-8]++
			}
		}
	}
	if unpinnedViaS0 == 0 {
		t.Error("unpinned, f0 and f1 never crossed S0: the test does not show the pin's effect")
	}
	if spineUse[0] == 0 || spineUse[1] == 0 || spineUse[0]+spineUse[1] != 12*14 {
		t.Errorf("unpinned flows per spine: %v; want both spines used by the 168 flows", spineUse)
	}
}

// TestRoutePinningFatTree: across pods of a k = 4 fat tree (5 switches),
// a flow pinned via any core crosses that core and no other, so the choice
// is restricted at the edge (which aggregation switch) and at the
// aggregation switch (which core); pinned via an aggregation switch of the
// source pod it takes that one.
func TestRoutePinningFatTree(t *testing.T) {
	g, err := topo.FatTree(topo.FatTreeParams{K: 4, HostBps: 100e9, FabricBps: 100e9, Delay: sim.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	// hosts 0–15, edges 16–23, aggregation 24–31 (pod p: 24+2p, 25+2p),
	// cores 32–35; every path 0 → 15 crosses one of each group
	const size = 50_000
	groups := [][]int{{24, 25}, {30, 31}, {32, 33, 34, 35}}
	for _, grp := range groups {
		for _, via := range grp {
			for seed := uint64(1); seed <= 3; seed++ {
				cfg := DefaultConfig()
				cfg.Seed = seed
				n := buildNet(t, g, cfg, []workload.Flow{{Src: 0, Dst: 15, Prio: 3, SizeBytes: size, Via: via, HasVia: true}}, noCCCtor)
				n.Run()
				if n.Stats.FlowsDone != 1 {
					t.Fatalf("via %d: flow not done", via)
				}
				for _, sw := range grp {
					want := int64(0)
					if sw == via {
						want = size
					}
					if got := payloadThrough(n, sw); got != want {
						t.Errorf("via %d seed %d: %d payload bytes through switch %d, want %d", via, seed, got, sw, want)
					}
				}
			}
		}
	}
}

// TestRoutePinningErrors: AddFlows rejects a via node that is not a switch
// or not on a shortest path of the flow.
func TestRoutePinningErrors(t *testing.T) {
	g, ids, err := topo.DCONTestbed(topo.DefaultDCONTestbedParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		via  int
		dst  int
		want string
	}{
		{ids.H[3], ids.R[0], "flow 0: via 3 is not a switch"},
		{99, ids.R[0], "flow 0: via 99 is not a switch"},
		{ids.L[1], ids.R[0], "flow 0: via 19: the switch is not on a shortest path from 0 to 16"},
		{ids.S[1], ids.H[5], "flow 0: via 22: the switch is not on a shortest path from 0 to 5"},
	} {
		n, err := New(g, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		err = n.AddFlows([]workload.Flow{{Src: 0, Dst: tc.dst, Prio: 3, SizeBytes: 1000, Via: tc.via, HasVia: true}}, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("via %d: %v, want %q", tc.via, err, tc.want)
		}
	}
}
