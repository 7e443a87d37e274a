// Package decc reproduces paper 000: Chen Jinqian, Guo Shaoyong, Liu Chang,
// Qi Feng, Qiu Xuesong, "DPU empowered intelligent congestion control
// mechanism for the intelligent computing center network", Journal on
// Communications, 2025 (the English reading: decc.md; docs/papers.md §2.6).
//
// E1 and E2 read the shipped students' report (cc/deccmodel students.json)
// and time the three models' decisions; E3 runs the two students (Table
// 4); E4–E7 (the 64-node two-level fat-tree, the 16-node star, the
// many-to-one, broadcast many-to-many, pairwise all-to-all and long/short
// workloads on a lossy fabric) run DECC (the `decc` sender: the distilled
// trees, deciding in 1.53 µs) and the paper's baselines (HPCC, Bolt, ADPG,
// SPINE, Aurora); E8 the ablation of Table 6; E9 a proxy of the DPU's CPU
// load from E5's runs (decisions × a cost per decision).
//
// Files: paper.go (registration, algorithms, readings), e1e2.go, e3.go, e8.go, e9.go, fattree.go (the
// topologies and workload builders), point.go (the four metrics read from a
// run), e4.go … e7.go, checks.go (printed constants against the setup).
package decc

import (
	"github.com/ccsim/ccsim/experiment"
)

func init() {
	experiment.Register(&experiment.Paper{
		ID:       "decc",
		Number:   "000",
		Title:    "DECC: DPU-empowered intelligent congestion control for the intelligent computing center network",
		Citation: "Chen J., Guo S., Liu C., Qi F., Qiu X., Journal on Communications, 2025, doi:10.11959/j.issn.1000-436x.2025027",
		Summary: `DECC runs a per-flow multi-agent reinforcement-learning controller on the sender's DPU: every monitoring period each flow's agent scales its window by ×(1 + 0.85a) or ÷(1 − 0.85a) from its local state; the policy is trained as MADDPG with a centralised critic, pruned and quantised to 4 bits, then distilled into a gradient-boosted tree ensemble that decides in 1.53 µs. The paper compares it with HPCC, Bolt, ADPG and SPINE (Aurora in the overhead test) on a 64-node two-level fat-tree (many-to-one, many-to-many, OSU all-to-all) and a 16-node star (long/short flows), at 400 Gb/s over RoCEv2.

ccsim: DECC's three senders (decc-nn, the trained teacher; decc-binary, the compressed network; decc, the distilled trees) with the models ccsim trains and ships (ccsim train decc). E1 and E2 report the compression and the decision costs; E3 runs the two students; E4–E7 run DECC (decc, 1.53 µs per decision) and ccsim's hpcc, bolt, adpg, spine and aurora on a lossy fabric (PFC off, 32-MB shared buffer, drop-tail, go-back-N; PFC on as a reading); E8 the ablation; E9 a proxy of the DPU's CPU load (decisions per node and second × a cost per decision, from E5's runs; ccsim simulates no DPU). Where the paper's setup is open, readings show the alternatives; consistency checks test the printed constants against the setup.`,
		Experiments: []*experiment.Experiment{e1(), e2(), e3(), e4(), e5(), e6(), e7(), e8(), e9()},
	})
}

// algs are the baselines the paper compares DECC with in E4–E7 (§4.2–§4.4),
// in the order of its figures' legends, and the names it prints.
var algs = experiment.Algs{
	{CC: "hpcc", Name: "HPCC"}, {CC: "bolt", Name: "Bolt"}, {CC: "adpg", Name: "ADPG"}, {CC: "spine", Name: "SPINE"}, {CC: "aurora", Name: "Aurora"},
}

// withDECC is DECC (the `decc` sender: the distilled trees, deciding in
// Table 3's 1.53 µs) followed by the baselines: the runs and tables of
// E4–E7.
var withDECC = append(experiment.Algs{{CC: "decc", Name: "DECC"}}, algs...)

// treeDecisionNs is DECC's decision latency as deployed: the trees' 1.53 µs
// (Table 3; decc.md §1.10).
const treeDecisionNs = 1530

// dnnDecisionNs is the decision latency of a controller that runs its full
// neural network on the DPU: the paper's Table 3 cost of the original DNN,
// 458 µs. decc.md §1.10's interpretation gives it to ADPG and Aurora (the
// paper blames their "inference delay", §4.2); SPINE's per-ACK executor
// decides in microseconds and its agent is a slow loop already (k
// intervals), so it keeps no extra lag.
const dnnDecisionNs = 458_000

// ccPatch is each algorithm's patch under a reading: DECC's trees decide in
// 1.53 µs; the DNN decision lag of ADPG and Aurora (none under the no-lag
// reading). The other algorithms run with their defaults (decc.md §2.11:
// the paper prints no baseline parameter).
func ccPatch(lag bool) map[string]map[string]any {
	ns := 0
	if lag {
		ns = dnnDecisionNs
	}
	return map[string]map[string]any{
		"decc":   {"params": map[string]any{"decc": map[string]any{"decision_ns": treeDecisionNs}}},
		"adpg":   {"params": map[string]any{"adpg": map[string]any{"decision_ns": ns}}},
		"aurora": {"params": map[string]any{"aurora": map[string]any{"decision_ns": ns}}},
	}
}

// The readings of the fabric shared by E4 and E5 (decc.md §2.1, §2.11).
const (
	nonBlockingWhy = `The spine layer is not printed (decc.md §2.1, §2.11); decc.md's alternative to its 4:1 reading is 4 parallel 400 Gb/s links per ToR–spine pair, non-blocking; ccsim gives each pair one 1,600 Gb/s link (the same capacity; ECMP's granularity differs). Only a non-blocking spine layer lets uniform many-to-many reach the paper's goodput ratios (81.95–92.83 %, check max-goodput).`
	lossyWhy       = `The paper reports loss rates of 2.93–8.38 % (§4.2, Table 6) for RoCEv2, which needs a fabric that drops: PFC off, a finite shared buffer (32 MB per switch, unspecified in the paper), drop-tail admission and go-back-N at the senders (decc.md §2.1). ADPG and Aurora decide with the 458-µs latency of a full DNN on the DPU (Table 3; decc.md §1.10), the paper's "inference delay".`
	pfcWhy         = `RoCEv2's default is a lossless fabric; the paper does not say whether PFC is on (decc.md §1.12 item 16). With PFC (dynamic thresholds) no packet is dropped at admission, so the paper's loss rates cannot be reached: this reading shows what the lossless fabric does to the other three metrics.`
	oversubWhy     = `decc.md §2.1's interpretation: one 400 Gb/s link per ToR–spine pair, 4:1 oversubscribed (it matches the paper's remark that congestion points are everywhere in many-to-many). The paper prints 4 ToRs × 16 nodes and nothing about the spine layer. Inconsistent with E5's printed goodput ratios (check max-goodput): cross-ToR traffic (48 of 63 destinations) is capped at 1.6 Tb/s per ToR, so uniform many-to-many cannot pass 32.8 % of the hosts' capacity, against the paper's 81.95–92.83 %.`
	noLagWhy       = `The paper gives no decision latency for ADPG and Aurora; their DNNs may run on the host CPU or a GPU instead of the DPU. This reading runs them without lag (ccsim's defaults), to separate the lag from the policies.`
)

// oversubscribed is decc.md's reading of the spine layer: one 400 Gb/s
// link per ToR–spine pair (E4, E5).
var oversubscribed = experiment.Reading{ID: "oversubscribed", Title: "lossy; one 400 Gb/s link per ToR–spine pair (4:1 oversubscribed)", Why: oversubWhy, OnlySeeds: []uint64{1},
	Patch: func(experiment.Scale) map[string]any {
		return map[string]any{"topology": map[string]any{"fabric_gbps": 400}}
	}}

// fabricReadings are E4's readings: the lossy non-blocking fabric with the
// DNN lag (primary), the 4:1 oversubscribed spine layer, PFC on, and no
// lag. The non-primary readings run one seed (cost).
func fabricReadings() []experiment.Reading {
	return []experiment.Reading{
		{ID: "lossy", Primary: true, Title: "PFC off, 32-MB shared buffer, go-back-N; non-blocking spine layer (one 1,600 Gb/s link per ToR–spine pair); ADPG and Aurora decide in 458 µs", Why: lossyWhy + " " + nonBlockingWhy},
		oversubscribed,
		{ID: "pfc-on", Title: "PFC on (dynamic thresholds), lossless", Why: pfcWhy, OnlySeeds: []uint64{1},
			Patch: func(experiment.Scale) map[string]any {
				return map[string]any{"switch": map[string]any{"pfc": "dynamic"}}
			}},
		{ID: "no-lag", Title: "lossy; ADPG and Aurora decide at once", Why: noLagWhy, OnlySeeds: []uint64{1},
			PatchRun: func(_ experiment.Scale, r experiment.RunSpec) map[string]any {
				return ccPatch(false)[r.CC]
			}},
	}
}
