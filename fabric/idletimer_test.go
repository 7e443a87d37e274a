package fabric

import (
	"slices"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// doublerCC is a WRCC-like toy: timer 0 doubles the rate every period up
// to the line rate (an expiry at the line rate changes nothing), every 50th
// ACK cuts the rate to a quarter, every 111th cancels timer 0 and arms it
// with ArmTimer a third of a period later, and a one-shot timer 1 fires 7
// µs after the start. With declare it tells the fabric when timer 0 is
// idle. It logs every expiry that changes the rate (flow, time, rate),
// every timer-1 expiry and what TimerArmed(0) says at every ACK.
type doublerCC struct {
	period  sim.Time
	declare bool
	acks    int
	calls   *int
	log     *[][3]int64
}

func (d *doublerCC) idle(q *QP) {
	if !d.declare {
		return
	}
	if q.RateBps == q.LineRateBps {
		q.SetTimerIdle(0, d.period)
	} else {
		q.SetTimerIdle(0, 0)
	}
}

func (d *doublerCC) Start(q *QP, now sim.Time) {
	q.ArmTimerAfter(0, now, d.period)
	q.ArmTimer(1, now+7*sim.Microsecond)
	d.idle(q)
}

func (d *doublerCC) OnAck(q *QP, a *AckInfo, now sim.Time) {
	d.acks++
	if d.acks%50 == 0 {
		q.SetRate(q.LineRateBps / 4)
	}
	if d.acks%111 == 0 {
		q.CancelTimer(0)
		q.ArmTimer(0, now+d.period/3)
	}
	at, ok := q.TimerArmed(0)
	if !ok {
		at = -1
	}
	*d.log = append(*d.log, [3]int64{int64(q.ID), int64(now), int64(at)})
	d.idle(q)
}

func (d *doublerCC) OnNotice(q *QP, nt *Notice, now sim.Time) {}
func (d *doublerCC) OnSend(q *QP, size int, now sim.Time)     {}

func (d *doublerCC) OnTimer(q *QP, id int, now sim.Time) {
	*d.calls++
	if id == 1 {
		*d.log = append(*d.log, [3]int64{int64(q.ID), int64(now), -2})
		return
	}
	if q.RateBps < q.LineRateBps {
		*d.log = append(*d.log, [3]int64{int64(q.ID), int64(now), q.RateBps})
	}
	q.SetRate(min(2*q.RateBps, q.LineRateBps))
	q.ArmTimerAfter(0, now, d.period)
	d.idle(q)
}

// TestIdleTimerExact: a run whose algorithm declares its idle expiries is
// the run where it handles them itself — the same events (count and
// order: every rate-changing expiry, every ACK's view of the timer, every
// flow's finish) — with far fewer OnTimer calls. Flows finish while their
// timer is idle (the run ends on the last finish, so an idle timer left
// running would show in the event count).
func TestIdleTimerExact(t *testing.T) {
	g := topo.Star(9, 100e9, sim.Microsecond)
	flows := incastFlows(8, 8, 300_000, 0)
	for i := 4; i < 8; i++ {
		flows[i].Start = sim.Time(i) * 900 * sim.Nanosecond
		flows[i].SizeBytes = 40_000 * int64(i)
	}
	var (
		logs   [2][][3]int64
		fins   [2][]sim.Time
		calls  [2]int
		events [2]int64
	)
	for k, declare := range []bool{false, true} {
		n := buildNet(t, g, DefaultConfig(), flows, func(*QP) Algorithm {
			return &doublerCC{period: 2 * sim.Microsecond, declare: declare, log: &logs[k], calls: &calls[k]}
		})
		n.Run()
		for i := range n.QPs {
			fins[k] = append(fins[k], n.QPs[i].Finish)
		}
		events[k] = n.Stats.Events
		if n.Stats.FlowsDone != len(flows) {
			t.Fatalf("declare %v: %d of %d flows done", declare, n.Stats.FlowsDone, len(flows))
		}
	}
	if !slices.Equal(logs[0], logs[1]) || !slices.Equal(fins[0], fins[1]) || events[0] != events[1] {
		t.Fatalf("idle declarations change the run: logs equal %v (%d, %d entries), finish times equal %v, events %d vs %d",
			slices.Equal(logs[0], logs[1]), len(logs[0]), len(logs[1]), slices.Equal(fins[0], fins[1]), events[0], events[1])
	}
	if len(logs[0]) < 1000 || calls[1]*2 > calls[0] {
		t.Fatalf("%d log entries; OnTimer calls %d without, %d with declarations: the idle path is not exercised", len(logs[0]), calls[0], calls[1])
	}
	t.Logf("%d events, %d log entries; OnTimer calls %d → %d", events[0], len(logs[0]), calls[0], calls[1])
}

// TestSetTimerIdleUnarmed: a declaration for a timer that is not armed is
// ignored, a declaration is withdrawn by CancelTimer, and TimerArmed reads
// the idle state.
func TestSetTimerIdleUnarmed(t *testing.T) {
	g := topo.Star(2, 100e9, sim.Microsecond)
	n := buildNet(t, g, DefaultConfig(), incastFlows(1, 1, 1000, 0), func(*QP) Algorithm { return noCC{} })
	q := &n.QPs[0]
	q.SetTimerIdle(2, sim.Microsecond)
	if n.idle != nil && n.idle[0].on {
		t.Fatal("an unarmed timer was made idle")
	}
	q.ArmTimer(2, 5*sim.Microsecond)
	q.SetTimerIdle(2, sim.Microsecond)
	if !n.idle[0].on {
		t.Fatal("an armed timer was not made idle")
	}
	if at, ok := q.TimerArmed(2); !ok || at != 5*sim.Microsecond {
		t.Fatalf("TimerArmed of the idle timer: %v %v", at, ok)
	}
	q.CancelTimer(2)
	if n.idle[0].on {
		t.Fatal("CancelTimer left the timer idle")
	}
	if _, ok := q.TimerArmed(2); ok {
		t.Fatal("a cancelled timer is armed")
	}
}
