package dcqcnp

// E2: the PMTU sweep of the 80-to-1 incast with DCQCN-p (the paper's
// Figs. 5, 6).

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// pmtus are the PMTUs of the sweep (B of payload per packet).
var pmtus = []int{256, 512, 1024, 2048, 4096}

func e2Runs(sc experiment.Scale) []experiment.RunSpec {
	ax := experiment.Axis{Name: "pmtu"}
	for _, m := range pmtus {
		ax.Values = append(ax.Values, experiment.Value{Label: fmt.Sprint(m), Patch: map[string]any{"host": map[string]any{"payload_bytes": m}}})
	}
	return experiment.Sweep{
		Base:  base,
		Patch: experiment.Merge(scalePatch(sc), map[string]any{"params": map[string]any{"dcqcnp": dcqcnpParams}}),
		Axes:  []experiment.Axis{ax},
		CC:    []string{"dcqcnp"},
	}.Expand()
}

func e2() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e2",
		Title: "PMTU sweep of the 80-to-1 incast (Figs. 5, 6)",
		Setup: `The paper's NS-3 setup: 80 senders and one receiver on one switch (40 ports, 4 priority classes, 32 MiB buffer), links a mix of 100 Gb/s and 25 Gb/s. Interpretation: a star with the senders on 100 Gb/s links and the receiver on a 25 Gb/s link (the paper attributes extra congestion events to "moving from the 100 Gb/s to the 25 Gb/s network"), 1 µs per link, dynamic PFC, one priority class; the 40-port limit is ignored. All flows start together: 1 × 150 MB, 2 × 200 MB, 17 × 10 MB, 60 × 5 MB (the paper's 143.05, 190.73, 9.54, 4.77 MiB; 972.89 MiB in all), each sender's bytes split over 50 QPs (the "4,000 scheduled flows"). DCQCN-p with its defaults, switch ECN K_min 100 KiB, K_max 400 KiB, P_max 0.1 (§3.1), a CNP per marked packet; its minimum rate is ns3-rdma's default MinRate of 100 Mb/s (the paper's platform; the paper gives none).

PMTU ∈ {256, 512, 1024, 2048, 4096} B, read as the payload per packet (the paper: "the largest payload the transport carries in one transmission"); headers (48 B) come on top. Metrics: the maximum RTT any sender measured (from ACKs), the maximum BDP = maximum RTT × the 25 Gb/s bottleneck, the 80 senders' completion times (a sender's last QP finishing), and ccsim's wall-clock time for the run beside the paper's NS-3 run time.`,
		Claims: []experiment.Claim{
			{ID: "max-rtt-1024", Description: "maximum RTT at PMTU 1024 B", PaperValue: "4654", Unit: "ns"},
			{ID: "max-bdp-1024", Description: "maximum BDP at PMTU 1024 B (printed \"52,025 MiB/s\", a unit error; ccsim: max RTT × 25 Gb/s)", PaperValue: "52025 (sic)", Unit: "KB"},
			{ID: "runtime-1024", Description: "simulation run time at PMTU 1024 B (NS-3 vs ccsim, different machines)", PaperValue: "45.65", Unit: "s"},
			{ID: "rtt-grows", Description: "a larger PMTU gives a larger maximum RTT (the delay side of the PMTU trade-off)", PaperValue: "yes", Verdict: true},
			{ID: "fct-size", Description: "flow completion time is proportional to bytes (senders' FCTs ordered by their sizes)", PaperValue: "yes", Verdict: true},
			{ID: "fct-groups", Description: "the 17 senders of 9.54 MiB finish in two groups (the paper: different queue priorities) although all packets use one priority", PaperValue: "yes", Verdict: true},
		},
		Runs:    e2Runs,
		Analyze: analyzeE2,
	}
}

func analyzeE2(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	tab := report.Table{ID: "pmtu", Title: "PMTU sweep (Fig. 6a) and completion times (Fig. 6b)",
		Columns: []string{"PMTU (B)", "max RTT (µs)", "p99 RTT (µs)", "max BDP (KB)", "first sender done (ms)", "last sender done (ms)", "10 MB senders: FCT spread (%)", "PFC pauses", "events", "ccsim wall (s)"}}
	var xs, maxRTT, maxBDP []float64
	fctFig := report.Figure{ID: "fct", Title: "Fig. 6b — completion time of each sender by PMTU", XLabel: "sender (by size: 0 = 150 MB, 1–2 = 200 MB, 3–19 = 10 MB, 20–79 = 5 MB)", YLabel: "FCT (ms)"}
	claims := map[string]report.Claim{}
	rttGrows := true
	prevRTT := 0.0
	ok := 0
	for i, m := range pmtus {
		run, err := ctx.Run(fmt.Sprintf("pmtu=%d cc=dcqcnp", m))
		if err != nil {
			tab.Rows = append(tab.Rows, []string{fmt.Sprint(m), "run failed: " + err.Error()})
			rttGrows = false
			continue
		}
		sum, err := run.Summary()
		if err != nil {
			return nil, err
		}
		recs, err := run.Flows()
		if err != nil {
			return nil, err
		}
		snd := senderFlows(recs)
		var fx, fy []float64
		var first, last float64 = math.Inf(1), 0
		var mid []float64
		for _, s := range snd {
			ms := float64(s.FCT) / 1e9
			fx = append(fx, float64(s.Src))
			fy = append(fy, ms)
			if s.FCT > 0 {
				first, last = min(first, ms), max(last, ms)
			}
			if s.Src >= 3 && s.Src < 20 {
				mid = append(mid, ms)
			}
		}
		ordered := sizeOrdered(snd)
		spread := 0.0
		if len(mid) > 0 {
			lo, hi := slices.Min(mid), slices.Max(mid)
			spread = 100 * (hi - lo) / lo
		}
		fctFig.Series = append(fctFig.Series, report.Series{Label: fmt.Sprintf("PMTU %d", m), X: fx, Y: fy, Points: true, Style: i + 1})
		bdpKB := sum.RTT.MaxUs * 1e-6 * 25e9 / 8 / 1e3
		xs = append(xs, float64(m))
		maxRTT = append(maxRTT, sum.RTT.MaxUs)
		maxBDP = append(maxBDP, bdpKB)
		if sum.RTT.MaxUs < prevRTT {
			rttGrows = false
		}
		prevRTT = sum.RTT.MaxUs
		ok++
		tab.Rows = append(tab.Rows, []string{fmt.Sprint(m), experiment.G4(sum.RTT.MaxUs), experiment.G4(sum.RTT.P99Us), experiment.G4(bdpKB), experiment.G4(first), experiment.G4(last), experiment.G4(spread),
			fmt.Sprint(sum.PFC.PauseFrames), fmt.Sprint(sum.Events), fmt.Sprintf("%.2f", sum.WallSeconds)})
		if m == 1024 {
			claims["max-rtt-1024"] = report.Claim{CCSimValue: fmt.Sprintf("%.0f", sum.RTT.MaxUs*1e3),
				Note: "ccsim's maximum is the RTT of a packet that waited behind the bottleneck queue; the paper's 4,654 ns is about the base RTT of the path (4.4 µs here), i.e. no queueing at all"}
			claims["max-bdp-1024"] = report.Claim{CCSimValue: fmt.Sprintf("%.1f", bdpKB)}
			claims["runtime-1024"] = report.Claim{CCSimValue: fmt.Sprintf("%.2f", sum.WallSeconds),
				Note: fmt.Sprintf("%d events, one core of this machine; the paper's machine is unknown", sum.Events)}
			claims["fct-size"] = report.Verdict(fmt.Sprintf("size classes finish in size order: %v", ordered), ordered, "")
			claims["fct-groups"] = report.Verdict(fmt.Sprintf("spread of the 17 senders' FCTs %.2f %%", spread), spread > 10,
				"with one priority class the equal-size senders share the bottleneck equally; the paper's two groups came from different priorities, contradicting its own \"same priority for all packets\"")
		}
	}
	if ok == len(pmtus) {
		claims["rtt-grows"] = report.Verdict(fmt.Sprintf("max RTT by PMTU: %s µs", joinF(maxRTT)), rttGrows, "")
	}
	sec.Tables = append(sec.Tables, tab)
	sec.Figures = append(sec.Figures,
		report.Figure{ID: "rtt-bdp", Title: "Fig. 6a — maximum RTT by PMTU", XLabel: "PMTU (B)", YLabel: "maximum RTT (µs)", LogX: true,
			Series: []report.Series{{Label: "max RTT (µs)", X: xs, Y: maxRTT, Points: true}}},
		report.Figure{ID: "bdp", Title: "Fig. 6a — maximum BDP (max RTT × 25 Gb/s) by PMTU", XLabel: "PMTU (B)", YLabel: "maximum BDP (KB)", LogX: true,
			Series: []report.Series{{Label: "max BDP (KB)", X: xs, Y: maxBDP, Points: true, Style: 2}}},
		fctFig)
	sec.Claims = ctx.Claims(claims)
	sec.Notes = append(sec.Notes,
		"4,000 QPs, each paced at no less than the 100 Mb/s minimum rate, offer at least 400 Gb/s to a 25 Gb/s link: the rate control cannot bring the aggregate down to the bottleneck, so the queue fills to the PFC threshold and PFC paces the senders. The maximum RTT is then the time to drain the PFC-bounded queue — milliseconds, not the paper's 4.65 µs.")
	return sec, nil
}

// sizeOrdered reports whether the senders' FCTs are ordered by size: each
// size class finishes after every smaller one (5 MB < 10 MB < 150 MB <
// 200 MB).
func sizeOrdered(snd []senderFlow) bool {
	classMax := map[int64]float64{}
	classMin := map[int64]float64{}
	for _, s := range snd {
		ms := float64(s.FCT) / 1e9
		if _, ok := classMin[s.Bytes]; !ok {
			classMin[s.Bytes] = ms
		}
		classMax[s.Bytes] = max(classMax[s.Bytes], ms)
		classMin[s.Bytes] = min(classMin[s.Bytes], ms)
	}
	sizes := make([]int64, 0, len(classMax))
	for b := range classMax {
		sizes = append(sizes, b)
	}
	slices.Sort(sizes)
	for k := 1; k < len(sizes); k++ {
		if classMin[sizes[k]] < classMax[sizes[k-1]] {
			return false
		}
	}
	return true
}

// joinF lists values with four significant digits, comma-separated.
func joinF(xs []float64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.4g", x)
	}
	return s
}
