package sim

// The scheduler is a timing wheel in front of a heap. Most events of a
// packet-level fabric fall within a few microseconds of now (serialization
// times, link delays, pacing gaps), so they go into a ring of buckets of
// wheelWidth picoseconds each, kept sorted by (time, sequence) — usually by
// appending. Events beyond the wheel's horizon wait in the 4-ary heap and
// move into the wheel as it turns. Pop takes the head of the first non-empty
// bucket. Order is exactly (time, insertion sequence), as with the heap.

const (
	wheelShift   = 15 // bucket width 2^15 ps = 32.768 ns
	wheelBuckets = 512
	wheelWidth   = Time(1) << wheelShift
	wheelSpan    = wheelWidth * wheelBuckets // horizon ≈ 16.8 µs
)

type bucket struct {
	ev   []Event
	head int
}

func (b *bucket) empty() bool { return b.head == len(b.ev) }

// insert puts e in order; events mostly arrive in order, so this appends.
func (b *bucket) insert(e Event) {
	b.ev = append(b.ev, e)
	i := len(b.ev) - 1
	for i > b.head && e.before(&b.ev[i-1]) {
		b.ev[i] = b.ev[i-1]
		i--
	}
	b.ev[i] = e
}

func (b *bucket) pop() {
	b.head++
	if b.head == len(b.ev) {
		b.ev = b.ev[:0]
		b.head = 0
	}
}

// wheel holds the events of [base, base+wheelSpan).
type wheel struct {
	b     [wheelBuckets]bucket
	base  Time // start of bucket cur
	cur   int
	count int
}

// fits reports whether time at is inside the wheel's horizon.
func (w *wheel) fits(at Time) bool { return at < w.base+wheelSpan }

func (w *wheel) insert(e Event) {
	d := int((e.At - w.base) >> wheelShift)
	if d < 0 {
		d = 0 // cannot happen for events scheduled at or after now
	}
	w.b[(w.cur+d)&(wheelBuckets-1)].insert(e)
	w.count++
}

// Queue is the event scheduler: a timing wheel for the near future and a
// 4-ary heap beyond its horizon. Events come out ordered by (At, insertion
// sequence). It never allocates once its buckets have grown. The sequence
// number has 56 bits (7·10^16 events).
type Queue struct {
	w    wheel
	far  heap4
	seq  uint64
	n    int
	high int
	// taking: the head event has been returned by Take and not yet removed
	taking bool
}

// Len is the number of pending events (including cancelled timers that have
// not been popped yet).
func (q *Queue) Len() int { return q.n }

// HighWater is the largest number of pending events seen.
func (q *Queue) HighWater() int { return q.high }

// Push schedules an event at time at, which must not be earlier than the
// last event taken. Events with equal At run in Push order.
func (q *Queue) Push(at Time, kind uint8, idx int32, arg uint32) {
	q.seq++
	e := Event{At: at, key: q.seq<<8 | uint64(kind), Idx: idx, Arg: arg}
	q.n++
	if q.n > q.high {
		q.high = q.n
	}
	if q.w.fits(at) {
		q.w.insert(e)
	} else {
		q.far.push(e)
	}
}

// head finds the bucket holding the earliest event, turning the wheel and
// refilling it from the heap as needed. The queue must not be empty.
func (q *Queue) head() *bucket {
	w := &q.w
	for {
		if w.count == 0 {
			// jump straight to the heap's earliest event
			t := q.far.h[0].At
			w.base = t &^ (wheelWidth - 1)
			w.cur = 0
			q.refill()
		}
		b := &w.b[w.cur]
		if !b.empty() {
			return b
		}
		w.cur = (w.cur + 1) & (wheelBuckets - 1)
		w.base += wheelWidth
		q.refill()
	}
}

// refill moves heap events that entered the horizon into the wheel.
func (q *Queue) refill() {
	for len(q.far.h) > 0 && q.w.fits(q.far.h[0].At) {
		q.w.insert(q.far.Pop())
	}
}

// Take returns the earliest event; it stays pending until Done (events pushed
// meanwhile sort after it). The queue must not be empty.
func (q *Queue) Take() Event {
	q.taking = true
	b := q.head()
	return b.ev[b.head]
}

// Done removes the event returned by Take.
func (q *Queue) Done() {
	if !q.taking {
		return
	}
	q.taking = false
	b := &q.w.b[q.w.cur]
	b.pop()
	q.w.count--
	q.n--
}

// Pop removes and returns the earliest event. The queue must not be empty.
func (q *Queue) Pop() Event {
	e := q.Take()
	q.Done()
	return e
}

// Reset empties the queue, keeping its storage.
func (q *Queue) Reset() { *q = Queue{} }
