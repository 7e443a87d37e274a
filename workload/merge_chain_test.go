package workload

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// TestMergeKeepsChains: Merge renumbers a chained flow's predecessor to
// the same flow's position in the merged, re-sorted list.
func TestMergeKeepsChains(t *testing.T) {
	us := sim.Microsecond
	l1 := []Flow{
		{Src: 0, Dst: 1, SizeBytes: 1, Start: 5 * us},
		{Src: 0, Dst: 1, SizeBytes: 2, Start: 5 * us, HasAfter: true, After: 0},
		{Src: 0, Dst: 1, SizeBytes: 3, Start: 5 * us, HasAfter: true, After: 1},
	}
	l2 := []Flow{
		{Src: 1, Dst: 0, SizeBytes: 4, Start: 1 * us},
		{Src: 1, Dst: 0, SizeBytes: 5, Start: 9 * us},
		{Src: 1, Dst: 0, SizeBytes: 6, Start: 1 * us, HasAfter: true, After: 1},
	}
	m := Merge(l1, l2)
	// sorted by start: 4 (1 µs), 6 (1 µs), 1, 2, 3 (5 µs), 5 (9 µs)
	sizes := []int64{4, 6, 1, 2, 3, 5}
	after := map[int64]int64{2: 1, 3: 2, 6: 5} // size → predecessor's size
	for i, f := range m {
		if f.SizeBytes != sizes[i] {
			t.Fatalf("position %d holds size %d, want %d", i, f.SizeBytes, sizes[i])
		}
		if want, ok := after[f.SizeBytes]; ok != f.HasAfter || ok && m[f.After].SizeBytes != want {
			t.Errorf("flow of size %d: after %d (has %v), want the flow of size %d", f.SizeBytes, f.After, f.HasAfter, want)
		}
	}
	if l1[2].After != 1 || l2[2].After != 1 {
		t.Error("Merge modified its inputs")
	}
}
