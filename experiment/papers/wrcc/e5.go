package wrcc

// E5: a diagnostic of Algorithm 2, no claim of the paper: how fast a
// cross-DC WRCC sender climbs back after a cut, by a remote and by a
// near-source bottleneck, under both readings of line 3. The issue-9 note
// said it climbs "one long-haul RTT per doubling"; this measures it.

import (
	"fmt"
	"math"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// climbCases are E5's two scenarios.
var climbCases = []struct{ id, name, base string }{
	{"remote", "remote bottleneck (B.tor0 → B.h0, in the receiver's datacenter)", "climb-remote.yaml"},
	{"near", "near-source bottleneck (A.tor0 → A.agg0, in the sender's datacenter)", "climb-near.yaml"},
}

func e5Runs(sc experiment.Scale) []experiment.RunSpec {
	var out []experiment.RunSpec
	for _, c := range climbCases {
		out = append(out, experiment.RunSpec{Key: "case=" + c.id + " cc=wrcc", Base: c.base, CC: "wrcc",
			Patch: map[string]any{"stop_ms": experiment.AtScale(sc, 60.0, 150.0)}})
	}
	return out
}

func e5() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e5",
		Title: "Algorithm 2: the climb of a cross-DC sender after a cut (diagnostic, no paper claim)",
		SetupAt: func(sc experiment.Scale) string {
			stop := "150 ms"
			if sc == experiment.ScaleQuick {
				stop = "60 ms (quick scale)"
			}
			return `Not an experiment of the paper: a measurement of ccsim's WRCC sender (Algorithm 2) behind the long-flow claims of E1–E2. The E1–E3 fabric (T6), WRCC with the paper's defaults, runs of ` + stop + `, deterministic (pinned paths, one run each). Remote case: a 2-GB cross-DC flow A.h0 → B.h0 and four 25-MB intra-DC flows B.h8–B.h11 → B.h0, all from t = 0, meet at B.tor0's port to B.h0 (in the receiver's datacenter). Near case: the 2-GB cross-DC flow and three 40-MB intra-DC flows share A.tor0's uplink to A.agg0 (in the sender's datacenter, where switches send FCNPs). Measured: the cross-DC flow's rate in 2-ms windows (the mean of two 1-ms bins, removing the alternation at the 2-ms round trip); r0 its rate in the first window after every competing flow has finished; the time from reaching r0·2^(k−1) to r0·2^k (per doubling), and its rate at the end; and the competitors' mean rate while they run (the printed line 3 lets a cross-DC sender ignore a remote bottleneck). Readings: Algorithm 2 line 3 as printed (primary) and ccsim's I21.`
		},
		Runs: e5Runs,
		Readings: []experiment.Reading{
			{ID: "printed", Primary: true, Title: "Algorithm 2 line 3 as printed", Why: whyPrinted, Patch: line3(true)},
			{ID: "i21", Title: "line 3 as ccsim's I21", Why: whyI21, Patch: line3(false)},
		},
		Analyze: analyzeE5,
	}
}

// windows are the means of consecutive pairs of bins (2-ms windows of
// 1-ms bins).
func windows(rates []float64) []float64 {
	out := make([]float64, len(rates)/2)
	for i := range out {
		out[i] = (rates[2*i] + rates[2*i+1]) / 2
	}
	return out
}

// doublingTimes are the times (ms) between the first windows at which
// the rate reaches r0·2^(k−1) and r0·2^k, k = 1, 2, …, from window i0
// (r0 = w[i0]), each window winMs long; a doubling not completed by the
// end of the run is not listed.
func doublingTimes(w []float64, i0 int, winMs float64) []float64 {
	if i0 < 0 || i0 >= len(w) || w[i0] <= 0 {
		return nil
	}
	var out []float64
	prev, level := i0, 2*w[i0]
	for i := i0 + 1; i < len(w); i++ {
		if w[i] >= level {
			out = append(out, float64(i-prev)*winMs)
			prev, level = i, 2*level
		}
	}
	return out
}

func analyzeE5(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	t := report.Table{ID: "climb", Title: "The cross-DC flow's climb after the competitors finish (2-ms windows)",
		Columns: []string{"case", "competitors end (ms)", "cross-DC flow while they run (Gb/s)", "each competitor while they run (Gb/s)", "r0 (Gb/s)", "ms per doubling", "long-haul RTTs per doubling", "rate at the end (Gb/s)"}}
	fig := report.Figure{ID: "climb", Title: "The cross-DC flow's rate (2-ms windows)", XLabel: "time (ms)", YLabel: "rate (Gb/s)"}
	for k, c := range climbCases {
		run, err := ctx.Run("case=" + c.id + " cc=wrcc")
		if err != nil {
			return nil, err
		}
		n := 5
		if c.id == "near" {
			n = 4
		}
		tt, g := make([][]float64, n), make([][]float64, n)
		if err := flowRates(run, tt, g); err != nil {
			return nil, err
		}
		fin := make([]float64, n)
		if err := finishTimes(run, fin); err != nil {
			return nil, err
		}
		end := 0.0
		var comp float64
		for f := 1; f < n; f++ {
			end = math.Max(end, fin[f])
			comp += mean(g[f]) / float64(n-1)
		}
		w := windows(g[0])
		i0 := len(w)
		if !math.IsInf(end, 1) {
			i0 = int(math.Ceil(end / 2))
		}
		row := []string{c.name, experiment.G4Dash(end), experiment.G4Dash(mean(g[0][:min(len(g[0]), 2*i0)])), experiment.G4Dash(comp)}
		if i0 >= len(w) {
			row = append(row, "—", "the competitors did not finish", "—", experiment.G4Dash(w[len(w)-1]))
		} else {
			d := doublingTimes(w, i0, 2)
			var ms, rtts []string
			for _, x := range d {
				ms, rtts = append(ms, experiment.G4(x)), append(rtts, experiment.G4(x/2.016))
			}
			row = append(row, experiment.G4(w[i0]), strings.Join(ms, ", "), strings.Join(rtts, ", "), experiment.G4Dash(w[len(w)-1]))
		}
		t.Rows = append(t.Rows, row)
		var x []float64
		for i := range w {
			x = append(x, float64(2*i))
		}
		fig.Series = append(fig.Series, report.Series{Label: c.id, X: x, Y: w, Style: k + 1})
	}
	sec.Tables = append(sec.Tables, t)
	sec.Figures = append(sec.Figures, fig)
	sec.Notes = []string{fmt.Sprintf("reading %s: one doubling per long-haul RTT (2.016 ms) would take the rate from 1 Gb/s to the line rate in about 7 RTTs (14 ms)", ctx.Reading.ID)}
	return sec, nil
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
