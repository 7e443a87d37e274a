package wrcc

// E0, continued: congestion 1 (Fig. 1), E0's tables and figures, and the
// bound on the queue PFC lets build (check qmax-reachable).

import (
	"fmt"
	"math"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
)

// c1Result is what congestion 1 reads from a run.
type c1Result struct {
	t        [3][]float64 // bin start (ms) per flow
	gbps     [3][]float64 // Flow1, Flow2, victim
	mean     [3]float64   // mean rate over the bins while all three are active (Gb/s)
	bins     int          // those bins
	pausedUs float64      // pause time of the transmitter feeding Flow1's ingress at SW1
	starved  float64      // % of those bins with the victim under a tenth of its share
}

// c1Geometry is where SW1 sits under a reading: the transmitter feeding
// Flow1's ingress at SW1 and the victim's max–min fair share (Gb/s).
func c1Geometry(reading string) (feeder portRef, share float64, sw1 string) {
	if strings.HasSuffix(reading, "-tor") {
		return portRef{"A.h0", 0}, 100.0 / 3, "A.tor0"
	}
	// A.tor0's port 4 leads to A.agg0 (TestPathPorts)
	return portRef{"A.tor0", 4}, 50, "A.agg0"
}

func readC1(run *experiment.RunRef, feeder portRef, share float64) (*c1Result, error) {
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	r := &c1Result{}
	for _, p := range s.PFC.Ports {
		if p.Node == nodeID(feeder.node) && p.Port == feeder.port {
			r.pausedUs = p.PausedUs
		}
	}
	if err := flowRates(run, r.t[:], r.gbps[:]); err != nil {
		return nil, err
	}
	var fin [3]float64
	if err := finishTimes(run, fin[:]); err != nil {
		return nil, err
	}
	starved := 0
	r.bins = activeBins(r.t[:], fin[:])
	for k := 0; k < r.bins; k++ {
		for f := range r.mean {
			r.mean[f] += r.gbps[f][k]
		}
		if r.gbps[2][k] < share/10 {
			starved++
		}
	}
	if r.bins == 0 {
		return nil, fmt.Errorf("%s: no rate bin while the three flows are active", run.Dir)
	}
	for f := range r.mean {
		r.mean[f] /= float64(r.bins)
	}
	r.starved = 100 * float64(starved) / float64(r.bins)
	return r, nil
}

// analyzeC1 adds congestion 1's table and figures to sec and measures its
// claims.
func analyzeC1(ctx *experiment.Context, sec *report.Section) ([]string, error) {
	feeder, share, sw1 := c1Geometry(ctx.Reading.ID)
	t := report.Table{ID: "c1", Title: fmt.Sprintf("Congestion 1 (SW1 = %s): mean rates (Gb/s) while the three flows are active, the victim's fair share %.4g Gb/s; pause time (µs) of %s, which feeds Flow1's ingress at SW1 (mean over seeds, range in brackets)", sw1, share, feeder),
		Columns: []string{"algorithm", "Flow1", "Flow2", "victim", "victim < share/10 (% of bins)", "feeder of Flow1's ingress paused (µs)"}}
	res := map[string][]*c1Result{}
	for _, c := range e0Algs {
		runs, err := ctx.SeedRuns("c1 cc=" + c)
		if err != nil {
			return nil, err
		}
		for _, run := range runs {
			r, err := readC1(run, feeder, share)
			if err != nil {
				return nil, err
			}
			res[c] = append(res[c], r)
		}
		col := func(f func(*c1Result) float64) string {
			var s experiment.Sample
			for _, r := range res[c] {
				s = append(s, f(r))
			}
			return cell(s, false)
		}
		t.Rows = append(t.Rows, []string{algs.Name(c), col(func(r *c1Result) float64 { return r.mean[0] }), col(func(r *c1Result) float64 { return r.mean[1] }), col(func(r *c1Result) float64 { return r.mean[2] }),
			col(func(r *c1Result) float64 { return r.starved }), col(func(r *c1Result) float64 { return r.pausedUs })})
		r := res[c][0]
		fig := report.Figure{ID: "c1-" + c + "-rates", Title: algs.Name(c) + ", congestion 1: the cross-DC flows and the intra-DC victim (first seed)", XLabel: "time (ms)", YLabel: "delivered rate (Gb/s)"}
		for f, label := range []string{"Flow1 (cross-DC)", "Flow2 (cross-DC)", "victim (intra-DC)"} {
			fig.Series = append(fig.Series, report.Series{Label: label, X: r.t[f], Y: r.gbps[f], Style: f + 1})
		}
		sec.Figures = append(sec.Figures, fig)
	}
	sec.Tables = append(sec.Tables, t)
	for _, c := range e0Algs[:2] {
		var paused, zero, victim, fair experiment.Sample
		for _, r := range res[c] {
			paused, zero = append(paused, r.pausedUs), append(zero, 0)
			victim, fair = append(victim, r.mean[2]), append(fair, share)
		}
		ctx.Measure("c1-pause-"+c, experiment.Measure{Values: []experiment.Sample{paused, zero}, Labels: []string{feeder.String() + " paused", "none"}})
		ctx.Measure("c1-victim-"+c, experiment.Measure{Values: []experiment.Sample{victim, fair}, Labels: []string{"victim", "fair share"},
			Note: fmt.Sprintf("under a tenth of its share in %.0f %% of the bins (first seed)", res[c][0].starved)})
	}
	return nil, nil
}

// e0QueueTable is congestion 2's queue per algorithm and sampled port
// (first seed; ports whose queue stayed empty left out).
func e0QueueTable(res map[string][]*e0Result) report.Table {
	f := experiment.G4Dash
	t := report.Table{ID: "queue", Title: "Congestion 2: egress queues (MB) of the sampled ports that held a queue (first seed)", Columns: []string{"algorithm", "port", "samples", "p30", "p50", "p80", "max", "> 1 MB (%)", "> 1.8 MB (%)"}}
	for _, c := range e0Algs {
		r := res[c][0]
		for _, p := range r.ports {
			q := r.q[p]
			if qmax(q) == 0 {
				continue
			}
			mb := func(x float64) string { return f(metrics.Percentile(q, x) / 1e6) }
			t.Rows = append(t.Rows, []string{algs.Name(c), p.String(), fmt.Sprint(len(q)), mb(0.3), mb(0.5), mb(0.8), f(qmax(q) / 1e6), f(100 * above(q, 1e6)), f(100 * above(q, 1.8e6))})
		}
	}
	return t
}

// e0ConvTable is the convergence of Flow1 and Flow3 per algorithm and seed.
func e0ConvTable(res map[string][]*e0Result) report.Table {
	t := report.Table{ID: "convergence", Title: "Congestion 2: Flow1 and Flow3 while both are active — bins not converged (rates differ by ≥ 10 % of their sum) and the time from which they stay converged, per seed", Columns: []string{"algorithm", "seed", "both-active bins (100 µs)", "not converged (%)", "converged from (ms)", "Flow1 finished (ms)", "Flow3 finished (ms)"}}
	for _, c := range e0Algs {
		for i, r := range res[c] {
			t.Rows = append(t.Rows, []string{algs.Name(c), fmt.Sprint(i + 1), fmt.Sprint(r.both), experiment.G4Dash(r.unconv), convText(r), experiment.G4Dash(r.finishMs[0]), experiment.G4Dash(r.finishMs[1])})
		}
	}
	return t
}

// e0Figures are each algorithm's two flow rates and the queue CDF at the
// port with the largest p30 (first seed).
func e0Figures(res map[string][]*e0Result) []report.Figure {
	cdf := report.Figure{ID: "queue-cdf", Title: "CDF of the queue at the port with the largest p30 (first seed)", XLabel: "queue length (MB)", YLabel: "fraction of samples"}
	var out []report.Figure
	for k, c := range e0Algs {
		r := res[c][0]
		_, at := r.pick(p30)
		if q := r.q[at]; len(q) > 0 {
			var x, y []float64
			for i := 0; i < 200; i++ {
				p := float64(i) / 199
				x, y = append(x, metrics.Percentile(q, p)/1e6), append(y, p)
			}
			cdf.Series = append(cdf.Series, report.Series{Label: algs.Name(c) + " " + at.String(), X: x, Y: y, Style: k + 1})
		}
		fig := report.Figure{ID: c + "-rates", Title: algs.Name(c) + ": Flow1 (cross-DC) and Flow3 (intra-DC) rates (first seed)", XLabel: "time (ms)", YLabel: "delivered rate (Gb/s)"}
		fig.Series = append(fig.Series, report.Series{Label: "Flow1 S1 → R1 (cross-DC)", X: r.t[0], Y: r.gbps[0], Style: 1}, report.Series{Label: "Flow3 S4 → R1 (intra-DC)", X: r.t[1], Y: r.gbps[1], Style: 2})
		out = append(out, fig)
	}
	return append(out, cdf)
}

// qmaxReachable is the largest egress queue PFC lets build at the
// scenario's sampled ports (MB): at a port of a switch with n ports, the
// k = n − 1 others feed it, each up to its pause threshold, its reserve
// and its headroom. Dynamic thresholds (the reference's, fabric/switch.go)
// are free >> shift_i with free = buffer − Σ headroom − Σ reserve − the
// shared use S, so S = Σ_i (F − S)·2^−shift_i = F·a/(1 + a), a =
// Σ 2^−shift_i; static thresholds are min(static, F) per ingress. SW2
// (6 ports of 100 Gb/s, 1 µs, 16 MB, headroom 3 × 12,500 B, reserve
// 4,096 B): 6.27 MB.
func qmaxReachable(s *scenario.Scenario) (float64, error) {
	g, err := s.Topology.Generate()
	if err != nil {
		return 0, err
	}
	ports := g.Ports()
	nicBps := int64(s.Topology.LinkGbps * 1e9)
	best := 0.0
	for _, qp := range s.Outputs.QueuePorts {
		node := int(qp.Node)
		if node < 0 || node >= len(ports) {
			return 0, fmt.Errorf("queue port node %d", node)
		}
		sw := switchAt(s, g.Role(node))
		var headroom, a float64
		for i, pr := range ports[node] {
			l := g.Links[pr.Link]
			h := float64(sim.BytesIn(l.Delay/sim.Nanosecond*sim.Nanosecond, l.Bps)*sw.headroomRTTs) + sw.headroomExtra
			headroom += h
			if i != int(qp.Port) {
				shift, r2 := 3, l.Bps
				for r2 > nicBps && shift > 0 {
					shift--
					r2 /= 2
				}
				a += math.Ldexp(1, -shift)
			}
		}
		reserve := float64(sw.reserve)
		n := float64(len(ports[node]))
		free := sw.buffer - headroom - n*reserve
		var shared float64
		if sw.static > 0 {
			shared = math.Min((n-1)*sw.static, free)
		} else {
			shared = free * a / (1 + a)
		}
		own := g.Links[ports[node][qp.Port].Link]
		ownHeadroom := float64(sim.BytesIn(own.Delay/sim.Nanosecond*sim.Nanosecond, own.Bps)*sw.headroomRTTs) + sw.headroomExtra
		bound := shared + (n-1)*reserve + headroom - ownHeadroom
		best = math.Max(best, math.Min(bound, sw.buffer))
	}
	return best / 1e6, nil
}

// swSettings are a switch's buffer settings (bytes).
type swSettings struct {
	buffer, static, headroomExtra float64
	headroomRTTs, reserve         int64
}

// switchAt is the switch settings of a role: switch's defaults, then the
// overrides that select the role (overrides by node are not used in E0's
// scenarios).
func switchAt(s *scenario.Scenario, role string) swSettings {
	sw := swSettings{buffer: 32 << 20, headroomRTTs: 3, reserve: 4096}
	if b := s.Switch.BufferMB; b != nil {
		sw.buffer = *b * 1e6
	} else if s.Switch.BufferMiB > 0 {
		sw.buffer = s.Switch.BufferMiB * (1 << 20)
	}
	if s.Switch.HeadroomRTTs != nil {
		sw.headroomRTTs = *s.Switch.HeadroomRTTs
	}
	if s.Switch.ReserveBytes != nil {
		sw.reserve = *s.Switch.ReserveBytes
	}
	if s.Switch.PFC == "static" {
		sw.static = s.Switch.PFCStaticKB * 1e3
	}
	for _, o := range s.Switch.Overrides {
		if o.Role != role {
			continue
		}
		if o.BufferMB != nil {
			sw.buffer = *o.BufferMB * 1e6
		}
		if o.PFC != nil && *o.PFC == "static" && o.PFCStaticMB != nil {
			sw.static = *o.PFCStaticMB * 1e6
		}
		if o.HeadroomRTTs != nil {
			sw.headroomRTTs = *o.HeadroomRTTs
		}
		if o.HeadroomExtraKB != nil {
			sw.headroomExtra = *o.HeadroomExtraKB * 1e3
		}
	}
	return sw
}
