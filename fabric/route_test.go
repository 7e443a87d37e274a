package fabric_test

import (
	"testing"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// TestReverseRouteCache: on a 5-switch path (k = 4 fat-tree, across pods),
// with the reference ECMP, only the first data packet and the first ACK
// consult the routing table at each switch; every later packet in either
// direction takes its egress port from the QP's route cache. ACKs count
// their hops from 0 on the reverse path (they used to keep the data
// packet's count, so their last switches missed the cache on every ACK).
func TestReverseRouteCache(t *testing.T) {
	g, err := topo.FatTree(topo.FatTreeParams{K: 4, HostBps: 100e9, FabricBps: 100e9, Delay: sim.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg := fabric.DefaultConfig()
	cfg.RefECMP = true
	for _, tc := range []struct {
		name     string
		src, dst int
		switches int64
	}{
		{"across pods", 0, 15, 5},
		{"within a pod", 0, 3, 3},
		{"same edge", 0, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flows := []workload.Flow{{Src: tc.src, Dst: tc.dst, Prio: 3, SizeBytes: 200_000}}
			n := buildCC(t, g, cfg, flows, "dcqcn")
			n.Run()
			if n.Stats.FlowsDone != 1 {
				t.Fatalf("flow not done")
			}
			if n.Stats.AckPackets != 200 {
				t.Fatalf("%d ACKs, want 200", n.Stats.AckPackets)
			}
			if got, want := n.Stats.RouteLookups, 2*tc.switches; got != want {
				t.Errorf("%d route lookups for 200 data packets and 200 ACKs over %d switches each way; want %d (one per switch and direction)",
					got, tc.switches, want)
			}
		})
	}
}
