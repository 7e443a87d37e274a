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

// idleTimer is one QP's idle timer, 8 bytes: the slots of the active QPs
// (a window of the QP array, in start order) are what the event loop
// touches per idle expiry, so their density is the cache's hit rate —
// 32-byte slots holding a whole sim.Timer spent 35 % of a 3.3-M-flow run
// in this lookup. While on, q.timers[id] is stale; the pending expiry has
// generation gen, and its deadline follows from the state at the
// declaration (QP.idleAt0, QP.idleGen0): each idle expiry adds one to the
// generation and one period to the deadline.
type idleTimer struct {
	gen uint32
	id  uint8
	on  bool
	per uint8 // the period: Network.idleEvery[per]
}

// idleAhead is how many events ahead in the timer's lane the event loop
// prefetches an idle slot (see Run).
const idleAhead = 8

// maxIdlePeriods bounds the distinct periods of idle timers in a network
// (a declaration with yet another period is ignored: the timer stays an
// ordinary one).
const maxIdlePeriods = 256

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
		q.unidle(id)
		return
	}
	if n.idle == nil {
		n.idle = make([]idleTimer, len(n.QPs))
	}
	it := &n.idle[q.ID]
	if it.on {
		if int(it.id) == id && n.idleEvery[it.per] == every {
			return
		}
		q.wakeIdle()
	}
	at, ok := q.timers[id].Armed()
	if !ok {
		return
	}
	per := n.idlePeriod(every)
	if per < 0 {
		return
	}
	q.idleAt0, q.idleGen0 = at, q.timers[id].Gen()
	*it = idleTimer{gen: q.idleGen0, id: uint8(id), on: true, per: uint8(per)}
}

// idlePeriod returns the index of every in n.idleEvery, adding it if new
// (-1: the table is full).
func (n *Network) idlePeriod(every sim.Time) int {
	for i, e := range n.idleEvery {
		if e == every {
			return i
		}
	}
	if len(n.idleEvery) == maxIdlePeriods {
		return -1
	}
	n.idleEvery = append(n.idleEvery, every)
	return len(n.idleEvery) - 1
}

// idleDeadline is the deadline of q's idle timer's pending expiry.
func (q *QP) idleDeadline(it *idleTimer) sim.Time {
	return q.idleAt0 + sim.Time(it.gen-q.idleGen0)*q.net.idleEvery[it.per]
}

// wakeIdle moves the state of q's idle timer back into q.timers.
func (q *QP) wakeIdle() {
	it := &q.net.idle[q.ID]
	q.timers[it.id] = sim.TimerState(it.gen, q.idleDeadline(it))
	it.on = false
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
// re-arms a live one exactly as the algorithm's OnTimer would have (an
// idle timer is always armed, so the generation alone tells a live event,
// as sim.Timer.Fires would).
func (n *Network) idleExpiry(qi int32, arg uint32) bool {
	it := &n.idle[qi]
	if !it.on || uint32(it.id) != arg&3 {
		return false
	}
	if arg>>2 != it.gen {
		return true // stale
	}
	if debugChecks {
		q := &n.QPs[qi]
		if q.Done {
			panic(fmt.Sprintf("QP %d at %v: idle timer of a finished QP", qi, n.now))
		}
		if at := q.idleDeadline(it); at != n.now {
			panic(fmt.Sprintf("QP %d at %v: idle timer's deadline %v", qi, n.now, at))
		}
		n.checkBits(q.Src) // its open and hasData flags current: OnTimer's refresh would change nothing
	}
	every := n.idleEvery[it.per]
	it.gen++
	n.q.PushDelay(n.now, every, evQPTimer, qi, it.gen<<2|uint32(it.id))
	return true
}
