package dcqcnp

// E3floor: the sensitivity of Table 4's metrics to the DCQCN reaction
// points' rate floor, under the primary reading only (a separate
// experiment because an experiment's runs run under every reading).

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// floorsMbps are the floors of the sensitivity runs: 1 Mb/s, E3's 100 Mb/s
// (the same runs as E3's primary reading) and 1 Gb/s (the presets of the
// HPCC ns-3 simulator's run.py).
var floorsMbps = []int{1, 100, 1000}

// floorAlgs are the algorithms with a rate floor: DCQCN and DCQCN-p.
var floorAlgs = experiment.Algs{algs[0], algs[3]}

func e3FloorRuns(sc experiment.Scale) []experiment.RunSpec {
	var out []experiment.RunSpec
	for _, f := range floorsMbps {
		patch := map[string]map[string]any{}
		for _, cc := range floorAlgs.CCs() {
			patch[cc] = experiment.Merge(e3CCPatch[cc], map[string]any{"params": map[string]any{cc: map[string]any{"min_rate_mbps": f}}})
		}
		out = append(out, experiment.Sweep{Base: base, Patch: scalePatch(sc), CC: floorAlgs.CCs(), CCPatch: patch, Seeds: experiment.Seeds(sc),
			Axes: []experiment.Axis{{Name: "floor", Values: []experiment.Value{{Label: fmt.Sprint(f)}}}}}.Expand()...)
	}
	return out
}

func e3floor() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e3floor",
		Title: "Sensitivity: the rate floor of DCQCN and DCQCN-p (E3, primary reading)",
		SetupAt: func(sc experiment.Scale) string {
			return `E3's runs of DCQCN and DCQCN-p in its primary reading (mix: one QP per sender, the receiver and the odd senders on 25 Gb/s) with the reaction points' minimum rate at 1 Mb/s, 100 Mb/s (E3's value, the default of the HPCC ns-3 simulator; the paper gives none) and 1 Gb/s (that simulator's run.py presets). No claims: the table shows how much Table 4's metrics depend on the floor. ` + seedsText(sc) + `.`
		},
		Runs:    e3FloorRuns,
		Analyze: analyzeE3Floor,
	}
}

func analyzeE3Floor(ctx *experiment.Context) (*report.Section, error) {
	t := report.Table{ID: "floor", Title: "Table 4's metrics by rate floor (primary reading)",
		Columns: []string{"algorithm", "floor (Mb/s)", "minimum rate, ≥ 2 unfinished (Gb/s)", "min. rate, all active (Gb/s)", "average throughput, wire (Gb/s)", "incast completion time (µs)",
			"fairness CoV (%)", "CoV / fair share (%)", "rate decreases", "PFC pauses", "last sender done (ms)", "censored senders"}}
	window := windowUs(ctx.Scale) * 1e3
	ran := 0
	for _, a := range floorAlgs {
		for _, f := range floorsMbps {
			runs, err := ctx.SeedRuns(fmt.Sprintf("floor=%d cc=%s", f, a.CC))
			if err != nil {
				t.Rows = append(t.Rows, []string{a.Name, fmt.Sprint(f), "not available: " + err.Error()})
				continue
			}
			var rs []*e3Result
			for _, run := range runs {
				r, err := e3Metrics(run, window)
				if err != nil {
					return nil, fmt.Errorf("floor %d %s: %w", f, a.CC, err)
				}
				rs = append(rs, r)
			}
			ran++
			c := func(g func(*e3Result) float64) string { return cell(sample(rs, g)) }
			t.Rows = append(t.Rows, []string{a.Name, fmt.Sprint(f), c(minLoaded), c(func(r *e3Result) float64 { return r.minActive }), c(avgWire), c(ictUs),
				c(covRaw), c(func(r *e3Result) float64 { return r.covNorm }), c(rateCuts), c(func(r *e3Result) float64 { return float64(r.pauses) }),
				c(func(r *e3Result) float64 { return r.lastMs }), c(func(r *e3Result) float64 { return float64(r.censored) })})
		}
	}
	if ran == 0 {
		return nil, fmt.Errorf("no run finished")
	}
	return &report.Section{Tables: []report.Table{t}, Notes: []string{
		"With one QP per sender a floor of 1 Gb/s alone offers n × 1 Gb/s, more than the 25 Gb/s link while more than 25 senders are unfinished (until at least 55 of the 80 have finished), whatever the rate control does; with 100 Mb/s the floors offer at most 8 Gb/s.",
	}}, nil
}
