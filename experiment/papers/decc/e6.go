package decc

// E6: the OSU all-to-all on the fat-tree (the paper's Fig. 9, §4.3).

import (
	"fmt"
	"math"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// e6Sizes are the message sizes: 32 KB doubling to 2 MB at the paper's
// scale (the paper starts at 32 KB and quotes 1024 KB; "1 MB+" is read as
// one more doubling), 32 KB and 1 MB at quick scale. KB = KiB, as OSU's.
func e6Sizes(sc experiment.Scale) []int64 {
	return experiment.AtScale(sc, []int64{32 << 10, mib}, []int64{32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, mib, 2 * mib})
}

// e6StopMs bounds a run: eight times the n − 1 rounds at line rate (the
// tree is 4:1 oversubscribed), at least 1 ms. The run ends earlier when
// every message has completed.
func e6StopMs(n int, size int64) float64 {
	return math.Max(1, 8*float64(n-1)*float64(size)*8/400e9*1e3)
}

func e6() *experiment.Experiment {
	return &experiment.Experiment{
		ID:      "e6",
		Title:   "OSU all-to-all on the fat-tree (Fig. 9)",
		SetupAt: e6Setup,
		Claims: []experiment.Claim{
			{ID: "decc-1mib", Description: "DECC's average message completion time at 1024 KB", PaperValue: "21.59", Unit: "µs",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 21.59},
			{ID: "bolt-1mib", Description: "Bolt's average message completion time at 1024 KB (the runner-up)", PaperValue: "24.32", Unit: "µs",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 24.32},
			{ID: "decc-below-bolt", Description: "DECC's average message completion time at 1024 KB is below Bolt's (−11.23 %)", PaperValue: "yes",
				Kind: experiment.Direction, Rel: experiment.Less},
			{ID: "adpg-worst", Description: "ADPG has the highest average message completion time of the baselines at every message size (§4.3: worst throughout)", PaperValue: "every size", Unit: "sizes",
				Kind: experiment.Count, Need: 1, Of: 1},
		},
		Readings: []experiment.Reading{
			{ID: "sendrecv", Primary: true, Title: "each round waits for its send and its receive (MPI_Sendrecv)", Why: sendrecvWhy},
			{ID: "send-only", Title: "each round waits for its own send only", Why: sendOnlyWhy,
				PatchRun: func(sc experiment.Scale, r experiment.RunSpec) map[string]any { return e6Workload(sc, r, false) }},
			{ID: "short-links", Title: "each round waits for its send and its receive; 0.3-µs links", Why: shortLinksWhy,
				Patch: func(experiment.Scale) map[string]any {
					return map[string]any{"topology": map[string]any{"link_delay_ns": 300}}
				}},
		},
		Checks:  append(fatTreeChecks(), osuChecks()...),
		Runs:    e6Runs,
		Analyze: analyzeE6,
	}
}

func e6Setup(sc experiment.Scale) string {
	t := treeAt(sc)
	return fmt.Sprintf(`The two-level fat-tree (%s), lossy. MPI_Alltoall (OSU osu_alltoall) as the pairwise exchange (decc.md §2.6): %d − 1 rounds; in round r node i sends one message to node (i + r) mod %d; node i's round r + 1 starts when both its send and its receive of round r have completed (MPI_Sendrecv: a flow with two predecessors; reading send-only: its send alone; reading short-links: 0.3-µs links, the largest the paper's 21.59 µs allows). Message sizes %v bytes, one seed (the schedule is deterministic; a 2-MB run moves 8.4 GB). Metric: average message completion time (post → the ACK of its last byte), over all messages; the collective's time (first post → last completion) is shown too. Baselines HPCC, Bolt, ADPG, SPINE, Aurora (ADPG and Aurora with the DNN decision lag). DECC: the decc sender (the shipped trees), deciding in 1.53 µs (Table 3).`,
		treeText(t), t.hosts(), t.hosts(), e6Sizes(sc))
}

// e6Runs: size × baseline × seed.
func e6Runs(sc experiment.Scale) []experiment.RunSpec {
	t := treeAt(sc)
	var runs []experiment.RunSpec
	for _, size := range e6Sizes(sc) {
		ax := experiment.Axis{Name: "size", Values: []experiment.Value{{Label: sizeLabel(size), Patch: flowsPatch(pairwise(t.hosts(), size, true))}}}
		runs = append(runs, experiment.Sweep{Base: fattree, Patch: treePatch(sc, e6StopMs(t.hosts(), size)), Axes: []experiment.Axis{ax},
			CC: withDECC.CCs(), CCPatch: ccPatch(true), Seeds: oneSeed}.Expand()...)
	}
	return runs
}

// e6Workload is the pairwise exchange of an E6 run (its key names the
// size) with or without the receive barrier.
func e6Workload(sc experiment.Scale, r experiment.RunSpec, recv bool) map[string]any {
	for _, size := range e6Sizes(sc) {
		if strings.HasPrefix(r.Key, "size="+sizeLabel(size)+" ") {
			return flowsPatch(pairwise(treeAt(sc).hosts(), size, recv))
		}
	}
	return nil // not an E6 run key: no change (cannot happen)
}

const (
	sendrecvWhy   = `OSU's osu_alltoall calls MPI_Alltoall; its pairwise-exchange algorithm is one MPI_Sendrecv per round (decc.md §2.6's interpretation), which returns when both the round's send and its receive are done: a node starts round r + 1 only when its message of round r has been delivered and the message addressed to it in round r has arrived (here: acknowledged to its sender).`
	sendOnlyWhy   = `A node posts its next send as soon as its own send completes, ignoring its receive (the first increment's reading, before chained flows could wait for two predecessors): more messages overlap, so per-message times are longer.`
	shortLinksWhy = `The paper's 21.59 µs per 1024-KB message is below one such message alone between two nodes of one ToR with decc.md's 1-µs links (check osu-1mib-alone: 22.99 µs); it fits links of at most 0.3 µs. This reading sets every link's propagation to 0.3 µs, the largest the printed number allows, keeping the receive barrier.`
)

// sizeLabel names a message size in KB (KiB), as the paper's axis.
func sizeLabel(size int64) string { return fmt.Sprintf("%dKB", size>>10) }

// osuPoint is one (size, baseline) point over its seeds: the mean message
// completion time and the collective's time, µs; censored marks a point
// where some message had not completed when the run stopped (its means are
// then lower bounds).
type osuPoint struct {
	msg, total experiment.Sample
	censored   bool
}

// readOSU reads a run key's point over its seeds.
func readOSU(ctx *experiment.Context, key string) (*osuPoint, error) {
	runs, err := ctx.SeedRuns(key)
	if err != nil {
		return nil, err
	}
	p := &osuPoint{}
	for _, r := range runs {
		flows, err := r.Flows()
		if err != nil {
			return nil, err
		}
		sum, n := 0.0, 0
		var last float64
		for _, f := range flows {
			end := float64(r.Scenario.StopMs) * 1e3 // censored at the run's end
			if f.Done {
				end = f.Finish.Microseconds()
			} else {
				p.censored = true
			}
			if f.NotStarted {
				continue // never posted: counted by censored only
			}
			sum += end - f.Start.Microseconds()
			n++
			last = math.Max(last, end)
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no message was posted", key)
		}
		p.msg = append(p.msg, sum/float64(n))
		p.total = append(p.total, last)
	}
	return p, nil
}

func analyzeE6(ctx *experiment.Context) (*report.Section, error) {
	sizes := e6Sizes(ctx.Scale)
	pts := map[int64]map[string]*osuPoint{}
	var notes []string
	t := report.Table{ID: "osu", Title: "OSU all-to-all: average message completion time and collective time (µs)", Columns: []string{"size"}}
	for _, a := range withDECC {
		t.Columns = append(t.Columns, a.Name+" message", a.Name+" collective")
	}
	fig := report.Figure{ID: "fig9", Title: "OSU all-to-all — average message completion time", XLabel: "message size (KB)", YLabel: "completion time (µs)", LogX: true, LogY: true}
	series := make([]report.Series, len(withDECC))
	for _, size := range sizes {
		pts[size] = map[string]*osuPoint{}
		row := []string{sizeLabel(size)}
		for i, a := range withDECC {
			p, err := readOSU(ctx, fmt.Sprintf("size=%s cc=%s", sizeLabel(size), a.CC))
			if err != nil {
				notes, row = append(notes, err.Error()), append(row, experiment.Dash, experiment.Dash)
				continue
			}
			pts[size][a.CC] = p
			mark := ""
			if p.censored {
				mark = " (≥)"
				notes = append(notes, fmt.Sprintf("%s at %s: some messages had not completed when the run stopped (values are lower bounds)", a.Name, sizeLabel(size)))
			}
			row = append(row, experiment.G4(p.msg.Mean())+mark, experiment.G4(p.total.Mean())+mark)
			series[i].Label, series[i].Points = a.Name, true
			series[i].X, series[i].Y = append(series[i].X, float64(size>>10)), append(series[i].Y, p.msg.Mean())
		}
		t.Rows = append(t.Rows, row)
	}
	for _, s := range series {
		if len(s.X) > 0 {
			fig.Series = append(fig.Series, s)
		}
	}
	e6Measures(ctx, sizes, pts)
	return &report.Section{Tables: []report.Table{t}, Figures: []report.Figure{fig}, Notes: notes}, nil
}

// e6Measures: Bolt's time at 1 MiB, and ADPG against the slowest other
// baseline at every size; DECC at 1 MiB, alone and against Bolt.
func e6Measures(ctx *experiment.Context, sizes []int64, pts map[int64]map[string]*osuPoint) {
	if p := pts[mib]["bolt"]; p != nil {
		ctx.Measure("bolt-1mib", experiment.Measure{Mag: []experiment.Sample{p.msg}, MagLower: []bool{p.censored}})
	}
	if p := pts[mib]["decc"]; p != nil {
		ctx.Measure("decc-1mib", experiment.Measure{Mag: []experiment.Sample{p.msg}, MagLower: []bool{p.censored}})
		if b := pts[mib]["bolt"]; b != nil {
			ctx.Measure("decc-below-bolt", experiment.Measure{Values: []experiment.Sample{p.msg, b.msg}, Lower: []bool{p.censored, b.censored}, Labels: []string{"DECC", "Bolt"}})
		}
	}
	var adpg, other []experiment.Sample
	var adpgLow, otherLow []bool
	for _, size := range sizes {
		a := pts[size]["adpg"]
		var worst *osuPoint
		for _, b := range algs {
			if q := pts[size][b.CC]; b.CC != "adpg" && q != nil && (worst == nil || q.msg.Mean() > worst.msg.Mean()) {
				worst = q
			}
		}
		if a == nil || worst == nil {
			return // a missing run: the claim stays n/a, a note says why
		}
		adpg, other = append(adpg, a.msg), append(other, worst.msg)
		adpgLow, otherLow = append(adpgLow, a.censored), append(otherLow, worst.censored)
	}
	m := experiment.CountPairs(experiment.Greater, adpg, other, adpgLow, otherLow)
	m.Note = "ADPG against the slowest other baseline at each size"
	ctx.Measure("adpg-worst", m)
}
