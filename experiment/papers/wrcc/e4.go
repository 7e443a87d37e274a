package wrcc

// E4: the prototype experiments (Figs. 10–13), simulated: perftest
// bandwidth flows in a 2:1 incast plus a 64-B latency probe, WRCC against
// DCQCN, over 640 km and within one switch.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// distances of E4 and their base scenarios.
var distances = []struct{ id, name, base string }{
	{"long", "640 km", "perftest-long.yaml"},
	{"short", "short distance", "perftest-short.yaml"},
}

var e4Algs = []string{"wrcc", "dcqcn"}

// e4Point is one parameter point of the perftest model.
type e4Point struct {
	msg    int64   // message size, bytes (perftest -s)
	mtu    int     // payload per packet, bytes
	flows  int     // QPs per sender (perftest -q)
	durMs  float64 // test duration
	axis   string  // the swept parameter this point belongs to ("" = default)
	xValue float64
}

func (p e4Point) key(dist, c string) string {
	return fmt.Sprintf("dist=%s msg=%d mtu=%d flows=%d dur=%v cc=%s", dist, p.msg, p.mtu, p.flows, p.durMs, c)
}

// e4Axes are the sweeps (Fig. 11: message size; Fig. 12: MTU; Fig. 13:
// number of flows and test duration) at a scale. The duration sweep runs
// at 640 km only, in multiples of its 6.4-ms RTT (interpretation of the
// paper's convergence figure).
type e4Axis struct {
	id, name, unit string
	values         []float64
	set            func(p *e4Point, v float64)
	longOnly       bool
}

func e4Default(sc experiment.Scale, dist string) e4Point {
	d := 200.0
	if dist == "short" {
		d = 20
	}
	if sc == experiment.ScaleQuick {
		d = 20
		if dist == "short" {
			d = 2
		}
	}
	return e4Point{msg: 1_000_000, mtu: 1024, flows: 1, durMs: d}
}

func e4Axes(sc experiment.Scale) []e4Axis {
	pick := func(all, q []float64) []float64 { return experiment.AtScale(sc, q, all) }
	const rtt = 6.4 // ms, the 640-km round trip
	return []e4Axis{
		{"msg", "message size", "KB", pick([]float64{64e3, 256e3, 1e6, 4e6, 16e6}, []float64{256e3, 1e6}), func(p *e4Point, v float64) { p.msg = int64(v) }, false},
		{"mtu", "MTU", "B", pick([]float64{512, 1024, 2048, 4096}, []float64{1024, 4096}), func(p *e4Point, v float64) { p.mtu = int(v) }, false},
		{"flows", "flows per sender", "", pick([]float64{1, 2, 4, 8}, []float64{1, 2}), func(p *e4Point, v float64) { p.flows = int(v) }, false},
		{"dur", "test duration", "ms", pick([]float64{rtt, 2 * rtt, 5 * rtt, 10 * rtt, 20 * rtt}, []float64{rtt, 2 * rtt}), func(p *e4Point, v float64) { p.durMs = v }, true},
	}
}

// e4Points lists the points of a distance, each axis's values with the
// other parameters at their defaults.
func e4Points(sc experiment.Scale, dist string) []e4Point {
	var out []e4Point
	for _, ax := range e4Axes(sc) {
		if ax.longOnly && dist != "long" {
			continue
		}
		for _, v := range ax.values {
			p := e4Default(sc, dist)
			ax.set(&p, v)
			p.axis, p.xValue = ax.id, v
			out = append(out, p)
		}
	}
	return out
}

// e4Runs lists the runs of every distance's points × algorithm. Not a
// Sweep: the points are one-factor-at-a-time sweeps around a default
// point (which several sweeps share and which runs once), not a grid.
func e4Runs(sc experiment.Scale) []experiment.RunSpec {
	var runs []experiment.RunSpec
	seen := map[string]bool{}
	for _, d := range distances {
		for _, p := range e4Points(sc, d.id) {
			for _, c := range e4Algs {
				k := p.key(d.id, c)
				if seen[k] {
					continue
				}
				seen[k] = true
				patch := map[string]any{
					"host":     map[string]any{"payload_bytes": p.mtu},
					"workload": map[string]any{"perftest": map[string]any{"msg_size_bytes": p.msg, "flows": p.flows, "duration_ms": p.durMs}},
				}
				if c == "wrcc" {
					patch["params"] = map[string]any{"wrcc": map[string]any{"f_max_mbps": 400_000}}
				}
				runs = append(runs, experiment.RunSpec{Key: k, Base: d.base, CC: c, Patch: patch})
			}
		}
	}
	return runs
}

// e4Result is what E4 reads from a run.
type e4Result struct {
	latMean, latP99 float64 // µs
	probes          int
	gbps, jain      float64 // bandwidth flows: total throughput, Jain index
	drops           int64
}

func readE4(ctx *experiment.Context, key string) (*e4Result, error) {
	run, err := ctx.Run(key)
	if err != nil {
		return nil, err
	}
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	if s.Perftest == nil {
		return nil, fmt.Errorf("%s: summary.json has no perftest section", run.Dir)
	}
	pt := s.Perftest
	return &e4Result{latMean: pt.Latency.MeanUs, latP99: pt.Latency.P99Us, probes: pt.Latency.Count, gbps: pt.Bandwidth.TotalGbps, jain: pt.Bandwidth.Jain, drops: s.Drops}, nil
}

func e4() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e4",
		Title: "Prototype experiments, simulated: 640 km and short distance (Figs. 10–13)",
		Setup: `The paper's prototype (Tofino2 switches and FPGA NICs running WRCC, ConnectX-7 NICs running DCQCN, perftest over 640 km of fibre) simulated on topology T7. Long distance: hosts A and B behind switch SW1, host C behind SW2, SW1–SW2 400 Gb/s over 640 km (3.2 ms one way at 5 µs/km), all NICs and host links 400 Gb/s, 1 µs; lossy as the testbed (PFC off; 64-MB drop-tail buffers; go-back-N with a 10-ms retransmission timeout and a 500-µs NACK interval: the simulator's long-path defaults of 3 × and 2 × the 6.4-ms round trip leave DCQCN idle for tens of ms after each loss). Short distance: A, B, C on one switch, 1-µs links, ECN and PFC on. Traffic (perftest, interpretation): ib_write_bw bandwidth flows A → C and B → C (a 2:1 incast; each QP keeps at most tx-depth 128 messages outstanding: an in-flight cap of 128 × the message size) and an ib_write_lat probe of 64-B messages A → C, each posted when the previous one completes; latency = post to completion of a probe message, tail = p99 (interpretation). Defaults: MTU 1,024 B, 1 flow per sender, 1-MB messages, a test of 200 ms at 640 km (31 probe round trips) and 20 ms at short distance (the paper ran 10 s; at 400 Gb/s a simulated second is 50 GB per flow). Sweeps: message size (Fig. 11), MTU (Fig. 12), flows per sender and test duration (Fig. 13; duration in multiples of the 6.4-ms round trip, 640 km only). DCQCN with the reference dcqcn preset at 400 Gb/s (RED 1.6/6.4 MB at the switch); WRCC with its defaults except F_max = 400 Gb/s, the prototype's line rate (the paper's F_max = 100 Gb/s belongs to its 100-Gb/s simulations; kept, it would cap every port's fair rate at a quarter of the line). A range claim holds when WRCC is better at every point of every sweep; ccsim's range over the points is printed beside the paper's. At quick scale the tests last 20 ms (640 km) and 2 ms and each sweep has two points.`,
		Claims: []experiment.Claim{
			{ID: "short-avg", Description: "short distance: WRCC's average probe latency is about equal to DCQCN's (within ±10 % at every point)", PaperValue: "≈ 0", Unit: "% change", Verdict: true},
			{ID: "short-tail", Description: "short distance: WRCC cuts the tail latency by", PaperValue: "7–49", Unit: "%", Verdict: true},
			{ID: "short-fair", Description: "short distance: both algorithms converge and share fairly (Jain index of the bandwidth flows ≥ 0.95 at the default point)", PaperValue: "yes", Verdict: true},
			{ID: "long-avg", Description: "640 km: WRCC cuts the average latency by", PaperValue: "2–7", Unit: "%", Verdict: true},
			{ID: "long-tail", Description: "640 km: WRCC cuts the tail latency by", PaperValue: "45–49", Unit: "%", Verdict: true},
			{ID: "long-tput", Description: "640 km: WRCC raises the bandwidth flows' average throughput by", PaperValue: "26–90", Unit: "%", Verdict: true},
		},
		Runs:    e4Runs,
		Analyze: analyzeE4,
	}
}

func analyzeE4(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	var notes []string
	type pair struct{ w, d *e4Result }
	ranges := map[string][2]float64{}
	upd := func(id string, v float64) {
		r, ok := ranges[id]
		if !ok {
			r = [2]float64{math.Inf(1), math.Inf(-1)}
		}
		ranges[id] = [2]float64{math.Min(r[0], v), math.Max(r[1], v)}
	}
	jain := map[string]string{}
	fair := true
	for _, d := range distances {
		for _, ax := range e4Axes(ctx.Scale) {
			if ax.longOnly && d.id != "long" {
				continue
			}
			t := report.Table{ID: d.id + "-" + ax.id, Title: fmt.Sprintf("%s: %s sweep — probe latency (µs) and bandwidth-flow throughput (Gb/s)", d.name, ax.name),
				Columns: []string{ax.name, "WRCC avg", "DCQCN avg", "WRCC p99", "DCQCN p99", "WRCC Gb/s", "DCQCN Gb/s", "WRCC drops", "DCQCN drops"}}
			figLat := report.Figure{ID: d.id + "-" + ax.id + "-p99", Title: fmt.Sprintf("%s — p99 probe latency by %s", d.name, ax.name), XLabel: axisLabel(ax), YLabel: "p99 latency (µs)", LogX: ax.id == "msg"}
			figBW := report.Figure{ID: d.id + "-" + ax.id + "-gbps", Title: fmt.Sprintf("%s — bandwidth flows' throughput by %s", d.name, ax.name), XLabel: axisLabel(ax), YLabel: "total throughput (Gb/s)", LogX: ax.id == "msg"}
			var xs []float64
			ys := map[string][3][]float64{}
			for _, p := range e4Points(ctx.Scale, d.id) {
				if p.axis != ax.id {
					continue
				}
				var pr pair
				var err error
				if pr.w, err = readE4(ctx, p.key(d.id, "wrcc")); err != nil {
					notes = append(notes, err.Error())
					continue
				}
				if pr.d, err = readE4(ctx, p.key(d.id, "dcqcn")); err != nil {
					notes = append(notes, err.Error())
					continue
				}
				x := p.xValue
				if ax.id == "msg" {
					x /= 1e3
				}
				xs = append(xs, x)
				for _, c := range []struct {
					id string
					r  *e4Result
				}{{"wrcc", pr.w}, {"dcqcn", pr.d}} {
					y := ys[c.id]
					y[0], y[1], y[2] = append(y[0], c.r.latMean), append(y[1], c.r.latP99), append(y[2], c.r.gbps)
					ys[c.id] = y
				}
				t.Rows = append(t.Rows, []string{experiment.G4Dash(x), experiment.G4Dash(pr.w.latMean), experiment.G4Dash(pr.d.latMean), experiment.G4Dash(pr.w.latP99), experiment.G4Dash(pr.d.latP99), experiment.G4Dash(pr.w.gbps), experiment.G4Dash(pr.d.gbps), fmt.Sprint(pr.w.drops), fmt.Sprint(pr.d.drops)})
				// A point where either side completed no probe has no
				// latency to compare (the probe starved behind the
				// bandwidth flows): it is shown in the table but kept
				// out of the latency ranges.
				if pr.w.probes > 0 && pr.d.probes > 0 {
					upd(d.id+"-avg", experiment.Cut(pr.w.latMean, pr.d.latMean))
					upd(d.id+"-tail", experiment.Cut(pr.w.latP99, pr.d.latP99))
				} else {
					notes = append(notes, fmt.Sprintf("%s %s = %s: no probe completed (WRCC %d, DCQCN %d probes); left out of the latency ranges", d.name, ax.name, experiment.G4Dash(x), pr.w.probes, pr.d.probes))
				}
				upd(d.id+"-tput", experiment.Pct(pr.w.gbps, pr.d.gbps))
				if p == e4PointAt(ctx.Scale, d.id, ax.id) && ax.id == "msg" {
					jain[d.id] = fmt.Sprintf("Jain at the default point: WRCC %.3f, DCQCN %.3f", pr.w.jain, pr.d.jain)
					if d.id == "short" && !(pr.w.jain >= 0.95 && pr.d.jain >= 0.95) {
						fair = false
					}
				}
			}
			for k, c := range e4Algs {
				figLat.Series = append(figLat.Series, report.Series{Label: algs.Name(c), X: xs, Y: ys[c][1], Points: true, Style: k + 1})
				figBW.Series = append(figBW.Series, report.Series{Label: algs.Name(c), X: xs, Y: ys[c][2], Points: true, Style: k + 1})
			}
			sec.Tables = append(sec.Tables, t)
			sec.Figures = append(sec.Figures, figLat, figBW)
		}
	}
	claims := map[string]report.Claim{}
	rng := func(id string) string {
		r := ranges[id]
		return fmt.Sprintf("%.0f … %.0f", r[0], r[1])
	}
	if r, ok := ranges["short-avg"]; ok {
		claims["short-avg"] = report.Verdict(rng("short-avg"), r[0] >= -10 && r[1] <= 10, "reduction of the mean latency over the sweep points (positive: WRCC lower)")
	}
	for _, id := range []string{"short-tail", "long-avg", "long-tail", "long-tput"} {
		if r, ok := ranges[id]; ok {
			claims[id] = report.Verdict(rng(id), r[0] > 0, "over all sweep points")
		}
	}
	if j, ok := jain["short"]; ok {
		claims["short-fair"] = report.Verdict(fmt.Sprint(fair), fair, j)
	}
	sec.Claims = ctx.Claims(claims)
	sec.Notes = notes
	return sec, nil
}

// e4PointAt is the default point as the axis lists it (the default value
// of the axis), for the default-point readings.
func e4PointAt(sc experiment.Scale, dist, axis string) e4Point {
	p := e4Default(sc, dist)
	p.axis, p.xValue = axis, float64(p.msg)
	return p
}

func axisLabel(ax e4Axis) string {
	if ax.unit == "" {
		return ax.name
	}
	return ax.name + " (" + ax.unit + ")"
}
