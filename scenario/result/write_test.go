package result_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// A result directory only ever holds one run's files: writing replaces it
// as a whole (a fresh directory renamed into place), and a directory that
// is not a result directory is not replaced.
func TestWriteReplacesTheResultDirectory(t *testing.T) {
	r := &result.Result{Scenario: "w", CC: "none", Seed: 1,
		Flows:     []metrics.FlowRecord{{ID: 0, Src: 0, Dst: 1, SizeBytes: 1000, Done: true, Finish: sim.Microsecond}},
		FlowStats: []result.FlowStat{{ID: 0, TxPackets: 1}}}
	root := t.TempDir()
	dir := filepath.Join(root, "none")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// a previous run's files, one of which this run does not write
	for _, f := range []string{"summary.json", "flows.csv", "queue.csv"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	names := func(d string) []string {
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	if got := names(dir); !slices.Equal(got, []string{"flow_stats.csv", "flows.csv", "summary.json"}) {
		t.Errorf("result directory holds %v, want only this run's flow_stats.csv, flows.csv, summary.json", got)
	}
	if got := names(root); !slices.Equal(got, []string{"none"}) {
		t.Errorf("beside it: %v, want nothing left over", got)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("result directory mode: %v %v", st.Mode(), err)
	}
	// not a result directory: kept, and an error
	other := filepath.Join(root, "mine")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("keep"), 0o644)
	if err := r.Write(other); err == nil || !strings.Contains(err.Error(), "not a ccsim result directory") {
		t.Errorf("Write over a foreign directory: %v", err)
	}
	if got := names(other); !slices.Equal(got, []string{"notes.txt"}) {
		t.Errorf("foreign directory now holds %v", got)
	}
}
