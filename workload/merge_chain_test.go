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
		{Src: 1, Dst: 0, SizeBytes: 6, Start: 1 * us, HasAfter: true, After: 1, HasAlsoAfter: true, AlsoAfter: 0},
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
	if f := m[1]; !f.HasAlsoAfter || m[f.AlsoAfter].SizeBytes != 4 {
		t.Errorf("flow of size 6: second predecessor %d, want the flow of size 4", f.AlsoAfter)
	}
	if l1[2].After != 1 || l2[2].After != 1 {
		t.Error("Merge modified its inputs")
	}
}

// TestMergeKeepsRings: Merge renumbers a ring member's successor as it
// renumbers predecessors.
func TestMergeKeepsRings(t *testing.T) {
	us := sim.Microsecond
	l1 := []Flow{{Src: 1, Dst: 0, SizeBytes: 9, Start: 2 * us}}
	ring := []Flow{
		{Src: 0, Dst: 1, SizeBytes: 1, Start: 5 * us, HasNext: true, Next: 1},
		{Src: 0, Dst: 2, SizeBytes: 2, HasAfter: true, After: 0, HasNext: true, Next: 2},
		{Src: 0, Dst: 3, SizeBytes: 3, HasAfter: true, After: 1, HasNext: true, Next: 0},
	}
	m := Merge(l1, ring)
	next := map[int64]int64{1: 2, 2: 3, 3: 1} // size → successor's size
	for _, f := range m {
		if want, ok := next[f.SizeBytes]; ok != f.HasNext || ok && m[f.Next].SizeBytes != want {
			t.Errorf("flow of size %d: next %d (has %v), want the flow of size %d", f.SizeBytes, f.Next, f.HasNext, want)
		}
	}
	if err := CheckRings(m); err != nil {
		t.Error(err)
	}
	if m[0].SizeBytes == 9 {
		t.Fatal("no reordering: the test needs the ring's chained members (start 0) sorted first")
	}
}
