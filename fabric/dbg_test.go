package fabric

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

type nocc struct{}

func (nocc) Start(q *QP, now sim.Time)               {}
func (nocc) OnAck(q *QP, a *AckInfo, now sim.Time)   {}
func (nocc) OnNotice(q *QP, n *Notice, now sim.Time) {}
func (nocc) OnTimer(q *QP, id int, now sim.Time)     {}
func (nocc) OnSend(q *QP, size int, now sim.Time)    {}

func TestDbg(t *testing.T) {
	var cnt [10]int
	per := map[int32]int{}
	debugTrace = func(k uint8, idx int32, now int64) {
		cnt[k]++
		if k == 1 {
			per[idx]++
		}
	}
	defer func() { debugTrace = nil }()
	g := topo.Star(21, 100e9, sim.Microsecond)
	n, _ := New(g, DefaultConfig())
	var fl []workload.Flow
	for i := 0; i < 20; i++ {
		fl = append(fl, workload.Flow{Src: i, Dst: 20, Prio: 3, SizeBytes: 1000000})
	}
	n.AddFlows(fl, func(int) Algorithm { return nocc{} })
	n.Run()
	t.Log(per)
	t.Log(cnt, n.Stats.RTT.MaxRTT, n.Ports[40].Stats.MaxQueueBytes)
}
