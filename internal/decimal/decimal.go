// Package decimal reads decimal literals ("2.5", "1e-3", "+3.01") exactly
// and scales them to integers without rounding through float64. Package
// topo reads the rates and delays of ns-3 topology files with it, package
// workload the start times of flow files (docs/reference-simulator.md §0.1,
// §0.2); neither of the two may import the other, so the parser lives here.
package decimal

import (
	"errors"
	"math/big"
)

var (
	// ErrSyntax is returned for a string that is not a decimal literal.
	ErrSyntax = errors.New("not a decimal number")
	// ErrRange is returned when a scaled value does not fit in an int64.
	ErrRange = errors.New("out of range")
)

// maxExp bounds the magnitude of a parsed decimal exponent; anything
// larger is either zero or out of range for an int64 anyway.
const maxExp = 100000

// Decimal is a parsed decimal literal: (-1)^neg × digits × 10^exp.
type Decimal struct {
	neg    bool
	digits string // ASCII digits, leading zeros removed (may be empty = 0)
	exp    int
}

// Parse parses [+-]digits[.digits][(e|E)[+-]digits] exactly. At least one
// mantissa digit is required ("2." and ".5" are accepted, "." is not).
func Parse(s string) (Decimal, error) {
	var d Decimal
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.neg = s[i] == '-'
		i++
	}
	var buf []byte
	sawDigit, sawDot := false, false
	frac := 0
mantissa:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if sawDot {
				frac++
			}
			if c == '0' && len(buf) == 0 {
				continue // leading zero
			}
			buf = append(buf, c)
		case c == '.' && !sawDot:
			sawDot = true
		default:
			break mantissa
		}
	}
	if !sawDigit {
		return d, ErrSyntax
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		start := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if exp < maxExp {
				exp = exp*10 + int(s[i]-'0')
			}
		}
		if i == start {
			return d, ErrSyntax
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return d, ErrSyntax
	}
	d.digits = string(buf)
	d.exp = exp - frac
	return d, nil
}

// Negative reports whether d is below zero ("-0" and "-0.0" are not).
func (d Decimal) Negative() bool { return d.neg && d.digits != "" }

var maxInt64 = big.NewInt(1<<63 - 1)

// Scale returns trunc(d × mul × 10^exp10) (truncation toward zero) and
// whether it is exact. mul must be positive. It fails with ErrRange if the
// result does not fit in an int64.
func (d Decimal) Scale(mul int64, exp10 int) (v int64, exact bool, err error) {
	if d.digits == "" {
		return 0, true, nil
	}
	n, ok := new(big.Int).SetString(d.digits, 10)
	if !ok {
		return 0, false, ErrSyntax
	}
	n.Mul(n, big.NewInt(mul))
	e := d.exp + exp10
	exact = true
	switch {
	case e > 40:
		return 0, false, ErrRange // non-zero × 10^41 never fits
	case e > 0:
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil))
	case e < 0:
		if -e > len(d.digits)+40 {
			return 0, false, nil // non-zero, truncates to 0
		}
		var r big.Int
		n.QuoRem(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-e)), nil), &r)
		exact = r.Sign() == 0
	}
	if n.Cmp(maxInt64) > 0 {
		return 0, false, ErrRange
	}
	v = n.Int64()
	if d.neg {
		v = -v
	}
	return v, exact, nil
}
