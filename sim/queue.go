package sim

// Event is one scheduled action. It is a small value type: the queue stores
// events by value and never allocates once its backing array has grown.
//
// Kind and Idx say what to do to which object (the owner of the event loop
// interprets them); Arg carries one word of payload, typically a generation
// number for cancellable timers (see Timer).
type Event struct {
	At   Time
	seq  uint64
	Arg  uint64
	Idx  int32
	Kind uint8
}

// Seq is the insertion sequence number that breaks ties between events at the
// same time (first scheduled, first run).
func (e *Event) Seq() uint64 { return e.seq }

func (e *Event) before(o *Event) bool {
	return e.At < o.At || (e.At == o.At && e.seq < o.seq)
}

// Queue is a 4-ary min-heap of events ordered by (At, insertion sequence).
// A 4-ary heap halves the depth of a binary heap and keeps the four children
// of a node in one or two cache lines; with value-type events it is several
// times faster than container/heap and allocation-free in steady state.
type Queue struct {
	h   []Event
	seq uint64
}

// Len is the number of pending events (including cancelled timers that have
// not been popped yet).
func (q *Queue) Len() int { return len(q.h) }

// Push schedules an event. Events with equal At run in Push order.
func (q *Queue) Push(at Time, kind uint8, idx int32, arg uint64) {
	q.seq++
	e := Event{At: at, seq: q.seq, Arg: arg, Idx: idx, Kind: kind}
	h := append(q.h, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) >> 2
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	q.h = h
}

// Peek returns the earliest event without removing it. The queue must not be
// empty.
func (q *Queue) Peek() *Event { return &q.h[0] }

// Pop removes and returns the earliest event. The queue must not be empty.
func (q *Queue) Pop() Event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.h = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := c + 4
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		if !h[m].before(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	return top
}

// Reset empties the queue, keeping its storage.
func (q *Queue) Reset() { q.h = q.h[:0]; q.seq = 0 }

// Timer is a cancellable timer slot that lives inside its owner's state. A
// timer is armed by pushing an event whose Arg is the slot's current
// generation; cancelling or re-arming bumps the generation, so a stale event
// is recognised and ignored when it pops (O(1) cancellation, no heap removal).
type Timer struct {
	gen uint64
	at  Time
}

// Arm returns the generation to put in the event's Arg and records the
// deadline. Any previously armed event of this slot becomes stale.
func (t *Timer) Arm(at Time) uint64 { t.gen++; t.at = at; return t.gen }

// Cancel makes any armed event stale.
func (t *Timer) Cancel() { t.gen++; t.at = Never }

// Fires reports whether an event carrying generation gen is the live one, and
// if so disarms the slot.
func (t *Timer) Fires(gen uint64) bool {
	if gen != t.gen || t.at == Never {
		return false
	}
	t.at = Never
	return true
}

// Armed reports whether the timer has a live event, and its deadline.
func (t *Timer) Armed() (Time, bool) { return t.at, t.at != Never && t.gen != 0 }
