package cc_test

import (
	"fmt"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

func TestWRCCExplore(t *testing.T) {
	for _, N := range []int{2, 4, 8} {
		g := topo.Star(N+1, 100e9, sim.Microsecond)
		flows := make([]workload.Flow, N)
		for i := range flows {
			flows[i] = workload.Flow{Src: i, Dst: N, Prio: 3, SizeBytes: 2000e6, Start: 0}
		}
		p := cc.WRCCDefaults()
		n, sws := wrccNet(t, g, fabric.DefaultConfig(), flows, p)
		n.SetStop(20 * sim.Millisecond)
		last := make([]int64, N)
		var lt sim.Time
		every := 500 * sim.Microsecond
		n.Monitor(every, func(n *fabric.Network, now sim.Time) {
			s := fmt.Sprintf("t=%v pfr=%.3fG q=%dKB pause=%d", now, sws[N+1].PFR(N)/1e9, n.Ports[n.Nodes[N+1].FirstPort+int32(N)].QueueBytes()/1000, n.Stats.PauseFrames)
			for i := range N {
				q := &n.QPs[i]
				d := q.Delivered()
				s += fmt.Sprintf(" %.2f", float64(d-last[i])*8/(now-lt).Seconds()/1e9)
				last[i] = d
			}
			lt = now
			t.Log(s)
		})
		n.Run()
	}
}
