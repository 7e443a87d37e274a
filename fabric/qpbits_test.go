package fabric

import (
	"math/rand/v2"
	"testing"
)

// The position bitsets against a plain []bool model: random sets, clears
// and appends; nextSet over random ranges.
func TestQPBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b []uint64
	var model []bool
	for step := 0; step < 20000; step++ {
		switch op := r.IntN(10); {
		case op < 3 || len(model) == 0: // append
			model = append(model, false)
			b = growBits(b, len(model))
		default: // set or clear
			j := r.IntN(len(model))
			on := r.IntN(2) == 0
			model[j] = on
			setBit(b, int32(j), on)
		}
		for j := 0; j < len(b)<<6; j++ {
			got := b[j>>6]>>(uint(j)&63)&1 == 1
			want := j < len(model) && model[j]
			if got != want {
				t.Fatalf("step %d: bit %d = %v, want %v (len %d)", step, j, got, want, len(model))
			}
		}
		from, to := r.IntN(len(model)+1), r.IntN(len(model)+1)
		want := -1
		for j := from; j < to; j++ {
			if model[j] {
				want = j
				break
			}
		}
		if got := nextSet(b, from, to); got != want {
			t.Fatalf("step %d: nextSet(%d, %d) = %d, want %d", step, from, to, got, want)
		}
	}
}

// The host's QP slots (removeQP, compactQPs) against the plain list they
// replace (each removal closing the gap, the round robin's dense position
// d becoming d−1 when the removed position k ≤ d and d > 0): over random
// starts, finishes, open/closed changes and round-robin picks (hostSend's
// scan: open QPs after the last served, then from the start up to it),
// both pick the same QP every time, and the slots keep their invariants
// (positions, bits, dead count, first live slot).
func TestQPSlotsRoundRobin(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		n := &Network{QPs: make([]QP, 5000), Nodes: make([]Node, 1)}
		nd := &n.Nodes[0]
		var dense []int32 // the plain list
		d := 0
		next, compactions := int32(0), 0
		pickDense := func() int32 {
			m := len(dense)
			for pass, from, to := 0, d+1, m; pass < 2; pass, from, to = pass+1, 0, min(d+1, m) {
				for j := from; j < to; j++ {
					if n.QPs[dense[j]].open {
						d = j
						return dense[j]
					}
				}
			}
			return -1
		}
		pickSlots := func() int32 {
			m := len(nd.qps)
			for pass, from, to := 0, nd.rrLast+1, m; pass < 2; pass, from, to = pass+1, 0, min(nd.rrLast+1, m) {
				if j := nextSet(nd.openBits, from, to); j >= 0 {
					nd.rrLast = j
					return nd.qps[j]
				}
			}
			return -1
		}
		for step := 0; step < 4000; step++ {
			switch op := r.IntN(10); {
			case (op < 3 || len(dense) == 0) && next < int32(len(n.QPs)): // start a QP
				q := &n.QPs[next]
				q.open, q.hasData = r.IntN(2) == 0, true
				q.hpos = int32(len(nd.qps))
				nd.qps = append(nd.qps, next)
				nd.openBits, nd.dataBits = growBits(nd.openBits, len(nd.qps)), growBits(nd.dataBits, len(nd.qps))
				setBit(nd.openBits, q.hpos, q.open)
				setBit(nd.dataBits, q.hpos, true)
				dense = append(dense, next)
				next++
			case op < 5 && len(dense) > 0: // finish one (often the first: the special case)
				k := 0
				if r.IntN(3) > 0 {
					k = r.IntN(len(dense))
				}
				qi := dense[k]
				q := &n.QPs[qi]
				q.open, q.hasData = false, false
				setBit(nd.openBits, q.hpos, false)
				setBit(nd.dataBits, q.hpos, false)
				before := len(nd.qps)
				n.removeQP(nd, int(q.hpos))
				if len(nd.qps) < before && len(nd.qps) > 0 {
					compactions++
				}
				dense = append(dense[:k], dense[k+1:]...)
				if d >= k && d > 0 {
					d--
				}
			case op < 7 && len(dense) > 0: // open or close one
				q := &n.QPs[dense[r.IntN(len(dense))]]
				q.open = !q.open
				setBit(nd.openBits, q.hpos, q.open)
			default: // the NIC picks
				if a, b := pickDense(), pickSlots(); a != b {
					t.Fatalf("seed %d step %d: the plain list picks QP %d, the slots %d", seed, step, a, b)
				}
			}
			n.checkSlots(t, nd, dense)
		}
		if compactions == 0 {
			t.Errorf("seed %d: no compaction happened", seed)
		}
	}
}

// checkSlots fails t unless nd's slots hold dense's QPs in order with
// their positions and bits, the dead count and the first live slot.
func (n *Network) checkSlots(t *testing.T, nd *Node, dense []int32) {
	t.Helper()
	i, dead, first := 0, 0, -1
	for j, qi := range nd.qps {
		o := nd.openBits[j>>6]>>(uint(j)&63)&1 == 1
		dd := nd.dataBits[j>>6]>>(uint(j)&63)&1 == 1
		if qi < 0 {
			dead++
			if o || dd {
				t.Fatalf("dead slot %d has a bit set", j)
			}
			continue
		}
		if first < 0 {
			first = j
		}
		if i >= len(dense) || dense[i] != qi || int(n.QPs[qi].hpos) != j || o != n.QPs[qi].open || !dd {
			t.Fatalf("slot %d: QP %d (position %d, bits %v %v); the plain list's %d-th is %v", j, qi, n.QPs[qi].hpos, o, dd, i, dense)
		}
		i++
	}
	if i != len(dense) || dead != nd.dead || (first >= 0 && first != nd.firstLive) {
		t.Fatalf("%d live slots for %d QPs, %d dead (kept %d), first live %d (kept %d)", i, len(dense), dead, nd.dead, first, nd.firstLive)
	}
}
