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
// directory and checks that every run and every analysis succeeded, that
// claims.csv has one row per declared claim and reading, each with a value
// and a verdict, and that every claim can fail (FlipClaims). It returns
// the paper's result directory and the claim rows (header first).
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
		declared += len(e.Claims) * max(len(e.Readings), 1)
	}
	dir = filepath.Join(out, id)
	rows := ReadCSV(t, filepath.Join(dir, "claims.csv"))
	if len(rows) != declared+1 {
		t.Fatalf("claims.csv has %d rows, want %d claim × reading rows + header", len(rows)-1, declared)
	}
	// columns: paper,experiment,reading,claim,description,paper_value,ccsim_value,unit,kind,statement,magnitude,holds
	for _, r := range rows[1:] {
		if r[6] == "" {
			t.Errorf("claim %s/%s (%s) has no ccsim value", r[1], r[3], r[2])
		}
		switch r[11] {
		case "yes", "no", "inconclusive", "n/a":
		default:
			t.Errorf("claim %s/%s (%s): holds = %q", r[1], r[3], r[2], r[11])
		}
	}
	FlipClaims(t, p, sum)
	return dir, rows
}

// FlipClaims checks that every claim of paper p can fail: each is typed,
// each claim that states something (every kind but Number) was measured
// under every reading, and for each, a measure of its shape that
// contradicts it gives "no" and one that supports it "yes"
// (experiment.Flip).
func FlipClaims(t testing.TB, p *experiment.Paper, sum *experiment.Summary) {
	t.Helper()
	measured := map[string]bool{}
	for _, m := range sum.Measured {
		measured[m.Experiment+"/"+m.Reading+"/"+m.Claim.ID] = true
		if err := experiment.Flip(m.Claim, m.Tol, m.Measure); err != nil {
			t.Errorf("%s/%s (reading %q): %v", p.ID, m.Experiment, m.Reading, err)
		}
	}
	for _, e := range p.Experiments {
		readings := e.Readings
		if len(readings) == 0 {
			readings = []experiment.Reading{{}}
		}
		for _, c := range e.Claims {
			switch {
			case c.Kind == experiment.Untyped:
				t.Errorf("%s/%s/%s: claim not typed", p.ID, e.ID, c.ID)
			case c.Kind == experiment.Number:
			default:
				for _, r := range readings {
					if !measured[e.ID+"/"+r.ID+"/"+c.ID] {
						t.Errorf("%s/%s/%s (reading %q): not measured at quick scale, so it cannot be flipped", p.ID, e.ID, c.ID, r.ID)
					}
				}
			}
		}
	}
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
