package workload

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestParseCDFErrors(t *testing.T) {
	cases := []struct {
		in    string
		line  int
		field string
	}{
		{"0 0\n10 50\nfoo 100\n", 3, "size"},
		{"0 0\n10 x\n", 2, "percent"},
		{"0 0 1\n10 100\n", 1, "fields"},
		{"0\n10 100\n", 1, "fields"},
		{"5 1\n10 100\n", 1, "percent"},     // first point must be 0 %
		{"0 0\n10 50\n10 100\n", 3, "size"}, // sizes must increase strictly
		{"0 0\n10 50\n9 100\n", 3, "size"},
		{"0 0\n10 50\n20 50\n30 100\n", 3, "percent"}, // percents must increase strictly
		{"0 0\n10 50\n20 90\n", 3, "percent"},         // must end at 100
		{"# c\n0 0\n\n10 50\n20 90\n\n\n", 5, "percent"},
		{"-1 0\n10 100\n", 1, "size"},
		{"0 0\n10 101\n", 2, "percent"},
		{"0 0\n10 NaN\n", 2, "percent"},
		{"0 0\nInf 100\n", 2, "size"},
		{"0 -0.5\n10 100\n", 1, "percent"},
		{"", 0, "points"},
		{"0 0\n", 0, "points"},
		{"# only a comment\n\n", 0, "points"},
	}
	for _, c := range cases {
		_, err := ParseCDF(strings.NewReader(c.in))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("ParseCDF(%q) = %v, want a *ParseError", c.in, err)
			continue
		}
		if pe.Line != c.line || pe.Field != c.field {
			t.Errorf("ParseCDF(%q): line %d field %q, want line %d field %q (%v)", c.in, pe.Line, pe.Field, c.line, c.field, err)
		}
		want := "end of input"
		if c.line > 0 {
			want = "line " + strconv.Itoa(c.line) + ":"
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCDF(%q) error %q does not name %q", c.in, err, want)
		}
	}
	// Accepted: comments, blank lines, exponents, tabs, CRLF.
	c, err := ParseCDF(strings.NewReader("# x\r\n0\t0\r\n\r\n3.16e+06 95\r\n1e9 100\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if xs, ys := c.Points(); len(xs) != 3 || xs[1] != 3160000 || ys[2] != 100 {
		t.Fatalf("points %v %v", xs, ys)
	}
}

func TestLoadCDF(t *testing.T) {
	c, err := LoadCDF(filepath.Join(refDir, "WebSearch_distribution.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Mean() != 1711250 || !strings.HasSuffix(c.Name(), "WebSearch_distribution.txt") {
		t.Fatalf("mean %v name %q", c.Mean(), c.Name())
	}
	if _, err := LoadCDF(filepath.Join(t.TempDir(), "missing.txt")); err == nil {
		t.Fatal("missing file: no error")
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("0 0\n5 50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCDF(bad); err == nil || !strings.Contains(err.Error(), "bad.txt") || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("LoadCDF(bad) = %v", err)
	}
}

// builtinFiles maps built-in names to their files in cdf/ and, where the
// anchors carry the same file, in refDir.
var builtinFiles = map[string]struct{ file, ref string }{
	"websearch":  {"WebSearch_distribution.txt", "WebSearch_distribution.txt"},
	"fbhadoop":   {"FbHdp_distribution.txt", "FbHdp_distribution.txt"},
	"googlerpc":  {"GoogleRPC2008.txt", "GoogleRPC2008.txt"},
	"alistorage": {"AliStorage2019.txt", "AliStorage2019.txt"},
	"datamining": {"DataMining.txt", ""},
}

func TestBuiltinCDF(t *testing.T) {
	names := BuiltinCDFNames()
	if strings.Join(names, ",") != "alistorage,datamining,fbhadoop,googlerpc,websearch" {
		t.Fatalf("BuiltinCDFNames = %v", names)
	}
	for _, name := range names {
		c, err := BuiltinCDF(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != name {
			t.Errorf("Name = %q, want %q", c.Name(), name)
		}
		f := builtinFiles[name]
		emb, err := os.ReadFile("cdf/" + f.file)
		if err != nil {
			t.Fatal(err)
		}
		if f.ref != "" { // the embedded copy is the anchors' file, byte for byte
			ref, err := os.ReadFile(refDir + f.ref)
			if err != nil {
				t.Fatal(err)
			}
			if string(ref) != string(emb) {
				t.Errorf("cdf/%s differs from %s%s", f.file, refDir, f.ref)
			}
		}
		t.Logf("%-10s %4d points, %g … %g B, mean %.6g B", name, len(strings.Fields(string(emb)))/2, c.Min(), c.Max(), c.Mean())
	}
	if c, err := BuiltinCDF("WebSearch"); err != nil || c.Name() != "websearch" {
		t.Fatalf("case-insensitive lookup: %v", err)
	}
	_, err := BuiltinCDF("hadoop")
	if err == nil {
		t.Fatal("unknown name: no error")
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not list %q", err, n)
		}
	}
}

// ratMean computes the mean of the interpolated distribution exactly, in
// rational arithmetic, from the raw text (independently of ParseCDF):
// Σ (x0+x1)/2 · (y1-y0) / 100.
func ratMean(t *testing.T, text string) *big.Rat {
	t.Helper()
	var pts [][2]*big.Rat
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		x, ok1 := new(big.Rat).SetString(f[0])
		y, ok2 := new(big.Rat).SetString(f[1])
		if !ok1 || !ok2 {
			t.Fatalf("bad line %q", line)
		}
		pts = append(pts, [2]*big.Rat{x, y})
	}
	sum := new(big.Rat)
	for i := 1; i < len(pts); i++ {
		xs := new(big.Rat).Add(pts[i-1][0], pts[i][0])
		dy := new(big.Rat).Sub(pts[i][1], pts[i-1][1])
		sum.Add(sum, xs.Mul(xs, dy))
	}
	return sum.Quo(sum, big.NewRat(200, 1))
}

// integralMean computes E[X] = ∫_0^max (1 - F(x)) dx with Simpson's rule on
// every segment, F evaluated by Prob (exact for piecewise-linear F).
func integralMean(c *CDF) float64 {
	xs, _ := c.Points()
	s := xs[0] // F = 0 below the first point
	for i := 1; i < len(xs); i++ {
		a, b := xs[i-1], xs[i]
		s += (b - a) / 6 * ((1 - c.Prob(a)) + 4*(1-c.Prob((a+b)/2)) + (1 - c.Prob(b)))
	}
	return s
}

func TestCDFMean(t *testing.T) {
	spec := map[string]float64{"websearch": 1.71e6, "fbhadoop": 120.4e3} // docs/reference-simulator.md §12
	exact := map[string]string{"websearch": "1711250", "fbhadoop": "481683/4"}
	for _, name := range BuiltinCDFNames() {
		c, _ := BuiltinCDF(name)
		text, err := os.ReadFile("cdf/" + builtinFiles[name].file)
		if err != nil {
			t.Fatal(err)
		}
		r := ratMean(t, string(text))
		want, _ := r.Float64()
		m := c.Mean()
		if rel := math.Abs(m-want) / want; rel > 1e-9 {
			t.Errorf("%s: Mean %.10g, exact %.10g (rel %.2g)", name, m, want, rel)
		}
		if im := integralMean(c); math.Abs(im-want)/want > 1e-9 {
			t.Errorf("%s: ∫(1-F) = %.10g, exact %.10g", name, im, want)
		}
		if e, ok := exact[name]; ok && r.RatString() != e {
			t.Errorf("%s: exact mean %s, want %s", name, r.RatString(), e)
		}
		if s, ok := spec[name]; ok && math.Abs(m-s)/s > 0.01 {
			t.Errorf("%s: mean %.6g not within 1%% of the documented %.6g", name, m, s)
		}
		t.Logf("%-10s mean %.4f B (exact %s)", name, m, r.FloatString(4))
	}
}

// constSource makes r.Float64() return a fixed k/2^53.
type constSource uint64

func (s constSource) Uint64() uint64 { return uint64(s) }

// refValueFromPercentile is custom_rand.py's getValueFromPercentile, a
// linear scan, written independently of CDF.valueAtPercent.
func refValueFromPercentile(xs, ys []float64, y float64) float64 {
	for i := 1; i < len(ys); i++ {
		if y <= ys[i] {
			x0, y0, x1, y1 := xs[i-1], ys[i-1], xs[i], ys[i]
			return x0 + (x1-x0)/(y1-y0)*(y-y0)
		}
	}
	panic("percentile above 100")
}

func TestCDFSampleMatchesReference(t *testing.T) {
	ws, _ := BuiltinCDF("websearch")
	// Hand-computed points of the WebSearch CDF.
	for _, c := range []struct{ p, x float64 }{
		{0, 0}, {0.15, 10000}, {0.175, 15000}, {0.465, 65000}, {0.5, 50000 + 30000.0*10/13}, {0.97, 1e7}, {0.985, 2e7}, {1, 3e7},
	} {
		if got := ws.Quantile(c.p); math.Abs(got-c.x) > 1e-6*max(c.x, 1) {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.x)
		}
		if got := ws.Prob(c.x); math.Abs(got-c.p) > 1e-12 {
			t.Errorf("Prob(%v) = %v, want %v", c.x, got, c.p)
		}
	}
	if ws.Quantile(-1) != 0 || ws.Quantile(2) != 3e7 || ws.Prob(-5) != 0 || ws.Prob(4e7) != 1 {
		t.Error("clamping")
	}
	for _, name := range BuiltinCDFNames() {
		c, _ := BuiltinCDF(name)
		xs, ys := c.Points()
		// Sample = int(getValueFromPercentile(100·u)), at least 1, for u at
		// segment boundaries, 0, just below 1, and many random u.
		us := []uint64{0, 1, 1<<53 - 1, 1 << 52}
		for _, y := range ys {
			us = append(us, min(uint64(y/100*(1<<53)), 1<<53-1))
		}
		rr := rand.New(rand.NewPCG(1, 2))
		for range 2000 {
			us = append(us, rr.Uint64()>>11)
		}
		for _, k := range us {
			u := float64(k) / (1 << 53)
			want := int64(refValueFromPercentile(xs, ys, u*100))
			if want <= 0 {
				want = 1
			}
			if got := c.Sample(rand.New(constSource(k))); got != want {
				t.Fatalf("%s: Sample at u=%v = %d, reference %d", name, u, got, want)
			}
			if q := c.Quantile(u); q != refValueFromPercentile(xs, ys, u*100) {
				t.Fatalf("%s: Quantile(%v) = %v, reference %v", name, u, q, refValueFromPercentile(xs, ys, u*100))
			}
		}
		// Prob inverts Quantile.
		for _, u := range []float64{0.01, 0.123, 0.5, 0.77, 0.999} {
			if p := c.Prob(c.Quantile(u)); math.Abs(p-u) > 1e-9 {
				t.Errorf("%s: Prob(Quantile(%v)) = %v", name, u, p)
			}
		}
	}
	ws2, _ := BuiltinCDF("websearch")
	if got := ws2.Sample(rand.New(constSource(0))); got != 1 {
		t.Errorf("u = 0: size %d, want 1 (reference: size <= 0 → 1)", got)
	}
	if got := ws2.Sample(rand.New(constSource(1<<53 - 1))); got != 29999999 {
		t.Errorf("u → 1: size %d, want 29999999", got)
	}
}
