package sim

// timerRing keeps a few keyed timers (at most ringCap/2) sorted by expiry
// in a ring: the earliest at head. Taking the earliest moves head;
// arming a timer searches its place from the back, where a new expiry
// usually belongs (a NIC re-arms its wake-up one pacing gap ahead, behind
// the other NICs' wake-ups), and shifts the few later entries by one. Its
// branches follow that pattern, unlike a heap's sift, whose comparisons
// are decided by data.
type timerRing struct {
	buf  [ringCap]Event
	head int
	n    int
}

const ringCap = 64 // a power of two; the ring holds at most ringCap/2 timers

func (r *timerRing) at(k int) *Event { return &r.buf[(r.head+k)&(ringCap-1)] }

// insert puts e at its place; pos maps timer ids to physical slots.
func (r *timerRing) insert(e Event, pos []int32) {
	j := r.n
	for j > 0 {
		p := r.at(j - 1)
		if !e.before(p) {
			break
		}
		s := (r.head + j) & (ringCap - 1)
		r.buf[s] = *p
		pos[p.Idx] = int32(s)
		j--
	}
	s := (r.head + j) & (ringCap - 1)
	r.buf[s] = e
	pos[e.Idx] = int32(s)
	r.n++
}

// popHead removes the earliest entry.
func (r *timerRing) popHead(pos []int32) {
	pos[r.buf[r.head].Idx] = -1
	r.head = (r.head + 1) & (ringCap - 1)
	r.n--
}

// removeAt removes the entry in physical slot s, closing the gap from the
// back.
func (r *timerRing) removeAt(s int, pos []int32) {
	pos[r.buf[s].Idx] = -1
	for k := (s - r.head) & (ringCap - 1); k < r.n-1; k++ {
		d := r.at(k)
		*d = *r.at(k + 1)
		pos[d.Idx] = int32((r.head + k) & (ringCap - 1))
	}
	r.n--
}
