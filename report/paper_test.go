package report

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWritePaper(t *testing.T) {
	dir := t.TempDir()
	pr := &PaperReport{ID: "p", Number: "001", Title: "A <paper>", Citation: "someone", Summary: "first\n\nsecond", Scale: "quick", Version: "v"}
	pr.Sections = []Section{{
		ID: "e1", Title: "one", Setup: "setup text",
		Tables: []Table{{ID: "t", Title: "numbers", Columns: []string{"a", "b"}, Rows: [][]string{{"1", "2"}, {"<x>", "4"}}},
			{ID: "long", Title: "series", Columns: []string{"r"}, Rows: [][]string{{"1"}}, Collapsed: true}},
		Figures: []Figure{
			{ID: "f", Title: "line", XLabel: "x", YLabel: "y", Series: []Series{{Label: "s", X: []float64{1, 2, 3}, Y: []float64{1, 4, 9}, Points: true}}},
			{ID: "empty", Title: "nothing", LogX: true, LogY: true}, // no data (on log axes): omitted, not a panic
			{ID: "nonpos", Title: "log with zeros", LogY: true, Series: []Series{{Label: "z", X: []float64{1, 2}, Y: []float64{0, 5}}}},
		},
		Claims: []Claim{{Paper: "p", Experiment: "e1", ID: "c", Description: "d, with comma", PaperValue: "1", CCSimValue: "2", Unit: "s",
			Kind: "magnitude", Statement: "n/a", Magnitude: "no", Holds: "no", Note: "why", Primary: true}},
		Inputs: []Input{{Key: "k", Hash: "abc", CC: "dcqcn", Base: "b.yaml", Dir: "runs/abc"}, {Key: "k2", Error: "boom"}},
		Notes:  []string{"a finding"},
	}, {ID: "e2", Title: "two", Error: "not run: 3 of 3 runs have no results"}}
	if err := WritePaper(dir, pr); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "claims.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{ClaimsHeader, {"p", "e1", "", "c", "d, with comma", "1", "2", "s", "magnitude", "n/a", "no", "no"}}
	if len(rows) != 2 || strings.Join(rows[0], ",") != strings.Join(want[0], ",") || strings.Join(rows[1], "|") != strings.Join(want[1], "|") {
		t.Errorf("claims.csv = %q", rows)
	}
	for _, name := range []string{"tables/e1_t.csv", "tables/e1_long.csv", "plots/e1_f.png", "plots/e1_f.svg", "plots/e1_nonpos.png"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "plots/e1_empty.svg")); err == nil {
		t.Error("an empty figure was drawn")
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"A &lt;paper&gt;", "<p>first</p>", "<p>second</p>", "&lt;x&gt;", "<svg", "Omitted, no data at this scale: nothing", `class="no"`, "why",
		"<details><summary>series (1 rows)</summary>", "a finding", "not run: 3 of 3", "boom", "runs/abc/", "tables/e1_t.csv"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(html, "<?xml") || strings.Contains(html, "<script") || strings.Contains(html, "src=\"http") {
		t.Error("report.html has an XML declaration inside, a script or a remote resource")
	}
	if n := strings.Count(html, "<svg"); n != 2 {
		t.Errorf("%d inline SVGs, want 2", n)
	}
}
