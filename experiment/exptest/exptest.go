// Package exptest helps the paper packages' tests: it reproduces a paper at
// quick scale and checks what every reproduction must have.
package exptest

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/experiment"
)

// QuickReproduce reproduces paper id at quick scale into a temporary
// directory and checks that every run and every analysis succeeded and
// that claims.csv has one row per declared claim, each with a value and a
// verdict. It returns the paper's result directory and the claim rows
// (header first).
func QuickReproduce(t testing.TB, id string) (dir string, claims [][]string) {
	t.Helper()
	p, err := experiment.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	sum, err := experiment.Reproduce(p, experiment.Options{Scale: experiment.ScaleQuick, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failed) > 0 || len(sum.AnalysisErrors) > 0 || len(sum.NotRun) > 0 {
		t.Fatalf("failed %v, analysis errors %v, not run %v", sum.Failed, sum.AnalysisErrors, sum.NotRun)
	}
	declared := 0
	for _, e := range p.Experiments {
		declared += len(e.Claims)
	}
	dir = filepath.Join(out, id)
	rows := ReadCSV(t, filepath.Join(dir, "claims.csv"))
	if len(rows) != declared+1 {
		t.Fatalf("claims.csv has %d rows, want %d claims + header", len(rows)-1, declared)
	}
	for _, r := range rows[1:] {
		if r[5] == "" {
			t.Errorf("claim %s/%s has no ccsim value", r[1], r[2])
		}
		if r[7] != "yes" && r[7] != "no" && r[7] != "n/a" {
			t.Errorf("claim %s/%s: holds = %q", r[1], r[2], r[7])
		}
	}
	return dir, rows
}

// Files checks that each of the given files below dir exists and is not
// empty.
func Files(t testing.TB, dir string, names ...string) {
	t.Helper()
	for _, f := range names {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// ReadCSV reads a whole CSV file, failing the test on any error.
func ReadCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
