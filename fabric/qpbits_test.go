package fabric

import (
	"math/rand/v2"
	"testing"
)

// The position bitsets against a plain []bool model: random sets, clears,
// appends and removals; nextSet over random ranges.
func TestQPBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b []uint64
	var model []bool
	for step := 0; step < 20000; step++ {
		switch op := r.IntN(10); {
		case op < 3 || len(model) == 0: // append
			model = append(model, false)
			b = growBits(b, len(model))
		case op < 7: // set or clear
			j := r.IntN(len(model))
			on := r.IntN(2) == 0
			model[j] = on
			setBit(b, int32(j), on)
		default: // remove
			k := r.IntN(len(model))
			removeBit(b, k, len(model))
			model = append(model[:k], model[k+1:]...)
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
