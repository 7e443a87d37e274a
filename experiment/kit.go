package experiment

// The paper kit: small helpers that every paper package under
// experiment/papers/ uses to name its algorithms, format table cells and
// compare numbers, kept here once instead of a copy per paper
// (docs/adding-a-paper.md).

import (
	"fmt"
	"math"
)

// Dash is the table cell of a value that is missing or undefined.
const Dash = "—"

// G4 formats v with four significant digits (%.4g), the usual precision of
// a report's tables. NaN and infinities print as Go prints them ("NaN",
// "+Inf", "-Inf"): use it where such a value cannot occur or should show.
func G4(v float64) string { return fmt.Sprintf("%.4g", v) }

// G4Dash is G4 with every non-finite value (NaN, ±Inf) printed as Dash:
// the cell of a value that is missing (a failed run) or undefined (a ratio
// over zero).
func G4Dash(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Dash
	}
	return G4(v)
}

// G4DashNaN is G4 with NaN (a missing value) printed as Dash while
// infinities print as "+Inf" and "-Inf": for tables where an infinite value
// means something else than a missing one (e.g. a minimum over no bins).
func G4DashNaN(v float64) string {
	if math.IsNaN(v) {
		return Dash
	}
	return G4(v)
}

// Pct is the relative difference of a against b in per cent, 100 (a/b − 1):
// +24 when a is 24 % larger than b.
func Pct(a, b float64) float64 { return 100 * (a/b - 1) }

// Cut is the reduction of v against base in per cent, 100 (1 − v/base):
// 75 when v is a quarter of base. Equal values give 0 (also 0 against 0).
func Cut(v, base float64) float64 {
	if v == base {
		return 0
	}
	return 100 * (1 - v/base)
}

// EventsPerSecond is a run's simulation speed for a cost table: events per
// wall-clock second, three significant digits.
func EventsPerSecond(events int64, wallSeconds float64) string {
	return fmt.Sprintf("%.3g", float64(events)/wallSeconds)
}

// AtScale returns quick at ScaleQuick and paper at every other scale: the
// one place a run list or an analysis depends on the scale.
func AtScale[T any](sc Scale, quick, paper T) T {
	if sc == ScaleQuick {
		return quick
	}
	return paper
}

// Alg is an algorithm as a paper compares it: ccsim's algorithm id (the
// scenario's cc) and the name the paper prints.
type Alg struct {
	CC   string // ccsim's id, e.g. "dcqcnp"
	Name string // the paper's name, e.g. "DCQCN-p"
}

// Algs is a paper's list of algorithms, in the order of its tables and
// figures; it is also the paper's name table.
type Algs []Alg

// CCs lists the algorithm ids in order (a Sweep's CC).
func (as Algs) CCs() []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.CC
	}
	return out
}

// Name is the paper's name of algorithm cc, or cc itself when the list
// does not hold it.
func (as Algs) Name(cc string) string {
	for _, a := range as {
		if a.CC == cc {
			return a.Name
		}
	}
	return cc
}

// CC is the algorithm id of the paper's name, or name itself when the list
// does not hold it (the inverse of Name).
func (as Algs) CC(name string) string {
	for _, a := range as {
		if a.Name == name {
			return a.CC
		}
	}
	return name
}
