package sim

// The scheduler combines FIFO lanes with two heaps.
//
// Most events of a packet-level fabric are scheduled a fixed delay after
// the present: a link arrival is now + serialization + propagation, a
// transmit completion is now + serialization, and those delays take only a
// handful of distinct values (a few packet sizes times a few link speeds).
// Events pushed with the same delay come out in push order, so each such
// delay gets a FIFO lane: pushing appends. Events at arbitrary times go into
// a general 4-ary heap, and keyed timers (re-armed in place) into a sorted
// ring or, when many are armed, an indexed heap (timers.go).
//
// Each lane and each heap is a "source"; the earliest event of source s is
// copied into hd[s], and cur names the source with the earliest head. With
// up to scanMax sources (a single-switch incast has five, the 320-host
// fat-tree ten) a new head that is earlier than hd[cur] moves cur in O(1),
// removing the taken event marks cur stale, and the next Take rescans the
// heads from one small array. With more sources (many link speeds and
// delays, up to 64 lanes) a binary heap of the non-empty lanes ordered by
// their heads takes over: a lane's head change sifts it up or down, and
// Take compares the heap's top with the general heap's and the keyed
// timers'. The order is exactly (time, insertion sequence).
//
// Measured against this design on the 20 × 10 MB incast and found slower:
// a winner tree over all sources (its replay is a serial chain), branch-free
// argmin scans (cmov chains, packed time|source minima), keeping the sources
// sorted (insertion instead of a scan), tracking the second-earliest source
// to skip scans, and a lane heap with the two heaps compared separately for
// few sources.

const maxLanes = 64

// Source numbers: the general heap, the keyed timers, then lane i at
// srcLane+i.
const (
	srcFar  = 0
	srcTm   = 1
	srcLane = 2
)

// empty is the head of a source with no events: it sorts after every event.
var empty = Event{At: Never, key: ^uint64(0)}

// lane is a FIFO ring of events sharing one delay; their times are
// nondecreasing.
type lane struct {
	buf  []Event
	mask int
	head int
	size int
}

func (l *lane) grow() {
	n := 2 * len(l.buf)
	if n == 0 {
		n = 64
	}
	nb := make([]Event, n)
	for i := 0; i < l.size; i++ {
		nb[i] = l.buf[(l.head+i)&l.mask]
	}
	l.buf, l.head, l.mask = nb, 0, n-1
}

// laneSlot maps a delay to its lane in a small open-addressing table.
type laneSlot struct {
	delay Time
	lane  int32 // lane index + 1; 0 = free slot
}

const laneTableBits = 8 // 256 slots for at most 64 lanes: probes stay short

func laneHash(delay Time) int {
	return int(uint64(delay) * 0x9E3779B97F4A7C15 >> (64 - laneTableBits))
}

// Queue is the event scheduler. It never allocates once its storage has
// grown. The sequence number has 56 bits (7·10^16 events).
type Queue struct {
	hd    []Event // earliest event of each source (empty when it has none)
	nsrc  int     // number of sources
	cur   int     // source of the earliest head, valid unless dirty
	dirty bool    // cur must be found again
	// heap mode (when nsrc > scanMax): a binary heap of the non-empty
	// lanes ordered by head; hpos[s] is source s's index in it or -1.
	lanesHeaped bool
	hh          []int32
	hpos        []int32
	// taking: hd[cur] has been returned by Take and not yet removed
	taking bool
	seq    uint64
	n      int
	high   int
	lanes  []lane
	far    heap4
	tm     timerHeap // keyed timers (SetTimer)
	ltab   [1 << laneTableBits]laneSlot
}

// Len is the number of pending events (including cancelled timers that have
// not been popped yet).
func (q *Queue) Len() int { return q.n }

// HighWater is the largest number of pending events seen.
func (q *Queue) HighWater() int { return q.high }

// scanMax is the largest number of sources found by a linear scan.
const scanMax = 12

func (q *Queue) init() {
	if q.hd == nil {
		q.hd = []Event{empty, empty}
		q.nsrc = 2
	}
}

// addSource appends an empty source (a new lane).
func (q *Queue) addSource() {
	q.hd = append(q.hd, empty)
	q.nsrc++
	if q.lanesHeaped {
		q.hpos = append(q.hpos, -1)
	} else if q.nsrc > scanMax {
		q.buildHeap()
	}
}

// buildHeap switches to heap mode: a binary heap of the non-empty lanes
// ordered by their heads; Take compares its top with the two heaps' tops.
func (q *Queue) buildHeap() {
	q.lanesHeaped = true
	q.hh = q.hh[:0]
	q.hpos = make([]int32, len(q.hd))
	for s := range q.hpos {
		q.hpos[s] = -1
	}
	for s := srcLane; s < len(q.hd); s++ {
		q.fix(s)
	}
	q.dirty = true
}

// fix restores the heap after the head of lane source s changed.
func (q *Queue) fix(s int) {
	i := int(q.hpos[s])
	switch {
	case q.hd[s].key == empty.key:
		if i >= 0 {
			k := len(q.hh) - 1
			q.hpos[s] = -1
			if i != k {
				q.put(i, q.hh[k])
				q.hh = q.hh[:k]
				m := q.hh[i]
				q.heapDown(i)
				q.heapUp(int(q.hpos[m]))
			} else {
				q.hh = q.hh[:k]
			}
		}
	case i < 0:
		q.hh = append(q.hh, 0)
		q.put(len(q.hh)-1, int32(s))
		q.heapUp(len(q.hh) - 1)
	case i > 0 && q.hd[s].before(&q.hd[q.hh[(i-1)/2]]):
		q.heapUp(i)
	default:
		q.heapDown(i)
	}
}

func (q *Queue) heapUp(i int) {
	hh, hd := q.hh, q.hd
	s := hh[i]
	for i > 0 {
		p := (i - 1) / 2
		if !hd[s].before(&hd[hh[p]]) {
			break
		}
		q.put(i, hh[p])
		i = p
	}
	q.put(i, s)
}

// put places lane source s at index i of the lanes' heap.
func (q *Queue) put(i int, s int32) {
	q.hh[i] = s
	q.hpos[s] = int32(i)
}

func (q *Queue) heapDown(i int) {
	hh, hd := q.hh, q.hd
	n := len(hh)
	s := hh[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && hd[hh[c+1]].before(&hd[hh[c]]) {
			c++
		}
		if !hd[hh[c]].before(&hd[s]) {
			break
		}
		q.put(i, hh[c])
		i = c
	}
	q.put(i, s)
}

// headChanged records that hd[s] changed.
func (q *Queue) headChanged(s int) {
	if q.lanesHeaped {
		if s >= srcLane {
			q.fix(s)
		}
		q.dirty = true
		return
	}
	if s == q.cur {
		q.dirty = true
	} else if !q.dirty && q.hd[s].before(&q.hd[q.cur]) {
		q.cur = s
	}
}

// rescan finds the source with the earliest head.
func (q *Queue) rescan() {
	if q.lanesHeaped {
		// the earliest of the general heap, the keyed timers and the
		// lanes' heap
		c := srcFar
		if q.hd[srcTm].before(&q.hd[c]) {
			c = srcTm
		}
		if len(q.hh) > 0 && q.hd[q.hh[0]].before(&q.hd[c]) {
			c = int(q.hh[0])
		}
		q.cur, q.dirty = c, false
		return
	}
	// Predicted branches, not conditional moves (which would chain every
	// comparison to the one before); the sequence is read only on a tie.
	hd := q.hd[:q.nsrc]
	c := 0
	b := &hd[0]
	for s := 1; s < len(hd); s++ {
		e := &hd[s]
		if e.before(b) {
			b, c = e, s
		}
	}
	q.cur, q.dirty = c, false
}

// Push schedules an event at time at, which must not be earlier than the
// event being processed. Events with equal At run in Push order.
func (q *Queue) Push(at Time, kind uint8, idx int32, arg uint32) {
	q.init()
	q.seq++
	q.count()
	q.pushFar(Event{At: at, key: q.seq<<8 | uint64(kind), Idx: idx, Arg: arg})
}

func (q *Queue) count() {
	q.n++
	if q.n > q.high {
		q.high = q.n
	}
}

func (q *Queue) pushFar(e Event) {
	if q.taking && q.cur == srcFar {
		// The taken event is the general heap's top: put the new event in
		// its slot and sift down, one heap walk instead of a pop and a
		// push. Every pending event sorts after the taken one, so the heap
		// order is the same as popping first.
		q.taking = false
		q.n--
		q.far.h[0] = e
		q.far.down(0)
		q.hd[srcFar] = q.far.h[0]
		q.headChanged(srcFar)
		return
	}
	q.far.push(e)
	if q.far.h[0].key == e.key {
		q.hd[srcFar] = e
		q.headChanged(srcFar)
	}
}

// PushDelay schedules an event at now + delay, where now is the time of the
// event being processed (or of the last one taken). Prefer it to Push for
// delays that recur (serialization and propagation times): it costs an
// append instead of a heap insertion.
func (q *Queue) PushDelay(now, delay Time, kind uint8, idx int32, arg uint32) {
	sl := &q.ltab[laneHash(delay)]
	if sl.delay != delay || sl.lane == 0 {
		q.pushDelaySlow(now, delay, kind, idx, arg)
		return
	}
	q.pushLane(int(sl.lane-1), now+delay, kind, idx, arg)
}

func (q *Queue) pushLane(li int, at Time, kind uint8, idx int32, arg uint32) {
	q.seq++
	q.n++
	if q.n > q.high {
		q.high = q.n
	}
	l := &q.lanes[li]
	if l.size == len(l.buf) {
		l.grow()
	}
	e := &l.buf[(l.head+l.size)&l.mask]
	*e = Event{At: at, key: q.seq<<8 | uint64(kind), Idx: idx, Arg: arg}
	l.size++
	if l.size == 1 {
		s := srcLane + li
		q.hd[s] = *e
		q.headChanged(s)
	}
}

// pushDelaySlow finds or creates the lane of delay (the table slot was
// taken by another delay, or the delay is new).
func (q *Queue) pushDelaySlow(now, delay Time, kind uint8, idx int32, arg uint32) {
	q.init()
	h := laneHash(delay)
	for {
		sl := &q.ltab[h]
		if sl.lane == 0 {
			if len(q.lanes) == maxLanes {
				q.Push(now+delay, kind, idx, arg)
				return
			}
			q.lanes = append(q.lanes, lane{})
			q.addSource()
			sl.delay, sl.lane = delay, int32(len(q.lanes))
		}
		if sl.delay == delay {
			q.pushLane(int(sl.lane-1), now+delay, kind, idx, arg)
			return
		}
		h = (h + 1) & (len(q.ltab) - 1)
	}
}

// Take returns the earliest event; it stays pending until Done (events
// pushed meanwhile sort after it). The queue must not be empty.
func (q *Queue) Take() Event {
	if q.dirty {
		q.rescan()
	}
	q.taking = true
	return q.hd[q.cur]
}

// Next removes the event returned by the last Take if it is still pending
// (Done), then takes the earliest event (Take); ok is false when the queue
// is empty. It is the event loop's one call per event.
func (q *Queue) Next() (e Event, ok bool) {
	if q.taking {
		q.done()
	}
	if q.n == 0 {
		return Event{}, false
	}
	if q.dirty {
		q.rescan()
	}
	q.taking = true
	return q.hd[q.cur], true
}

// Following returns the event queued behind the taken one in its lane,
// if any: most likely among the next events to run, so an owner can touch
// what it will need (e.g. a packet) while the current event runs.
func (q *Queue) Following() (e *Event, ok bool) { return q.Ahead(1) }

// Ahead returns the event k places behind the taken one in its lane, if
// any (Ahead(1) is Following): an owner can start loading what that event
// will need several events early, so that the loads overlap.
func (q *Queue) Ahead(k int) (e *Event, ok bool) {
	if !q.taking || q.cur < srcLane {
		return nil, false
	}
	l := &q.lanes[q.cur-srcLane]
	if l.size <= k {
		return nil, false
	}
	return &l.buf[(l.head+k)&l.mask], true
}

// Done removes the event returned by Take.
func (q *Queue) Done() {
	if q.taking {
		q.done()
	}
}

func (q *Queue) done() {
	q.taking = false
	q.n--
	s := q.cur
	switch {
	case s >= srcLane:
		l := &q.lanes[s-srcLane]
		l.head = (l.head + 1) & l.mask
		l.size--
		if l.size > 0 {
			q.hd[s] = l.buf[l.head]
		} else {
			q.hd[s] = empty
		}
	case s == srcFar:
		q.far.Pop()
		if len(q.far.h) > 0 {
			q.hd[srcFar] = q.far.h[0]
		} else {
			q.hd[srcFar] = empty
		}
	default:
		q.tm.pop()
		if q.tm.size() > 0 {
			q.hd[srcTm] = *q.tm.top()
		} else {
			q.hd[srcTm] = empty
		}
	}
	q.headChanged(s)
}

// tmHead refreshes the keyed timers' head after their heap changed.
func (q *Queue) tmHead() {
	if q.tm.size() > 0 {
		q.hd[srcTm] = *q.tm.top()
	} else {
		q.hd[srcTm] = empty
	}
	q.headChanged(srcTm)
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
	q.init()
	q.seq++
	e := Event{At: at, key: q.seq<<8 | uint64(kind), Idx: id, Arg: arg}
	if q.taking && q.cur == srcTm && q.tm.top().Idx == id {
		// re-arming the timer being consumed (a periodic wake-up): the
		// new expiry takes the consumed one's slot at the top and sinks,
		// one heap walk instead of a removal and an insertion
		q.taking = false
		q.tm.replaceTop(e)
		q.hd[srcTm] = *q.tm.top()
		q.headChanged(srcTm)
		return
	}
	if _, ok := q.tm.armed(id); !ok {
		q.count()
	}
	q.tm.arm(e)
	q.tmHead()
}

// CancelTimer disarms keyed timer id.
func (q *Queue) CancelTimer(id int32) {
	if _, ok := q.tm.armed(id); !ok {
		return
	}
	if q.taking && q.cur == srcTm && q.tm.top().Idx == id {
		q.taking = false
	}
	q.tm.cancel(id)
	q.n--
	q.tmHead()
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
	q.init()
	q.count()
	q.pushFar(Event{At: at, key: seq<<8 | uint64(kind), Idx: idx, Arg: arg})
}
