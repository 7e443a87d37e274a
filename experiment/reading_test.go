package experiment

import (
	"reflect"
	"testing"
)

// A reading patches every run, then (PatchRun) each run knowing its spec.
func TestReadingSpec(t *testing.T) {
	r := Reading{ID: "r",
		Patch: func(sc Scale) map[string]any {
			return map[string]any{"host": map[string]any{"payload_bytes": 500}, "stop_ms": 1}
		},
		PatchRun: func(sc Scale, s RunSpec) map[string]any {
			return map[string]any{"stop_ms": map[string]int{"dcqcn": 7}[s.CC]}
		}}
	spec := RunSpec{Key: "cc=dcqcn", CC: "dcqcn", Patch: map[string]any{"host": map[string]any{"rto_us": 9}}}
	got := readingSpec(spec, r, ScaleQuick)
	want := map[string]any{"host": map[string]any{"payload_bytes": 500, "rto_us": 9}, "stop_ms": 7}
	if !reflect.DeepEqual(got.Patch, want) || got.Key != "cc=dcqcn" {
		t.Errorf("patched spec %+v, want patch %v", got, want)
	}
	if len(spec.Patch) != 1 {
		t.Errorf("the experiment's own spec was modified: %v", spec.Patch)
	}
	for _, bad := range [][]Reading{
		{{ID: "a"}, {ID: "b"}},                               // no primary
		{{ID: "a", Primary: true}, {ID: "a"}},                // repeated id
		{{ID: "a b", Primary: true}},                         // not a word
		{{ID: "a", Primary: true, OnlySeeds: []uint64{1}}},   // primary with fewer seeds
		{{ID: "a", Primary: true}, {ID: "b", Primary: true}}, // two primaries
	} {
		e := Experiment{Readings: bad}
		if e.validateReadings() == nil {
			t.Errorf("readings %+v accepted", bad)
		}
	}
}
