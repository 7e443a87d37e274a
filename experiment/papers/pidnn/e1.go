package pidnn

// E1: the 20:1 incast (paper 001 §4.2–4.3; scenarios/papers/pidnn/incast.yaml).

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report"
	pidnntrain "github.com/ccsim/ccsim/train/pidnn"
)

const incast = "incast.yaml"

// incastSizes are the 20 senders' bytes, 200, 200, 150 and 17 × 5 MB, divided
// by div.
func incastSizes(div int64) []any {
	out := []any{200_000_000 / div, 200_000_000 / div, 150_000_000 / div}
	for range 17 {
		out = append(out, 5_000_000/div)
	}
	return out
}

// quickDiv divides the incast's bytes at quick scale.
const quickDiv = 10

// e1Run is the incast run of algorithm c; target > 0 sets rtt_target_us
// (pidnn and pid only). Experiments that share a run build it here, so
// that it resolves to the same content hash and runs once.
func e1Run(sc experiment.Scale, c string, target float64) experiment.RunSpec {
	return e1RunGains(sc, c, target, "")
}

// e1RunGains is e1Run with PIDNN's gains parameter set (gains "paper": the
// paper's learned gains instead of the shipped trained ones).
func e1RunGains(sc experiment.Scale, c string, target float64, gains string) experiment.RunSpec {
	patch := map[string]any{}
	key := "cc=" + c
	if target > 0 {
		p := map[string]any{"rtt_target_us": target}
		if gains != "" {
			p["gains"] = gains
		}
		patch["params"] = map[string]any{c: p}
		key += fmt.Sprintf(" target=%v", target)
		if gains != "" {
			key += " gains=" + gains
		}
	}
	if sc == experiment.ScaleQuick {
		patch["workload"] = map[string]any{"incast": map[string]any{"sizes_bytes": incastSizes(quickDiv)}}
	}
	return experiment.RunSpec{Key: key, Base: incast, CC: c, Patch: patch}
}

// targets are the rtt_target values of Tables 4 and 5 (µs).
var targets = []float64{5, 6, 7}

// e1Result holds the paper's incast metrics (spec §2.4) of one run.
type e1Result struct {
	samples              int64
	rttMean, p99, rttMax float64 // µs, per-RTT samples of all senders
	rate                 float64 // RATE_mean, eq. (30): Σ sizes / Σ FCTs, Gb/s
	fctMean, tFinish     float64 // ms: eq. (32), eq. (33)
	lastFlow             int     // the flow with the largest FCT
	lastSize             int64
	unfinished           int
}

// incastMetrics computes RATE_mean (eq. 30: Σ sizes / Σ FCTs over the
// flows, Gb/s), FCT_mean (eq. 32, ms) and T_finish (eq. 33: the largest
// FCT, ms; all flows start together) from finished flows, and which flow
// finished last.
func incastMetrics(flows []metrics.FlowRecord) (r e1Result) {
	var bytes, fctSum float64
	n := 0
	for _, f := range flows {
		if !f.Done {
			r.unfinished++
			continue
		}
		fct := f.FCT().Seconds()
		bytes += float64(f.SizeBytes)
		fctSum += fct
		n++
		if ms := fct * 1e3; n == 1 || ms > r.tFinish {
			r.tFinish, r.lastFlow, r.lastSize = ms, f.ID, f.SizeBytes
		}
	}
	r.rate, r.fctMean = math.NaN(), math.NaN()
	if n > 0 {
		r.rate = bytes * 8 / fctSum / 1e9
		r.fctMean = fctSum / float64(n) * 1e3
	}
	return r
}

func readE1(ctx *experiment.Context, key string) (*e1Result, error) {
	run, err := ctx.Run(key)
	if err != nil {
		return nil, err
	}
	fl, err := run.Flows()
	if err != nil {
		return nil, err
	}
	r := incastMetrics(fl)
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	if s.RTTPerRTT == nil {
		return nil, fmt.Errorf("%s: summary.json has no rtt_per_rtt", run.Dir)
	}
	r.samples, r.rttMean, r.p99, r.rttMax = s.RTTPerRTT.Samples, s.RTTPerRTT.MeanUs, s.RTTPerRTT.P99Us, s.RTTPerRTT.MaxUs
	return &r, nil
}

func keyOf(c string, target float64) string { return e1Run(experiment.ScalePaper, c, target).Key }

// paper's numbers (Tables 4, 5, 6; §4.2.3)
type paperRow struct{ rttMean, rate, p99, rttMax, fctMean, tFinish float64 }

var (
	paperPID    = paperRow{4.9616, 14.7977, 7.462, 24.552, math.NaN(), math.NaN()}
	paperTarget = map[float64]paperRow{
		5: {5.0302, 21.1789, 6.276, 21.144, 11.9930, 53.7560},
		6: {6.0611, 15.7269, 10.253, 23.986, 16.1507, 53.6880},
		7: {7.1478, 11.2404, 12.906, 48.699, 22.5970, 53.5559},
	}
	paperTable6 = map[string]paperRow{
		"pidnn":  paperTarget[5],
		"hpcc":   {4.3223, 16.3949, 4.56, 90.48, math.NaN(), math.NaN()},
		"timely": {11.9797, 15.6302, 102.673, 165.244, math.NaN(), math.NaN()},
		"dctcp":  {14.6578, 17.4700, 28.054, 86.32, math.NaN(), math.NaN()},
	}
)

const e1Setup = `The 20:1 incast (scenarios/papers/pidnn/incast.yaml): 20 senders on one switch send 200 MB, 200 MB, 150 MB and 17 × 5 MB (MB = 10^6 B, 635 MB in all) to one receiver, all starting at t = 0. Interpretations of what the paper leaves open: all links 100 Gb/s with 1 µs propagation (the paper's minimum RTT of about 4 µs is two links each way; 635 MB in 53.7 ms needs a 100-Gb/s bottleneck), 1000-B payloads, a 32-MB shared buffer with dynamic PFC, ECN thresholds and ACK priority from each algorithm's reference preset (the paper used the reference simulator's settings). PIDNN and PID start at 10 Gb/s, the others at line rate (paper §4.1.2). PIDNN uses the shipped model files (ccsim train pidnn, seed 1): its trained gains are [−0.573, −0.026, −0.005], not the paper's [−0.358, −0.060, 0.040] (docs/algorithms/pidnn.md §11.2).

Metrics (paper §4.1.3; docs/reproduce.md, "Paper 001 (PIDNN): metric definitions"): the RTT metrics are over one RTT sample per RTT per flow of all 20 senders (the first packet sent after the previous sample's ACK returned), taken by the host with the same rule for every algorithm (outputs.rtt_per_rtt): mean (eq. 29), P99 (the sample at index ⌊0.99·n⌋ of the sorted samples) and max (eq. 31, start-up included). RATE_mean (eq. 30) = Σ flow sizes / Σ FCTs over the 20 flows; FCT_mean (eq. 32) = mean FCT of the 20 flows; T_finish (eq. 33) = the largest FCT. At quick scale every flow is 10× smaller, so numbers are not comparable with the paper's.`

func rowCells(r *e1Result) []string {
	return []string{f4(r.rttMean), f4(r.rate), f4(r.p99), f4(r.rttMax), f4(r.fctMean), f4(r.tFinish)}
}

func paperCells(p paperRow) []string {
	return []string{f4(p.rttMean), f4(p.rate), f4(p.p99), f4(p.rttMax), f4(p.fctMean), f4(p.tFinish)}
}

var e1Cols = []string{"mean RTT (µs)", "RATE_mean (Gb/s)", "P99 RTT (µs)", "max RTT (µs)", "FCT_mean (ms)", "T_finish (ms)"}

// ---------------------------------------------------------------- E1b

func e1b() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1b",
		Title: "Predictor training: MAPE per epoch of the LSTM (Table 1)",
		Setup: `The LSTM RTT predictor (3 steps, input 1, hidden 16, linear head) trained by ccsim train pidnn (cc/pidnntrain) with seed 1: RTT samples of TIMELY and the untrained PID on the 20:1 incast (one per RTT per flow), pairs [K_{t−2}, K_{t−1}, K_t] → L_t balanced over the four |K| ranges (19,056 pairs; paper 19,058), 19 epochs × (800 training + 200 test pairs drawn afresh), Adam lr 0.001, MAE loss, batch 1 (the paper gives no batch size; docs/algorithms/pidnn.md I18). MAPE as eq. (13) rewrites it, |out − L|/(1 + L). This experiment reads the training log shipped with the model files (cc/pidnnmodel/train.json), which ccsim train pidnn reproduces byte for byte (test TestShippedFilesReproduce); it needs no simulation run. For comparison, the MAPE of predicting R_{t+1} = R_t on the balanced set is given.`,
		Claims: []experiment.Claim{
			{ID: "train-mape-19", Description: "training MAPE after epoch 19", PaperValue: "0.035", Unit: "fraction"},
			{ID: "test-mape-19", Description: "test MAPE after epoch 19", PaperValue: "0.036", Unit: "fraction"},
			{ID: "mape-below-10pct", Description: "the predictor's test MAPE is below 10 % (the paper's requirement for prediction to compensate the falling sampling rate) at the last epoch", PaperValue: "yes", Verdict: true},
			{ID: "trace-overlaps", Description: "on a controlled flow's RTT trace the predicted curve almost overlaps the real one (ccsim: MAPE of the shipped predictor over node 1's samples in the LSTM+PID run below 10 % and below that of holding the last sample)", PaperValue: "yes", Verdict: true},
			{ID: "mape-falls", Description: "MAPE falls with training: mean test MAPE of epochs 15–19 below that of epochs 1–5", PaperValue: "yes (0.039 < 0.072)", Verdict: true},
		},
		Runs: func(sc experiment.Scale) []experiment.RunSpec { return []experiment.RunSpec{e1Run(sc, "pidnn", 5)} },
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			var log pidnntrain.Log
			if err := json.Unmarshal(pidnnmodel.ShippedLog(), &log); err != nil {
				return nil, fmt.Errorf("shipped train.json: %w", err)
			}
			if len(log.Epochs) != 19 {
				return nil, fmt.Errorf("shipped train.json has %d epochs, want 19", len(log.Epochs))
			}
			sec := &report.Section{}
			t := report.Table{ID: "table1", Title: "Table 1 — MAPE per epoch, ccsim beside the paper", Columns: []string{"epoch", "train, ccsim", "train, paper", "test, ccsim", "test, paper"}}
			fig := report.Figure{ID: "mape", Title: "MAPE per epoch", XLabel: "epoch", YLabel: "MAPE"}
			var x, tr, te, ptr, pte []float64
			for i, e := range log.Epochs {
				t.Rows = append(t.Rows, []string{fmt.Sprint(e.Epoch), fmt.Sprintf("%.3f", e.TrainMAPE), fmt.Sprintf("%.3f", pidnntrain.PaperTable1[0][i]),
					fmt.Sprintf("%.3f", e.TestMAPE), fmt.Sprintf("%.3f", pidnntrain.PaperTable1[1][i])})
				x = append(x, float64(e.Epoch))
				tr, te = append(tr, e.TrainMAPE), append(te, e.TestMAPE)
				ptr, pte = append(ptr, pidnntrain.PaperTable1[0][i]), append(pte, pidnntrain.PaperTable1[1][i])
			}
			fig.Series = []report.Series{{Label: "train, ccsim", X: x, Y: tr, Style: 1, Points: true}, {Label: "test, ccsim", X: x, Y: te, Style: 2, Points: true},
				{Label: "train, paper", X: x, Y: ptr, Style: 1, Dashed: true}, {Label: "test, paper", X: x, Y: pte, Style: 2, Dashed: true}}
			sec.Tables = append(sec.Tables, t)
			sec.Figures = append(sec.Figures, fig)
			last := log.Epochs[18]
			mean := func(xs []float64) float64 {
				s := 0.0
				for _, v := range xs {
					s += v
				}
				return s / float64(len(xs))
			}
			early, late := mean(te[:5]), mean(te[14:])
			claims := map[string]report.Claim{
				"train-mape-19":    report.Measured(fmt.Sprintf("%.3f", last.TrainMAPE), ""),
				"test-mape-19":     report.Measured(fmt.Sprintf("%.3f", last.TestMAPE), fmt.Sprintf("predicting R_{t+1} = R_t: %.3f on the balanced set", log.Dataset.MAPEHoldR)),
				"mape-below-10pct": report.Verdict(fmt.Sprintf("%.3f", last.TestMAPE), last.TestMAPE < 0.1, ""),
				"mape-falls":       report.Verdict(fmt.Sprintf("%.3f < %.3f", late, early), late < early, "ccsim's curve is noisier than the paper's (200 test pairs per epoch)"),
			}
			// the shipped predictor on node 1's trace of the LSTM+PID run
			pf, pnote, tm, err := predictionFigure(ctx)
			if err != nil {
				return nil, err
			}
			if pf != nil {
				sec.Figures = append(sec.Figures, *pf)
				claims["trace-overlaps"] = report.Verdict(fmt.Sprintf("%.3f (hold-last %.3f)", tm[0], tm[1]), tm[0] < 0.1 && tm[0] < tm[1],
					"the predictor extrapolates the trend: it overshoots the peaks and predicts below the 4-µs base RTT in the troughs (figure); that lead is what makes LSTM+PID react earlier than PID alone (E1e)")
			}
			sec.Claims = ctx.Claims(claims)
			sec.Notes = []string{pnote, fmt.Sprintf("Dataset: %d balanced pairs (%d per |K| range); TIMELY %d samples, untrained PID %d samples. Without learning: RTT_pred = S_t gives MAPE %.3f, RTT_pred = R_t %.3f.",
				log.Dataset.Total, log.Dataset.PerBin, log.Dataset.Samples["timely"], log.Dataset.Samples["pid"], log.Dataset.MAPEHoldS, log.Dataset.MAPEHoldR)}
			return sec, nil
		},
	}
}

// predictionFigure plots the real RTT samples of node 1 (sender 0) in the
// LSTM+PID run (target 5 µs) beside the shipped predictor's prediction of
// each, RTT_pred(t) = (1 + out_t)·S_t against R_{t+1} (the paper's
// predicted-vs-real figure). The features are those the controller
// computed online from the same samples (pidnntrain.Pairs follows eqs. 2,
// 3 as the controller does), so the curve is the prediction the
// controller acted on. The note gives the MAPE over the whole trace beside
// that of holding the last sample.
func predictionFigure(ctx *experiment.Context) (*report.Figure, string, [2]float64, error) {
	var tm [2]float64
	run, err := ctx.Run("cc=pidnn target=5")
	if err != nil {
		return nil, "predicted-vs-real figure: " + err.Error(), tm, nil
	}
	t, err := run.Table("rtt_per_rtt.csv")
	if err != nil {
		return nil, "", tm, err
	}
	cols, err := t.FloatCols("flow_id", "time_ns", "rtt_ns")
	if err != nil {
		return nil, "", tm, err
	}
	var at, R []float64
	for i := range cols[0] {
		if cols[0][i] == 0 {
			at, R = append(at, cols[1][i]/1e6), append(R, cols[2][i]/1e3)
		}
	}
	m, _, err := pidnnmodel.Shipped()
	if err != nil {
		return nil, "", tm, err
	}
	sigma := cc.PIDNNDefaults().Sigma
	x, y := pidnntrain.Pairs(R, sigma)
	if len(x) == 0 {
		return nil, fmt.Sprintf("predicted-vs-real figure: node 1 has only %d samples", len(R)), tm, nil
	}
	ws := m.NewWorkspace(3)
	var tx, real, pred []float64
	var mape, mapeHold float64
	S := R[0]
	for k := 1; k <= 2; k++ {
		S = float64(sigma*R[k]) + float64((1-sigma)*S) // as eq. (2) in Pairs
	}
	for i := range x {
		// pair i: t = i + 2, predicts R[t+1]
		tt := i + 2
		if i > 0 {
			S = float64(sigma*R[tt]) + float64((1-sigma)*S)
		}
		out, err := m.Forward(ws, x[i], 3)
		if err != nil {
			return nil, "", tm, err
		}
		p := (1 + out[0]) * S
		tx, real, pred = append(tx, at[tt+1]), append(real, R[tt+1]), append(pred, p)
		mape += math.Abs(out[0]-y[i][0]) / (1 + y[i][0])
		mapeHold += math.Abs(R[tt]-R[tt+1]) / R[tt+1]
	}
	n := float64(len(x))
	tm = [2]float64{mape / n, mapeHold / n}
	note := fmt.Sprintf("Predicted vs real RTT of node 1 in the LSTM+PID run (target 5 µs): MAPE %.3f over its %d predictions (holding the last sample: %.3f).", mape/n, len(x), mapeHold/n)
	// a 1-ms window in the middle of the busy phase (≈ 240 samples), where
	// the individual predictions can be seen
	lo, hi := tx[len(tx)/2], tx[len(tx)/2]+1
	var wx, wr, wp []float64
	for i, v := range tx {
		if v >= lo && v < hi {
			wx, wr, wp = append(wx, v), append(wr, real[i]), append(wp, pred[i])
		}
	}
	note += fmt.Sprintf(" The figure shows the %d predictions made in [%.2f, %.2f) ms.", len(wx), lo, hi)
	return &report.Figure{ID: "predicted-rtt", Title: fmt.Sprintf("LSTM+PID, node 1: real and predicted RTT, %.1f–%.1f ms", lo, hi), XLabel: "time (ms)", YLabel: "RTT (µs)",
		Series: []report.Series{{Label: "real R(t+1)", X: wx, Y: wr, Style: 1, Points: true}, {Label: "predicted RTT_pred(t)", X: wx, Y: wp, Style: 2, Points: true}}}, note, tm, nil
}

// ---------------------------------------------------------------- E1c, E1d

func e1cdRuns(sc experiment.Scale) []experiment.RunSpec {
	runs := []experiment.RunSpec{e1Run(sc, "pid", 5), e1RunGains(sc, "pid", 5, "paper")}
	for _, t := range targets {
		runs = append(runs, e1Run(sc, "pidnn", t), e1RunGains(sc, "pidnn", t, "paper"))
	}
	return runs
}

// degrades reports whether every metric gets worse from one row to the
// next: mean, P99 and max RTT and FCT_mean rise, RATE_mean falls.
func degrades(a, b *e1Result) bool {
	return b.rttMean > a.rttMean && b.p99 > a.p99 && b.rttMax > a.rttMax && b.fctMean > a.fctMean && b.rate < a.rate
}

func e1cd() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1cd",
		Title: "PID only and LSTM+PID with rtt_target 5, 6, 7 µs (E1c, E1d; Tables 4, 5)",
		Setup: e1Setup + "\n\nRuns: pid (PID only: RTT_pred = R_t, paper §4.2.3) with rtt_target 5 µs, and pidnn with rtt_target 5, 6 and 7 µs; both with the same trained gains. The same runs with the paper's learned gains [−0.358, −0.060, 0.040] (gains: paper) separate the controller from ccsim's gain training: they are shown in the table and the claims' notes; the verdicts are on ccsim's own pipeline (trained gains).",
		Claims: []experiment.Claim{
			{ID: "pid-rtt-mean", Description: "PID only: mean RTT", PaperValue: "4.9616", Unit: "µs"},
			{ID: "pid-rate", Description: "PID only: RATE_mean", PaperValue: "14.7977", Unit: "Gb/s"},
			{ID: "pid-p99", Description: "PID only: P99 RTT", PaperValue: "7.462", Unit: "µs"},
			{ID: "pid-max", Description: "PID only: max RTT", PaperValue: "24.552", Unit: "µs"},
			{ID: "target-degrades", Description: "a larger rtt_target degrades every metric: from 5 to 6 and from 6 to 7 µs, mean, P99 and max RTT and FCT_mean rise and RATE_mean falls", PaperValue: "yes", Verdict: true},
			{ID: "rtt-tracks-target", Description: "the mean RTT settles near the target: within 10 % of rtt_target at 5, 6 and 7 µs", PaperValue: "5.03, 6.06, 7.15", Unit: "µs", Verdict: true},
			{ID: "tfinish-large-flows", Description: "T_finish is set by the large flows, which end running alone at the maximum rate: the last flow to finish is one of the 200/150-MB flows and T_finish is within 5 % of 53.7 ms at every target (paper scale)", PaperValue: "53.76, 53.69, 53.56", Unit: "ms", Verdict: true},
		},
		Runs: e1cdRuns,
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			sec := &report.Section{}
			pid, err := readE1(ctx, keyOf("pid", 5))
			if err != nil {
				return nil, err
			}
			res := map[float64]*e1Result{}
			for _, t := range targets {
				r, err := readE1(ctx, keyOf("pidnn", t))
				if err != nil {
					return nil, err
				}
				res[t] = r
			}
			pidP, err := readE1(ctx, e1RunGains(experiment.ScalePaper, "pid", 5, "paper").Key)
			if err != nil {
				return nil, err
			}
			resP := map[float64]*e1Result{}
			for _, t := range targets {
				r, err := readE1(ctx, e1RunGains(experiment.ScalePaper, "pidnn", t, "paper").Key)
				if err != nil {
					return nil, err
				}
				resP[t] = r
			}
			t := report.Table{ID: "table45", Title: "Tables 4, 5 — PID only and LSTM+PID by rtt_target, ccsim beside the paper", Columns: append([]string{"run", "source", "RTT samples"}, e1Cols...)}
			t.Rows = append(t.Rows, append([]string{"PID only, target 5 µs", "ccsim", fmt.Sprint(pid.samples)}, rowCells(pid)...),
				append([]string{"PID only, target 5 µs", "ccsim, paper's gains", fmt.Sprint(pidP.samples)}, rowCells(pidP)...),
				append([]string{"PID only, target 5 µs", "paper", ""}, paperCells(paperPID)...))
			for _, tg := range targets {
				name := fmt.Sprintf("LSTM+PID, target %v µs", tg)
				t.Rows = append(t.Rows, append([]string{name, "ccsim", fmt.Sprint(res[tg].samples)}, rowCells(res[tg])...),
					append([]string{name, "ccsim, paper's gains", fmt.Sprint(resP[tg].samples)}, rowCells(resP[tg])...),
					append([]string{name, "paper", ""}, paperCells(paperTarget[tg])...))
			}
			sec.Tables = append(sec.Tables, t)
			sec.Figures = append(sec.Figures, timeFigures(ctx, "pid", keyOf("pid", 5))...)
			sec.Figures = append(sec.Figures, timeFigures(ctx, "pidnn", keyOf("pidnn", 5))...)
			claims := map[string]report.Claim{
				"pid-rtt-mean": report.Measured(f4(pid.rttMean), fmt.Sprintf("%d per-RTT samples", pid.samples)),
				"pid-rate":     report.Measured(f4(pid.rate), ""),
				"pid-p99":      report.Measured(f4(pid.p99), ""),
				"pid-max":      report.Measured(f4(pid.rttMax), ""),
			}
			d56, d67 := degrades(res[5], res[6]), degrades(res[6], res[7])
			claims["target-degrades"] = report.Verdict(fmt.Sprintf("5→6: %s, 6→7: %s", yesNo(d56), yesNo(d67)), d56 && d67,
				fmt.Sprintf("with the paper's gains 5→6: %s, 6→7: %s; trained gains: mean RTT", yesNo(degrades(resP[5], resP[6])), yesNo(degrades(resP[6], resP[7])))+fmt.Sprintf(" %s / %s / %s µs, RATE_mean %s / %s / %s Gb/s, P99 %s / %s / %s µs, max %s / %s / %s µs, FCT_mean %s / %s / %s ms",
					f4(res[5].rttMean), f4(res[6].rttMean), f4(res[7].rttMean), f4(res[5].rate), f4(res[6].rate), f4(res[7].rate),
					f4(res[5].p99), f4(res[6].p99), f4(res[7].p99), f4(res[5].rttMax), f4(res[6].rttMax), f4(res[7].rttMax),
					f4(res[5].fctMean), f4(res[6].fctMean), f4(res[7].fctMean)))
			track := true
			for _, tg := range targets {
				track = track && math.Abs(res[tg].rttMean-tg) <= 0.1*tg
			}
			claims["rtt-tracks-target"] = report.Verdict(fmt.Sprintf("%s, %s, %s", f4(res[5].rttMean), f4(res[6].rttMean), f4(res[7].rttMean)), track,
				fmt.Sprintf("with the paper's gains: %s, %s, %s µs", f4(resP[5].rttMean), f4(resP[6].rttMean), f4(resP[7].rttMean)))
			large, near := true, true
			for _, tg := range targets {
				large = large && res[tg].lastSize >= 150_000_000/scaleDiv(ctx.Scale)
				near = near && math.Abs(res[tg].tFinish-53.7) <= 0.05*53.7
			}
			note := fmt.Sprintf("last flows: %d, %d, %d; with the paper's gains T_finish %s, %s, %s ms", res[5].lastFlow, res[6].lastFlow, res[7].lastFlow, f4(resP[5].tFinish), f4(resP[6].tFinish), f4(resP[7].tFinish))
			if ctx.Scale == experiment.ScaleQuick {
				note += "; at quick scale the flows are 10× smaller, so only the last-flow part can hold"
			}
			claims["tfinish-large-flows"] = report.Verdict(fmt.Sprintf("%s, %s, %s", f4(res[5].tFinish), f4(res[6].tFinish), f4(res[7].tFinish)), large && near, note)
			sec.Claims = ctx.Claims(claims)
			for _, r := range []*e1Result{pid, res[5], res[6], res[7], pidP, resP[5], resP[6], resP[7]} {
				if r.unfinished > 0 {
					sec.Notes = append(sec.Notes, fmt.Sprintf("%d flows did not finish: their FCTs are missing from the metrics", r.unfinished))
				}
			}
			return sec, nil
		},
	}
}

func scaleDiv(sc experiment.Scale) int64 {
	if sc == experiment.ScaleQuick {
		return quickDiv
	}
	return 1
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// maxPoints bounds the points of a time-series curve (thinned evenly).
const maxPoints = 3000

func thin(x, y []float64) ([]float64, []float64) {
	if len(x) <= maxPoints {
		return x, y
	}
	var tx, ty []float64
	for i := 0; i < maxPoints; i++ {
		k := i * len(x) / maxPoints
		tx, ty = append(tx, x[k]), append(ty, y[k])
	}
	return tx, ty
}

// timeFigures are the paper's figures of node 1 (sender 0): its per-RTT
// RTT samples and its delivered rate per 100-µs bin over time. A missing
// file gives no figure (the tables do not depend on them).
func timeFigures(ctx *experiment.Context, c, key string) []report.Figure {
	run, err := ctx.Run(key)
	if err != nil {
		return nil
	}
	var out []report.Figure
	if t, err := run.Table("rtt_per_rtt.csv"); err == nil {
		if cols, err := t.FloatCols("flow_id", "time_ns", "rtt_ns"); err == nil {
			var x, y []float64
			for i := range cols[0] {
				if cols[0][i] == 0 {
					x, y = append(x, cols[1][i]/1e6), append(y, cols[2][i]/1e3)
				}
			}
			x, y = thin(x, y)
			out = append(out, report.Figure{ID: c + "-rtt", Title: nameOf(c) + ": RTT samples of node 1 (sender 0), one per RTT", XLabel: "time (ms)", YLabel: "RTT (µs)",
				Series: []report.Series{{Label: "sender 0", X: x, Y: y, Style: 1}}})
		}
	}
	if t, err := run.Table("flow_rate.csv"); err == nil {
		if cols, err := t.FloatCols("bin_start_ns", "flow", "gbps"); err == nil {
			var x, y []float64
			for i := range cols[0] {
				if cols[1][i] == 0 {
					x, y = append(x, cols[0][i]/1e6), append(y, cols[2][i])
				}
			}
			out = append(out, report.Figure{ID: c + "-rate", Title: nameOf(c) + ": delivered rate of node 1 (sender 0) per 100 µs", XLabel: "time (ms)", YLabel: "rate (Gb/s)",
				Series: []report.Series{{Label: "sender 0", X: x, Y: y, Style: 2}}})
		}
	}
	return out
}

// ---------------------------------------------------------------- E1e

// change is the paper's percentage change from PID only (a) to LSTM+PID
// (b): the difference over the smaller of the two (spec ambiguity 12: the
// paper divides increases by the old value and decreases by the new one),
// signed as b − a.
func change(a, b float64) float64 {
	if a == b {
		return 0
	}
	return 100 * (b - a) / min(a, b)
}

func e1e() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1e",
		Title: "Effect of prediction: LSTM+PID against PID only, rtt_target 5 µs",
		Setup: e1Setup + "\n\nRuns: pid and pidnn, both with rtt_target 5 µs (the runs of E1c/E1d; the same with the paper's gains in the verdict's note). Percentage changes as the paper computes them (spec ambiguity 12): (LSTM+PID − PID only) divided by the smaller of the two, i.e. increases over the PID-only value and decreases over the LSTM+PID value (the paper's −18.9 % for P99 is (7.462 − 6.276)/6.276).",
		Claims: []experiment.Claim{
			{ID: "rtt-mean-change", Description: "mean RTT, LSTM+PID vs PID only", PaperValue: "+1.38", Unit: "%"},
			{ID: "rate-change", Description: "RATE_mean (throughput), LSTM+PID vs PID only", PaperValue: "+43.12", Unit: "%"},
			{ID: "p99-change", Description: "P99 RTT, LSTM+PID vs PID only", PaperValue: "-18.9", Unit: "%"},
			{ID: "max-change", Description: "max RTT, LSTM+PID vs PID only", PaperValue: "-16.12", Unit: "%"},
			{ID: "prediction-helps", Description: "prediction raises the throughput and lowers P99 and max RTT at about the same mean RTT (|change| < 5 %)", PaperValue: "yes", Verdict: true},
		},
		Runs: func(sc experiment.Scale) []experiment.RunSpec {
			return []experiment.RunSpec{e1Run(sc, "pid", 5), e1Run(sc, "pidnn", 5), e1RunGains(sc, "pid", 5, "paper"), e1RunGains(sc, "pidnn", 5, "paper")}
		},
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			pid, err := readE1(ctx, keyOf("pid", 5))
			if err != nil {
				return nil, err
			}
			nn, err := readE1(ctx, keyOf("pidnn", 5))
			if err != nil {
				return nil, err
			}
			sec := &report.Section{}
			cm, cr, cp, cx := change(pid.rttMean, nn.rttMean), change(pid.rate, nn.rate), change(pid.p99, nn.p99), change(pid.rttMax, nn.rttMax)
			t := report.Table{ID: "prediction", Title: "Effect of prediction (target 5 µs)", Columns: []string{"metric", "PID only, ccsim", "LSTM+PID, ccsim", "change, ccsim (%)", "PID only, paper", "LSTM+PID, paper", "change, paper (%)"}}
			for _, r := range []struct {
				name       string
				a, b, c    float64
				pa, pb, pc float64
			}{
				{"mean RTT (µs)", pid.rttMean, nn.rttMean, cm, paperPID.rttMean, paperTarget[5].rttMean, 1.38},
				{"RATE_mean (Gb/s)", pid.rate, nn.rate, cr, paperPID.rate, paperTarget[5].rate, 43.12},
				{"P99 RTT (µs)", pid.p99, nn.p99, cp, paperPID.p99, paperTarget[5].p99, -18.9},
				{"max RTT (µs)", pid.rttMax, nn.rttMax, cx, paperPID.rttMax, paperTarget[5].rttMax, -16.12},
			} {
				t.Rows = append(t.Rows, []string{r.name, f4(r.a), f4(r.b), fmt.Sprintf("%+.2f", r.c), f4(r.pa), f4(r.pb), fmt.Sprintf("%+.2f", r.pc)})
			}
			sec.Tables = append(sec.Tables, t)
			claims := map[string]report.Claim{
				"rtt-mean-change": report.Measured(fmt.Sprintf("%+.2f", cm), ""),
				"rate-change":     report.Measured(fmt.Sprintf("%+.2f", cr), ""),
				"p99-change":      report.Measured(fmt.Sprintf("%+.2f", cp), ""),
				"max-change":      report.Measured(fmt.Sprintf("%+.2f", cx), ""),
			}
			helps := cr > 0 && cp < 0 && cx < 0 && math.Abs(cm) < 5
			note := ""
			pidP, err1 := readE1(ctx, e1RunGains(experiment.ScalePaper, "pid", 5, "paper").Key)
			nnP, err2 := readE1(ctx, e1RunGains(experiment.ScalePaper, "pidnn", 5, "paper").Key)
			if err1 == nil && err2 == nil {
				note = fmt.Sprintf("with the paper's gains: rate %+.1f %%, P99 %+.1f %%, max %+.1f %%, mean %+.1f %%",
					change(pidP.rate, nnP.rate), change(pidP.p99, nnP.p99), change(pidP.rttMax, nnP.rttMax), change(pidP.rttMean, nnP.rttMean))
			}
			claims["prediction-helps"] = report.Verdict(fmt.Sprintf("rate %+.1f %%, P99 %+.1f %%, max %+.1f %%, mean %+.1f %%", cr, cp, cx, cm), helps, note)
			sec.Claims = ctx.Claims(claims)
			return sec, nil
		},
	}
}

// ---------------------------------------------------------------- E1f

var e1fAlgs = []string{"pidnn", "hpcc", "timely", "dctcp"}

func e1f() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1f",
		Title: "LSTM+PID against HPCC, TIMELY and DCTCP on the incast (Table 6)",
		Setup: e1Setup + "\n\nRuns: pidnn (rtt_target 5 µs), hpcc, timely and dctcp with their reference presets (TIMELY's gradient normaliser min_rtt_us = 20 µs, the paper's \"20 µs gradient unit\"). The paper ranks congestion control quality HPCC > LSTM+PID > DCTCP ≈ TIMELY; ccsim tests the ranking by both P99 RTT and mean RTT: HPCC below LSTM+PID, and LSTM+PID below both DCTCP and TIMELY (DCTCP ≈ TIMELY is not tested).",
		Claims: []experiment.Claim{
			{ID: "ranking", Description: "HPCC > LSTM+PID > DCTCP, TIMELY by P99 RTT and by mean RTT (lower is better)", PaperValue: "yes", Verdict: true},
			{ID: "pidnn-max-lowest", Description: "LSTM+PID has the lowest max RTT (it starts at 10 Gb/s, the others at line rate)", PaperValue: "21.144 vs 90.48, 165.244, 86.32", Unit: "µs", Verdict: true},
			{ID: "pidnn-rate-highest", Description: "LSTM+PID has the highest RATE_mean", PaperValue: "21.18 vs 16.39, 15.63, 17.47", Unit: "Gb/s", Verdict: true},
			{ID: "hpcc-p99", Description: "HPCC's P99 RTT", PaperValue: "4.56", Unit: "µs"},
		},
		Runs: func(sc experiment.Scale) []experiment.RunSpec {
			runs := []experiment.RunSpec{e1Run(sc, "pidnn", 5)}
			for _, c := range e1fAlgs[1:] {
				runs = append(runs, e1Run(sc, c, 0))
			}
			return runs
		},
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			res := map[string]*e1Result{}
			for _, c := range e1fAlgs {
				tg := 0.0
				if c == "pidnn" {
					tg = 5
				}
				r, err := readE1(ctx, keyOf(c, tg))
				if err != nil {
					return nil, err
				}
				res[c] = r
			}
			sec := &report.Section{}
			t := report.Table{ID: "table6", Title: "Table 6 — LSTM+PID, HPCC, TIMELY, DCTCP, ccsim beside the paper", Columns: append([]string{"algorithm", "source", "RTT samples"}, e1Cols...)}
			for _, c := range e1fAlgs {
				t.Rows = append(t.Rows, append([]string{nameOf(c), "ccsim", fmt.Sprint(res[c].samples)}, rowCells(res[c])...), append([]string{nameOf(c), "paper", ""}, paperCells(paperTable6[c])...))
			}
			sec.Tables = append(sec.Tables, t)
			p, h, ti, d := res["pidnn"], res["hpcc"], res["timely"], res["dctcp"]
			rank := h.p99 < p.p99 && p.p99 < ti.p99 && p.p99 < d.p99 && h.rttMean < p.rttMean && p.rttMean < ti.rttMean && p.rttMean < d.rttMean
			claims := map[string]report.Claim{
				"ranking": report.Verdict(fmt.Sprintf("P99 %s / %s / %s / %s µs, mean %s / %s / %s / %s µs (HPCC / LSTM+PID / DCTCP / TIMELY)",
					f4(h.p99), f4(p.p99), f4(d.p99), f4(ti.p99), f4(h.rttMean), f4(p.rttMean), f4(d.rttMean), f4(ti.rttMean)), rank, ""),
				"pidnn-max-lowest":   report.Verdict(fmt.Sprintf("%s vs %s, %s, %s", f4(p.rttMax), f4(h.rttMax), f4(ti.rttMax), f4(d.rttMax)), p.rttMax < min(h.rttMax, ti.rttMax, d.rttMax), "order: LSTM+PID vs HPCC, TIMELY, DCTCP"),
				"pidnn-rate-highest": report.Verdict(fmt.Sprintf("%s vs %s, %s, %s", f4(p.rate), f4(h.rate), f4(ti.rate), f4(d.rate)), p.rate > max(h.rate, ti.rate, d.rate), "order: LSTM+PID vs HPCC, TIMELY, DCTCP"),
				"hpcc-p99":           report.Measured(f4(h.p99), ""),
			}
			sec.Claims = ctx.Claims(claims)
			return sec, nil
		},
	}
}
