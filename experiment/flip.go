package experiment

// The flip check: every claim must be able to fail. From a claim and the
// measure its analysis produced (for its shape: how many values, how many
// seeds, how many magnitude points), Flip builds measures that support and
// that contradict each part of the claim, and checks that the machinery
// says yes and no to them. A claim whose declaration cannot fail (a range
// without bounds, a tolerance without end, a count of 0 of n) is an error.

import (
	"fmt"
	"math"
)

// Flip checks that claim c, measured as m, can hold and can fail: a
// measure supporting every part must give yes, and one contradicting any
// part (the statement, the magnitude) must give no. Number claims have
// nothing to flip.
func Flip(c *Claim, tol Tolerance, m Measure) error {
	if c.Kind == Number {
		return nil
	}
	if c.Kind == Untyped {
		return fmt.Errorf("claim %s is not typed", c.ID)
	}
	if c.Tol != nil {
		tol = *c.Tol
	}
	hasStmt := c.Kind != Magnitude
	hasMag := c.Mag != MagNone
	sup, err := support(c, tol, m)
	if err != nil {
		return err
	}
	check := func(what string, x Measure, want Outcome) error {
		v, err := Evaluate(c, tol, x)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if v.Holds != want {
			return fmt.Errorf("claim %s: %s gives %s, want %s (%s)", c.ID, what, v.Holds, want, v.Why)
		}
		return nil
	}
	if err := check("a supporting measure", sup, Yes); err != nil {
		return err
	}
	if hasStmt {
		x := sup
		if x.Values, err = contraValues(c, m); err != nil {
			return err
		}
		if err := check("a measure contradicting the statement", x, No); err != nil {
			return err
		}
	}
	if hasMag {
		x := sup
		if x.Mag, err = contraMag(c, tol, m); err != nil {
			return err
		}
		if err := check("a measure contradicting the magnitude", x, No); err != nil {
			return err
		}
	}
	return nil
}

// support builds a measure of m's shape for which every part of c holds.
func support(c *Claim, tol Tolerance, m Measure) (Measure, error) {
	x := Measure{Labels: m.Labels}
	if c.Kind != Magnitude {
		vals := make([]float64, len(m.Values))
		switch c.Kind {
		case Direction, Order:
			step := 1.0
			if c.Rel == Greater {
				step = -1
			}
			for i := range vals {
				vals[i] = float64(i) * step
			}
		case Exact:
			vals = []float64{c.Paper}
		case Range:
			v, err := inside(c.Lo, c.Hi)
			if err != nil {
				return x, fmt.Errorf("claim %s: %w", c.ID, err)
			}
			vals = []float64{v}
		case Count:
			vals = []float64{float64(max(c.Of, 1)), float64(max(c.Of, 1))}
			if len(m.Values) == 3 { // [k, n, u] (CountPairs): nothing undecided
				vals = append(vals, 0)
			}
		}
		if len(vals) != len(m.Values) {
			return x, fmt.Errorf("claim %s: a %v claim measured with %d values", c.ID, c.Kind, len(m.Values))
		}
		x.Values = shaped(vals, m.Values)
	}
	if c.Mag != MagNone {
		v := c.Paper
		if c.Mag == MagSpan {
			v = (c.Lo + c.Hi) / 2
		}
		x.Mag = shaped(repeat(v, len(m.Mag)), m.Mag)
	}
	return x, nil
}

// contraValues builds values of m's shape that contradict c's statement.
func contraValues(c *Claim, m Measure) ([]Sample, error) {
	vals := make([]float64, len(m.Values))
	switch c.Kind {
	case Direction, Order:
		step := -1.0
		if c.Rel == Greater {
			step = 1
		}
		for i := range vals {
			vals[i] = float64(i) * step
		}
	case Exact:
		eps := 0.0
		if c.Tol != nil {
			eps = c.Tol.Abs
		}
		vals[0] = c.Paper + 1 + math.Abs(c.Paper) + 2*eps
	case Range:
		v, err := outside(c.Lo, c.Hi)
		if err != nil {
			return nil, fmt.Errorf("claim %s cannot fail: %w", c.ID, err)
		}
		vals[0] = v
	case Count:
		if c.Need <= 0 {
			return nil, fmt.Errorf("claim %s cannot fail: it needs %d of %d", c.ID, c.Need, c.Of)
		}
		vals[0], vals[1] = 0, float64(c.Of) // and, for [k, n, u], nothing undecided
	}
	return shaped(vals, m.Values), nil
}

// contraMag builds magnitude points of m's shape that contradict c's
// number: every point outside the tolerance (above it for "up to", so that
// even the best point misses), or beyond the span.
func contraMag(c *Claim, tol Tolerance, m Measure) ([]Sample, error) {
	t := tol.Of(c.Paper)
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return nil, fmt.Errorf("claim %s cannot fail: tolerance %v", c.ID, tol)
	}
	v := c.Paper + 2*t + 1
	if c.Paper < 0 {
		v = c.Paper - 2*t - 1
	}
	if c.Mag == MagSpan {
		var err error
		if v, err = outside(c.Lo, c.Hi); err != nil {
			return nil, fmt.Errorf("claim %s cannot fail: %w", c.ID, err)
		}
	}
	return shaped(repeat(v, len(m.Mag)), m.Mag), nil
}

// inside is a value within [lo, hi].
func inside(lo, hi float64) (float64, error) {
	switch {
	case lo > hi || math.IsNaN(lo) || math.IsNaN(hi):
		return 0, fmt.Errorf("empty range [%g, %g]", lo, hi)
	case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
		return (lo + hi) / 2, nil
	case !math.IsInf(lo, 0):
		return lo, nil
	case !math.IsInf(hi, 0):
		return hi, nil
	}
	return 0, nil
}

// outside is a value beyond [lo, hi].
func outside(lo, hi float64) (float64, error) {
	switch {
	case !math.IsInf(hi, 1) && !math.IsNaN(hi):
		return hi + 1 + math.Abs(hi) + math.Max(0, hi-lo), nil
	case !math.IsInf(lo, -1) && !math.IsNaN(lo):
		return lo - 1 - math.Abs(lo), nil
	}
	return 0, fmt.Errorf("the range [%g, %g] has no outside", lo, hi)
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// shaped gives each value the seed count of the corresponding sample of
// like (at least one): every seed agrees, so no verdict is inconclusive.
func shaped(vals []float64, like []Sample) []Sample {
	out := make([]Sample, len(vals))
	for i, v := range vals {
		n := 1
		if i < len(like) && len(like[i]) > 1 {
			n = len(like[i])
		}
		out[i] = Sample(repeat(v, n))
	}
	return out
}
