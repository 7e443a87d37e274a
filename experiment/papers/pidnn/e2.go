package pidnn

// E2: random flows with incasts on the 320-host fat-tree (paper 001 §4.4;
// scenarios/papers/pidnn/fat320.yaml).

import (
	"fmt"
	"math"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/sim"
)

const fat320 = "fat320.yaml"

// e2Algs are Table 8's columns in its order.
var e2Algs = []string{"pidnn", "pidnn+rttch", "pidnn+rttch+win", "hpcc", "timely", "dctcp", "dcqcn"}

// table8 is the paper's Table 8: the row label (largest size of the bin)
// and the 95th-percentile slowdown of each column of e2Algs.
var table8 = []struct {
	label string
	p95   [7]float64
}{
	{"300B", [7]float64{76.064, 89.064, 1.560, 1.725, 206.612, 3.369, 182.315}},
	{"325B", [7]float64{70.922, 79.151, 1.505, 1.777, 195.293, 3.265, 171.817}},
	{"351B", [7]float64{76.638, 86.132, 1.558, 1.850, 209.355, 3.443, 181.984}},
	{"401B", [7]float64{78.706, 87.052, 1.553, 1.842, 203.374, 3.433, 176.648}},
	{"451B", [7]float64{77.562, 88.801, 1.571, 1.856, 206.179, 3.654, 176.273}},
	{"501B", [7]float64{81.183, 89.110, 1.603, 1.934, 204.360, 3.415, 176.991}},
	{"550B", [7]float64{76.312, 82.280, 1.570, 1.901, 199.939, 3.628, 174.634}},
	{"602B", [7]float64{76.632, 85.695, 1.543, 1.730, 201.974, 3.280, 172.234}},
	{"651B", [7]float64{85.039, 91.107, 1.580, 1.818, 207.490, 3.521, 178.379}},
	{"704B", [7]float64{84.354, 92.864, 1.576, 1.914, 201.339, 3.573, 180.477}},
	{"855B", [7]float64{68.754, 77.882, 1.561, 1.826, 202.429, 3.207, 173.332}},
	{"1K", [7]float64{81.509, 84.753, 1.579, 1.870, 194.271, 3.440, 172.369}},
	{"2K", [7]float64{82.972, 90.244, 1.630, 1.900, 205.625, 3.474, 175.972}},
	{"7K", [7]float64{83.692, 93.057, 1.844, 1.870, 201.261, 3.351, 172.856}},
	{"36K", [7]float64{69.164, 71.998, 3.892, 2.094, 171.223, 3.234, 148.273}},
	{"46K", [7]float64{68.353, 72.304, 4.693, 2.310, 159.647, 3.305, 139.570}},
	{"69K", [7]float64{61.281, 66.258, 6.095, 2.412, 145.350, 3.367, 125.073}},
	{"124K", [7]float64{58.559, 56.103, 11.222, 2.623, 121.854, 3.165, 108.084}},
	{"336K", [7]float64{71.712, 43.848, 28.547, 3.428, 84.506, 3.869, 71.945}},
	{"10M", [7]float64{98.729, 24.493, 20.386, 6.338, 34.287, 6.273, 27.963}},
}

const nBins = 20

// Bin ranges of the claims (1-based bin numbers of the 20): "small" flows
// of the PIDNN-vs-TIMELY/DCQCN reading are bins 1–18 (labels up to 124 KB
// in the paper), WIN's "< 7 KB" are bins 1–14 (label 7 KB: the CDF's 70 %
// point), "large" flows are bins 15–20 (labels 36 KB … 10 MB).
const (
	smallLast = 18
	winLast   = 14
	largeFrom = 15
)

func e2Patch(sc experiment.Scale) map[string]any {
	if sc == experiment.ScaleQuick {
		// 0.2 ms of arrivals (≈ 2,000 flows) and one 60-to-1 burst
		return map[string]any{"workload": map[string]any{
			"poisson":       map[string]any{"duration_ms": 0.2},
			"incast_bursts": map[string]any{"duration_ms": 0.2, "load": 0, "count": 1},
		}}
	}
	return map[string]any{}
}

func e2Runs(sc experiment.Scale) []experiment.RunSpec {
	return experiment.Sweep{Base: fat320, Patch: e2Patch(sc), CC: e2Algs}.Expand()
}

// backgroundBins is Table 8's metric: the background flows (every flow not
// of group "incast"; finished ones, slowdown clamped to ≥ 1) sorted by
// size and cut into 20 bins of 5 % each (metrics.SizeBins, the reference
// analysis's binning); per bin the largest size and the 95th-percentile
// slowdown (the sample at index ⌊0.95·n⌋ of the bin's sorted slowdowns).
// It also returns the number of unfinished background flows.
func backgroundBins(flows []metrics.FlowRecord, end sim.Time) (bins []metrics.SizeBin, unfinished int) {
	bg := make([]metrics.FlowRecord, 0, len(flows))
	for _, f := range flows {
		if f.Group == "incast" {
			continue
		}
		if !f.Done {
			unfinished++
		}
		bg = append(bg, f)
	}
	return metrics.SizeBins(bg, nBins, end), unfinished
}

type e2Result struct {
	bins                  []metrics.SizeBin
	background, incast    int
	unfinished            int
	wall                  float64
	events                int64
	simEndMs              float64
	unfinishedAll, flowsN int
	drops, dataDropped    int64 // packets dropped; payload bytes of dropped data packets
}

func readE2(ctx *experiment.Context, c string) (*e2Result, error) {
	run, err := ctx.Run("cc=" + c)
	if err != nil {
		return nil, err
	}
	fl, err := run.Flows()
	if err != nil {
		return nil, err
	}
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	r := &e2Result{wall: s.WallSeconds, events: s.Events, simEndMs: s.SimEndNs / 1e6, flowsN: len(fl), unfinishedAll: s.Summary.Unfinished, drops: s.Drops, dataDropped: s.Bytes.Dropped}
	r.bins, r.unfinished = backgroundBins(fl, s.End())
	for _, f := range fl {
		if f.Group == "incast" {
			r.incast++
		} else {
			r.background++
		}
	}
	if len(r.bins) != nBins {
		return nil, fmt.Errorf("%s: %d size bins (need at least %d finished background flows)", run.Dir, len(r.bins), nBins)
	}
	return r, nil
}

func sizeLabel(b int64) string {
	switch {
	case b >= 1_000_000:
		return fmt.Sprintf("%.3gM", float64(b)/1e6)
	case b >= 1000:
		return fmt.Sprintf("%.3gK", float64(b)/1e3)
	}
	return fmt.Sprintf("%dB", b)
}

func e2() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e2",
		Title: "Random flows with incasts on the 320-host fat-tree: 95th-percentile slowdown by flow size (Table 8)",
		Setup: `Topology: the reference simulator's 320-host fat-tree (fat320; the HPCC paper's set-up, which paper 001 takes): 16 hosts per ToR, 20 ToR, 20 aggregation and 16 core switches in 5 pods, 100 Gb/s host links, 400 Gb/s fabric links, 1 µs per link (maximum base RTT 12 µs), 32-MiB buffers, dynamic PFC, 1000-B payloads. Background: Facebook Hadoop flow sizes (the paper's Table 7 = the reference FbHdp_distribution.txt, linear interpolation), random sender and receiver, Poisson arrivals at 30 % of the hosts' capacity over 10 ms (the paper's [2.00 s, 2.01 s]; ≈ 99,650 flows, the paper's "10w"). Incasts: random 60-to-1 bursts of 500 KB per sender at 2 % of the capacity over the same window (≈ 27 bursts expected; the paper's run had 34), tagged group "incast" and excluded from the metric. The run lasts until every flow finishes (stop bound 2 s).

Algorithms (Table 8's columns): pidnn, pidnn+rttch, pidnn+rttch+win (window = rate × the largest base RTT, docs/algorithms/pidnn.md I11), hpcc, timely, dctcp, dcqcn, each with ccsim's reference preset; the PIDNN variants use the shipped model files and rtt_target 5 µs (the paper gives no other target for this experiment). Metric: the background flows sorted by size and cut into 20 bins of 5 % each (the reference analysis's binning; the row label is the largest size in the bin); per bin the 95th-percentile FCT slowdown (FCT / FCT alone in the empty network, clamped to ≥ 1). At quick scale the arrivals span 0.2 ms (≈ 2,000 flows) with one 60-to-1 burst: the numbers are not comparable with the paper's.

Claims: "small flows" are bins 1–18 (labels up to 124 KB in the paper), WIN's "flows < 7 KB" bins 1–14, "large flows" bins 15–20.`,
		Claims: []experiment.Claim{
			{ID: "pidnn-beats-timely-dcqcn-small", Description: "PIDNN's p95 slowdown is below TIMELY's and DCQCN's in every small-flow bin (1–18)", PaperValue: "18 of 18 bins", Verdict: true},
			{ID: "pidnn-loses-large", Description: "PIDNN does not beat TIMELY and DCQCN above ~336 KB: its p95 in the last bin (10 MB) is above both", PaperValue: "98.7 vs 34.3, 28.0", Verdict: true},
			{ID: "rttch-helps-large", Description: "RTTch improves large flows: PIDNN+RTTch's p95 is below PIDNN's in the last two bins (336 KB, 10 MB)", PaperValue: "43.8 < 71.7, 24.5 < 98.7", Verdict: true},
			{ID: "win-small-best", Description: "WIN makes flows < 7 KB better than HPCC and DCQCN: PIDNN+RTTch+WIN's p95 is below both in every bin 1–14", PaperValue: "14 of 14 bins", Verdict: true},
			{ID: "hpcc-large-best", Description: "HPCC is best for large flows: its p95 is the lowest of the seven, or within 5 % of the lowest, in every bin 15–20", PaperValue: "6 of 6 bins", Verdict: true},
			{ID: "pidnn-p95-10m", Description: "PIDNN's p95 slowdown of the largest flows (last bin)", PaperValue: "98.729"},
			{ID: "win-p95-300b", Description: "PIDNN+RTTch+WIN's p95 slowdown of the smallest flows (first bin)", PaperValue: "1.560"},
		},
		Runs:    e2Runs,
		Analyze: analyzeE2,
	}
}

// analyzeE2 reads the seven runs: Table 8 beside the paper, the p95
// figure, the cost table and the claims.
func analyzeE2(ctx *experiment.Context) (*report.Section, error) {
	res := map[string]*e2Result{}
	sec := &report.Section{}
	for _, c := range e2Algs {
		r, err := readE2(ctx, c)
		if err != nil {
			sec.Notes = append(sec.Notes, err.Error())
			continue
		}
		res[c] = r
	}
	sec.Tables = append(sec.Tables, table8Table(res))
	sec.Figures = append(sec.Figures, p95Figure(res))
	cost, notes := e2Cost(res)
	sec.Tables = append(sec.Tables, cost)
	sec.Notes = append(sec.Notes, notes...)
	sec.Claims = ctx.Claims(e2Verdicts(res))
	return sec, nil
}

// table8Table is Table 8: the p95 slowdown per size bin, ccsim beside the
// paper for each algorithm.
func table8Table(res map[string]*e2Result) report.Table {
	cols := []string{"bin", "size (ccsim)", "size (paper)"}
	for _, c := range e2Algs {
		cols = append(cols, algs.Name(c)+", ccsim", algs.Name(c)+", paper")
	}
	t := report.Table{ID: "table8", Title: "Table 8 — 95th-percentile FCT slowdown of the background flows by size bin, ccsim beside the paper", Columns: cols}
	for k := range nBins {
		row := []string{fmt.Sprint(k + 1), "", table8[k].label}
		for _, c := range e2Algs {
			if r := res[c]; r != nil {
				if row[1] == "" {
					row[1] = sizeLabel(r.bins[k].MaxSizeBytes)
				}
				row = append(row, fmt.Sprintf("%.3f", r.bins[k].P95))
			} else {
				row = append(row, "—")
			}
			row = append(row, fmt.Sprintf("%.3f", table8[k].p95[idx(c)]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// p95Figure plots Table 8, ccsim solid and the paper dashed.
func p95Figure(res map[string]*e2Result) report.Figure {
	fig := report.Figure{ID: "p95", Title: "95th-percentile slowdown by size bin (solid: ccsim; dashed: paper)", XLabel: "bin (5 % of the flows each, by size)", YLabel: "p95 slowdown", LogY: true}
	for i, c := range e2Algs {
		var x, y, py []float64
		for k := range nBins {
			x = append(x, float64(k+1))
			py = append(py, table8[k].p95[i])
			if r := res[c]; r != nil {
				y = append(y, r.bins[k].P95)
			}
		}
		if res[c] != nil {
			fig.Series = append(fig.Series, report.Series{Label: algs.Name(c), X: x, Y: y, Style: i + 1, Points: true})
		}
		fig.Series = append(fig.Series, report.Series{Label: algs.Name(c) + " (paper)", X: x, Y: py, Style: i + 1, Dashed: true})
	}
	return fig
}

// e2Cost is the runs' flows, simulated end, events and wall time, with a
// note for each run whose background flows did not all finish.
func e2Cost(res map[string]*e2Result) (report.Table, []string) {
	var notes []string
	cost := report.Table{ID: "cost", Title: "E2 runs: flows, wall time and events", Columns: []string{"algorithm", "background flows", "incast flows", "unfinished", "simulated end (ms)", "events", "wall (s)", "events/s"}}
	for _, c := range e2Algs {
		r := res[c]
		if r == nil {
			continue
		}
		cost.Rows = append(cost.Rows, []string{algs.Name(c), fmt.Sprint(r.background), fmt.Sprint(r.incast), fmt.Sprint(r.unfinishedAll), experiment.G4Dash(r.simEndMs), fmt.Sprint(r.events), fmt.Sprintf("%.1f", r.wall), experiment.EventsPerSecond(r.events, r.wall)})
		if r.unfinished > 0 {
			why := ""
			if r.drops > 0 && r.dataDropped == 0 {
				// every payload byte arrived: the flows wait for a final ACK that a switch dropped
				why = fmt.Sprintf(" Every payload byte was delivered; the run dropped %d packets, all ACKs or other control packets: the NIC sends ACKs in the high-priority class that PFC never pauses, while switches admit and queue them in the data class (the reference simulator's behaviour, docs/reference-simulator.md §11 D5), so a paused ToR ingress can overflow its headroom with ACKs; with PFC on there is no retransmission timeout, so a flow whose last ACK is lost never completes (as in the reference). switch.ctrl_high_prio: true avoids it.", r.drops)
			}
			notes = append(notes, fmt.Sprintf("%s: %d background flows did not finish by the stop time; the bins hold finished flows only.%s", algs.Name(c), r.unfinished, why))
		}
	}
	return cost, notes
}

func idx(c string) int {
	for i, a := range e2Algs {
		if a == c {
			return i
		}
	}
	return -1
}

// p95 returns algorithm c's p95 slowdown of 1-based bin k.
func p95(res map[string]*e2Result, c string, k int) float64 {
	return res[c].bins[k-1].P95
}

// e2Verdicts evaluates E2's claims from the runs that succeeded (a claim
// whose algorithms are missing is left out, and reported missing).
func e2Verdicts(res map[string]*e2Result) map[string]report.Claim {
	claims := map[string]report.Claim{}
	have := func(cs ...string) bool {
		for _, c := range cs {
			if res[c] == nil {
				return false
			}
		}
		return true
	}
	if have("pidnn", "timely", "dcqcn") {
		claims["pidnn-beats-timely-dcqcn-small"] = beatsIn(res, "pidnn", []string{"timely", "dcqcn"}, smallLast)
		l := p95(res, "pidnn", nBins)
		claims["pidnn-loses-large"] = report.Verdict(fmt.Sprintf("%.1f vs %.1f, %.1f", l, p95(res, "timely", nBins), p95(res, "dcqcn", nBins)),
			l > p95(res, "timely", nBins) && l > p95(res, "dcqcn", nBins), "PIDNN vs TIMELY, DCQCN in the last bin")
	}
	if have("pidnn", "pidnn+rttch") {
		a, b := p95(res, "pidnn+rttch", nBins-1), p95(res, "pidnn", nBins-1)
		c, d := p95(res, "pidnn+rttch", nBins), p95(res, "pidnn", nBins)
		claims["rttch-helps-large"] = report.Verdict(fmt.Sprintf("%.1f vs %.1f, %.1f vs %.1f", a, b, c, d), a < b && c < d, "bin 19, bin 20: PIDNN+RTTch vs PIDNN")
	}
	if have("pidnn+rttch+win", "hpcc", "dcqcn") {
		claims["win-small-best"] = beatsIn(res, "pidnn+rttch+win", []string{"hpcc", "dcqcn"}, winLast)
	}
	if have(e2Algs...) {
		claims["hpcc-large-best"] = binsWhere(largeFrom, nBins, func(k int) bool {
			best := math.Inf(1)
			for _, c := range e2Algs {
				best = min(best, p95(res, c, k))
			}
			return p95(res, "hpcc", k) <= 1.05*best
		})
	}
	if have("pidnn") {
		claims["pidnn-p95-10m"] = report.Measured(fmt.Sprintf("%.3f", p95(res, "pidnn", nBins)), "bin 20 = "+sizeLabel(res["pidnn"].bins[nBins-1].MaxSizeBytes))
	}
	if have("pidnn+rttch+win") {
		claims["win-p95-300b"] = report.Measured(fmt.Sprintf("%.3f", p95(res, "pidnn+rttch+win", 1)), "bin 1 = "+sizeLabel(res["pidnn+rttch+win"].bins[0].MaxSizeBytes))
	}
	return claims
}

// beatsIn is the verdict "c's p95 slowdown is below every one of others'
// in bins 1 … last".
func beatsIn(res map[string]*e2Result, c string, others []string, last int) report.Claim {
	return binsWhere(1, last, func(k int) bool {
		p := p95(res, c, k)
		for _, o := range others {
			if p >= p95(res, o, k) {
				return false
			}
		}
		return true
	})
}

// binsWhere is the verdict "ok holds in every bin from … to" (1-based),
// with the count of such bins and the failing bins.
func binsWhere(from, to int, ok func(k int) bool) report.Claim {
	n, fails := 0, []string{}
	for k := from; k <= to; k++ {
		if ok(k) {
			n++
		} else {
			fails = append(fails, fmt.Sprint(k))
		}
	}
	note := ""
	if len(fails) > 0 {
		note = "fails in bins " + strings.Join(fails, ", ")
	}
	return report.Verdict(fmt.Sprintf("%d of %d bins", n, to-from+1), n == to-from+1, note)
}
