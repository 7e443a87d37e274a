package sim

// Event is one scheduled action. It is a small value type (24 bytes): the
// queue stores events by value and never allocates once its storage has
// grown.
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

// heap4 is a 4-ary min-heap of events ordered by (At, insertion sequence).
// A 4-ary heap halves the depth of a binary heap and keeps the four children
// of a node in one or two cache lines; with value-type events it is several
// times faster than container/heap and allocation-free in steady state.
type heap4 struct {
	h []Event
}

func (q *heap4) push(e Event) {
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

// Pop removes and returns the earliest event. The heap must not be empty.
func (q *heap4) Pop() Event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	q.h = h[:n]
	if n > 0 {
		q.h[0] = last
		q.down(0)
	}
	return top
}

// down moves h[i] down to its place. It is the bottom-up variant: the hole
// first follows the least child to a leaf (3 comparisons per full level,
// none against the moving element), then the element rises from there.
func (q *heap4) down(i int) {
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

// Timer is a cancellable timer slot that lives inside its owner's state. A
// timer is armed by pushing an event whose Arg is the slot's current
// generation; cancelling or re-arming bumps the generation, so a stale event
// is recognised and ignored when it pops (O(1) cancellation, no removal).
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

// Gen is the generation of the slot's last Arm or Cancel (the Arg of its
// live event, if armed).
func (t *Timer) Gen() uint32 { return t.gen }

// TimerState returns a slot in the state (gen, at): Gen() = gen, armed at
// at unless at is Never. It restores a slot whose state an owner kept in
// a compact form of its own.
func TimerState(gen uint32, at Time) Timer { return Timer{gen: gen, at: at} }

// Armed reports whether the timer has a live event, and its deadline.
func (t *Timer) Armed() (Time, bool) { return t.at, t.at != Never && t.gen != 0 }
