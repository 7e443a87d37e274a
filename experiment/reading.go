package experiment

// Readings, consistency checks and seeds (docs/reproduce.md, "Readings").
// Where a paper leaves its setup open, an experiment declares several
// readings; every reading runs and the report shows their claims side by
// side. A consistency check compares a constant the paper prints with the
// one that follows from a reading's setup alone, and marks the readings
// that contradict the paper. The primary reading is chosen from the
// paper's text and printed constants, never from which claims then hold.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
)

// Reading is one reading of a setup the paper leaves open.
type Reading struct {
	ID    string // short id, used in run keys ("80flows")
	Title string
	// Why cites the paper's text that allows this reading.
	Why string
	// Primary marks the reading consistent with the paper's text and its
	// printed constants; exactly one reading of an experiment is primary.
	Primary bool
	// Patch is merged over every run of the experiment under this reading
	// (nil: the runs are the experiment's own, e.g. a reading that only
	// changes the analysis: see Context.Reading).
	Patch func(Scale) map[string]any
	// PatchRun, if set, patches each run under this reading knowing the
	// run (e.g. a per-pattern arrival window that depends on the reading's
	// load definition); it is merged after Patch.
	PatchRun func(Scale, RunSpec) map[string]any
	// OnlySeeds, if set, keeps only the runs with these seeds under this
	// reading: a costly sensitivity reading may run fewer seeds than the
	// primary (its verdicts then rest on fewer seeds; the report's inputs
	// list them). The primary reading runs every seed.
	OnlySeeds []uint64
}

// Check is a constant the paper prints that follows from its setup alone
// (a topology's maximum RTT, a BDP, bytes = rate × time).
type Check struct {
	ID, Description, Unit string
	// Paper is the printed constant; Tol how far the setup's may be from
	// it (nil: up to the rounding of a printed integer, ±0.5).
	Paper float64
	Tol   *Tolerance
	// Bounds makes the check one of bounds instead: the setup's value must
	// lie in [Lo, Hi] (either may be infinite), for what the paper states
	// as an inequality ("the bottleneck is at least 94.5 Gb/s", "Q_CNM ≥
	// Q_ECN": derive the difference, Lo 0). Paper is then unused.
	Bounds bool
	Lo, Hi float64
	// Derive computes the constant from a reading's setup: the resolved
	// scenario of the experiment's first run at paper scale under that
	// reading (nil when the experiment has no runs).
	Derive func(s *scenario.Scenario) (float64, error)
}

// evaluate derives the check's constant from s and compares it with the
// paper's.
func (c *Check) evaluate(s *scenario.Scenario) report.CheckRow {
	row := report.CheckRow{ID: c.ID, Description: c.Description, Paper: c.PaperText(), Unit: c.Unit}
	fnum := checkNum
	v, err := c.Derive(s)
	if err != nil {
		row.Derived, row.Note = "—", err.Error()
		return row
	}
	if c.Bounds {
		row.Derived = fnum(v)
		row.OK = v >= c.Lo && v <= c.Hi
		if !row.OK {
			row.Note = "outside the bounds"
		}
		return row
	}
	tol := Tolerance{Abs: 0.5}
	if c.Tol != nil {
		tol = *c.Tol
	}
	row.Derived = fnum(v)
	row.OK = !math.IsNaN(v) && math.Abs(v-c.Paper) <= tol.Of(c.Paper)
	if !row.OK {
		row.Note = fmt.Sprintf("differs by %s (tolerance %s)", fnum(v-c.Paper), tol)
	}
	return row
}

// checkNum formats a check's constant: six significant digits, so that a
// printed constant such as 52,025 B or 972.89 MiB shows whole.
func checkNum(x float64) string { return fmt.Sprintf("%.6g", x) }

// PaperText is what the paper prints: the constant, or the bounds ("≥ 94.5").
func (c *Check) PaperText() string {
	fnum := checkNum
	if !c.Bounds {
		return fnum(c.Paper)
	}
	switch {
	case math.IsInf(c.Lo, -1):
		return "≤ " + fnum(c.Hi)
	case math.IsInf(c.Hi, 1):
		return "≥ " + fnum(c.Lo)
	}
	return "[" + fnum(c.Lo) + ", " + fnum(c.Hi) + "]"
}

// readings are e's readings, or one implicit primary reading.
func (e *Experiment) readings() []Reading {
	if len(e.Readings) == 0 {
		return []Reading{{Primary: true}}
	}
	return e.Readings
}

// RunCount is the number of runs e asks for at scale sc: each reading's
// runs (every seed, or the reading's OnlySeeds). Runs whose resolved inputs
// coincide are stored and run once, so a reproduction may run fewer.
func (e *Experiment) RunCount(sc Scale) int {
	if e.Runs == nil {
		return 0
	}
	specs := e.Runs(sc)
	n := 0
	for _, rd := range e.readings() {
		for _, spec := range specs {
			if len(rd.OnlySeeds) == 0 || slices.Contains(rd.OnlySeeds, spec.Seed) {
				n++
			}
		}
	}
	return n
}

// validateReadings checks e's readings: unique ids without spaces, exactly
// one primary.
func (e *Experiment) validateReadings() error {
	if len(e.Readings) == 0 {
		return nil
	}
	primary := 0
	seen := map[string]bool{}
	for _, r := range e.Readings {
		if r.ID == "" || strings.ContainsAny(r.ID, " \t=") || seen[r.ID] {
			return fmt.Errorf("reading id %q: empty, repeated or not a word", r.ID)
		}
		seen[r.ID] = true
		if r.Primary {
			primary++
			if len(r.OnlySeeds) > 0 {
				return fmt.Errorf("reading %s: the primary reading runs every seed (OnlySeeds)", r.ID)
			}
		}
	}
	if primary != 1 {
		return fmt.Errorf("%d primary readings, want 1", primary)
	}
	return nil
}

// readingSpec is spec under reading r at scale sc: r's patch merged last,
// and the key prefixed by the reading unless it is the primary one.
func readingSpec(spec RunSpec, r Reading, sc Scale) RunSpec {
	if r.Patch != nil {
		spec.Patch = Merge(spec.Patch, r.Patch(sc))
	}
	if r.PatchRun != nil {
		spec.Patch = Merge(spec.Patch, r.PatchRun(sc, spec))
	}
	return spec
}

// Seeds are the seeds of a random workload's runs (Poisson arrivals,
// random pairs, ECMP hashing): three at the paper's scale, one at quick
// scale. Verdicts are decided on the means over them.
func Seeds(sc Scale) []uint64 {
	if sc == ScaleQuick {
		return []uint64{1}
	}
	return []uint64{1, 2, 3}
}

// SeedRuns returns the runs of key over its seeds: the run keyed key, or
// those keyed "key seed=N" (Sweep.Expand's keys), in declaration order.
func (c *Context) SeedRuns(key string) ([]*RunRef, error) {
	if r, ok := c.byKey[key]; ok {
		if r.Err != nil {
			return nil, r.Err
		}
		return []*RunRef{r}, nil
	}
	var out []*RunRef
	for _, r := range c.runs {
		if rest, ok := strings.CutPrefix(r.Spec.Key, key+" seed="); ok && !strings.Contains(rest, " ") {
			if r.Err != nil {
				return nil, r.Err
			}
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s/%s: no run with key %q or %q", c.Paper.ID, c.Exp.ID, key, key+" seed=N")
	}
	return out, nil
}

// Sample measures f on every seed of key (SeedRuns): one value per seed.
func (c *Context) Sample(key string, f func(*RunRef) (float64, error)) (Sample, error) {
	runs, err := c.SeedRuns(key)
	if err != nil {
		return nil, err
	}
	out := make(Sample, len(runs))
	for i, r := range runs {
		if out[i], err = f(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}
