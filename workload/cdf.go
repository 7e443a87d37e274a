package workload

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
)

// CDF is an empirical flow-size distribution given as points (size in
// bytes, cumulative percent), with linear interpolation between the points,
// as the reference traffic generator (HPCC simulation/traffic_gen,
// custom_rand.py) reads and samples it.
//
// The text format is one point per line, "size_bytes cdf_percent", e.g.
// "10000 15" (15 % of the flows are at most 10,000 B). Both numbers may be
// any decimal or exponent form ("3.16e+06"). The reference requires, and
// ParseCDF checks, that the first point has percent 0, the last has percent
// 100, and that sizes and percents both increase strictly. Blank lines and
// lines whose first non-blank character is '#' are ignored (an extension:
// the reference files have none).
//
// A CDF is immutable and safe for concurrent use.
type CDF struct {
	name string
	x    []float64 // sizes in bytes, strictly increasing
	y    []float64 // cumulative percent, strictly increasing, y[0] = 0, y[len-1] = 100
}

// ParseCDF reads a CDF in the text format described at CDF. Errors are
// *ParseError values naming the 1-based line and the field ("fields",
// "size", "percent"); Line is 0 when the input ends too early.
func ParseCDF(r io.Reader) (*CDF, error) {
	c := &CDF{}
	sc := bufio.NewScanner(r)
	line, lastLine := 0, 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		f := strings.Fields(s)
		if len(f) != 2 {
			return nil, &ParseError{line, "fields", fmt.Errorf("want 2 fields \"size_bytes cdf_percent\", got %d", len(f))}
		}
		x, err := strconv.ParseFloat(f[0], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, &ParseError{line, "size", fmt.Errorf("invalid number %q", f[0])}
		}
		y, err := strconv.ParseFloat(f[1], 64)
		if err != nil || math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, &ParseError{line, "percent", fmt.Errorf("invalid number %q", f[1])}
		}
		n := len(c.x)
		switch {
		case x < 0:
			return nil, &ParseError{line, "size", fmt.Errorf("%v bytes is negative", x)}
		case y < 0 || y > 100:
			return nil, &ParseError{line, "percent", fmt.Errorf("%v not in [0, 100]", y)}
		case n == 0 && y != 0:
			return nil, &ParseError{line, "percent", fmt.Errorf("first point has %v %%, want 0", y)}
		case n > 0 && x <= c.x[n-1]:
			return nil, &ParseError{line, "size", fmt.Errorf("%v is not greater than the previous size %v (sizes must increase strictly)", x, c.x[n-1])}
		case n > 0 && y <= c.y[n-1]:
			return nil, &ParseError{line, "percent", fmt.Errorf("%v is not greater than the previous percent %v (the CDF must increase strictly)", y, c.y[n-1])}
		}
		c.x = append(c.x, x)
		c.y = append(c.y, y)
		lastLine = line
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("workload: reading CDF: %w", err)
	}
	switch n := len(c.x); {
	case n < 2:
		return nil, &ParseError{Field: "points", Err: fmt.Errorf("%d points, want at least 2: %w", n, io.ErrUnexpectedEOF)}
	case c.y[n-1] != 100:
		return nil, &ParseError{lastLine, "percent", fmt.Errorf("last point has %v %%, want 100", c.y[n-1])}
	}
	return c, nil
}

// LoadCDF reads a CDF file (format at CDF); Name is the path.
func LoadCDF(path string) (*CDF, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	defer f.Close()
	c, err := ParseCDF(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.name = path
	return c, nil
}

// Built-in distributions, embedded from cdf/. All but DataMining.txt are
// byte-identical copies of the files of the HPCC reference simulator's
// traffic_gen/ (alibaba-edu/High-Precision-Congestion-Control), also kept
// in scenarios/reference/ns3/:
//
//   - websearch: WebSearch_distribution.txt, DCTCP web search (Alizadeh et
//     al., SIGCOMM 2010); mean 1,711,250 B with linear interpolation.
//   - fbhadoop: FbHdp_distribution.txt, Facebook Hadoop (Roy et al.,
//     SIGCOMM 2015; docs/papers.md §3.3); mean 120,420.75 B.
//   - googlerpc: GoogleRPC2008.txt, Google RPC sizes before 2008.
//   - alistorage: AliStorage2019.txt, Alibaba distributed storage, 2019.
//   - datamining: DataMining.txt, the VL2 data-mining distribution
//     (Greenberg et al., SIGCOMM 2009) as published by Alizadeh et al. with
//     their empirical traffic generator, file VL2_CDF of
//     https://github.com/datacenter/empirical-traffic-gen (commit
//     fd5fc71f71534d8cbba8a4c26d5c71474788ef0c), whose DCTCP_CDF is point
//     for point the reference WebSearch_distribution.txt. Converted from its
//     "size fraction" lines to "size percent" (fraction × 100, sizes written
//     as integers: 3.16e+06 → 3160000). Sizes 180 B … 1 GB; mean
//     12,658,198.6 B with linear interpolation; 82.3 % of flows are below
//     100 KB and about 4 % above 35 MB, as docs/papers.md §5.3 (E3) describes the
//     workload.
//
//go:embed cdf/*.txt
var cdfFiles embed.FS

// builtinCDFs maps BuiltinCDF names to files in cdfFiles.
var builtinCDFs = map[string]string{
	"websearch":  "WebSearch_distribution.txt",
	"datamining": "DataMining.txt",
	"fbhadoop":   "FbHdp_distribution.txt",
	"googlerpc":  "GoogleRPC2008.txt",
	"alistorage": "AliStorage2019.txt",
}

// BuiltinCDFNames returns the names BuiltinCDF accepts, sorted.
func BuiltinCDFNames() []string {
	names := make([]string, 0, len(builtinCDFs))
	for n := range builtinCDFs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BuiltinCDF returns an embedded distribution by name (case-insensitive):
// "websearch", "datamining", "fbhadoop", "googlerpc" or "alistorage" (see
// cdfFiles for their sources). Name is the lower-case name.
func BuiltinCDF(name string) (*CDF, error) {
	key := strings.ToLower(name)
	file, ok := builtinCDFs[key]
	if !ok {
		return nil, fmt.Errorf("workload: unknown CDF %q (built-in: %s)", name, strings.Join(BuiltinCDFNames(), ", "))
	}
	data, err := cdfFiles.ReadFile("cdf/" + file)
	if err != nil {
		return nil, fmt.Errorf("workload: built-in CDF %s: %w", key, err)
	}
	c, err := ParseCDF(strings.NewReader(string(data)))
	if err != nil {
		return nil, fmt.Errorf("workload: built-in CDF %s: %w", key, err)
	}
	c.name = key
	return c, nil
}

// Name is the built-in name or the path the CDF was loaded from; "" for
// ParseCDF.
func (c *CDF) Name() string { return c.name }

// Points returns copies of the sizes (bytes) and cumulative percents.
func (c *CDF) Points() (sizes, percents []float64) {
	return append([]float64(nil), c.x...), append([]float64(nil), c.y...)
}

// Min is the smallest size of the distribution.
func (c *CDF) Min() float64 { return c.x[0] }

// Max is the largest size of the distribution.
func (c *CDF) Max() float64 { return c.x[len(c.x)-1] }

// Mean is the exact mean of the interpolated (continuous) distribution,
// Σ (x[i-1]+x[i])/2 · (y[i]-y[i-1]) / 100, the reference's getAvg and the
// mean the reference generator uses for its load. Sample truncates to whole
// bytes, so the mean of sampled sizes is smaller by about half a byte.
func (c *CDF) Mean() float64 {
	s := 0.0
	for i := 1; i < len(c.x); i++ {
		s += (c.x[i-1] + c.x[i]) / 2 * (c.y[i] - c.y[i-1])
	}
	return s / 100
}

// Quantile returns the size x with Prob(x) = p, p in [0, 1] (clamped),
// interpolating linearly as the reference's getValueFromPercentile does.
func (c *CDF) Quantile(p float64) float64 {
	if !(p > 0) {
		return c.x[0]
	}
	if p >= 1 {
		return c.Max()
	}
	return c.valueAtPercent(p * 100)
}

// valueAtPercent is the reference's getValueFromPercentile(y) for y in
// [0, 100]: the first point i >= 1 with y <= y[i] bounds the segment, and
// x = x0 + (x1-x0)/(y1-y0)·(y-y0), evaluated in this order.
func (c *CDF) valueAtPercent(y float64) float64 {
	i := 1 + sort.SearchFloat64s(c.y[1:], y) // first i >= 1 with c.y[i] >= y
	if i >= len(c.y) {
		return c.Max()
	}
	x0, y0, x1, y1 := c.x[i-1], c.y[i-1], c.x[i], c.y[i]
	return x0 + (x1-x0)/(y1-y0)*(y-y0)
}

// Prob returns the fraction of flows of size at most x: 0 below Min, 1 at
// and above Max, linear in between (the reference's getPercentileFromValue
// divided by 100).
func (c *CDF) Prob(x float64) float64 {
	n := len(c.x)
	switch {
	case math.IsNaN(x):
		return math.NaN()
	case x < c.x[0]:
		return 0
	case x >= c.x[n-1]:
		return 1
	}
	i := sort.SearchFloat64s(c.x, x) // first i with c.x[i] >= x; 0 < i < n unless x == x[0]
	if i == 0 {
		return 0
	}
	x0, y0, x1, y1 := c.x[i-1], c.y[i-1], c.x[i], c.y[i]
	return (y0 + (y1-y0)/(x1-x0)*(x-x0)) / 100
}

// Sample draws one flow size exactly as the reference's CustomRand.rand()
// followed by its traffic generator's int() and "size <= 0 → 1": a uniform
// u = 100·r.Float64() in [0, 100), the interpolated size at percent u
// (valueAtPercent), truncated toward zero to whole bytes, at least 1.
// It uses one r.Float64() per call.
func (c *CDF) Sample(r *rand.Rand) int64 {
	v := c.valueAtPercent(r.Float64() * 100)
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	size := int64(v)
	if size <= 0 {
		size = 1
	}
	return size
}

// errNoCDF is returned by generators given a nil CDF.
var errNoCDF = errors.New("no size CDF")
