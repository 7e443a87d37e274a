package wrcc

// Shared by E1, E2 and E3: the two-datacenter fabric with the cross-DC
// traffic mix (scenarios/papers/wrcc/crossdc.yaml), its runs, and the
// point read from each run.

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report"
)

const crossdc = "crossdc.yaml"

// pattern is a traffic pattern: its id (in run keys), its built-in CDF and
// its name in the paper.
type pattern struct{ id, cdf, name string }

// Traffic patterns of E1; E2 and E3 use the first.
var patterns = []pattern{
	{"websearch", "websearch", "WebSearch"}, {"googlerpc", "googlerpc", "Google RPC"}, {"datamining", "datamining", "Data Mining"},
}

// wrccts are E3's sampling periods (µs): 2, 4 and 8 × the largest
// intra-DC RTT; row k runs with seed k+1 (the paper's baselines differ
// between rows: a new random draw per row).
var wrccts = []float64{24, 48, 96}

// crossScale is the arrival window and the run's end at a scale, per
// pattern (interpretation: the paper does not state its simulated
// duration). At paper scale the window gives every pattern enough flows
// for stable percentiles and a few incast events: at load 0.6 one
// direction of the long haul carries 15 GB/s of incast traffic, one
// 4 × 100-MB incast every ~27 ms; web search (mean flow 1.6 MB) gets
// 50 ms, data mining (mean 7.4 MB, few flows per ms) 100 ms, Google RPC
// (mean a few KB: ~12,000 flows per ms) 20 ms. The run ends 200 ms after
// the last arrival or when every flow has finished.
func crossScale(sc experiment.Scale, pattern string) (durationMs, stopMs float64) {
	if sc == experiment.ScaleQuick {
		return 1, 15
	}
	d := 50.0
	switch pattern {
	case "googlerpc":
		d = 20
	case "datamining":
		d = 100
	}
	return d, d + 200
}

// seedOf is the seed of WRCCT w's row: row k of E3 runs with seed k+1
// (E1 and E2 run at the first period, seed 1).
func seedOf(w float64) int {
	seed := 1
	for i, x := range wrccts {
		if x == w {
			seed = i + 1
		}
	}
	return seed
}

// crossRuns sweeps pattern × load × WRCCT × algorithm. WRCCT is WRCC's
// period, and the row's seed for every algorithm; since WRCC's patch
// depends on it, each WRCCT is its own Sweep.
func crossRuns(sc experiment.Scale, pats []pattern, loadsAt, periods []float64) []experiment.RunSpec {
	var runs []experiment.RunSpec
	for _, w := range periods {
		wl := experiment.Axis{Name: "workload"}
		for _, p := range pats {
			d, stop := crossScale(sc, p.id)
			wl.Values = append(wl.Values, experiment.Value{Label: p.id, Patch: map[string]any{
				"stop_ms":  stop,
				"workload": map[string]any{"cross_dc": map[string]any{"cdf": p.cdf, "duration_ms": d}}}})
		}
		ld := experiment.Axis{Name: "load"}
		for _, l := range loadsAt {
			ld.Values = append(ld.Values, experiment.Value{Label: fmt.Sprint(l), Patch: map[string]any{"workload": map[string]any{"cross_dc": map[string]any{"load": l}}}})
		}
		period := experiment.Axis{Name: "wrcct", Values: []experiment.Value{{Label: fmt.Sprint(w), Patch: map[string]any{"seed": seedOf(w)}}}}
		runs = append(runs, experiment.Sweep{Base: crossdc, Axes: []experiment.Axis{wl, ld, period}, CC: algs.CCs(),
			CCPatch: map[string]map[string]any{"wrcc": {"params": map[string]any{"wrcc": map[string]any{"wrcct_us": w}}}}}.Expand()...)
	}
	return runs
}

// crossKey is the key of one run of crossRuns.
func crossKey(pattern string, load float64, wrcct float64, c string) string {
	return fmt.Sprintf("workload=%s load=%v wrcct=%v cc=%s", pattern, load, wrcct, c)
}

// crossPoint is what E1–E3 read from a run.
type crossPoint struct {
	shortP50, shortP99, longP50, longP99 float64               // FCT (µs) of short (< 100 KB) and long (≥ 1 MB) flows, incast excluded
	sdP50, sdP99                         float64               // slowdown of all finished flows (incast included)
	groupSd                              map[string][2]float64 // p50, p99 slowdown per workload group (cross, intra, incast)
	qP80, qP99                           float64               // bytes, every switch port with traffic, 10-µs samples
	qP80busy                             float64               // bytes, the same ports' non-empty samples
	pauseUs                              float64               // total PFC pause time of all ports
	bins                                 []metrics.SizeBin
	flows, unfinished, incast            int
	wall                                 float64
	events                               int64
}

// shortMax and longMin are paper 002's unspecified short/long boundaries
// (interpretation, spec: short < 100 KB, long ≥ 1 MB).
const (
	shortMax = 100_000
	longMin  = 1_000_000
)

func readCross(ctx *experiment.Context, key string) (*crossPoint, error) {
	run, err := ctx.Run(key)
	if err != nil {
		return nil, err
	}
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	recs, err := run.Flows()
	if err != nil {
		return nil, err
	}
	p := &crossPoint{pauseUs: s.PFC.PausedUs, wall: s.WallSeconds, events: s.Events, flows: len(recs)}
	var sh, lg, sd []float64
	var bg []metrics.FlowRecord
	byGroup := map[string][]float64{}
	for _, r := range recs {
		if r.Group == "incast" {
			p.incast++
		}
		if !r.Done {
			p.unfinished++
			continue
		}
		sd = append(sd, r.Slowdown())
		byGroup[r.Group] = append(byGroup[r.Group], r.Slowdown())
		if r.Group == "incast" {
			continue
		}
		bg = append(bg, r)
		fct := float64(r.FCT()) / 1e6
		switch {
		case r.SizeBytes < shortMax:
			sh = append(sh, fct)
		case r.SizeBytes >= longMin:
			lg = append(lg, fct)
		}
	}
	p.shortP50, p.shortP99 = metrics.PercentileOf(sh, 0.5), metrics.PercentileOf(sh, 0.99)
	p.longP50, p.longP99 = metrics.PercentileOf(lg, 0.5), metrics.PercentileOf(lg, 0.99)
	p.sdP50, p.sdP99 = metrics.PercentileOf(sd, 0.5), metrics.PercentileOf(sd, 0.99)
	p.groupSd = map[string][2]float64{}
	for g, v := range byGroup {
		p.groupSd[g] = [2]float64{metrics.PercentileOf(v, 0.5), metrics.PercentileOf(v, 0.99)}
	}
	p.bins = metrics.SizeBins(bg, 20, s.End())
	if p.qP80, p.qP99, p.qP80busy, err = queueStats(run); err != nil {
		return nil, err
	}
	return p, nil
}

// queueStats reads the queue-length distribution of every switch port
// with traffic (queue_cdf.csv's classes merged by their sample counts from
// summary.json) and returns its unconditional 80th and 99th percentiles
// and the 80th percentile of the non-empty samples. Interpretation: at the
// paper's loads most 10-µs samples of most ports are empty (the
// unconditional p80 is 0 B for every algorithm), so the "80th-percentile
// queue length" claim is compared on the samples where a queue exists.
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

// readCrossAll reads every algorithm's point for one (pattern, load,
// WRCCT), noting the failures.
func readCrossAll(ctx *experiment.Context, pattern string, load, wrcct float64, notes *[]string) map[string]*crossPoint {
	out := map[string]*crossPoint{}
	for _, a := range algs {
		p, err := readCross(ctx, crossKey(pattern, load, wrcct, a.CC))
		if err != nil {
			*notes = append(*notes, err.Error())
			nan := math.NaN()
			p = &crossPoint{shortP50: nan, shortP99: nan, longP50: nan, longP99: nan, sdP50: nan, sdP99: nan, qP80: nan, qP99: nan, qP80busy: nan, pauseUs: nan}
		}
		if p.unfinished > 0 {
			*notes = append(*notes, fmt.Sprintf("%s load %v WRCCT %v %s: %d of %d flows unfinished at the end of the run (excluded)", pattern, load, wrcct, a.Name, p.unfinished, p.flows))
		}
		out[a.CC] = p
	}
	return out
}

// slowdownTable prints a paper table (p50, p99 per row and method) beside
// ccsim's.
func slowdownTable[K comparable](id, title, rowName string, rows []K, label func(K) string, res map[K]map[string]*crossPoint, paper map[K]map[string][2]float64) report.Table {
	t := report.Table{ID: id, Title: title, Columns: []string{rowName, "method", "paper p50", "ccsim p50", "paper p99", "ccsim p99"}}
	for _, r := range rows {
		for _, a := range algs {
			pp := paper[r][a.CC]
			p := res[r][a.CC]
			t.Rows = append(t.Rows, []string{label(r), a.Name, experiment.G4Dash(pp[0]), experiment.G4Dash(p.sdP50), experiment.G4Dash(pp[1]), experiment.G4Dash(p.sdP99)})
		}
	}
	return t
}

// crossSetup describes the fabric and the traffic of E1–E3.
const crossSetup = `Topology T6: two datacenters, each a 4-pod fat-tree (4 core, 8 aggregation, 8 ToR switches, 4 servers per ToR: 32 servers; interpretation of the wiring: each ToR on both aggregation switches of its pod, aggregation switch 0 of every pod on cores 0 and 1, switch 1 on cores 2 and 3), 100-Gb/s NICs and intra-DC links, 1 µs per link (largest intra-DC RTT 12 µs); one DCI switch per datacenter on its 4 cores; the DCIs joined by one 400-Gb/s long haul of 1 ms. Buffers: 16 MB per intra-DC switch with dynamic PFC thresholds, 250 MB per DCI switch with static PFC thresholds of 100 MB and 100 MB of headroom on the long haul (2 one-way BDPs + 4 KB, so the long haul stays lossless). Traffic W7 (interpretation of the paper's mix, whose numbers overload the long haul if read literally): Poisson arrivals over 50 ms (web search), 100 ms (data mining) or 20 ms (Google RPC, ~12,000 flows per ms), long enough for stable percentiles and a few incast events; the load ρ is the long haul's utilisation per direction, half of it incast traffic (4 random senders in one datacenter to one random receiver in the other, 100 MB each = the long haul's bandwidth-delay product) and half cross-DC all-to-all flows from the pattern's size distribution; intra-DC flows arrive at 1/5 of the cross-DC rate (5 : 1 by count). The run ends when every flow has finished or 200 ms after the last arrival. Algorithms: WRCC with the paper's defaults (WRCCT 24 µs, F_max 100 Gb/s, F_min 100 Mb/s, RateRatio_max 110 %, QRatio_max 50 %, T_1 = T_fcnp = WRCCT); DCQCN and HPCC with the reference simulator's dcqcn and hp presets (paper 002 ran that simulator with "vendor default" DCQCN and HPCC's recommended parameters; RED thresholds 400 KB/1.6 MB at 100 Gb/s, 1.6/6.4 MB at 400 Gb/s); BiCC as ccsim models it (DCQCN hosts, DCI switches with 128 VOQs sending fast notifications; docs/algorithms/bicc.md). At quick scale the arrival window is 1 ms and runs end at 15 ms.`
