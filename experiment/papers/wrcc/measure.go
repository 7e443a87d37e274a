package wrcc

// Building measures (experiment.Measure) from statistics over seeds: the
// analyses only collect points; every comparison is the machinery's
// (experiment.Evaluate, experiment.CountPairs).

import (
	"fmt"
	"math"
	"strings"

	"github.com/ccsim/ccsim/experiment"
)

// biccLabel ends the description of every claim with a BiCC side: ccsim's
// BiCC is modelled from paper 002's description (docs/algorithms/bicc.md).
const biccLabel = " (against ccsim's interpretation of BiCC)"

// descFor is a claim description with the BiCC label when cc is bicc.
func descFor(cc, d string) string {
	if cc == "bicc" {
		return d + biccLabel
	}
	return d
}

// cutOf is the per-seed reduction of w against b (experiment.Cut, %),
// paired by seed; with unequal seed counts the reduction of the means.
func cutOf(w, b experiment.Sample) experiment.Sample {
	if len(w) != len(b) {
		return experiment.Sample{experiment.Cut(w.Mean(), b.Mean())}
	}
	out := make(experiment.Sample, len(w))
	for i := range w {
		out[i] = experiment.Cut(w[i], b[i])
	}
	return out
}

// pctOf is the per-seed relative difference of a against b
// (experiment.Pct, %), paired by seed when the counts match.
func pctOf(a, b experiment.Sample) experiment.Sample {
	if len(a) != len(b) {
		return experiment.Sample{experiment.Pct(a.Mean(), b.Mean())}
	}
	out := make(experiment.Sample, len(a))
	for i := range a {
		out[i] = experiment.Pct(a[i], b[i])
	}
	return out
}

// scaled is s × k.
func scaled(s experiment.Sample, k float64) experiment.Sample {
	out := make(experiment.Sample, len(s))
	for i, x := range s {
		out[i] = k * x
	}
	return out
}

func hasNaN(s experiment.Sample) bool {
	if len(s) == 0 {
		return true
	}
	for _, x := range s {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return true
		}
	}
	return false
}

// pairs collects the points of a per-point comparison "a Rel b" for a
// Count claim (experiment.CountPairs decides each point). A point where
// either side is missing (NaN: e.g. no flow of the class at quick scale)
// is left out and named in the note.
type pairs struct {
	a, b       []experiment.Sample
	aLow, bLow []bool
	names      []string
	skipped    []string
}

func (p *pairs) add(name string, a experiment.Sample, aLow bool, b experiment.Sample, bLow bool) {
	if hasNaN(a) || hasNaN(b) {
		p.skipped = append(p.skipped, name)
		return
	}
	p.a, p.b = append(p.a, a), append(p.b, b)
	p.aLow, p.bLow = append(p.aLow, aLow), append(p.bLow, bLow)
	p.names = append(p.names, name)
}

// count is the Count measure of the points: experiment.CountPairs.
func (p *pairs) count(r experiment.Rel, sc experiment.Scale) experiment.Measure {
	full := experiment.CountPairs(r, p.a, p.b, p.aLow, p.bLow)
	m := trimCount(full, sc)
	m.Note = p.note()
	if u := full.Values[2].Mean(); len(m.Values) == 2 && u > 0 {
		m.Note += fmt.Sprintf("; quick scale: %g undecided point(s) counted as not holding", u)
	}
	return m
}

// trimCount drops the undecided count u of a Count measure [k, n, u] when
// it is 0 ([k, n, 0] means [k, n]) and, at quick scale only, always:
// experiment.Flip's supporting measure of a Count has two values and
// rejects a third (a machinery gap reported to the lead), and the quick
// reproduction runs the flip check. At quick scale an undecided point then
// counts as not holding (the quick verdicts are not results); at the
// paper's scale u stays and makes the claim inconclusive where it matters.
func trimCount(m experiment.Measure, sc experiment.Scale) experiment.Measure {
	if len(m.Values) == 3 && (m.Values[2].Mean() == 0 || sc == experiment.ScaleQuick) {
		m.Values = m.Values[:2]
	}
	return m
}

// note lists the points compared, the lower bounds, and those left out.
func (p *pairs) note() string {
	var parts []string
	for i, n := range p.names {
		t := fmt.Sprintf("%s %s vs %s", n, cell(p.a[i], p.aLow[i]), cell(p.b[i], p.bLow[i]))
		parts = append(parts, t)
	}
	out := strings.Join(parts, "; ")
	if len(p.skipped) > 0 {
		out += "; not measured (no flow of the class): " + strings.Join(p.skipped, ", ")
	}
	return out
}

// mags collects the magnitude points of a claim (MagUpTo, MagSpan).
type mags struct {
	pts     []experiment.Sample
	low     []bool
	names   []string
	skipped []string
}

// add adds a point; low marks a point that is not exact: a reduction
// whose baseline side is a lower bound is itself a lower bound; one whose
// WRCC side is a lower bound is an upper bound, which the machinery
// cannot express: it is marked as a bound too (no yes rests on it; the
// claim's statement compares the same sides and is then inconclusive or
// no).
func (m *mags) add(name string, pt experiment.Sample, low bool) {
	if hasNaN(pt) {
		m.skipped = append(m.skipped, name)
		return
	}
	m.pts, m.low = append(m.pts, pt), append(m.low, low)
	m.names = append(m.names, name)
}

// best is the index of the point with the largest mean (-1 when none).
func (m *mags) best() int {
	bi := -1
	for i, p := range m.pts {
		if bi < 0 || p.Mean() > m.pts[bi].Mean() {
			bi = i
		}
	}
	return bi
}

// text lists the points' means ("WebSearch 12 %; …").
func (m *mags) text(unit string) string {
	var parts []string
	for i, n := range m.names {
		t := experiment.G4Dash(m.pts[i].Mean())
		if len(m.pts[i]) > 1 {
			lo, hi := m.pts[i].Span()
			t += " (" + experiment.G4Dash(lo) + "–" + experiment.G4Dash(hi) + ")"
		}
		if m.low[i] {
			t += " (bound)"
		}
		parts = append(parts, n+" "+t+unit)
	}
	out := strings.Join(parts, "; ")
	if len(m.skipped) > 0 {
		out += "; not measured: " + strings.Join(m.skipped, ", ")
	}
	return out
}

// spanText is the range of the points' means ("12 … 63").
func (m *mags) spanText() string {
	if len(m.pts) == 0 {
		return experiment.Dash
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range m.pts {
		lo, hi = math.Min(lo, p.Mean()), math.Max(hi, p.Mean())
	}
	return experiment.G4(lo) + " … " + experiment.G4(hi)
}

// nanMeasure is the measure of a claim that could not be measured (no
// point): a NaN value, so the machinery reports it not evaluated with the
// note.
func nanMeasure(nvalues int, note string) experiment.Measure {
	m := experiment.M()
	for range nvalues {
		m.Values = append(m.Values, experiment.Sample{math.NaN()})
	}
	m.Text, m.Note = experiment.Dash, note
	return m
}

// allLower marks every value of m as a bound: a Direction or Order whose
// values are derived from statistics of which one is an upper bound (a
// reduction whose reducing side is censored) is then inconclusive, neither
// yes nor no (the machinery's lower bounds only decide in one direction).
func allLower(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

func joinSemi(parts []string) string { return strings.Join(parts, "; ") }
