package sim

// The scheduler combines FIFO lanes with a 4-ary heap.
//
// Most events of a packet-level fabric are scheduled a fixed delay after
// the present: a link arrival is now + serialization + propagation, a
// transmit completion is now + serialization, and those delays take only a
// handful of distinct values (a few packet sizes times a few link speeds).
// Events pushed with the same delay come out in push order, so each such
// delay gets a FIFO lane: pushing appends, and only the lanes' heads take
// part in ordering, through a small heap of lanes. Events at arbitrary times
// (pacing wake-ups, timers) go into the general heap. Pop compares the two
// heaps' tops. The order is exactly (time, insertion sequence).

const maxLanes = 64

// lane is a FIFO of events sharing one delay; their times are nondecreasing.
type lane struct {
	delay Time
	buf   []Event
	head  int
	size  int
	pos   int // index in the lane heap, -1 when empty
}

func (l *lane) push(e Event) {
	if l.size == len(l.buf) {
		n := 2 * len(l.buf)
		if n == 0 {
			n = 64
		}
		nb := make([]Event, n)
		for i := 0; i < l.size; i++ {
			nb[i] = l.buf[(l.head+i)&(len(l.buf)-1)]
		}
		l.buf, l.head = nb, 0
	}
	l.buf[(l.head+l.size)&(len(l.buf)-1)] = e
	l.size++
}

func (l *lane) front() *Event { return &l.buf[l.head] }

func (l *lane) pop() {
	l.head = (l.head + 1) & (len(l.buf) - 1)
	l.size--
}

// Queue is the event scheduler. It never allocates once its storage has
// grown. The sequence number has 56 bits (7·10^16 events).
type Queue struct {
	far   heap4
	tm    timerHeap // keyed timers (SetTimer)
	lanes []lane
	lh    []int32 // heap of non-empty lanes ordered by their head event
	lhAt  []Time  // head time of lh[i] (kept beside lh for cache locality)
	lhKey []uint64
	last  int // lane of the most recent PushDelay (a cache for the lookup)
	seq   uint64
	n     int
	high  int
	// taking: the head event has been returned by Take and not yet
	// removed; from is its lane, or -1 for the general heap.
	taking bool
	from   int
}

// Len is the number of pending events (including cancelled timers that have
// not been popped yet).
func (q *Queue) Len() int { return q.n }

// HighWater is the largest number of pending events seen.
func (q *Queue) HighWater() int { return q.high }

func (q *Queue) newEvent(at Time, kind uint8, idx int32, arg uint32) Event {
	q.seq++
	q.n++
	if q.n > q.high {
		q.high = q.n
	}
	return Event{At: at, key: q.seq<<8 | uint64(kind), Idx: idx, Arg: arg}
}

// Push schedules an event at time at, which must not be earlier than the
// event being processed. Events with equal At run in Push order.
func (q *Queue) Push(at Time, kind uint8, idx int32, arg uint32) {
	e := q.newEvent(at, kind, idx, arg)
	if q.taking && q.from == -1 {
		// The taken event is the general heap's top: put the new event in
		// its slot and sift down, one heap walk instead of a pop and a
		// push. Every pending event sorts after the taken one, so the heap
		// order is the same as popping first.
		q.taking = false
		q.n--
		q.far.h[0] = e
		q.far.down(0)
		return
	}
	q.far.push(e)
}

// PushDelay schedules an event at now + delay, where now is the time of the
// event being processed (or of the last one taken). Prefer it to Push for
// delays that recur (serialization and propagation times): it costs an
// append instead of a heap insertion.
func (q *Queue) PushDelay(now, delay Time, kind uint8, idx int32, arg uint32) {
	li := q.last
	if li >= len(q.lanes) || q.lanes[li].delay != delay {
		li = q.laneOf(delay)
		if li < 0 {
			q.Push(now+delay, kind, idx, arg)
			return
		}
		q.last = li
	}
	e := q.newEvent(now+delay, kind, idx, arg)
	l := &q.lanes[li]
	l.push(e)
	if l.size == 1 {
		q.lh = append(q.lh, int32(li))
		q.lhAt = append(q.lhAt, e.At)
		q.lhKey = append(q.lhKey, e.key)
		q.laneUp(len(q.lh) - 1)
	}
}

func (q *Queue) laneOf(delay Time) int {
	for i := range q.lanes {
		if q.lanes[i].delay == delay {
			return i
		}
	}
	if len(q.lanes) == maxLanes {
		return -1
	}
	q.lanes = append(q.lanes, lane{delay: delay, pos: -1})
	return len(q.lanes) - 1
}

// The lane heap keeps each lane's head (time, key) beside the lane index,
// so ordering touches one small array instead of the lanes' buffers.

func (q *Queue) laneSet(i int, li int32, at Time, key uint64) {
	q.lh[i], q.lhAt[i], q.lhKey[i] = li, at, key
	q.lanes[li].pos = i
}

func (q *Queue) laneUp(i int) {
	li, at, key := q.lh[i], q.lhAt[i], q.lhKey[i]
	for i > 0 {
		p := (i - 1) / 2
		if !(at < q.lhAt[p] || (at == q.lhAt[p] && key < q.lhKey[p])) {
			break
		}
		q.laneSet(i, q.lh[p], q.lhAt[p], q.lhKey[p])
		i = p
	}
	q.laneSet(i, li, at, key)
}

func (q *Queue) laneDown(i int) {
	n := len(q.lh)
	li, at, key := q.lh[i], q.lhAt[i], q.lhKey[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && (q.lhAt[c+1] < q.lhAt[c] || (q.lhAt[c+1] == q.lhAt[c] && q.lhKey[c+1] < q.lhKey[c])) {
			c++
		}
		if !(q.lhAt[c] < at || (q.lhAt[c] == at && q.lhKey[c] < key)) {
			break
		}
		q.laneSet(i, q.lh[c], q.lhAt[c], q.lhKey[c])
		i = c
	}
	q.laneSet(i, li, at, key)
}

// Take returns the earliest event; it stays pending until Done (events
// pushed meanwhile sort after it). The queue must not be empty.
func (q *Queue) Take() Event {
	q.taking = true
	// the earliest of: the lane heap's top, the general heap's top, the
	// keyed timers' top
	best := -1
	var be *Event
	if len(q.far.h) > 0 {
		be = &q.far.h[0]
	}
	if len(q.tm.h) > 0 && (be == nil || q.tm.h[0].before(be)) {
		be, best = &q.tm.h[0], -2
	}
	if len(q.lh) > 0 {
		if be == nil || q.lhAt[0] < be.At || (q.lhAt[0] == be.At && q.lhKey[0] < be.key) {
			q.from = int(q.lh[0])
			return *q.lanes[q.lh[0]].front()
		}
	}
	q.from = best
	return *be
}

// Done removes the event returned by Take.
func (q *Queue) Done() {
	if !q.taking {
		return
	}
	q.taking = false
	q.n--
	if q.from == -2 {
		q.tm.remove(0)
		return
	}
	if q.from < 0 {
		q.far.Pop()
		return
	}
	l := &q.lanes[q.from]
	l.pop()
	i := l.pos
	if l.size > 0 {
		f := l.front()
		q.lhAt[i], q.lhKey[i] = f.At, f.key
		q.laneDown(i)
		return
	}
	// remove the empty lane from the lane heap
	l.pos = -1
	k := len(q.lh) - 1
	if i != k {
		moved := q.lh[k]
		q.laneSet(i, moved, q.lhAt[k], q.lhKey[k])
		q.lh, q.lhAt, q.lhKey = q.lh[:k], q.lhAt[:k], q.lhKey[:k]
		q.laneDown(i)
		q.laneUp(q.lanes[moved].pos)
	} else {
		q.lh, q.lhAt, q.lhKey = q.lh[:k], q.lhAt[:k], q.lhKey[:k]
	}
}

// Pop removes and returns the earliest event. The queue must not be empty.
func (q *Queue) Pop() Event {
	e := q.Take()
	q.Done()
	return e
}

// SetTimer arms keyed timer id (a dense small integer, e.g. a host index)
// to fire at time at as an event of the given kind with Idx = id and Arg =
// arg, replacing its pending expiry if any. Unlike Push with a generation
// counter, re-arming leaves no stale event behind. The new expiry orders
// like a freshly pushed event (it takes a new sequence number).
func (q *Queue) SetTimer(id int32, at Time, kind uint8, arg uint32) {
	if q.taking && q.from == -2 && q.tm.h[0].Idx == id {
		// re-arming the timer being consumed (a periodic wake-up): the
		// new expiry takes the consumed one's slot at the top and sinks,
		// one heap walk instead of a removal and an insertion
		q.taking = false
		e := q.newEvent(at, kind, id, arg)
		q.n-- // one consumed, one added
		q.tm.h[0] = e
		q.tm.down(0)
		return
	}
	if _, ok := q.tm.armed(id); ok {
		q.n--
	}
	q.tm.arm(q.newEvent(at, kind, id, arg))
}

// CancelTimer disarms keyed timer id.
func (q *Queue) CancelTimer(id int32) {
	if int(id) >= len(q.tm.pos) || q.tm.pos[id] < 0 {
		return
	}
	if q.taking && q.from == -2 && q.tm.h[0].Idx == id {
		q.taking = false
		q.n--
		q.tm.remove(0)
		return
	}
	q.tm.remove(int(q.tm.pos[id]))
	q.n--
}

// TimerAt reports whether keyed timer id is armed and its expiry.
func (q *Queue) TimerAt(id int32) (Time, bool) { return q.tm.armed(id) }

// Reserve sets aside n sequence numbers and returns the first. Events pushed
// later with PushSeq and a reserved number order among simultaneous events
// as if they had been pushed now. This lets an owner feed a long, sorted
// list of future events (e.g. flow arrivals) into the queue one at a time,
// keeping the queue small, with exactly the order of pushing them all.
func (q *Queue) Reserve(n int) uint64 {
	first := q.seq + 1
	q.seq += uint64(n)
	return first
}

// PushSeq schedules an event with a sequence number from Reserve.
func (q *Queue) PushSeq(at Time, seq uint64, kind uint8, idx int32, arg uint32) {
	q.n++
	if q.n > q.high {
		q.high = q.n
	}
	e := Event{At: at, key: seq<<8 | uint64(kind), Idx: idx, Arg: arg}
	if q.taking && q.from == -1 {
		q.taking = false
		q.n--
		q.far.h[0] = e
		q.far.down(0)
		return
	}
	q.far.push(e)
}
