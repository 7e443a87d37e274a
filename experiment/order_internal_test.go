package experiment

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// The runs to do come primary readings first, every experiment's, in plan
// order otherwise (a reproduction stopped half-way has the paper's own
// setup complete): two experiments whose sensitivity reading is listed
// before the primary one in the first, after it in the second. --readings
// keeps only the runs of the readings it names, and refuses a reading no
// selected experiment has.
func TestTodoPrimaryReadingsFirst(t *testing.T) {
	files := fstest.MapFS{"tiny.yaml": {Data: []byte("name: tiny\ntopology: {kind: star, hosts: 3}\nworkload:\n  incast: {senders: [0, 1], receiver: 2, sizes_bytes: [20000]}\n")}}
	payload := func(b int) func(Scale) map[string]any {
		return func(Scale) map[string]any { return map[string]any{"host": map[string]any{"payload_bytes": b}} }
	}
	runs := func(Scale) []RunSpec {
		return Sweep{Base: "tiny.yaml", CC: []string{"dcqcn", "none"}, Seeds: []uint64{1}}.Expand()
	}
	exp := func(id string, rds ...Reading) *Experiment {
		return &Experiment{ID: id, Title: id, Runs: runs, Readings: rds}
	}
	p := &Paper{ID: "order", Number: "997", Title: "Order", Files: files, Experiments: []*Experiment{
		exp("e1", Reading{ID: "p500", Title: "500 B", Patch: payload(500)}, Reading{ID: "p1000", Title: "1000 B", Primary: true, Patch: payload(1000)}),
		exp("e2", Reading{ID: "p900", Title: "900 B", Primary: true, Patch: payload(900)}, Reading{ID: "p700", Title: "700 B", Patch: payload(700)}),
	}}
	st, err := OpenStore(t.TempDir(), p)
	if err != nil {
		t.Fatal(err)
	}
	todo := func(readings ...string) []string {
		sum := &Summary{}
		_, todo := resolveRuns(st, p, p.Experiments, Options{Scale: ScaleQuick, Readings: readings}, sum)
		var got []string
		for _, r := range todo {
			got = append(got, fmt.Sprint(r.Scenario.Host.PayloadBytes, " ", r.Spec.Key))
		}
		if sum.Runs != len(got) {
			t.Errorf("readings %q: %d runs counted, %d to do", readings, sum.Runs, len(got))
		}
		return got
	}
	want := []string{
		"1000 cc=dcqcn seed=1", "1000 cc=none seed=1", "900 cc=dcqcn seed=1", "900 cc=none seed=1",
		"500 cc=dcqcn seed=1", "500 cc=none seed=1", "700 cc=dcqcn seed=1", "700 cc=none seed=1",
	}
	if got := todo(); !slices.Equal(got, want) {
		t.Fatalf("todo (payload, key) %q, want %q", got, want)
	}
	// --readings: only the runs of the readings named (primary: each
	// experiment's own)
	if got := todo("primary"); !slices.Equal(got, want[:4]) {
		t.Errorf("--readings primary: %q, want %q", got, want[:4])
	}
	if got := todo("p700", "p500"); !slices.Equal(got, want[4:]) {
		t.Errorf("--readings p700,p500: %q, want %q", got, want[4:])
	}
	if err := checkReadingIDs(p.Experiments, []string{"p500", "primary"}); err != nil {
		t.Errorf("known readings refused: %v", err)
	}
	if err := checkReadingIDs(p.Experiments[1:], []string{"p500"}); err == nil || !strings.Contains(err.Error(), `--readings "p500"`) || !strings.Contains(err.Error(), "p900, p700") {
		t.Errorf("a reading of an experiment not selected: %v", err)
	}
}
