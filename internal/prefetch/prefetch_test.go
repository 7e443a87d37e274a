package prefetch

import (
	"testing"
	"unsafe"
)

// TestT0LeavesMemory prefetches every byte of a buffer, including its first
// and last, and checks that no byte changed: a prefetch is a hint, and an
// implementation that stored (or loaded into the wrong register and
// stored) would show here.
func TestT0LeavesMemory(t *testing.T) {
	b := make([]byte, 4096+63)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	for i := range b {
		T0(unsafe.Pointer(&b[i]))
	}
	for i := range b {
		if b[i] != byte(i*7+3) {
			t.Fatalf("byte %d changed to %d after T0", i, b[i])
		}
	}
}

// TestT0DoesNotEscape checks the //go:noescape declaration holds: a
// prefetch of a local must not move it to the heap (the hot path takes
// addresses of slice elements, but a caller prefetching a local should not
// pay an allocation).
func TestT0DoesNotEscape(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		var x [8]int64
		T0(unsafe.Pointer(&x[3]))
	})
	if allocs != 0 {
		t.Fatalf("T0 of a local allocated %v times per call", allocs)
	}
}

func BenchmarkT0(b *testing.B) {
	buf := make([]int64, 1<<20)
	for i := 0; b.Loop(); i++ {
		T0(unsafe.Pointer(&buf[(i*4099)&(len(buf)-1)]))
	}
}
