package sim

// timerHeap is an indexed 4-ary heap of keyed timers: each timer id has at
// most one pending expiry, and re-arming or cancelling updates it in place
// (no stale entries left behind). The fabric uses it for the per-host NIC
// wake-up, which moves with every pacing or rate change.
//
// While at most ringCap/2 timers are armed they live in a sorted ring
// instead (timerRing), which suits the common re-arm better; past that the
// ring's contents, in order, become the heap (a sorted array is a valid
// heap) for good.
type timerHeap struct {
	h    []Event
	pos  []int32 // timer id -> index in h (or slot in ring), -1 when not armed
	heap bool    // the timers are in h, not in ring
	ring timerRing
}

// size is the number of armed timers.
func (t *timerHeap) size() int {
	if t.heap {
		return len(t.h)
	}
	return t.ring.n
}

// top is the earliest armed timer (size() > 0).
func (t *timerHeap) top() *Event {
	if t.heap {
		return &t.h[0]
	}
	return &t.ring.buf[t.ring.head]
}

// pop removes the earliest armed timer.
func (t *timerHeap) pop() {
	if t.heap {
		t.remove(0)
		return
	}
	t.ring.popHead(t.pos)
}

// cancel disarms timer id; false if it was not armed.
func (t *timerHeap) cancel(id int32) bool {
	if int(id) >= len(t.pos) || t.pos[id] < 0 {
		return false
	}
	if t.heap {
		t.remove(int(t.pos[id]))
	} else {
		t.ring.removeAt(int(t.pos[id]), t.pos)
	}
	return true
}

// toHeap moves the ring's timers, in order, into the heap.
func (t *timerHeap) toHeap() {
	t.h = t.h[:0]
	for k := 0; k < t.ring.n; k++ {
		e := *t.ring.at(k)
		t.pos[e.Idx] = int32(len(t.h))
		t.h = append(t.h, e)
	}
	t.ring.n = 0
	t.heap = true
}

func (t *timerHeap) ensure(id int32) {
	for int(id) >= len(t.pos) {
		t.pos = append(t.pos, -1)
	}
}

func (t *timerHeap) set(i int, e Event) {
	t.h[i] = e
	t.pos[e.Idx] = int32(i)
}

func (t *timerHeap) up(i int) {
	e := t.h[i]
	for i > 0 {
		p := (i - 1) >> 2
		if !e.before(&t.h[p]) {
			break
		}
		t.set(i, t.h[p])
		i = p
	}
	t.set(i, e)
}

func (t *timerHeap) down(i int) {
	h := t.h
	n := len(h)
	e := h[i]
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
		if !h[m].before(&e) {
			break
		}
		t.set(i, h[m])
		i = m
	}
	t.set(i, e)
}

// replaceTop puts e in place of the top entry (whose timer must be e's or
// already forgotten) and restores the order bottom-up: the hole follows the
// least child down to a leaf (three comparisons per level, none against e),
// then e rises from there. A re-armed wake-up is usually among the latest
// expiries, so it rarely rises at all.
func (t *timerHeap) replaceTop(e Event) {
	if !t.heap {
		t.ring.popHead(t.pos)
		t.ring.insert(e, t.pos)
		return
	}
	h := t.h
	n := len(h)
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		t.set(i, h[m])
		i = m
	}
	t.set(i, e)
	t.up(i)
}

// arm sets timer e.Idx to e (insert or update in place).
func (t *timerHeap) arm(e Event) {
	t.ensure(e.Idx)
	if !t.heap {
		if s := t.pos[e.Idx]; s >= 0 {
			t.ring.removeAt(int(s), t.pos)
		}
		if t.ring.n < ringCap/2 {
			t.ring.insert(e, t.pos)
			return
		}
		t.toHeap()
	}
	if i := t.pos[e.Idx]; i >= 0 {
		old := t.h[i]
		t.h[i] = e
		if e.before(&old) {
			t.up(int(i))
		} else {
			t.down(int(i))
		}
		return
	}
	t.h = append(t.h, e)
	t.up(len(t.h) - 1)
}

// remove deletes the entry at index i.
func (t *timerHeap) remove(i int) {
	id := t.h[i].Idx
	last := len(t.h) - 1
	if i != last {
		t.set(i, t.h[last])
	}
	t.h = t.h[:last]
	t.pos[id] = -1
	if i < last {
		t.down(i)
		t.up(int(t.pos[t.h[i].Idx]))
	}
}

// armed reports whether timer id is pending and when.
func (t *timerHeap) armed(id int32) (Time, bool) {
	if int(id) >= len(t.pos) || t.pos[id] < 0 {
		return 0, false
	}
	if !t.heap {
		return t.ring.buf[t.pos[id]].At, true
	}
	return t.h[t.pos[id]].At, true
}
