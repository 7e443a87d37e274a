package fabric

import "github.com/ccsim/ccsim/sim"

// ring is a FIFO of packet indices with power-of-two capacity. It grows by
// doubling and never shrinks, so steady-state use allocates nothing.
type ring struct {
	buf        []int32
	head, size int
}

func (r *ring) len() int { return r.size }

func (r *ring) push(v int32) {
	if r.size == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.size)&(len(r.buf)-1)] = v
	r.size++
}

func (r *ring) front() int32 { return r.buf[r.head] }

func (r *ring) pop() int32 {
	v := r.buf[r.head]
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.size--
	return v
}

func (r *ring) grow() {
	n := len(r.buf) * 2
	if n == 0 {
		n = 16
	}
	nb := make([]int32, n)
	for i := 0; i < r.size; i++ {
		nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = nb, 0
}

// wireSlot is a packet on a link with the time its last bit reaches the far end.
type wireSlot struct {
	at  sim.Time
	pkt int32
}

// wire is the FIFO delay line of one link direction. Packets leave a
// transmitter in order and arrive after a fixed delay, so only the head
// arrival needs an event in the scheduler.
type wire struct {
	buf        []wireSlot
	head, size int
}

func (w *wire) push(at sim.Time, p int32) {
	if w.size == len(w.buf) {
		n := len(w.buf) * 2
		if n == 0 {
			n = 16
		}
		nb := make([]wireSlot, n)
		for i := 0; i < w.size; i++ {
			nb[i] = w.buf[(w.head+i)&(len(w.buf)-1)]
		}
		w.buf, w.head = nb, 0
	}
	w.buf[(w.head+w.size)&(len(w.buf)-1)] = wireSlot{at, p}
	w.size++
}

func (w *wire) front() *wireSlot { return &w.buf[w.head] }

func (w *wire) pop() wireSlot {
	s := w.buf[w.head]
	w.head = (w.head + 1) & (len(w.buf) - 1)
	w.size--
	return s
}
