package sim

// timerHeap is an indexed 4-ary heap of keyed timers: each timer id has at
// most one pending expiry, and re-arming or cancelling updates it in place
// (no stale entries left behind). The fabric uses it for the per-host NIC
// wake-up, which moves with every pacing or rate change.
type timerHeap struct {
	h   []Event
	pos []int32 // timer id -> index in h, -1 when not armed
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
	for i > 0 {
		p := (i - 1) >> 2
		if !e.before(&h[p]) {
			break
		}
		t.set(i, h[p])
		i = p
	}
	t.set(i, e)
}

// arm sets timer e.Idx to e (insert or update in place).
func (t *timerHeap) arm(e Event) {
	t.ensure(e.Idx)
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
	return t.h[t.pos[id]].At, true
}
