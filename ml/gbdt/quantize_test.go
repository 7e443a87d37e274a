package gbdt

import (
	"math"
	"slices"
	"testing"
)

func f32s(v ...float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func TestBordersEveryGap(t *testing.T) {
	got := Borders(f32s(3, 1, 2, 3, 1, 3), 254)
	if want := f32s(1.5, 2.5); !slices.Equal(got, want) {
		t.Fatalf("Borders = %v, want %v", got, want)
	}
	if got := Borders(f32s(7, 7, 7), 254); got != nil {
		t.Fatalf("constant feature: Borders = %v, want none", got)
	}
}

// TestBordersGreedyLogSum follows the greedy rule by hand on 0..9 (one row
// each): the first cut halves the values (4.5); the two halves tie on gain,
// so the lower one is cut next, at its first balanced cut (1.5); then the
// upper half (gain log 2 + log 3 - log 5) beats [2, 5) (log 2 - log 3), and
// is cut at 6.5.
func TestBordersGreedyLogSum(t *testing.T) {
	v := f32s(9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
	for _, c := range []struct {
		n    int
		want []float32
	}{
		{1, f32s(4.5)},
		{2, f32s(1.5, 4.5)},
		{3, f32s(1.5, 4.5, 6.5)},
		{9, f32s(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5)},
	} {
		if got := Borders(v, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Borders(0..9, %d) = %v, want %v", c.n, got, c.want)
		}
	}
	// A heavily repeated value keeps a bin of its own: 1 (×100) is cut from
	// the values above it, not from 0 below (log 101 + log 2 > log 1 + log 102).
	heavy := f32s(0, 2, 3)
	for range 100 {
		heavy = append(heavy, 1)
	}
	if got, want := Borders(heavy, 1), f32s(1.5); !slices.Equal(got, want) {
		t.Errorf("Borders(heavy, 1) = %v, want %v", got, want)
	}
}

// TestMidBorderRounding: between neighbouring float32s the midpoint rounds
// to one of them; the border must still separate them.
func TestMidBorderRounding(t *testing.T) {
	one := float32(1)
	a := math.Nextafter32(one, 2) // odd last mantissa bit: the midpoint rounds up to b
	b := math.Nextafter32(a, 2)
	for _, p := range [][2]float32{{one, a}, {a, b}, {0.1, 0.2}, {-3, -1}} {
		m := midBorder(p[0], p[1])
		if !(p[0] <= m && m < p[1]) {
			t.Errorf("midBorder(%v, %v) = %v, want in [a, b)", p[0], p[1], m)
		}
		bs := []float32{m}
		if binOf(p[0], bs) != 0 || binOf(p[1], bs) != 1 {
			t.Errorf("border %v does not separate %v and %v", m, p[0], p[1])
		}
	}
	if got := midBorder(a, b); got != a {
		t.Errorf("midBorder(a, b) = %v, want a = %v (the midpoint rounds to b)", got, a)
	}
}

func TestBinOf(t *testing.T) {
	bs := f32s(1.5, 4.5)
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		x    float32
		want uint8
	}{
		{-inf, 0}, {1, 0}, {1.5, 0}, {math.Nextafter32(1.5, 2), 1}, {4.5, 1}, {5, 2}, {inf, 2}, {nan, 0},
	} {
		if got := binOf(c.x, bs); got != c.want {
			t.Errorf("binOf(%v) = %d, want %d", c.x, got, c.want)
		}
	}
	if got := binOf(3, nil); got != 0 {
		t.Errorf("binOf with no borders = %d, want 0", got)
	}
}

// TestBordersLimit: 254 borders at most, every bin populated, ascending.
func TestBordersLimit(t *testing.T) {
	d, _ := synth(7, 5000)
	col := make([]float32, len(d.X))
	for i, x := range d.X {
		col[i] = float32(x[0])
	}
	bs := Borders(col, MaxBorders)
	if len(bs) != MaxBorders {
		t.Fatalf("%d borders, want %d", len(bs), MaxBorders)
	}
	count := make([]int, MaxBorders+1)
	for _, v := range col {
		count[binOf(v, bs)]++
	}
	for k, c := range count {
		// 5000 distinct values in 255 bins: greedy halving keeps every bin
		// within a factor 2 of the mean (19.6).
		if c < 9 || c > 40 {
			t.Errorf("bin %d holds %d rows, want 9..40", k, c)
		}
	}
	if !slices.IsSorted(bs) {
		t.Error("borders not ascending")
	}
}
