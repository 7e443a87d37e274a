package sim

// Event is one scheduled action. It is a small value type (24 bytes): the
// queue stores events by value and never allocates once its backing array
// has grown.
//
// Kind and Idx say what to do to which object (the owner of the event loop
// interprets them); Arg carries one word of payload, typically a generation
// number for cancellable timers (see Timer).
type Event struct {
	At  Time
	key uint64 // insertion sequence << 8 | kind
	Idx int32
	Arg uint32
}

// Kind is the event kind given to Push.
func (e *Event) Kind() uint8 { return uint8(e.key) }

// Seq is the insertion sequence number that breaks ties between events at the
// same time (first scheduled, first run).
func (e *Event) Seq() uint64 { return e.key >> 8 }

func (e *Event) before(o *Event) bool {
	return e.At < o.At || (e.At == o.At && e.key < o.key)
}

// Queue is a 4-ary min-heap of events ordered by (At, insertion sequence).
// A 4-ary heap halves the depth of a binary heap and keeps the four children
// of a node in one or two cache lines; with value-type events it is several
// times faster than container/heap and allocation-free in steady state.
// The sequence number has 56 bits: 7·10^16 events.
type Queue struct {
	h      []Event
	seq    uint64
	high   int
	taking bool // the top is being consumed (between Take and Done)
}

// HighWater is the largest number of pending events seen.
func (q *Queue) HighWater() int { return q.high }

// Len is the number of pending events (including cancelled timers that have
// not been popped yet).
func (q *Queue) Len() int { return len(q.h) }

// Push schedules an event. Events with equal At run in Push order.
func (q *Queue) Push(at Time, kind uint8, idx int32, arg uint32) {
	q.seq++
	e := Event{At: at, key: q.seq<<8 | uint64(kind), Idx: idx, Arg: arg}
	if q.taking {
		// The top is being consumed: put the new event in its slot and sift
		// down (one heap walk instead of a pop and a push). Every other
		// pending event is ordered after the consumed top, so the result is
		// the same heap order as popping first.
		q.taking = false
		q.h[0] = e
		q.down(0)
		return
	}
	h := append(q.h, e)
	i := len(h) - 1
	if i >= q.high {
		q.high = i + 1
	}
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

// Take returns the earliest event and starts consuming it: the event stays
// in the queue until Done, and the first Push made before Done reuses its
// slot. Events pushed meanwhile sort after it (they are not earlier and have
// a larger sequence number), so Take ... Done behaves exactly like Pop
// followed by the pushes, with less work. The queue must not be empty.
func (q *Queue) Take() Event {
	q.taking = true
	return q.h[0]
}

// Done finishes consuming the event returned by Take.
func (q *Queue) Done() {
	if q.taking {
		q.taking = false
		q.Pop()
	}
}

// Pop removes and returns the earliest event. The queue must not be empty.
func (q *Queue) Pop() Event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.h = h
	if n > 0 {
		h[0] = last
		q.down(0)
	}
	return top
}

// down moves h[i] down to its place. It is the bottom-up variant: the hole
// first follows the least child to a leaf (3 comparisons per full level,
// none against the moving element), then the element rises from there.
// Newly scheduled events are usually among the latest, so the rise is
// short; this saves a comparison per level over the classic sift-down.
func (q *Queue) down(i int) {
	h := q.h
	n := len(h)
	x := h[i]
	for {
		c := 4*i + 1
		if c+3 < n {
			m := c
			if h[c+1].before(&h[m]) {
				m = c + 1
			}
			if h[c+2].before(&h[m]) {
				m = c + 2
			}
			if h[c+3].before(&h[m]) {
				m = c + 3
			}
			h[i] = h[m]
			i = m
			continue
		}
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < n; j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		h[i] = h[m]
		i = m
	}
	for i > 0 {
		p := (i - 1) >> 2
		if !x.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

// Reset empties the queue, keeping its storage.
func (q *Queue) Reset() { q.h = q.h[:0]; q.seq = 0 }

// Timer is a cancellable timer slot that lives inside its owner's state. A
// timer is armed by pushing an event whose Arg is the slot's current
// generation; cancelling or re-arming bumps the generation, so a stale event
// is recognised and ignored when it pops (O(1) cancellation, no heap removal).
type Timer struct {
	gen uint32
	at  Time
}

// Arm returns the generation to put in the event's Arg and records the
// deadline. Any previously armed event of this slot becomes stale.
func (t *Timer) Arm(at Time) uint32 { t.gen++; t.at = at; return t.gen }

// Cancel makes any armed event stale.
func (t *Timer) Cancel() { t.gen++; t.at = Never }

// Fires reports whether an event carrying generation gen is the live one, and
// if so disarms the slot.
func (t *Timer) Fires(gen uint32) bool {
	if gen != t.gen || t.at == Never {
		return false
	}
	t.at = Never
	return true
}

// Armed reports whether the timer has a live event, and its deadline.
func (t *Timer) Armed() (Time, bool) { return t.at, t.at != Never && t.gen != 0 }
