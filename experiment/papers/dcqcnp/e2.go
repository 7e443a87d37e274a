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
		Seeds: experiment.Seeds(sc),
	}.Expand()
}

func e2() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e2",
		Title:    "PMTU sweep of the 80-to-1 incast (Figs. 5, 6)",
		SetupAt:  e2Setup,
		Claims:   e2Claims(),
		Readings: incastReadings(),
		Checks:   incastChecks(),
		Runs:     e2Runs,
		Analyze:  analyzeE2,
	}
}

// incastSetup describes the incast at a scale (E2 and E3).
func incastSetup(sc experiment.Scale) string {
	div := sizeDiv(sc)
	mb := func(b int64) string { return sizeLabel(sc, b) }
	s := fmt.Sprintf(`The paper's NS-3 setup: 80 senders and one receiver on one switch (40 ports, 4 priority classes, 32 MiB buffer), links a mix of 100 Gb/s and 25 Gb/s. ccsim: a star (the 40-port limit cannot hold 81 hosts and is ignored; the printed 4,654 ns rules out any multi-switch layout), 1 µs per link, dynamic PFC, one priority class. Readings (docs/reproduce.md, paper 004): mix (primary) — one flow (QP) per sender, the receiver and the odd senders on 25 Gb/s, the even ones on 100 Gb/s; mix1 — the receiver and sender 79 on 25 Gb/s; rx25 — only the receiver on 25 Gb/s; qp4000 — %d QPs per sender, only the receiver on 25 Gb/s. The checks derive the paper's printed maximum RTT and BDP from each reading's topology. All flows start together: 1 × %s, 2 × %s, 17 × %s, 60 × %s`,
		experiment.AtScale(sc, 5, 50), mb(150_000_000), mb(200_000_000), mb(10_000_000), mb(5_000_000))
	if div == 1 {
		s += " (the paper's 143.05, 190.73, 9.54, 4.77 MiB; 972.89 MiB in all)."
	} else {
		s += fmt.Sprintf(" (the paper's sizes ÷ %d; the run stops at 50 ms).", div)
	}
	return s + ` DCQCN-p with its defaults, a CNP per marked packet, switch ECN K_min 100 KiB, K_max 400 KiB, P_max 0.1 (§3.1), minimum rate 100 Mb/s (the paper gives none; the default of the HPCC ns-3 simulator built on its platform ns3-rdma). RED marking draws from the seed: ` + seedsText(sc) + `.`
}

func e2Setup(sc experiment.Scale) string {
	return incastSetup(sc) + `

PMTU ∈ {256, 512, 1024, 2048, 4096} B, read as the payload per packet (the paper: "the largest payload the transport carries in one transmission"); headers (48 B) come on top. The paper's maximum RTT and BDP at PMTU 1,024 (4,654 ns, "52,025") are the setup's constants — the start-up printout of the HPCC ns-3 simulator (max over host pairs of 2·delay + Σ ⌊payload·8/rate⌋, and that × the path's slowest link) — so ccsim compares the topology's constants (topo.Graph.MaxRTT) with them and shows the largest RTT a sender measured from its ACKs separately. Completion times: a sender's last QP finishing (an unfinished sender counts censored at the run's end, docs/metrics.md §5; the count is shown). ccsim's wall-clock time for the run is shown beside the paper's NS-3 "simulation time".`
}

// fctClasses are the size classes of the senders (paper bytes, ascending).
var fctClasses = []int64{5_000_000, 10_000_000, 150_000_000, 200_000_000}

func e2Claims() []experiment.Claim {
	return []experiment.Claim{
		{ID: "max-rtt-1024", Description: "maximum RTT at PMTU 1,024 B (§3.1, §4); ccsim: the topology's maximum RTT at that payload (the measured maximum is in the table)", PaperValue: "4654", Unit: "ns",
			Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 4654, Tol: &experiment.Tolerance{Abs: 0.5}},
		{ID: "max-bdp-1024", Description: "maximum BDP at PMTU 1,024 B (printed \"52 025 MiB/s\", a unit error); ccsim: the topology's maximum BDP", PaperValue: "52025", Unit: "B",
			Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 52025, Tol: &experiment.Tolerance{Abs: 0.5}},
		{ID: "runtime-1024", Description: "simulation time at PMTU 1,024 B (\"NS-3 的仿真时间为 45.65 s\": NS-3 on an unknown machine; ccsim's wall time here)", PaperValue: "45.65", Unit: "s", Kind: experiment.Number},
		{ID: "rtt-grows", Description: "a larger PMTU gives a larger maximum RTT (§3.1: the PMTU trades maximum delay against transmission efficiency); ccsim: the topology's maximum RTT at each PMTU", PaperValue: "yes", Unit: "ns",
			Kind: experiment.Order, Rel: experiment.Less},
		{ID: "fct-size", Description: "FCT grows with the bytes sent (§3.1: \"发送数据的字节数与流完成时间成正比\", proportional; checked as the order of the size classes' mean FCTs, 5 < 10 < 150 < 200 MB, PMTU 1,024)", PaperValue: "yes", Unit: "ms",
			Kind: experiment.Order, Rel: experiment.Less},
		{ID: "fct-groups", Description: "the 17 senders of 9.54 MiB finish in two groups (§3.1, attributed to queue priorities although \"本文按照同一优先级发送数据包\"); ccsim: the widest gap between their sorted FCTs is wider than either group's own spread (PMTU 1,024)", PaperValue: "yes", Unit: "ms",
			Kind: experiment.Direction, Rel: experiment.Greater},
	}
}

// e2Run is what one run of the sweep gives.
type e2Run struct {
	rttNs, bdpB      float64 // the topology's constants at the run's PMTU
	maxUs, p99Us     float64 // measured from ACKs
	snd              []senderFlow
	firstMs, lastMs  float64
	pauses, censored int
	wall             float64
}

func readE2Run(run *experiment.RunRef) (*e2Run, error) {
	sum, err := run.Summary()
	if err != nil {
		return nil, err
	}
	recs, err := run.Flows()
	if err != nil {
		return nil, err
	}
	r := &e2Run{maxUs: sum.RTT.MaxUs, p99Us: sum.RTT.P99Us, pauses: int(sum.PFC.PauseFrames), wall: sum.WallSeconds}
	if r.rttNs, r.bdpB, err = setupRTT(run.Scenario, run.Scenario.Host.PayloadBytes); err != nil {
		return nil, err
	}
	r.snd = senderFlows(recs, sum.End())
	r.censored = censored(r.snd)
	r.firstMs = math.Inf(1)
	for _, s := range r.snd {
		ms := s.Done().Nanoseconds() / 1e6
		r.firstMs, r.lastMs = min(r.firstMs, ms), max(r.lastMs, ms)
	}
	return r, nil
}

// fctGroups splits FCTs at their widest gap: the gap and the larger of the
// two groups' own ranges.
func fctGroups(fcts []float64) (gap, spread float64) {
	f := slices.Clone(fcts)
	slices.Sort(f)
	if len(f) < 2 {
		return 0, 0
	}
	at := 0
	for i := 1; i+1 < len(f); i++ {
		if f[i+1]-f[i] > f[at+1]-f[at] {
			at = i
		}
	}
	return f[at+1] - f[at], max(f[at]-f[0], f[len(f)-1]-f[at+1])
}

// classMeans are the mean FCT (ms) of each size class in fctClasses (paper
// bytes ÷ div).
func classMeans(snd []senderFlow, div int64) []float64 {
	out := make([]float64, len(fctClasses))
	for i, c := range fctClasses {
		n := 0
		for _, s := range snd {
			if s.Bytes == c/div {
				out[i] += s.FCT.Nanoseconds() / 1e6
				n++
			}
		}
		out[i] /= float64(n)
	}
	return out
}

func analyzeE2(ctx *experiment.Context) (*report.Section, error) {
	runs := map[int][]*e2Run{}
	var errs []string
	for _, m := range pmtus {
		refs, err := ctx.SeedRuns(fmt.Sprintf("pmtu=%d cc=dcqcnp", m))
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		for _, ref := range refs {
			r, err := readE2Run(ref)
			if err != nil {
				return nil, fmt.Errorf("pmtu %d: %w", m, err)
			}
			runs[m] = append(runs[m], r)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no run finished: %v", errs)
	}
	sec := &report.Section{Tables: []report.Table{e2Table(runs)}}
	if rs := runs[checkPMTU]; rs != nil {
		for id, m := range e2Measures(ctx.Scale, runs) {
			ctx.Measure(id, m)
		}
		sec.Tables = append(sec.Tables, e2ClassTable(ctx.Scale, rs))
		notes, err := e2Notes(ctx, rs)
		if err != nil {
			return nil, err
		}
		sec.Notes = notes
	}
	sec.Figures = e2Figures(ctx.Scale, runs)
	if len(errs) > 0 {
		sec.Notes = append(sec.Notes, "runs missing: "+fmt.Sprint(errs))
	}
	return sec, nil
}

// pick is one quantity of each run as a sample over the seeds.
func pick(rs []*e2Run, f func(*e2Run) float64) experiment.Sample {
	s := make(experiment.Sample, len(rs))
	for i, r := range rs {
		s[i] = f(r)
	}
	return s
}

// e2Measures measures the claims (those at PMTU 1,024 and, when every PMTU
// ran, rtt-grows).
func e2Measures(sc experiment.Scale, runs map[int][]*e2Run) map[string]experiment.Measure {
	ms := map[string]experiment.Measure{}
	rs := runs[checkPMTU]
	r0 := rs[0]
	ms["max-rtt-1024"] = experiment.Measure{Mag: []experiment.Sample{{r0.rttNs}},
		Text: fmt.Sprintf("%.0f (setup); measured max %s µs", r0.rttNs, cell(pick(rs, func(r *e2Run) float64 { return r.maxUs }))),
		Note: "the setup's maximum RTT (2·delay + Σ ⌊1024·8/rate⌋ over the slowest pair); the measured maximum is an ACK's RTT behind the bottleneck queue"}
	ms["max-bdp-1024"] = experiment.Measure{Mag: []experiment.Sample{{r0.bdpB}}, Text: fmt.Sprintf("%.0f (setup)", r0.bdpB),
		Note: "max over host pairs of the pair's RTT × its slowest link: 4,162 ns × 100 Gb/s / 8 for two 100 Gb/s hosts"}
	wall := pick(rs, func(r *e2Run) float64 { return r.wall })
	ms["runtime-1024"] = experiment.Measure{Text: cell(wall) + " (ccsim wall)", Note: "one core of this machine; NS-3's machine is unknown, and \"仿真时间\" may also mean the simulated duration"}
	div := sizeDiv(sc)
	classes := make([]experiment.Sample, len(fctClasses))
	labels := make([]string, len(fctClasses))
	for i := range fctClasses {
		classes[i] = pick(rs, func(r *e2Run) float64 { return classMeans(r.snd, div)[i] })
		labels[i] = sizeLabel(sc, fctClasses[i])
	}
	cens := pick(rs, func(r *e2Run) float64 { return float64(r.censored) })
	ms["fct-size"] = experiment.Measure{Values: classes, Labels: labels, Note: fmt.Sprintf("mean FCT per size class (ms); censored senders %s", cell(cens))}
	var gap, spread experiment.Sample
	for _, r := range rs {
		var f []float64
		for _, s := range r.snd {
			if s.Bytes == 10_000_000/div {
				f = append(f, s.FCT.Nanoseconds()/1e6)
			}
		}
		g, sp := fctGroups(f)
		gap, spread = append(gap, g), append(spread, sp)
	}
	ms["fct-groups"] = experiment.Measure{Values: []experiment.Sample{gap, spread}, Labels: []string{"widest gap", "wider group's spread"},
		Note: "ms, from the 17 senders' FCTs (censored included); every packet has one priority"}
	if len(runs) == len(pmtus) {
		var rtts []experiment.Sample
		var lab []string
		for _, m := range pmtus {
			rtts = append(rtts, experiment.Sample{runs[m][0].rttNs})
			lab = append(lab, fmt.Sprintf("PMTU %d", m))
		}
		ms["rtt-grows"] = experiment.Measure{Values: rtts, Labels: lab, Note: "the topology's maximum RTT (ns) at each PMTU"}
	}
	return ms
}
