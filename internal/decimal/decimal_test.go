package decimal

import (
	"errors"
	"testing"
)

// The cases are the decimals of package topo's rate and delay tests
// (mul = the unit's factor, exp10 = its power of ten in b/s or ps) and of
// package workload's start-time test (seconds into ps: mul 1, exp10 12),
// plus the corners of the grammar and of the range.
func TestParseScale(t *testing.T) {
	tests := []struct {
		in         string
		mul        int64
		exp10      int
		want       int64
		exact, neg bool
	}{
		// rates (topo.ParseRate): b/s
		{"100", 1e9, 0, 100e9, true, false},
		{"2.5", 1e9, 0, 2_500_000_000, true, false},
		{"1000", 1e3, 0, 1e6, true, false},
		{"12345", 1, 0, 12345, true, false},
		{"1.5", 1, 0, 1, false, false}, // truncated like ns-3
		{"1", 8e9, 0, 8e9, true, false},
		{"1", 1 << 10, 0, 1024, true, false},
		{"1e2", 1e9, 0, 100e9, true, false},
		{"0.1", 1e9, 0, 100e6, true, false},
		{"1", 1e12, 0, 1e12, true, false},
		{"0", 1e9, 0, 0, true, false},
		{"0.1", 1, 0, 0, false, false},
		{"-1", 1e9, 0, -1e9, true, true},
		// delays (topo.ParseDelay): ps
		{"1000", 1, 3, 1_000_000, true, false},
		{"0.5", 1, 6, 500_000, true, false},
		{"0.5", 1, 3, 500, true, false},
		{"1500", 1, 0, 1500, true, false},
		{"2000", 1, -3, 2, true, false},
		{"-0", 1, 3, 0, true, false},
		{"0.000001", 1, 12, 1_000_000, true, false},
		{"1", 60, 12, 60e12, true, false},
		{"1", 86400, 12, 86400e12, true, false},
		{"1.5e3", 1, 3, 1_500_000, true, false},
		{"1E-3", 1, 9, 1_000_000, true, false},
		{"0.0001", 1, 3, 0, false, false},
		{"1500", 1, -3, 1, false, false},
		{"-1", 1, 3, -1000, true, true},
		// start times (workload.parseSeconds): s into ps
		{"2.000000223", 1, 12, 2_000_000_223_000, true, false},
		{"2", 1, 12, 2e12, true, false},
		{"2.", 1, 12, 2e12, true, false},
		{".5", 1, 12, 5e11, true, false},
		{"0.000000000001", 1, 12, 1, true, false},
		{"0.0000000000019", 1, 12, 1, false, false}, // truncated below 1 ps
		{"1.2345678901239999", 1, 12, 1_234_567_890_123, false, false},
		{"2e0", 1, 12, 2e12, true, false},
		{"25E-1", 1, 12, 2_500_000_000_000, true, false},
		{"+3.01", 1, 12, 3_010_000_000_000, true, false},
		{"1e-30", 1, 12, 0, false, false},
		// corners
		{"007.50", 1, 2, 750, true, false},
		{"-0.0", 1, 0, 0, true, false},
		{"-2.5", 1, 1, -25, true, true},
		{"-1.5", 1, 0, -1, false, true}, // toward zero
		{"1e-99999999", 1, 12, 0, false, false},
		{"9223372036854775807", 1, 0, 1<<63 - 1, true, false},
	}
	for _, tc := range tests {
		d, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		v, exact, err := d.Scale(tc.mul, tc.exp10)
		if err != nil || v != tc.want || exact != tc.exact {
			t.Errorf("Parse(%q).Scale(%d, %d) = %d, %v, %v; want %d, %v", tc.in, tc.mul, tc.exp10, v, exact, err, tc.want, tc.exact)
		}
		if d.Negative() != tc.neg {
			t.Errorf("Parse(%q).Negative() = %v, want %v", tc.in, d.Negative(), tc.neg)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "Gbps", "1.2.3", ".", "+", "-", "1x", "1e", "1e+", "e5", "1 ", " 1", "1..2", "0x10"} {
		if _, err := Parse(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want ErrSyntax", in, err)
		}
	}
}

func TestScaleRange(t *testing.T) {
	for _, tc := range []struct {
		in    string
		mul   int64
		exp10 int
	}{
		{"10000000000", 1e9, 0},       // 1e19 b/s
		{"1e99999999999", 1e9, 0},     // the exponent saturates
		{"1000000", 86400, 12},        // a million days in ps
		{"9223372036854775808", 1, 0}, // one above the largest int64
		{"1", 1, 41},
	} {
		d, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if _, _, err := d.Scale(tc.mul, tc.exp10); !errors.Is(err, ErrRange) {
			t.Errorf("Parse(%q).Scale(%d, %d): err %v, want ErrRange", tc.in, tc.mul, tc.exp10, err)
		}
	}
	// zero never overflows, whatever the exponent
	d, _ := Parse("0e99999")
	if v, exact, err := d.Scale(1e12, 40); v != 0 || !exact || err != nil {
		t.Errorf("0e99999: %d, %v, %v; want 0, exact", v, exact, err)
	}
}
