package experiment

// Typed claims (docs/reproduce.md, "Claims and verdicts"). A paper declares
// each claim with a kind, and its numbers; its analysis only measures: it
// gives, per claim, the values the kind compares (a Measure). This file
// decides the verdicts, so that no paper writes a comparison and a lenient
// verdict cannot be written by accident.

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Kind is what a claim states, hence how it is decided.
type Kind uint8

// Claim kinds. A claim that states a number also has a magnitude form
// (Claim.Mag): e.g. "DCON cuts DCQCN's p99 FCT by 47 %" is a Direction
// (DCON's below DCQCN's) with a MagValue of −47 (%).
const (
	// Untyped is the zero Kind: a claim declared without one. Register
	// refuses it; every claim states how it is decided.
	Untyped Kind = iota
	// Number is a number the paper gives without any statement (e.g. a
	// parameter it reports): shown beside ccsim's, verdict n/a.
	Number
	// Direction: Values[0] Rel Values[1] ("A is lower than B").
	Direction
	// Order: Values[0] Rel Values[1] Rel Values[2] … ("A < B < C"; "grows
	// with load" is a series ordered by Less).
	Order
	// Exact: the mean of Values[0] equals Paper (within the claim's own
	// Tol.Abs, exact by default): "full speed at round 9".
	Exact
	// Range: Lo ≤ the mean of Values[0] ≤ Hi.
	Range
	// Count: Values = [k, n] or [k, n, u]; holds when k/n ≥ Need/Of
	// ("14 of 14 bins"). u counts the points that could not be decided
	// (inconclusive over the seeds, or bounded by censored flows): the
	// claim is inconclusive when it holds with them and not without.
	Count
	// Magnitude: the claim is a stated number only; Mag decides it.
	Magnitude
)

var kindNames = [...]string{"untyped", "number", "direction", "order", "exact", "range", "count", "magnitude"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Rel is the relation of a Direction or Order claim.
type Rel uint8

// Relations.
const (
	Less    Rel = iota // each value below the next
	Greater            // each value above the next
)

// MagForm is how a claim states its number.
type MagForm uint8

// Magnitude forms.
const (
	// MagNone: the claim states no number.
	MagNone MagForm = iota
	// MagValue: the mean of Mag[0] is within the tolerance of Paper
	// ("−47 %", "4,654 ns").
	MagValue
	// MagUpTo ("by up to X"): ccsim's best point — the mean of the Mag
	// point farthest in the direction of Paper's sign — is within the
	// tolerance of Paper.
	MagUpTo
	// MagSpan ("by X–Y"): the span [min, max] of the Mag points' means
	// overlaps [Lo, Hi].
	MagSpan
)

var magNames = [...]string{"", "value", "up to", "span"}

func (m MagForm) String() string {
	if int(m) < len(magNames) {
		return magNames[m]
	}
	return fmt.Sprintf("mag(%d)", m)
}

// Tolerance is how far a measured magnitude may be from the paper's
// number: tol(x) = max(Rel·|x|, Abs). A paper declares one
// (Paper.Tolerance); a claim may state its own (Claim.Tol).
type Tolerance struct {
	Rel, Abs float64
}

// DefaultTolerance is a paper's tolerance unless it declares another:
// within ±25 % of the paper's number.
var DefaultTolerance = Tolerance{Rel: 0.25}

// Of is the tolerance around x.
func (t Tolerance) Of(x float64) float64 { return math.Max(t.Rel*math.Abs(x), t.Abs) }

// String describes the tolerance ("±25 %", "±0.5", "±25 % or ±0.5").
func (t Tolerance) String() string {
	switch {
	case t.Rel > 0 && t.Abs > 0:
		return fmt.Sprintf("±%g %% or ±%g", 100*t.Rel, t.Abs)
	case t.Abs > 0:
		return fmt.Sprintf("±%g", t.Abs)
	default:
		return fmt.Sprintf("±%g %%", 100*t.Rel)
	}
}

// Claim is a published number or statement of a paper, typed so that the
// machinery decides it (Evaluate).
type Claim struct {
	ID          string // unique within the experiment
	Description string
	PaperValue  string // as published ("" for a purely qualitative claim)
	Unit        string

	Kind Kind
	Rel  Rel // Direction, Order
	// Mag is how the claim states its number; Paper (MagValue, MagUpTo,
	// and Exact), Lo and Hi (MagSpan, and Range) are the paper's numbers.
	Mag           MagForm
	Paper, Lo, Hi float64
	// Need and Of are a Count claim's fraction ("14 of 14": 14, 14).
	Need, Of int
	// Tol overrides the paper's tolerance for this claim (a band the
	// paper states, or the precision of an exact claim).
	Tol *Tolerance
}

// Sample is one quantity over the seeds of a random workload (one value
// per seed; a single value when the workload is deterministic).
type Sample []float64

// Mean is the sample's mean (NaN when empty).
func (s Sample) Mean() float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return sum / float64(len(s))
}

// Span is the sample's smallest and largest value.
func (s Sample) Span() (lo, hi float64) {
	if len(s) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Min(s), slices.Max(s)
}

// Measure is what an analysis measured for one claim: the quantities its
// kind compares and the quantity its number states.
type Measure struct {
	// Values are the compared quantities: Direction 2, Order ≥ 2, Exact 1,
	// Range 1, Count 2 or 3 ([k, n] or [k, n, u]).
	Values []Sample
	// Lower marks the Values that are lower bounds (a statistic over flows
	// of which some were censored at the run's end: the true value is at
	// least this); Direction, Order, Range and Exact then give yes or no
	// only where the bound decides, else inconclusive. nil: all exact.
	Lower []bool
	// Upper marks the Values that are upper bounds (the true value is at
	// most this: e.g. a rate, or a reduction in per cent, over flows some
	// of which were censored), with the same rule.
	Upper []bool
	// MagLower and MagUpper mark the Mag points that are lower or upper
	// bounds; a magnitude then fails only when the bound already lies
	// beyond the tolerance band, and holds only when it cannot leave it.
	MagLower, MagUpper []bool
	// Labels name the Values in the report ("DCON", "DCQCN").
	Labels []string
	// Mag is the quantity the paper's number states, one Sample per point
	// (MagValue: one; MagUpTo, MagSpan: every point measured).
	Mag []Sample
	// Text is the ccsim_value shown; empty: the means, formatted.
	Text string
	// Note says how it was measured (and, for a failing claim, why).
	Note string
}

// M is a Measure of single-seed values: Values[i] = {v[i]}.
func M(v ...float64) Measure {
	m := Measure{Values: make([]Sample, len(v))}
	for i, x := range v {
		m.Values[i] = Sample{x}
	}
	return m
}

// MagOf is a Measure of single-seed magnitude points: Mag[i] = {v[i]}.
func MagOf(v ...float64) Measure {
	m := Measure{Mag: make([]Sample, len(v))}
	for i, x := range v {
		m.Mag[i] = Sample{x}
	}
	return m
}

// CountPairs is the measure of a Count claim over points i where the claim
// is "a[i] Rel b[i]" (e.g. "PIDNN's p95 slowdown is below TIMELY's in every
// size bin"): k = the points where it holds, n = all points, u = the points
// that cannot be decided (the seeds disagree, or a lower bound — aLow[i],
// bLow[i], from censored flows — leaves it open), by the same rule as a
// Direction claim. The analysis counts nothing itself.
func CountPairs(r Rel, a, b []Sample, aLow, bLow []bool) Measure {
	if len(a) != len(b) {
		// a programming error of the analysis: Evaluate reports the NaN
		return M(math.NaN(), math.NaN(), math.NaN())
	}
	var k, u float64
	for i := range a {
		if math.IsNaN(a[i].Mean()) || math.IsNaN(b[i].Mean()) {
			u++ // a point not measured cannot be decided
			continue
		}
		switch bounded(direction(r, a[i], b[i]), r, boundOf(aLow, nil, i), boundOf(bLow, nil, i)) {
		case Yes:
			k++
		case Inconclusive:
			u++
		}
	}
	return M(k, float64(len(a)), u)
}

// Outcome is a verdict.
type Outcome string

// Outcomes.
const (
	Yes          Outcome = "yes"
	No           Outcome = "no"
	Inconclusive Outcome = "inconclusive" // the seeds disagree on the direction
	NA           Outcome = "n/a"          // no statement to hold, or nothing measured
)

// bound is what is known of a value's true value from its measure.
type bound uint8

const (
	exactV  bound = iota // the value is the true one
	atLeast              // a lower bound: the true value is at least this
	atMost               // an upper bound: the true value is at most this
	unknown              // marked both: nothing is known beyond the number
)

// boundOf is the bound of value i from the lower and upper marks.
func boundOf(lower, upper []bool, i int) bound {
	lo, up := i < len(lower) && lower[i], i < len(upper) && upper[i]
	switch {
	case lo && up:
		return unknown
	case lo:
		return atLeast
	case up:
		return atMost
	}
	return exactV
}

// canRise and canFall report whether the true value may be above or
// below the measured one.
func (b bound) canRise() bool { return b == atLeast || b == unknown }
func (b bound) canFall() bool { return b == atMost || b == unknown }

// Verdict is a claim's evaluation: the statement's outcome (Direction,
// Order, Exact, Range, Count), the magnitude's, and the claim's (yes only
// when every part is yes).
type Verdict struct {
	Statement, Magnitude, Holds Outcome
	Value                       string // ccsim's side (Measure.Text or the means)
	Why                         string // what decided it
}

// Evaluate decides claim c from measure m with tolerance tol (the paper's;
// c.Tol overrides it). Direction and Order verdicts are decided on the
// means over seeds; one is inconclusive when the seeds disagree on it (see
// direction). A malformed measure (wrong number of values, NaN) gives an
// error.
func Evaluate(c *Claim, tol Tolerance, m Measure) (Verdict, error) {
	if c.Tol != nil {
		tol = *c.Tol
	}
	v := Verdict{Statement: NA, Magnitude: NA, Value: m.Text}
	var why []string
	var err error
	switch c.Kind {
	case Untyped:
		return v, fmt.Errorf("claim %s is not typed", c.ID)
	case Number, Magnitude:
	default:
		var w string
		if v.Statement, w, err = statement(c, m); err != nil {
			return v, err
		}
		why = append(why, w)
	}
	if c.Mag != MagNone && c.Kind != Number {
		var w string
		if v.Magnitude, w, err = magnitude(c, tol, m.Mag, m.MagLower, m.MagUpper); err != nil {
			return v, err
		}
		why = append(why, w)
	} else if c.Kind == Magnitude {
		return v, fmt.Errorf("claim %s: kind magnitude without a magnitude form", c.ID)
	}
	v.Holds = combine(v.Statement, v.Magnitude)
	if c.Kind == Number {
		v.Holds = NA
	}
	v.Why = strings.Join(why, "; ")
	if v.Value == "" {
		v.Value = defaultText(c, m)
	}
	return v, nil
}

// combine is the claim's outcome from its parts: no if any part is no,
// else inconclusive if any is, else yes if any part was decided.
func combine(parts ...Outcome) Outcome {
	out := NA
	for _, p := range parts {
		switch {
		case p == No:
			return No
		case p == Inconclusive:
			out = Inconclusive
		case p == Yes && out == NA:
			out = Yes
		}
	}
	return out
}

// statement decides the statement part of c.
func statement(c *Claim, m Measure) (Outcome, string, error) {
	need := map[Kind]int{Direction: 2, Exact: 1, Range: 1, Count: 2}[c.Kind]
	switch {
	case c.Kind == Order && len(m.Values) < 2:
		return NA, "", fmt.Errorf("claim %s: an order needs at least 2 values, got %d", c.ID, len(m.Values))
	case c.Kind == Count && len(m.Values) == 3:
	case c.Kind != Order && len(m.Values) != need:
		return NA, "", fmt.Errorf("claim %s: a %v claim needs %d values, got %d", c.ID, c.Kind, need, len(m.Values))
	}
	for i, s := range m.Values {
		if len(s) == 0 || slices.ContainsFunc(s, math.IsNaN) {
			return NA, "", fmt.Errorf("claim %s: value %d is missing or NaN", c.ID, i)
		}
	}
	if len(m.Lower) > len(m.Values) || len(m.Upper) > len(m.Values) {
		return NA, "", fmt.Errorf("claim %s: %d lower- and %d upper-bound marks for %d values", c.ID, len(m.Lower), len(m.Upper), len(m.Values))
	}
	bnd := func(i int) bound { return boundOf(m.Lower, m.Upper, i) }
	switch c.Kind {
	case Direction, Order:
		out := Yes
		for i := 0; i+1 < len(m.Values); i++ {
			o := direction(c.Rel, m.Values[i], m.Values[i+1])
			o = bounded(o, c.Rel, bnd(i), bnd(i+1))
			switch o {
			case No:
				return No, fmt.Sprintf("value %d is not %s value %d", i+1, relWord(c.Rel), i+2), nil
			case Inconclusive:
				out = Inconclusive
			}
		}
		if out == Inconclusive {
			return out, "the seeds disagree, or a bound (censored flows) leaves it open", nil
		}
		return Yes, "", nil
	case Exact:
		x, eps := m.Values[0].Mean(), 1e-9*math.Max(1, math.Abs(c.Paper))
		if c.Tol != nil {
			eps = math.Max(eps, c.Tol.Abs)
		}
		o, w := inBand(x, c.Paper-eps, c.Paper+eps, bnd(0))
		if o == No {
			w = fmt.Sprintf("%s ≠ %s", fnum(x), fnum(c.Paper))
		}
		return o, w, nil
	case Range:
		o, w := inBand(m.Values[0].Mean(), c.Lo, c.Hi, bnd(0))
		return o, w, nil
	case Count:
		k, n := m.Values[0].Mean(), m.Values[1].Mean()
		u := 0.0
		if len(m.Values) == 3 {
			u = m.Values[2].Mean()
		}
		if c.Of <= 0 || c.Need < 0 || c.Need > c.Of {
			return NA, "", fmt.Errorf("claim %s: count %d of %d", c.ID, c.Need, c.Of)
		}
		enough := func(k float64) bool { return n > 0 && k*float64(c.Of) >= float64(c.Need)*n }
		switch {
		case enough(k):
			return Yes, "", nil
		case enough(k + u):
			return Inconclusive, fmt.Sprintf("%s of %s decided, %s undecided; the paper %d of %d", fnum(k), fnum(n), fnum(u), c.Need, c.Of), nil
		}
		return No, fmt.Sprintf("%s of %s, the paper %d of %d", fnum(k), fnum(n), c.Need, c.Of), nil
	}
	return NA, "", fmt.Errorf("claim %s: kind %v has no statement", c.ID, c.Kind)
}

// bounded corrects the outcome o of "a Rel b" when a or b is a bound
// (censored flows): an outcome the bounds cannot decide becomes
// inconclusive. For Less, a yes stands only if a cannot rise and b cannot
// fall, a no only if a cannot fall and b cannot rise; for Greater the
// other way round.
func bounded(o Outcome, r Rel, a, b bound) Outcome {
	if r == Greater {
		a, b = b, a
	}
	switch {
	case o == Yes && (a.canRise() || b.canFall()), o == No && (a.canFall() || b.canRise()):
		return Inconclusive
	}
	return o
}

// inBand decides whether the true value of x, with bound b, lies in
// [lo, hi]: yes only if it cannot leave the band, no only if it cannot
// enter it, else inconclusive.
func inBand(x, lo, hi float64, b bound) (Outcome, string) {
	in := x >= lo && x <= hi
	switch {
	case in && (b.canRise() && !math.IsInf(hi, 1) || b.canFall() && !math.IsInf(lo, -1)):
		return Inconclusive, fmt.Sprintf("%s is a bound (censored flows) that may leave [%s, %s]", fnum(x), fnum(lo), fnum(hi))
	case in:
		return Yes, ""
	case x > hi && b.canFall(), x < lo && b.canRise():
		return Inconclusive, fmt.Sprintf("%s is a bound (censored flows) that may reach [%s, %s]", fnum(x), fnum(lo), fnum(hi))
	}
	return No, fmt.Sprintf("%s outside [%s, %s]", fnum(x), fnum(lo), fnum(hi))
}

func relWord(r Rel) string {
	if r == Greater {
		return "above"
	}
	return "below"
}

// direction decides a Rel b. The means decide; with several seeds the
// verdict is inconclusive when the seeds disagree: for paired samples (one
// value per seed on both sides, same seeds) when the per-seed differences
// do not all have the claimed sign; otherwise when the two samples' spans
// overlap.
func direction(r Rel, a, b Sample) Outcome {
	sign := 1.0
	if r == Greater {
		sign = -1
	}
	margin := sign * (b.Mean() - a.Mean()) // > 0: holds on the means
	if margin <= 0 {
		return No
	}
	if len(a) <= 1 && len(b) <= 1 {
		return Yes
	}
	if len(a) == len(b) {
		for i := range a {
			if sign*(b[i]-a[i]) <= 0 {
				return Inconclusive
			}
		}
		return Yes
	}
	alo, ahi := a.Span()
	blo, bhi := b.Span()
	if alo <= bhi && blo <= ahi {
		return Inconclusive
	}
	return Yes
}

// magnitude decides the magnitude part of c from the Mag points.
func magnitude(c *Claim, tol Tolerance, pts []Sample, low, up []bool) (Outcome, string, error) {
	if len(low) > len(pts) || len(up) > len(pts) {
		return NA, "", fmt.Errorf("claim %s: %d lower- and %d upper-bound marks for %d magnitude points", c.ID, len(low), len(up), len(pts))
	}
	bnd := func(i int) bound { return boundOf(low, up, i) }
	if len(pts) == 0 || c.Mag == MagValue && len(pts) != 1 {
		return NA, "", fmt.Errorf("claim %s: magnitude %v needs %s, got %d points", c.ID, c.Mag, map[bool]string{true: "1 point", false: "points"}[c.Mag == MagValue], len(pts))
	}
	means := make([]float64, len(pts))
	for i, p := range pts {
		if means[i] = p.Mean(); math.IsNaN(means[i]) {
			return NA, "", fmt.Errorf("claim %s: magnitude point %d is missing or NaN", c.ID, i)
		}
	}
	if t := tol.Of(c.Paper); math.IsNaN(t) || math.IsInf(t, 0) || tol.Rel < 0 || tol.Abs < 0 {
		return NA, "", fmt.Errorf("claim %s: tolerance %v cannot fail", c.ID, tol)
	}
	within := func(x float64, b bound) (Outcome, string) {
		t := tol.Of(c.Paper)
		o, w := inBand(x, c.Paper-t, c.Paper+t, b)
		if o == No {
			w = fmt.Sprintf("%s is not within %s of %s", fnum(x), tol, fnum(c.Paper))
		}
		return o, w
	}
	switch c.Mag {
	case MagValue:
		o, w := within(means[0], bnd(0))
		return o, w, nil
	case MagUpTo:
		sign := 1.0
		if c.Paper < 0 {
			sign = -1
		}
		best, bi := means[0], 0
		for i, x := range means[1:] {
			if sign*x > sign*best {
				best, bi = x, i+1
			}
		}
		o, w := within(best, bnd(bi))
		if w != "" {
			w = "the best point " + w
		}
		return o, w, nil
	case MagSpan:
		if c.Lo > c.Hi {
			return NA, "", fmt.Errorf("claim %s: span [%g, %g]", c.ID, c.Lo, c.Hi)
		}
		return span(c, means, bnd)
	}
	return NA, "", fmt.Errorf("claim %s: magnitude form %d unknown", c.ID, c.Mag)
}

// span decides a MagSpan claim: ccsim's points [min, max] overlap the
// paper's [Lo, Hi] when some point is surely at most Hi and some point is
// surely at least Lo; they surely miss it when every point is surely above
// Hi, or every point surely below Lo; bounds (censored flows) leave the
// rest inconclusive.
func span(c *Claim, means []float64, bnd func(int) bound) (Outcome, string, error) {
	var belowHi, aboveLo, allAbove, allBelow = false, false, true, true
	for i, x := range means {
		b := bnd(i)
		belowHi = belowHi || x <= c.Hi && !b.canRise()
		aboveLo = aboveLo || x >= c.Lo && !b.canFall()
		allAbove = allAbove && x > c.Hi && !b.canFall()
		allBelow = allBelow && x < c.Lo && !b.canRise()
	}
	lo, hi := slices.Min(means), slices.Max(means)
	miss := fmt.Sprintf("ccsim's %s … %s does not overlap %s … %s", fnum(lo), fnum(hi), fnum(c.Lo), fnum(c.Hi))
	switch {
	case belowHi && aboveLo:
		return Yes, "", nil
	case allAbove || allBelow:
		return No, miss, nil
	}
	return Inconclusive, miss + " surely: bounds (censored flows) leave it open", nil
}

// defaultText formats ccsim's side of a claim when the analysis gives no
// text: the labelled means of the values, then the magnitude (one point,
// or the span of the points).
func defaultText(c *Claim, m Measure) string {
	var parts []string
	for i, s := range m.Values {
		t := sampleText(s)
		if i < len(m.Labels) && m.Labels[i] != "" {
			t = m.Labels[i] + " " + t
		}
		parts = append(parts, t)
	}
	switch len(m.Mag) {
	case 0:
	case 1:
		parts = append(parts, sampleText(m.Mag[0]))
	default:
		means := make([]float64, len(m.Mag))
		for i, p := range m.Mag {
			means[i] = p.Mean()
		}
		parts = append(parts, fnum(slices.Min(means))+" … "+fnum(slices.Max(means)))
	}
	sep := " / "
	if c.Kind == Direction || c.Kind == Order {
		sep = " vs "
		if len(m.Mag) > 0 && len(parts) > 1 {
			return strings.Join(parts[:len(parts)-1], sep) + "; " + parts[len(parts)-1]
		}
	}
	return strings.Join(parts, sep)
}

// sampleText is a sample's mean, and its span over several seeds.
func sampleText(s Sample) string {
	if len(s) <= 1 {
		return fnum(s.Mean())
	}
	lo, hi := s.Span()
	return fmt.Sprintf("%s (%s … %s)", fnum(s.Mean()), fnum(lo), fnum(hi))
}

// fnum formats a number for verdict texts: four significant digits.
func fnum(x float64) string { return fmt.Sprintf("%.4g", x) }
