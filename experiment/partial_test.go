package experiment_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/experiment"
)

// A reproduction complete under some readings only names the readings not
// run (it named the whole experiment as not run, although the primary
// reading's claims had verdicts): with --readings primary the other reading
// is missing, with --readings of the other the primary one is (and is said
// to be primary), an experiment none of whose readings ran is not run at
// all; a missing reading's claims name the command that runs it.
func TestPartialReadingsReported(t *testing.T) {
	paper := func() *experiment.Paper {
		p := tinyPaper(nil)
		payload := func(b int) func(experiment.Scale) map[string]any {
			return func(experiment.Scale) map[string]any {
				return map[string]any{"host": map[string]any{"payload_bytes": b}}
			}
		}
		p.Experiments[0].Readings = []experiment.Reading{
			{ID: "p1000", Title: "1000-byte payloads", Primary: true, Patch: payload(1000)},
			{ID: "p500", Title: "500-byte payloads", Patch: payload(500)},
		}
		// a second experiment, never selected below, with runs of its own
		e2 := *p.Experiments[0]
		e2.ID, e2.Readings = "ex2", []experiment.Reading{{ID: "p700", Title: "700-byte payloads", Primary: true, Patch: payload(700)}}
		p.Experiments = append(p.Experiments, &e2)
		return p
	}
	run := func(out string, readings ...string) *experiment.Summary {
		t.Helper()
		sum, err := experiment.Reproduce(paper(), experiment.Options{Scale: experiment.ScaleQuick, Out: out, Workers: 2, Experiments: []string{"ex"}, Readings: readings})
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.AnalysisErrors) > 0 {
			t.Fatalf("readings %q: analysis errors %v", readings, sum.AnalysisErrors)
		}
		return sum
	}
	partial := func(sum *experiment.Summary) string {
		var s []string
		for _, p := range sum.Partial {
			s = append(s, fmt.Sprint(p.Experiment, " ", p.Readings, " ", p.Primary))
		}
		return strings.Join(s, "; ")
	}

	out := t.TempDir()
	sum := run(out, "primary")
	if !slices.Equal(sum.NotRun, []string{"ex2"}) || partial(sum) != "ex [p500] false" {
		t.Errorf("--readings primary: not run %q, partial %q; want not run [ex2], partial \"ex [p500] false\"", sum.NotRun, partial(sum))
	}
	var other string
	for _, c := range sum.Claims {
		if c.Reading == "p500" {
			other = c.Holds + ": " + c.Note
		}
	}
	if !strings.Contains(other, "--readings p500") {
		t.Errorf("a claim of the reading not run says %q, want the command with --readings p500", other)
	}
	sum = run(t.TempDir(), "p500")
	if partial(sum) != "ex [p1000] true" {
		t.Errorf("--readings p500: not run %q, partial %q; want partial \"ex [p1000] true\"", sum.NotRun, partial(sum))
	}
	sum = run(out)
	if !slices.Equal(sum.NotRun, []string{"ex2"}) || len(sum.Partial) != 0 {
		t.Errorf("every reading of ex run: not run %q, partial %q; want not run [ex2] only", sum.NotRun, partial(sum))
	}
}
