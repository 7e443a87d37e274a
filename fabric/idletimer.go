package fabric

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
)

// Idle timers: a periodic algorithm timer whose expiries change nothing.
//
// Some algorithms keep a periodic timer on every active QP even when its
// expiry has nothing to do: a sender that doubles its rate every period up
// to the line rate finds, once at the line rate, nothing to do but re-arm
// (92 % of the 59 M expiries of a 2-ms Google RPC cross-DC run of paper
// 002's algorithm). With hundreds of thousands of active QPs each such
// expiry costs two cache misses (the QP and the algorithm's state) for no
// effect, and they were half of that run's time.
//
// An algorithm that knows its next expiry of timer id would do exactly
// ArmTimerAfter(id, now, every) and nothing else (no rate, window, state or
// statistic that anyone reads changes, and the fabric's refresh after it
// changes nothing) declares so with QP.SetTimerIdle(id, every). The
// timer's state then lives in a dense per-QP slot of Network.idle, and
// the event loop handles such an expiry from that slot alone: it checks
// the generation, re-arms with the same PushDelay the algorithm would have
// made and never calls OnTimer. The events, their order and their sequence
// numbers are exactly those of the algorithm doing it itself, so results
// are identical; only the work per idle expiry shrinks. Any other use of
// the timer (ArmTimer, ArmTimerAfter, CancelTimer, the QP finishing, or
// SetTimerIdle(id, 0)) first moves the state back into QP.timers, so the
// algorithm sees the timer exactly as if it had re-armed it itself.

// idleTimer is the state of one QP's idle timer (on: q.timers[id] is stale
// and t is the live state). A compact 16-byte variant (the period an index
// into a table) measured no faster on the 2-ms Google RPC run.
type idleTimer struct {
	t     sim.Timer
	every sim.Time
	id    uint8
	on    bool
}

// SetTimerIdle declares (every > 0) that until the algorithm next acts on
// this QP, an expiry of timer id would do nothing but ArmTimerAfter(id,
// now, every): the fabric may then re-arm it without calling OnTimer.
// every = 0 withdraws the declaration (call it when the algorithm's state
// changes so that the expiry matters again). The declaration applies to
// the pending expiry: it is ignored when timer id is not armed, and any
// ArmTimer, ArmTimerAfter or CancelTimer of id withdraws it. One timer per
// QP can be idle at a time.
func (q *QP) SetTimerIdle(id int, every sim.Time) {
	n := q.net
	if every <= 0 {
		if n.idle != nil && n.idle[q.ID].on {
			q.wakeIdle()
		}
		return
	}
	if n.idle == nil {
		n.idle = make([]idleTimer, len(n.QPs))
	}
	it := &n.idle[q.ID]
	if it.on {
		if int(it.id) == id && it.every == every {
			return
		}
		q.wakeIdle()
	}
	if _, ok := q.timers[id].Armed(); !ok {
		return
	}
	*it = idleTimer{t: q.timers[id], every: every, id: uint8(id), on: true}
}

// wakeIdle moves the state of q's idle timer back into q.timers.
func (q *QP) wakeIdle() {
	it := &q.net.idle[q.ID]
	q.timers[it.id] = it.t
	it.on = false
}

// timer returns the live state of timer id: the idle slot's while id is
// idle.
func (q *QP) timer(id int) *sim.Timer {
	if n := q.net; n.idle != nil {
		if it := &n.idle[q.ID]; it.on && int(it.id) == id {
			return &it.t
		}
	}
	return &q.timers[id]
}

// unidle withdraws an idle declaration of timer id before the timer is
// used.
func (q *QP) unidle(id int) {
	if n := q.net; n.idle != nil {
		if it := &n.idle[q.ID]; it.on && int(it.id) == id {
			q.wakeIdle()
		}
	}
}

// idleExpiry handles a timer event of QP qi if that QP's timer is idle:
// it reports whether the event was the idle timer's (live or stale), and
// re-arms a live one exactly as the algorithm's OnTimer would have.
func (n *Network) idleExpiry(qi int32, arg uint32) bool {
	it := &n.idle[qi]
	if !it.on || uint32(it.id) != arg&3 {
		return false
	}
	if !it.t.Fires(arg >> 2) {
		return true // stale
	}
	if debugChecks {
		q := &n.QPs[qi]
		if q.Done {
			panic(fmt.Sprintf("QP %d at %v: idle timer of a finished QP", qi, n.now))
		}
		n.checkOpen(q)
		if d := q.active && q.SndNxt < q.SizeBytes; d != q.hasData {
			panic(fmt.Sprintf("QP %d at %v: hasData %v, recomputed %v", qi, n.now, q.hasData, d))
		}
	}
	g := it.t.Arm(n.now + it.every)
	n.q.PushDelay(n.now, it.every, evQPTimer, qi, g<<2|uint32(it.id))
	return true
}
