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

// RunCount counts every reading's runs, a reading with OnlySeeds only
// those seeds' (what `reproduce list` prints).
func TestRunCount(t *testing.T) {
	e := Experiment{
		Readings: []Reading{{ID: "a", Primary: true}, {ID: "b", OnlySeeds: []uint64{1}}},
		Runs: func(sc Scale) []RunSpec {
			var specs []RunSpec
			for _, cc := range []string{"dcqcn", "hpcc"} {
				for _, s := range Seeds(sc) {
					specs = append(specs, RunSpec{Key: cc, CC: cc, Seed: s})
				}
			}
			return specs
		},
	}
	if got := e.RunCount(ScalePaper); got != 6+2 {
		t.Errorf("paper scale: RunCount = %d, want 8 (2 algorithms × 3 seeds, + 2 × seed 1)", got)
	}
	if got := e.RunCount(ScaleQuick); got != 2+2 {
		t.Errorf("quick scale: RunCount = %d, want 4", got)
	}
	if got := (&Experiment{}).RunCount(ScalePaper); got != 0 {
		t.Errorf("no runs: RunCount = %d, want 0", got)
	}
}
