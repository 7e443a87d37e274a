package wrcc

// What E1–E3 read from one cross-DC run: FCT and slowdown statistics over
// every flow that started, the unfinished ones censored at the run's end
// (docs/metrics.md §5: never dropped), switch queues and PFC pauses.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

var nanF = math.NaN()

// minNaN and maxNaN are min and max where NaN means "none yet".
func minNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return math.Min(a, b)
}

func maxNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return math.Max(a, b)
}

// stat is a statistic over flows: its value, whether it is exact (false:
// a lower bound, since some censored flow lies at or below it:
// metrics.PercentileCensored), and the flows it is over, censored among
// them.
type stat struct {
	v        float64
	exact    bool
	n, cens  int
	censored bool // some flow of the set is censored (even if v is exact)
}

// crossPoint is what E1–E3 read from a run.
type crossPoint struct {
	// FCT (µs) of short (< 100 KB) and long (≥ 1 MB) flows, incast flows
	// among the long ones (the paper: 「Incast流量则是由…长流量组成」)
	shortP50, shortP99, longP50, longP99 stat
	sdP50, sdP99                         stat               // slowdown of every flow
	groupSd                              map[string][2]stat // p50, p99 slowdown per workload group (cross, intra, incast)
	qP80, qP99                           float64            // bytes, every switch port with traffic, 10-µs samples
	qP80busy                             float64            // bytes, the same ports' non-empty samples
	pauseUs, hostPauseUs                 float64            // PFC pause time of switch ports (Fig. 9) / of host NICs
	bins                                 []metrics.SizeBin
	flows, censored, incast              int
	drops, bytesDropped                  int64
	wall                                 float64
	events                               int64
}

// shortMax and longMin are paper 002's unspecified short/long boundaries
// (interpretation: short < 100 KB, long ≥ 1 MB).
const (
	shortMax = 100_000
	longMin  = 1_000_000
)

// flowOutcome is the FCT (µs) and slowdown a statistic counts for flow r
// of a run that ended at end, by metrics' rule (docs/metrics.md §5; the
// rule of metrics.SummarizeFlows and metrics.SizeBins, which keep it
// unexported — TestFlowOutcomeMatchesMetrics pins the two together): a
// finished flow's own; an unfinished flow that started is censored at the
// end (FCT = end − start, a lower bound); a flow that never started (a
// chained flow, or a start at or after the end) is not counted.
func flowOutcome(r *metrics.FlowRecord, end sim.Time) (fctUs, sd float64, censored, ok bool) {
	switch {
	case r.Done:
		return r.FCT().Microseconds(), r.Slowdown(), false, true
	case r.NotStarted || r.Start >= end:
		return 0, 0, false, false
	}
	fct := end - r.Start
	sd = math.NaN()
	if r.IdealFCT > 0 {
		sd = math.Max(1, float64(fct)/float64(r.IdealFCT))
	}
	return fct.Microseconds(), sd, true, true
}

// sample is a set of values of flows, the censored ones marked.
type sample struct {
	x    []float64
	cens []bool
}

func (s *sample) add(x float64, c bool) { s.x, s.cens = append(s.x, x), append(s.cens, c) }

// quantile is the sample's p-quantile as a stat.
func (s *sample) quantile(p float64) stat {
	v, exact := metrics.PercentileCensored(s.x, s.cens, p)
	n := 0
	for _, c := range s.cens {
		if c {
			n++
		}
	}
	return stat{v: v, exact: exact, n: len(s.x), cens: n, censored: n > 0}
}

func readCross(run *experiment.RunRef) (*crossPoint, error) {
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	recs, err := run.Flows()
	if err != nil {
		return nil, err
	}
	end := s.End()
	p := &crossPoint{wall: s.WallSeconds, events: s.Events, flows: len(recs), drops: s.Drops, bytesDropped: s.Bytes.Dropped}
	var sh, lg, sd sample
	byGroup := map[string]*sample{}
	for i := range recs {
		r := &recs[i]
		if r.Group == "incast" {
			p.incast++
		}
		fct, d, cens, ok := flowOutcome(r, end)
		if !ok {
			continue
		}
		if cens {
			p.censored++
		}
		sd.add(d, cens)
		if byGroup[r.Group] == nil {
			byGroup[r.Group] = &sample{}
		}
		byGroup[r.Group].add(d, cens)
		switch {
		case r.SizeBytes < shortMax:
			sh.add(fct, cens)
		case r.SizeBytes >= longMin:
			lg.add(fct, cens)
		}
	}
	p.shortP50, p.shortP99 = sh.quantile(0.5), sh.quantile(0.99)
	p.longP50, p.longP99 = lg.quantile(0.5), lg.quantile(0.99)
	p.sdP50, p.sdP99 = sd.quantile(0.5), sd.quantile(0.99)
	p.groupSd = map[string][2]stat{}
	for g, v := range byGroup {
		p.groupSd[g] = [2]stat{v.quantile(0.5), v.quantile(0.99)}
	}
	// every flow, unfinished ones censored at the end (SizeBins applies
	// the rule; before, it was handed the finished flows only)
	p.bins = metrics.SizeBins(recs, 20, end)
	for _, pp := range s.PFC.Ports {
		if pp.Node >= crossHosts {
			p.pauseUs += pp.PausedUs
		} else {
			p.hostPauseUs += pp.PausedUs
		}
	}
	if p.qP80, p.qP99, p.qP80busy, err = queueStats(run); err != nil {
		return nil, err
	}
	return p, nil
}

// queueStats reads the queue-length distribution of every switch port
// with traffic (queue_cdf.csv's classes — switch ports facing hosts and
// facing switches — merged by their sample counts from summary.json) and
// returns its unconditional 80th and 99th percentiles (the paper's
// platform samples every switch port, idle ones included) and, for the
// table only, the 80th percentile of the non-empty samples.
func queueStats(run *experiment.RunRef) (p80, p99, p80busy float64, err error) {
	s, err := run.Summary()
	if err != nil {
		return 0, 0, 0, err
	}
	n := map[string]float64{}
	var total float64
	for _, q := range s.QueueStats {
		n[q.Class] = float64(q.N)
		total += float64(q.N)
	}
	t, err := run.Table("queue_cdf.csv")
	if err != nil {
		return 0, 0, 0, err
	}
	ci, err := t.Col("class")
	if err != nil {
		return 0, 0, 0, err
	}
	cols, err := t.FloatCols("bytes", "fraction")
	if err != nil {
		return 0, 0, 0, err
	}
	type pt struct{ x, f float64 }
	byClass := map[string][]pt{}
	var xs []float64
	for i, row := range t.Rows {
		byClass[row[ci]] = append(byClass[row[ci]], pt{cols[0][i], cols[1][i]})
		xs = append(xs, cols[0][i])
	}
	nan := math.NaN()
	if len(xs) == 0 || total == 0 {
		return nan, nan, nan, nil
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	// the merged CDF at each point: Σ_c n_c F_c(x) / Σ n_c, with F_c a
	// step function through its points
	merged := make([]float64, len(xs))
	for i, x := range xs {
		var f float64
		for c, pts := range byClass {
			k, _ := slices.BinarySearchFunc(pts, x, func(p pt, v float64) int {
				switch {
				case p.x < v:
					return -1
				case p.x > v:
					return 1
				}
				return 0
			})
			if k < len(pts) && pts[k].x == x {
				f += n[c] * pts[k].f
			} else if k > 0 {
				f += n[c] * pts[k-1].f
			}
		}
		merged[i] = f / total
	}
	quant := func(q float64, cdf func(i int) float64) float64 {
		for i := range xs {
			if cdf(i) >= q-1e-12 {
				return xs[i]
			}
		}
		return xs[len(xs)-1]
	}
	p80 = quant(0.8, func(i int) float64 { return merged[i] })
	p99 = quant(0.99, func(i int) float64 { return merged[i] })
	var empty float64
	if xs[0] == 0 {
		empty = merged[0]
	}
	if empty >= 1 {
		return p80, p99, 0, nil
	}
	p80busy = quant(0.8, func(i int) float64 {
		if xs[i] == 0 {
			return 0
		}
		return (merged[i] - empty) / (1 - empty)
	})
	return p80, p99, p80busy, nil
}

// seedPoints are the points of one (pattern, load, WRCCT, algorithm) over
// its seeds.
type seedPoints []*crossPoint

// readCrossSeeds reads every algorithm's points of one (pattern, load,
// WRCCT) over the seeds; a run that cannot be read is an error (the
// analysis needs every algorithm).
func readCrossSeeds(ctx *experiment.Context, pattern string, load, wrcct float64) (map[string]seedPoints, error) {
	out := map[string]seedPoints{}
	for _, a := range algs {
		runs, err := ctx.SeedRuns(crossKey(pattern, load, wrcct, a.CC))
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			p, err := readCross(r)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.Spec.Key, err)
			}
			out[a.CC] = append(out[a.CC], p)
		}
	}
	return out, nil
}

// of is one statistic over the seeds and whether it is a lower bound
// (some seed's value is).
func (sp seedPoints) of(f func(*crossPoint) stat) (experiment.Sample, bool) {
	s := make(experiment.Sample, len(sp))
	low := false
	for i, p := range sp {
		st := f(p)
		s[i] = st.v
		low = low || !st.exact
	}
	return s, low
}

// num is a plain number of the points over the seeds.
func (sp seedPoints) num(f func(*crossPoint) float64) experiment.Sample {
	s := make(experiment.Sample, len(sp))
	for i, p := range sp {
		s[i] = f(p)
	}
	return s
}

// censoredText is the number of censored flows under a statistic per
// seed, as "a/b/c".
func (sp seedPoints) censoredText(f func(*crossPoint) stat) string {
	return sp.intText(func(p *crossPoint) int { return f(p).cens })
}

// intText is a count per seed, as "a/b/c".
func (sp seedPoints) intText(f func(*crossPoint) int) string {
	parts := make([]string, len(sp))
	for i, p := range sp {
		parts[i] = fmt.Sprint(f(p))
	}
	return strings.Join(parts, "/")
}

// cell is a table cell of a statistic over the seeds: the mean, "≥" when
// a lower bound, and the seeds' range when there are several.
func cell(s experiment.Sample, low bool) string {
	t := experiment.G4Dash(s.Mean())
	if len(s) > 1 {
		lo, hi := s.Span()
		t += " (" + experiment.G4Dash(lo) + "–" + experiment.G4Dash(hi) + ")"
	}
	if low {
		t = "≥ " + t
	}
	return t
}
