package pidnn

// E2: random flows with incasts on the 320-host fat-tree (paper 001 §4.4.2,
// Fig. 20, Table 8; scenarios/papers/pidnn/fat320.yaml).

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

const fat320 = "fat320.yaml"

// e2Algs are Table 8's columns in its order, and their short names in
// claim ids.
var (
	e2Algs  = []string{"pidnn", "pidnn+rttch", "pidnn+rttch+win", "hpcc", "timely", "dctcp", "dcqcn"}
	e2Short = map[string]string{"pidnn": "pidnn", "pidnn+rttch": "rttch", "pidnn+rttch+win": "win", "hpcc": "hpcc", "timely": "timely", "dctcp": "dctcp", "dcqcn": "dcqcn"}
)

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

// Bin ranges of the claims (1-based bin numbers of the 20): the paragraph
// after Fig. 20 draws two lines, "当流超过 336k 后" (above 336 KB: bin 20;
// the "small" flows are bins 1–19, label 336K) and WIN's "当流小于 7k 时"
// (below 7 KB: bins 1–14, label 7K, the CDF's 70 % point).
const (
	smallLast = 19
	winLast   = 14
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

// e2Runs are the seven algorithms over the seeds (experiment.Seeds: the
// workload is random: arrivals, pairs, incast members, ECMP).
func e2Runs(sc experiment.Scale) []experiment.RunSpec {
	return experiment.Sweep{Base: fat320, Patch: e2Patch(sc), CC: e2Algs, Seeds: experiment.Seeds(sc)}.Expand()
}

// The readings of E2's starting rate.
const (
	whyStartLine = `§4.4.2 adopts another setup than the incast's: "采取论文[8]中的仿真设计" (we adopt the simulation design of paper [8], HPCC), in which every flow starts at line rate; the 10-Gb/s start is stated where the incast is described (§4.1.2 "初始发送速率为 10Gbps", §4.4.1 "LSTM+PID 初始发送速率为 10Gbps … 基于 4.1 设计的 INCAST 通信模式"). No printed constant separates the readings (every check holds for both).`
	whyStart10g  = `§4.1.2's 10-Gb/s start read as a property of the algorithm, in every experiment.`
)

// e2Readings are E2's readings of PIDNN's starting rate; the patch names
// the PIDNN variants only, so the baselines' runs are shared.
func e2Readings() []experiment.Reading {
	return []experiment.Reading{
		{ID: "start-line", Title: "the PIDNN variants start at line rate (100 Gb/s), as every flow of the HPCC paper's design", Why: whyStartLine, Primary: true,
			Patch: func(experiment.Scale) map[string]any {
				p := map[string]any{"rate_init_gbps": 100}
				return map[string]any{"params": map[string]any{"pidnn": p, "pidnn+rttch": p, "pidnn+rttch+win": p}}
			}},
		{ID: "start-10g", Title: "the PIDNN variants start at 10 Gb/s (the incast's start)", Why: whyStart10g, OnlySeeds: start10gSeeds},
	}
}

// start10gSeeds are the seeds of the sensitivity reading start-10g: one
// (Reading.OnlySeeds), to keep the paper-scale reproduction's cost down;
// its verdicts rest on seed 1 (and its baselines' seed-1 runs).
var start10gSeeds = []uint64{1}

func e2() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e2",
		Title:    "Random flows with incasts on the 320-host fat-tree: 95th-percentile slowdown by flow size (§4.4.2, Fig. 20, Table 8)",
		SetupAt:  e2Setup,
		Claims:   e2Claims(),
		Readings: e2Readings(),
		Checks:   e2Checks(),
		Runs:     e2Runs,
		Analyze:  analyzeE2,
	}
}

// e2Claims are the statements of the paragraphs after Fig. 20 and Table 8,
// every cell of Table 8 and the realised number of incasts.
func e2Claims() []experiment.Claim {
	const beats = "§4.4.2: \"PIDNN 算法在流较小时性能很好，相比于 timely 和 DCQCN 同等大小流都能够实现更短的 FCT，但是当流超过 336k 后性能不如 timely 和 DCQCN\" (PIDNN does well on small flows, shorter FCT than TIMELY and DCQCN for flows of the same size, but above 336k worse than both): "
	const rttch = "§4.4.2: RTTch \"最终以损失一些小流的 FCT 为代价，很大程度的降低了大流 FCT slowdown\" (at the cost of some small flows' FCT it greatly lowers the large flows' slowdown): "
	const win = "§4.4.2: WIN \"对于小流提高很大，当流小于 7k 时，算法效果甚至优于 HPCC 和 DCQCN,90%FCT 对应的 slowdown 在 1.5 以下 … 但是当流的大小超过 7K 后性能就急速下降\" (below 7 KB even better than HPCC and DCQCN, slowdown at the 90th percentile below 1.5; above 7 KB performance drops sharply): "
	count := func(id, desc, pv string, n int) experiment.Claim {
		return experiment.Claim{ID: id, Description: desc, PaperValue: pv, Kind: experiment.Count, Need: n, Of: n}
	}
	dir := func(id, desc, pv string, rel experiment.Rel) experiment.Claim {
		return experiment.Claim{ID: id, Description: desc, PaperValue: pv, Kind: experiment.Direction, Rel: rel}
	}
	cs := []experiment.Claim{
		count("pidnn-beats-timely-small", beats+"PIDNN's p95 slowdown below TIMELY's in every bin 1–19 (the paper's labels up to 336K)", "19 of 19 bins", smallLast),
		count("pidnn-beats-dcqcn-small", beats+"PIDNN's p95 slowdown below DCQCN's in every bin 1–19 (the paper's own margin in bin 19: 71.712 vs 71.945)", "19 of 19 bins", smallLast),
		dir("pidnn-loses-large-timely", beats+"PIDNN's p95 slowdown above TIMELY's in bin 20 (> 336 KB)", "98.73 > 34.29", experiment.Greater),
		dir("pidnn-loses-large-dcqcn", beats+"PIDNN's p95 slowdown above DCQCN's in bin 20", "98.73 > 27.96", experiment.Greater),
		dir("rttch-helps-large", rttch+"PIDNN+RTTch's p95 below PIDNN's in bin 20 (the large flows of the paragraph, > 336 KB; \"很大程度\" gives no number)", "24.49 < 98.73", experiment.Less),
		count("rttch-costs-small", rttch+"PIDNN+RTTch's p95 above PIDNN's in every bin 1–14 (the paper's \"小流\" of the WIN sentence, < 7 KB; the paper's own table has RTTch better in bins 18, 19, so \"一些小流\" is not all of bins 1–19)", "14 of 14 bins", winLast),
		count("win-beats-hpcc-small", win+"PIDNN+RTTch+WIN's p95 below HPCC's in every bin 1–14", "14 of 14 bins", winLast),
		count("win-beats-dcqcn-small", win+"PIDNN+RTTch+WIN's p95 below DCQCN's in every bin 1–14", "14 of 14 bins", winLast),
		{ID: "win-p90-below-1.5", Description: win + "PIDNN+RTTch+WIN's 90th-percentile slowdown of the background flows of bins 1–14 pooled at most 1.5", PaperValue: "≤ 1.5 (its p95 per bin: 1.505–1.844)",
			Kind: experiment.Range, Lo: 1, Hi: 1.5},
		count("win-worse-above-7k", win+"PIDNN+RTTch+WIN's p95 in each bin 15–20 above its p95 in bin 14 (label 7K; \"急速\" gives no number)", "6 of 6 bins (3.89 … 28.55 > 1.844)", nBins-winLast),
	}
	for i, c := range e2Algs {
		for k := range nBins {
			cs = append(cs, magClaim(fmt.Sprintf("t8-%s-%02d", e2Short[c], k+1), fmt.Sprintf("Table 8, %s, bin %d (the paper's label %s): p95 slowdown", algs.Name(c), k+1, table8[k].label), table8[k].p95[i], ""))
		}
	}
	return append(cs, magClaim("incasts", "§4.4.2: \"最终实际产生 34 次\" (34 incasts actually occurred): ccsim's bursts per run (the expected 26.67 is the check incasts)", 34, ""))
}

func e2Setup(sc experiment.Scale) string {
	window := "Poisson arrivals at 30 % of the hosts' capacity over 10 ms (the paper's [2.00 s, 2.01 s]; ≈ 99,650 flows, the paper's \"10w\"). Incasts: random 60-to-1 bursts of 500 KB per sender at 2 % of the capacity over the same window (≈ 26.67 bursts expected, the paper's printed formula; its run had 34), tagged group \"incast\" and excluded from the metric. Three seeds (arrivals, pairs, incast members, ECMP); values are the means over the seeds, a direction inconclusive when the seeds disagree."
	bins := "Claims by bin number; the paper's labels: bin 14 = 7K, bin 19 = 336K, bin 20 = 10M."
	if sc == experiment.ScaleQuick {
		window = "At quick scale: Poisson arrivals at 30 % over 0.2 ms (≈ 1,990 flows, not the paper's 10 ms and ≈ 99,650) and one 60-to-1 burst of 500 KB per sender (not ≈ 27), one seed; the numbers are not comparable with the paper's."
		bins = "Claims by bin number; the paper's labels (bin 14 = 7K, bin 19 = 336K, bin 20 = 10M) are those of ≈ 100,000 flows; the quick run's bins hold ≈ 100 flows each and their largest sizes are in the table's ccsim column."
	}
	return `Topology: the reference simulator's 320-host fat-tree (fat320; the HPCC paper's set-up, which §4.4.2 adopts): 16 hosts per ToR, 20 ToR, 20 aggregation and 16 core switches in 5 pods, 100 Gb/s host links, 400 Gb/s fabric links, 1 µs per link (base RTT ≈ 4, 8 or 12 µs within a ToR, a pod, or across pods), 32-MiB buffers, dynamic PFC, 1000-B payloads. Background: Facebook Hadoop flow sizes (the paper's Table 7 = the reference FbHdp_distribution.txt, linear interpolation), random sender and receiver. ` + window + ` The run lasts until every flow finishes (stop bound 2 s); a flow unfinished at the stop counts censored (slowdown at least that at the stop).

Algorithms (Table 8's columns): pidnn, pidnn+rttch, pidnn+rttch+win (window = rate × the largest base RTT, docs/algorithms/pidnn.md I11), hpcc, timely, dctcp, dcqcn, each with ccsim's reference preset; the PIDNN variants use the shipped model files and rtt_target 5 µs (the paper gives no other target here), starting at the reading's rate. Metric: the background flows sorted by size and cut into 20 bins of 5 % each (the reference analysis's binning; the row label is the largest size in the bin); per bin the 95th-percentile FCT slowdown (FCT / FCT alone in the empty network, clamped to ≥ 1), a lower bound (≥) when a censored flow can move it. ` + bins + `

The paper's section is a draft: "总共测试了 5 种算法" (five algorithms) against Table 8's seven columns, and the paragraph after Table 8 is a placeholder ("需要一段说明"); the claims rest on the paragraphs after Fig. 20. A 5-µs target is below the base RTT of 304 of each host's 319 destinations (95.3 %: 8 µs within a pod, 12 µs across): no sample of those paths falls below 8 µs, so the error is about (8 − 5)/5 = 0.6 or more (exactly so without the predictor) and PIDNN's negative K_p drives those flows to the 1-Gb/s floor, where a 10-MB flow takes 80 ms against ≈ 0.8 ms alone (a slowdown ≈ 100, the paper's 98.7 in bin 20: its own explanation, "很低的 RTTtarget 会抑制发送速率的提升"); RTTch lets the target escape to the path's RTT.`
}

// analyzeE2 reads the runs over the seeds: Table 8 beside the paper, the
// censored flows, the p95 figure, the cost table and the measures.
func analyzeE2(ctx *experiment.Context) (*report.Section, error) {
	d := e2Data{}
	sec := &report.Section{}
	for _, c := range e2Algs {
		rs, err := readE2(ctx, c)
		if err != nil {
			sec.Notes = append(sec.Notes, err.Error())
			continue
		}
		d[c] = rs
	}
	sec.Tables = append(sec.Tables, table8Table(d), censoredTable(d))
	sec.Figures = append(sec.Figures, p95Figure(d, ctx.Reading.ID))
	cost, notes := e2Cost(d)
	sec.Tables = append(sec.Tables, cost)
	sec.Notes = append(sec.Notes, notes...)
	for id, m := range e2Measures(d) {
		ctx.Measure(id, m)
	}
	return sec, nil
}
