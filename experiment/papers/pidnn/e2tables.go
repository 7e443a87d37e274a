package pidnn

// E2's tables and figure: Table 8 beside the paper, the censored flows per
// bin, the p95 figure and the runs' cost.

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

func sizeLabel(b int64) string {
	switch {
	case b >= 1_000_000:
		return fmt.Sprintf("%.3gM", float64(b)/1e6)
	case b >= 1000:
		return fmt.Sprintf("%.3gK", float64(b)/1e3)
	}
	return fmt.Sprintf("%dB", b)
}

// p95Cell is the mean p95 over the seeds, "≥" when a lower bound.
func (d e2Data) p95Cell(c string, k int) string {
	if !d.have(c) {
		return "—"
	}
	s, low := d.p95s(c, k)
	t := fmt.Sprintf("%.3f", s.Mean())
	if low {
		t = "≥" + t
	}
	return t
}

// firstRun is any algorithm's first run (the bins' sizes: the workload is
// the same for every algorithm of a seed).
func (d e2Data) firstRun() *e2Run {
	for _, c := range e2Algs {
		if d.have(c) {
			return d[c][0]
		}
	}
	return nil
}

// table8Table is Table 8: the p95 slowdown per size bin (the mean over the
// seeds), ccsim beside the paper for each algorithm.
func table8Table(d e2Data) report.Table {
	cols := []string{"bin", "size (ccsim, seed 1)", "size (paper)"}
	for _, c := range e2Algs {
		cols = append(cols, algs.Name(c)+", ccsim", algs.Name(c)+", paper")
	}
	t := report.Table{ID: "table8", Title: "Table 8 — 95th-percentile FCT slowdown of the background flows by size bin (ccsim: mean over the seeds; ≥: a lower bound, censored flows), ccsim beside the paper", Columns: cols}
	first := d.firstRun()
	for k := 1; k <= nBins; k++ {
		size := "—"
		if first != nil {
			size = sizeLabel(first.bins[k-1].maxSize)
		}
		row := []string{fmt.Sprint(k), size, table8[k-1].label}
		for i, c := range e2Algs {
			row = append(row, d.p95Cell(c, k), fmt.Sprintf("%.3f", table8[k-1].p95[i]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// censoredTable is, per bin and algorithm, the background flows counted
// censored at the run's end (summed over the seeds) beside the bin's
// flows: the count beside Table 8's statistic.
func censoredTable(d e2Data) report.Table {
	cols := []string{"bin", "flows (all seeds)"}
	for _, c := range e2Algs {
		cols = append(cols, algs.Name(c))
	}
	t := report.Table{ID: "censored", Title: "Background flows unfinished at the run's end, counted censored (summed over the seeds), per size bin and algorithm", Columns: cols}
	for k := 1; k <= nBins; k++ {
		n := 0
		for _, r := range d[e2AlgsRead(d)] {
			n += r.bins[k-1].n
		}
		row := []string{fmt.Sprint(k), fmt.Sprint(n)}
		for _, c := range e2Algs {
			if !d.have(c) {
				row = append(row, "—")
				continue
			}
			cens := 0
			for _, r := range d[c] {
				cens += r.bins[k-1].censored
			}
			row = append(row, fmt.Sprint(cens))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// e2AlgsRead is the first algorithm that was read ("" if none).
func e2AlgsRead(d e2Data) string {
	for _, c := range e2Algs {
		if d.have(c) {
			return c
		}
	}
	return ""
}

// p95Figure plots Table 8, ccsim solid (the mean over the seeds) and the
// paper dashed.
func p95Figure(d e2Data, reading string) report.Figure {
	fig := report.Figure{ID: "p95", Title: fmt.Sprintf("95th-percentile slowdown by size bin (solid: ccsim, reading %s, mean over the seeds; dashed: paper)", reading),
		XLabel: "bin (5 % of the flows each, by size)", YLabel: "p95 slowdown", LogY: true}
	for i, c := range e2Algs {
		var x, y, py []float64
		for k := 1; k <= nBins; k++ {
			x = append(x, float64(k))
			py = append(py, table8[k-1].p95[i])
			if d.have(c) {
				s, _ := d.p95s(c, k)
				y = append(y, s.Mean())
			}
		}
		if d.have(c) {
			fig.Series = append(fig.Series, report.Series{Label: algs.Name(c), X: x, Y: y, Style: i + 1, Points: true})
		}
		fig.Series = append(fig.Series, report.Series{Label: algs.Name(c) + " (paper)", X: x, Y: py, Style: i + 1, Dashed: true})
	}
	return fig
}

// e2Cost is the runs' flows, censored flows, simulated end, events and wall
// time, with a note for each run whose background flows did not all
// finish.
func e2Cost(d e2Data) (report.Table, []string) {
	var notes []string
	cost := report.Table{ID: "cost", Title: "E2 runs: flows, bursts, censored flows, wall time and events", Columns: []string{"algorithm", "seed", "background flows", "incast flows", "bursts", "unfinished (censored)", "simulated end (ms)", "events", "wall (s)", "events/s"}}
	for _, c := range e2Algs {
		for _, r := range d[c] {
			cost.Rows = append(cost.Rows, []string{algs.Name(c), fmt.Sprint(r.seed), fmt.Sprint(r.background), fmt.Sprint(r.incast), fmt.Sprint(r.bursts), fmt.Sprint(r.unfinishedAll), experiment.G4Dash(r.simEndMs),
				fmt.Sprint(r.events), fmt.Sprintf("%.1f", r.wall), experiment.EventsPerSecond(r.events, r.wall)})
			if r.censored == 0 {
				continue
			}
			why := ""
			if r.drops > 0 && r.dataDropped == 0 {
				// every payload byte arrived: the flows wait for a final ACK that a switch dropped
				why = fmt.Sprintf(" Every payload byte was delivered; the run dropped %d packets, all ACKs or other control packets: the NIC sends ACKs in the high-priority class that PFC never pauses, while switches admit and queue them in the data class (the reference simulator's behaviour, docs/reference-simulator.md §11 D5), so a paused ToR ingress can overflow its headroom with ACKs; with PFC on there is no retransmission timeout, so a flow whose last ACK is lost never completes (as in the reference). switch.ctrl_high_prio: true avoids it.", r.drops)
			}
			notes = append(notes, fmt.Sprintf("%s, seed %d: %d background flows did not finish by the stop time; they count censored at the stop (slowdown at least that then), so a bin's p95 is a lower bound (≥) where one of them can move it (the censored table).%s", algs.Name(c), r.seed, r.censored, why))
		}
	}
	return cost, notes
}
