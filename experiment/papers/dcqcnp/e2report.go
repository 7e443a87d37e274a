package dcqcnp

// E2's tables, figures and findings.

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/topo"
)

// e2Table is the sweep: the setup's constants and what the runs measured.
func e2Table(runs map[int][]*e2Run) report.Table {
	t := report.Table{ID: "pmtu", Title: "PMTU sweep (Fig. 6a) and completion times (Fig. 6b)",
		Columns: []string{"PMTU (B)", "max RTT, setup (ns)", "max BDP, setup (B)", "max RTT, measured (µs)", "p99 RTT, measured (µs)",
			"first sender done (ms)", "last sender done (ms)", "censored senders", "PFC pauses", "ccsim wall (s)"}}
	for _, m := range pmtus {
		rs := runs[m]
		if rs == nil {
			t.Rows = append(t.Rows, []string{fmt.Sprint(m), "not run"})
			continue
		}
		c := func(f func(*e2Run) float64) string { return cell(pick(rs, f)) }
		t.Rows = append(t.Rows, []string{fmt.Sprint(m), fmt.Sprintf("%.0f", rs[0].rttNs), fmt.Sprintf("%.0f", rs[0].bdpB),
			c(func(r *e2Run) float64 { return r.maxUs }), c(func(r *e2Run) float64 { return r.p99Us }),
			c(func(r *e2Run) float64 { return r.firstMs }), c(func(r *e2Run) float64 { return r.lastMs }),
			c(func(r *e2Run) float64 { return float64(r.censored) }), c(func(r *e2Run) float64 { return float64(r.pauses) }),
			c(func(r *e2Run) float64 { return r.wall })})
	}
	return t
}

// e2ClassTable is the completion time of each size class at PMTU 1,024.
func e2ClassTable(sc experiment.Scale, rs []*e2Run) report.Table {
	t := report.Table{ID: "fct_classes", Title: "Completion time by size class at PMTU 1,024 B (mean over seeds of each statistic)",
		Columns: []string{"size class", "senders", "mean FCT (ms)", "fastest (ms)", "slowest (ms)", "censored"}}
	div := sizeDiv(sc)
	for _, c := range fctClasses {
		var mean, lo, hi, cens experiment.Sample
		n := 0
		for _, r := range rs {
			var f []float64
			k := 0
			for _, s := range r.snd {
				if s.Bytes == c/div {
					f = append(f, s.FCT.Nanoseconds()/1e6)
					if s.Censored {
						k++
					}
				}
			}
			n = len(f)
			sum := 0.0
			for _, x := range f {
				sum += x
			}
			l, h := experiment.Sample(f).Span()
			mean, lo, hi, cens = append(mean, sum/float64(len(f))), append(lo, l), append(hi, h), append(cens, float64(k))
		}
		t.Rows = append(t.Rows, []string{sizeLabel(sc, c), fmt.Sprint(n), cell(mean), cell(lo), cell(hi), cell(cens)})
	}
	return t
}

// e2Figures are Fig. 6a (the setup's constants by PMTU), the measured
// maximum RTT, and Fig. 6b (each sender's FCT by PMTU, first seed).
func e2Figures(sc experiment.Scale, runs map[int][]*e2Run) []report.Figure {
	var xs, rtt, bdp, meas []float64
	fct := report.Figure{ID: "fct", Title: "Fig. 6b — completion time of each sender by PMTU (first seed)",
		XLabel: fmt.Sprintf("sender (by size: 0 = %s, 1–2 = %s, 3–19 = %s, 20–79 = %s)", sizeLabel(sc, 150_000_000), sizeLabel(sc, 200_000_000), sizeLabel(sc, 10_000_000), sizeLabel(sc, 5_000_000)),
		YLabel: "FCT (ms)"}
	var cx, cy []float64
	for i, m := range pmtus {
		rs := runs[m]
		if rs == nil {
			continue
		}
		xs = append(xs, float64(m))
		rtt, bdp = append(rtt, rs[0].rttNs), append(bdp, rs[0].bdpB)
		meas = append(meas, pick(rs, func(r *e2Run) float64 { return r.maxUs }).Mean())
		var fx, fy []float64
		for _, s := range rs[0].snd {
			fx, fy = append(fx, float64(s.Src)), append(fy, s.FCT.Nanoseconds()/1e6)
			if s.Censored {
				cx, cy = append(cx, float64(s.Src)), append(cy, s.FCT.Nanoseconds()/1e6)
			}
		}
		fct.Series = append(fct.Series, report.Series{Label: fmt.Sprintf("PMTU %d", m), X: fx, Y: fy, Points: true, Style: i + 1})
	}
	if len(cx) > 0 {
		fct.Series = append(fct.Series, report.Series{Label: fmt.Sprintf("censored at the run's end (%d)", len(cx)), X: cx, Y: cy, Points: true, Style: 7})
	}
	return []report.Figure{
		{ID: "rtt-bdp", Title: "Fig. 6a — maximum RTT of the setup by PMTU (the paper's quantity; 4,654 ns at 1,024 B)", XLabel: "PMTU (B)", YLabel: "maximum RTT (ns)", LogX: true,
			Series: []report.Series{{Label: "setup max RTT (ns)", X: xs, Y: rtt, Points: true}}},
		{ID: "bdp", Title: "Fig. 6a — maximum BDP of the setup by PMTU (52,025 B at 1,024 B)", XLabel: "PMTU (B)", YLabel: "maximum BDP (B)", LogX: true,
			Series: []report.Series{{Label: "setup max BDP (B)", X: xs, Y: bdp, Points: true, Style: 2}}},
		{ID: "rtt-measured", Title: "Largest RTT measured from ACKs by PMTU (mean over seeds)", XLabel: "PMTU (B)", YLabel: "measured maximum RTT (µs)", LogX: true,
			Series: []report.Series{{Label: "measured max RTT (µs)", X: xs, Y: meas, Points: true, Style: 3}}},
		fct,
	}
}

// hostGbps is the rate of each host's link in s (Gb/s).
func hostGbps(s *scenario.Scenario) (map[int]float64, error) {
	g, err := assemble.Graph(s)
	if err != nil {
		return nil, err
	}
	out := map[int]float64{}
	for _, l := range g.Links {
		for _, n := range []int{l.A, l.B} {
			if g.Kinds[n] == topo.Host {
				out[n] = float64(l.Bps) / 1e9
			}
		}
	}
	return out, nil
}

// e2Notes are the findings at PMTU 1,024 (rs: its runs).
func e2Notes(ctx *experiment.Context, rs []*e2Run) ([]string, error) {
	refs, err := ctx.SeedRuns(fmt.Sprintf("pmtu=%d cc=dcqcnp", checkPMTU))
	if err != nil {
		return nil, err
	}
	s := refs[0].Scenario
	r := rs[0]
	notes := []string{
		fmt.Sprintf("The paper's maximum RTT and BDP are the setup's constants, not measurements: with 1 µs links and one switch, a pair of 25 Gb/s hosts has 2·2000 + 2·⌊1024·8/25⌋ = 4,654 ns (the paper's RTT), a 100 and a 25 Gb/s host 4,408 ns, two 100 Gb/s hosts 4,162 ns, and 4,162 ns × 100 Gb/s / 8 = 52,025 B (the paper's BDP). This reading's topology gives %.0f ns and %.0f B. The largest RTT a sender measured from its ACKs is %s µs (p99 %s µs): packets waiting behind the bottleneck queue.",
			r.rttNs, r.bdpB, cell(pick(rs, func(r *e2Run) float64 { return r.maxUs })), cell(pick(rs, func(r *e2Run) float64 { return r.p99Us }))),
		"The paper attributes the two groups of 9.54 MiB flows in its Fig. 6b to different queue priorities, while it says it sends every packet at one priority (\"本文按照同一优先级发送数据包\"); ccsim uses one priority class.",
	}
	gbps, err := hostGbps(s)
	if err != nil {
		return nil, err
	}
	var slow, fast []float64
	for _, f := range r.snd {
		if f.Bytes == 10_000_000/sizeDiv(ctx.Scale) {
			if gbps[f.Src] < 100 {
				slow = append(slow, f.FCT.Nanoseconds()/1e6)
			} else {
				fast = append(fast, f.FCT.Nanoseconds()/1e6)
			}
		}
	}
	if len(slow) > 0 && len(fast) > 0 {
		sl, sh := experiment.Sample(slow).Span()
		fl, fh := experiment.Sample(fast).Span()
		notes = append(notes, fmt.Sprintf("In this reading the %s senders on 25 Gb/s links finish at %.4g–%.4g ms, those on 100 Gb/s at %.4g–%.4g ms (first seed): groups here would come from the NIC speed, not from priorities.",
			sizeLabel(ctx.Scale, 10_000_000), sl, sh, fl, fh))
	}
	ps, err := idealFCTs(s)
	if err == nil {
		var p5, p200 float64
		for i, f := range r.snd {
			switch f.Bytes * sizeDiv(ctx.Scale) {
			case 5_000_000:
				p5 = ps[i]
			case 200_000_000:
				p200 = ps[i]
			}
		}
		notes = append(notes, fmt.Sprintf("\"Proportional\" cannot hold literally with a simultaneous start on one bottleneck: under ideal sharing of the receiver link the %s senders (40× the bytes of a %s one) finish only %.3g× later (%.4g vs %.4g ms). fct-size therefore checks the order of the size classes.",
			sizeLabel(ctx.Scale, 200_000_000), sizeLabel(ctx.Scale, 5_000_000), p200/p5, p200/1e6, p5/1e6))
	}
	return notes, nil
}
