package fabric

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// TestGrowDoubles checks the pool's growth rule: a full array doubles (at
// least minPool), one with room is returned as it is.
func TestGrowDoubles(t *testing.T) {
	s := make([]Packet, 5000)
	g := grow(s)
	if len(g) != 5000 || cap(g) < 10000 {
		t.Fatalf("grow of a full array of 5000: len %d cap %d, want len 5000 cap ≥ 10000", len(g), cap(g))
	}
	if h := grow(g); &h[0] != &g[0] || cap(h) != cap(g) {
		t.Fatalf("grow of an array with room moved or resized it")
	}
	if e := grow([]Ext(nil)); cap(e) < minPool {
		t.Fatalf("grow of an empty array: cap %d, want ≥ %d", cap(e), minPool)
	}
}

// TestINTChunks allocates packet slots across three chunks of INT records,
// writes each slot's own records and checks that every slot reads back its
// own, that records never move when later chunks are added (a pointer taken
// before stays valid), and that the pool and the chunks grow together.
func TestINTChunks(t *testing.T) {
	n := &Network{cfg: Config{INT: true}}
	const slots = 2*intChunk + 17
	first := (*intStack)(nil)
	for i := range slots {
		pi := n.alloc()
		if int(pi) != i {
			t.Fatalf("slot %d allocated as %d", i, pi)
		}
		st := n.intsOf(pi)
		for h := range st {
			st[h] = IntHop{Bps: int64(i), TS: sim.Time(h), TxBytes: int64(i ^ h), QLen: int64(slots - i)}
		}
		if i == 0 {
			first = st
		}
	}
	if want := (slots + intChunk - 1) / intChunk; len(n.ints) != want {
		t.Fatalf("%d chunks for %d slots, want %d", len(n.ints), slots, want)
	}
	if first != n.intsOf(0) || first[3].TS != 3 {
		t.Fatalf("slot 0's records moved or changed when later chunks were added")
	}
	for i := range slots {
		st := n.intsOf(int32(i))
		for h := range st {
			if w := (IntHop{Bps: int64(i), TS: sim.Time(h), TxBytes: int64(i ^ h), QLen: int64(slots - i)}); st[h] != w {
				t.Fatalf("slot %d hop %d reads %+v, want %+v", i, h, st[h], w)
			}
		}
	}
	// freed slots are reused before the pool grows again
	n.release(5)
	n.release(intChunk + 1)
	if a, b := n.alloc(), n.alloc(); a != intChunk+1 || b != 5 {
		t.Fatalf("after two releases alloc gave %d, %d; want %d, 5 (LIFO)", a, b, intChunk+1)
	}
	if len(n.pkts) != slots {
		t.Fatalf("pool grew to %d on reuse, want %d", len(n.pkts), slots)
	}
}
