package fabric

import (
	"slices"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// periodicCC re-arms timer 0 every period and halves or restores the rate
// at each expiry, through ArmTimerAfter (after) or ArmTimer; it logs every
// expiry (flow, time).
type periodicCC struct {
	period sim.Time
	after  bool
	log    *[][2]int64
	half   bool
}

func (p *periodicCC) arm(q *QP, now sim.Time) {
	if p.after {
		q.ArmTimerAfter(0, now, p.period)
	} else {
		q.ArmTimer(0, now+p.period)
	}
}
func (p *periodicCC) Start(q *QP, now sim.Time)                { p.arm(q, now) }
func (p *periodicCC) OnAck(q *QP, a *AckInfo, now sim.Time)    {}
func (p *periodicCC) OnNotice(q *QP, nt *Notice, now sim.Time) {}
func (p *periodicCC) OnSend(q *QP, size int, now sim.Time)     {}
func (p *periodicCC) OnTimer(q *QP, id int, now sim.Time) {
	*p.log = append(*p.log, [2]int64{int64(q.ID), int64(now)})
	p.half = !p.half
	if p.half {
		q.SetRate(q.LineRateBps / 2)
	} else {
		q.SetRate(q.LineRateBps)
	}
	p.arm(q, now)
}

// TestArmTimerAfterOrder: periodic timers armed with ArmTimerAfter fire in
// exactly the order and at the times of the same timers armed with
// ArmTimer — 8 flows whose ticks coincide (all start at 0) and 8 that
// start later, each timer changing its flow's rate — and the runs end
// identically (every flow's finish time).
func TestArmTimerAfterOrder(t *testing.T) {
	g := topo.Star(17, 100e9, sim.Microsecond)
	flows := incastFlows(16, 16, 2_000_000, 0)
	for i := 8; i < 16; i++ {
		flows[i].Start = sim.Time(i) * 700 * sim.Nanosecond
	}
	var logs [2][][2]int64
	var fins [2][]sim.Time
	for k, after := range []bool{false, true} {
		n := buildNet(t, g, DefaultConfig(), flows, func(*QP) Algorithm {
			return &periodicCC{period: 3 * sim.Microsecond, after: after, log: &logs[k]}
		})
		n.Run()
		for i := range n.QPs {
			fins[k] = append(fins[k], n.QPs[i].Finish)
		}
	}
	if len(logs[0]) < 1000 || !slices.Equal(logs[0], logs[1]) || !slices.Equal(fins[0], fins[1]) {
		t.Fatalf("ArmTimer: %d expiries, ArmTimerAfter: %d; equal %v, finish times equal %v",
			len(logs[0]), len(logs[1]), slices.Equal(logs[0], logs[1]), slices.Equal(fins[0], fins[1]))
	}
	same := 0
	for i := 1; i < len(logs[0]); i++ {
		if logs[0][i][1] == logs[0][i-1][1] {
			same++
		}
	}
	if same == 0 {
		t.Errorf("no two expiries at the same time: the test does not exercise ties")
	}
	t.Logf("%d expiries, %d at the time of the previous one", len(logs[0]), same)
}
