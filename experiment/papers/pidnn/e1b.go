package pidnn

// E1b: the LSTM predictor's training, MAPE per epoch (the paper's Table 1),
// the PID gains' training (§3.5.3, Fig. 13), and the shipped predictor on
// the controlled flows' RTT traces (Fig. 17).

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
	pidnntrain "github.com/ccsim/ccsim/train/pidnn"
)

// The paper's Table 1 summarised: the mean MAPE of epochs 15–19 (the
// last five, which E1b compares).
var (
	paperTrainLast5 = mean5(pidnntrain.PaperTable1[0][14:])
	paperTestLast5  = mean5(pidnntrain.PaperTable1[1][14:])
)

func mean5(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func e1bClaims() []experiment.Claim {
	mag := func(id, desc, pv string, paper float64, unit string) experiment.Claim {
		return experiment.Claim{ID: id, Description: desc, PaperValue: pv, Unit: unit, Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: paper}
	}
	return []experiment.Claim{
		mag("train-mape-last5", "Table 1: training MAPE at the end of training, the mean of epochs 15–19 (the mean over ccsim's 3 training seeds)", "0.0386 (epochs 15–19: 0.042, 0.040, 0.040, 0.036, 0.035)", paperTrainLast5, "fraction"),
		mag("test-mape-last5", "Table 1: test MAPE at the end of training, the mean of epochs 15–19 (the mean over ccsim's 3 training seeds)", "0.0388 (epochs 15–19: 0.043, 0.035, 0.038, 0.042, 0.036)", paperTestLast5, "fraction"),
		{ID: "mape-below-10pct", Description: "§3.2: prediction needs \"很低的预测偏差（MAPE 在 10% 以下）\" (a MAPE below 10 %): the test MAPE at the end of training (the mean of epochs 15–19 over 3 seeds)", PaperValue: "0.0388 ≤ 0.10", Unit: "fraction",
			Kind: experiment.Range, Lo: 0, Hi: 0.10},
		{ID: "mape-falls", Description: "§3.4.3: \"随着训练轮式的增加，整体 MAPE 指标在逐渐降低\" (MAPE falls as training proceeds): test MAPE, mean of epochs 15–19 below that of epochs 1–5", PaperValue: "0.0388 < 0.072",
			Kind: experiment.Direction, Rel: experiment.Less},
		{ID: "mape-falls-train", Description: "the same for the training MAPE (\"整体\": the table as a whole)", PaperValue: "0.0386 < 0.082",
			Kind: experiment.Direction, Rel: experiment.Less},
		mag("mape-ratio", "§3.4.3: \"第 1 轮的 MAPE 是第 19 轮的 MAPE 指标的 3 倍左右\" (epoch 1's MAPE about 3 × epoch 19's): training MAPE of epoch 1 over the mean of epochs 15–19 (the paper's training row: 0.113/0.035 = 3.2; its test row 2.25)", "3", 3, "×"),
		{ID: "trace-overlaps", Description: "§4.2.2, Fig. 17: \"预测曲线几乎与真实曲线重合\" (the predicted curve almost overlaps the real one) inside the running controller, bounded by the paper's own requirement MAPE < 10 % (§3.2): MAPE of the shipped predictor over the samples of senders 0 and 1 (the paper shows two nodes) in the LSTM+PID run at 5 µs", PaperValue: "≤ 0.10", Unit: "fraction",
			Kind: experiment.Range, Lo: 0, Hi: 0.10},
		{ID: "trace-beats-hold", Description: "§4.2.2: \"能够预测出 RTT 的迅速增加和降低\" (it predicts the RTT's rises and falls), read by ccsim as: the prediction beats holding the last sample (RTT_pred = R_t) on the same trace; §3.4.1: an inaccurate predictor harms control", PaperValue: "yes",
			Kind: experiment.Direction, Rel: experiment.Less},
		mag("learned-kp", "§3.5.3: \"最终优化结果为 [k_p k_i k_d] = [−0.358 −0.060 0.040]\": K_p of ccsim's training (the long flow's)", "−0.358", -0.358, ""),
		mag("learned-ki", "the same: K_i", "−0.060", -0.060, ""),
		mag("learned-kd", "the same: K_d", "0.040", 0.040, ""),
		{ID: "gains-settle", Description: "§3.5.3: \"随着学习次数的增加，三个参数逐渐趋于稳定\" (the gains settle as learning proceeds; §3.5.2 attributes it to μ(t) falling): the largest net change of a gain over the long flow's last tenth of updates below that over its first tenth", PaperValue: "yes",
			Kind: experiment.Direction, Rel: experiment.Less},
	}
}

func e1b() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e1b",
		Title:    "Predictor and gain training: MAPE per epoch of the LSTM (Table 1), the learned gains, the prediction in operation",
		SetupAt:  e1bSetup,
		Claims:   e1bClaims(),
		Readings: e1Readings(),
		Runs:     func(sc experiment.Scale) []experiment.RunSpec { return []experiment.RunSpec{e1Run(sc, "pidnn", 5)} },
		Analyze:  analyzeE1b,
	}
}

func e1bSetup(sc experiment.Scale) string {
	trace := "the LSTM+PID run of the 20:1 incast at 5 µs (E1cd's)"
	if sc == experiment.ScaleQuick {
		trace += ", here at quick scale (every flow 10× smaller)"
	}
	return `The pipeline of ccsim train pidnn (train/pidnn, docs/algorithms/pidnn.md §9) on the 20:1 incast at the paper's size (the shipped files, at every scale): (1) TIMELY's RTT samples (one per RTT per flow); (2) the PID gains trained online with PID alone (RTT_pred = R_t), each flow its own controller with its own gains and update counter (§3.3: "t 并非真正意义上的时间，而是时间序列的顺序"; §3.5.3: "只能使用PID算法 … 部署还未训练的PIDNN"), from the initial [−0.2, −0.05, 0.1], one run; the shipped gains are the long flow's (the flow with the most updates); (3) the predictor's dataset from the samples of both runs (§3.4.2: "采集出的 RTT 数据来自于论文后续优化 PIDNN 参数时的仿真数据和使用 TIMELY 算法的仿真数据"), pairs [K_{t−2}, K_{t−1}, K_t] → L_t balanced over the four |K| ranges (at most the paper's 19,058 pairs); (4) the LSTM (3 steps, input 1, hidden 16, linear head), 19 epochs × (800 training + 200 test pairs drawn afresh), Adam lr 0.001, MAE loss, batch 1 (the paper gives no batch size; I18). MAPE as eq. (13) rewrites it, |out − L|/(1 + L).

The predictor's training is random (initialisation, draws): its logs for seeds 1 (the shipped model), 2 and 3 are shipped (cc/pidnnmodel/train.json, train-seed2.json, train-seed3.json; ccsim train pidnn reproduces them byte for byte, test TestShippedFilesReproduce), and the MAPE claims are on the mean over the three seeds of the mean of epochs 15–19 (ccsim's per-epoch MAPE jumps by ±50 % between epochs; one epoch is a draw of 200 pairs). The simulations are deterministic, so the gains are the same for every seed. The prediction in operation is measured on ` + trace + `, senders 0 and 1 (the paper shows two nodes, Fig. 17), with the shipped predictor on the features the controller computed, beside the MAPE of holding the last sample.`
}

// e1bLogs are the shipped training logs of the seeds (pidnnmodel.LogSeeds).
func e1bLogs() ([]pidnntrain.Log, error) {
	var out []pidnntrain.Log
	for _, seed := range pidnnmodel.LogSeeds {
		var lg pidnntrain.Log
		if err := json.Unmarshal(pidnnmodel.ShippedSeedLog(seed), &lg); err != nil {
			return nil, fmt.Errorf("shipped training log of seed %d: %w", seed, err)
		}
		if len(lg.Epochs) != 19 || len(lg.LongFlowTrace) != 11 {
			return nil, fmt.Errorf("shipped training log of seed %d: %d epochs, %d trace points; want 19, 11", seed, len(lg.Epochs), len(lg.LongFlowTrace))
		}
		out = append(out, lg)
	}
	return out, nil
}

// analyzeE1b reads the shipped training logs beside the paper's Table 1 and
// plots the shipped predictor on the controlled flows' traces of the
// LSTM+PID run.
func analyzeE1b(ctx *experiment.Context) (*report.Section, error) {
	logs, err := e1bLogs()
	if err != nil {
		return nil, err
	}
	sec := &report.Section{}
	t, fig := table1(logs)
	sec.Tables = append(sec.Tables, t, gainsTable(logs[0]))
	sec.Figures = append(sec.Figures, fig)
	for id, m := range e1bMeasures(logs) {
		ctx.Measure(id, m)
	}
	tr, err := traceOf(ctx)
	if err != nil {
		return nil, err
	}
	if tr != nil {
		sec.Figures = append(sec.Figures, tr.figure())
		for id, m := range tr.measures() {
			ctx.Measure(id, m)
		}
		sec.Notes = append(sec.Notes, tr.note())
	} else {
		sec.Notes = append(sec.Notes, "predicted-vs-real: the LSTM+PID run did not finish")
	}
	lg := logs[0]
	d := lg.Dataset
	sec.Notes = append(sec.Notes, fmt.Sprintf("Dataset (seed 1): %d balanced pairs (%d per |K| range); TIMELY %d samples, the PID-only gain-training run %d samples. Without learning: RTT_pred = S_t gives MAPE %.3f, RTT_pred = R_t %.3f.",
		d.Total, d.PerBin, d.Samples["timely"], d.Samples["pid"], d.MAPEHoldS, d.MAPEHoldR),
		fmt.Sprintf("Gain training: ∂J/∂K_p > 0 (an update lowering K_p) in %d of %d updates (%.1f %%) over all flows; the long flow %d: %d of %d. With one controller per flow the long flow learned longest; the printed gains are one controller's.",
			lg.KpGrad.Positive, lg.KpGrad.Updates, 100*float64(lg.KpGrad.Positive)/float64(max(lg.KpGrad.Updates, 1)), lg.LongFlow, longFlowLog(lg).KpGradPositive, longFlowLog(lg).Updates))
	return sec, nil
}

// longFlowLog is the long flow's entry of the last gain run.
func longFlowLog(lg pidnntrain.Log) pidnntrain.FlowGainLog {
	run := lg.GainRuns[len(lg.GainRuns)-1]
	for _, f := range run.Flows {
		if f.Flow == lg.LongFlow {
			return f
		}
	}
	return pidnntrain.FlowGainLog{}
}

// e1bMeasures measures the training claims from the seeds' logs: MAPE
// means over epochs 1–5 and 15–19 per seed, epoch 1 over 15–19, and the
// learned gains and their settling (the same for every seed: the
// simulations are deterministic; seed 1's).
func e1bMeasures(logs []pidnntrain.Log) map[string]experiment.Measure {
	var trL, trF, teL, teF, ratio experiment.Sample
	for _, lg := range logs {
		var tr, te []float64
		for _, e := range lg.Epochs {
			tr, te = append(tr, e.TrainMAPE), append(te, e.TestMAPE)
		}
		trL, trF = append(trL, mean5(tr[14:19])), append(trF, mean5(tr[:5]))
		teL, teF = append(teL, mean5(te[14:19])), append(teF, mean5(te[:5]))
		ratio = append(ratio, tr[0]/mean5(tr[14:19]))
	}
	ms := map[string]experiment.Measure{
		"train-mape-last5": {Mag: []experiment.Sample{trL}},
		"test-mape-last5":  {Mag: []experiment.Sample{teL}},
		"mape-below-10pct": {Values: []experiment.Sample{teL}},
		"mape-falls":       {Values: []experiment.Sample{teL, teF}, Labels: []string{"epochs 15–19", "epochs 1–5"}},
		"mape-falls-train": {Values: []experiment.Sample{trL, trF}, Labels: []string{"epochs 15–19", "epochs 1–5"}},
		"mape-ratio":       {Mag: []experiment.Sample{ratio}},
	}
	g := logs[0].Gains
	ms["learned-kp"], ms["learned-ki"], ms["learned-kd"] = experiment.MagOf(g.Kp), experiment.MagOf(g.Ki), experiment.MagOf(g.Kd)
	tr := logs[0].LongFlowTrace
	first, last := netChange(tr[0].Gains, tr[1].Gains), netChange(tr[9].Gains, tr[10].Gains)
	settle := experiment.M(last, first)
	settle.Labels = []string{"last tenth", "first tenth"}
	p := tr[10].Path
	drift := math.Abs(tr[10].Gains.Kp-tr[9].Gains.Kp) / p.Kp
	settle.Note = fmt.Sprintf("over the long flow's last tenth (%d updates) K_p moved %.4f net along a path of %.4f (%.0f %% of it in one direction): the steps shrink with μ(t) = 0.01/√(t+1) (§3.5.2's reason for settling), not because the gradient's sign alternates",
		tr[10].Updates-tr[9].Updates, tr[10].Gains.Kp-tr[9].Gains.Kp, p.Kp, 100*drift)
	ms["gains-settle"] = settle
	return ms
}

// netChange is the largest change of a gain from a to b.
func netChange(a, b pidnnmodel.Gains) float64 {
	return max(math.Abs(b.Kp-a.Kp), math.Abs(b.Ki-a.Ki), math.Abs(b.Kd-a.Kd))
}

// table1 is Table 1 beside the paper (seed 1 and the mean over the seeds)
// with the means of epochs 1–5 and 15–19, and its figure.
func table1(logs []pidnntrain.Log) (report.Table, report.Figure) {
	t := report.Table{ID: "table1", Title: "Table 1 — MAPE per epoch, ccsim (seed 1; mean of seeds 1–3) beside the paper",
		Columns: []string{"epoch", "train, ccsim seed 1", "train, ccsim mean", "train, paper", "test, ccsim seed 1", "test, ccsim mean", "test, paper"}}
	fig := report.Figure{ID: "mape", Title: "MAPE per epoch (ccsim: mean of 3 training seeds)", XLabel: "epoch", YLabel: "MAPE"}
	n := float64(len(logs))
	var x, tr, te, tr1, te1 []float64
	for i := range logs[0].Epochs {
		a, b := 0.0, 0.0
		for _, lg := range logs {
			a += lg.Epochs[i].TrainMAPE / n
			b += lg.Epochs[i].TestMAPE / n
		}
		x = append(x, float64(i+1))
		tr, te = append(tr, a), append(te, b)
		tr1, te1 = append(tr1, logs[0].Epochs[i].TrainMAPE), append(te1, logs[0].Epochs[i].TestMAPE)
		t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), fmt.Sprintf("%.3f", tr1[i]), fmt.Sprintf("%.3f", a), fmt.Sprintf("%.3f", pidnntrain.PaperTable1[0][i]),
			fmt.Sprintf("%.3f", te1[i]), fmt.Sprintf("%.3f", b), fmt.Sprintf("%.3f", pidnntrain.PaperTable1[1][i])})
	}
	for _, r := range [][2]int{{0, 5}, {14, 19}} {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("mean %d–%d", r[0]+1, r[1]), fmt.Sprintf("%.4f", mean5(tr1[r[0]:r[1]])), fmt.Sprintf("%.4f", mean5(tr[r[0]:r[1]])), fmt.Sprintf("%.4f", mean5(pidnntrain.PaperTable1[0][r[0]:r[1]])),
			fmt.Sprintf("%.4f", mean5(te1[r[0]:r[1]])), fmt.Sprintf("%.4f", mean5(te[r[0]:r[1]])), fmt.Sprintf("%.4f", mean5(pidnntrain.PaperTable1[1][r[0]:r[1]]))})
	}
	fig.Series = []report.Series{{Label: "train, ccsim", X: x, Y: tr, Style: 1, Points: true}, {Label: "test, ccsim", X: x, Y: te, Style: 2, Points: true},
		{Label: "train, paper", X: x, Y: pidnntrain.PaperTable1[0][:], Style: 1, Dashed: true}, {Label: "test, paper", X: x, Y: pidnntrain.PaperTable1[1][:], Style: 2, Dashed: true}}
	return t, fig
}

// gainsTable is the long flow's gains at every tenth of its updates beside
// the paper's initial and final gains (Fig. 13's curve, in numbers).
func gainsTable(lg pidnntrain.Log) report.Table {
	t := report.Table{ID: "gains", Title: fmt.Sprintf("Gain training (Fig. 13): the long flow %d's gains at every tenth of its updates, and each gain's path Σ|Δ| over the tenth", lg.LongFlow),
		Columns: []string{"updates", "K_p", "K_i", "K_d", "path K_p", "path K_i", "path K_d"}}
	for _, p := range lg.LongFlowTrace {
		t.Rows = append(t.Rows, []string{fmt.Sprint(p.Updates), fmt.Sprintf("%.4f", p.Gains.Kp), fmt.Sprintf("%.4f", p.Gains.Ki), fmt.Sprintf("%.4f", p.Gains.Kd),
			fmt.Sprintf("%.4f", p.Path.Kp), fmt.Sprintf("%.4f", p.Path.Ki), fmt.Sprintf("%.4f", p.Path.Kd)})
	}
	pi, pl := pidnnmodel.PaperInitialGains, pidnnmodel.PaperLearnedGains
	t.Rows = append(t.Rows, []string{"paper: initial", fmt.Sprint(pi.Kp), fmt.Sprint(pi.Ki), fmt.Sprint(pi.Kd), "", "", ""},
		[]string{"paper: final", fmt.Sprint(pl.Kp), fmt.Sprint(pl.Ki), fmt.Sprint(pl.Kd), "", "", ""})
	return t
}
