// Package dcon reproduces paper 003: J. Hu, J. Huang, J. Wang, J. Wang, "A
// transmission control mechanism for lossless datacenter network based on
// direct congestion notification", Acta Electronica Sinica
// (docs/papers.md §5; the mechanism: docs/algorithms/dcon.md). Its
// experiments: bursts under PFC on the testbed with DCQCN (E0, Fig. 2) and
// DCON (E1, Fig. 6), burst intensity (E2, Fig. 7), the large-scale
// leaf-spine (E3, Figs. 8–10) and DCON's parameter sensitivity (E4, Figs.
// 11, 12).
//
// Files: paper.go (registration, algorithms, the readings shared by
// several experiments), burst.go and burstread.go (the testbed burst of E0
// and E1), leafspine.go (the leaf-spine of E3 and E4), checks.go (the
// consistency checks), e0.go … e4.go.
package dcon

import (
	"go.yaml.in/yaml/v3"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/experiment"
)

func init() {
	experiment.Register(&experiment.Paper{
		ID:       "dcon",
		Number:   "003",
		Title:    "DCON: a transmission control mechanism for lossless datacenter networks based on direct congestion notification",
		Citation: "J. Hu, J. Huang, J. Wang, J. Wang, Acta Electronica Sinica, doi:10.12263/DZXB.20220491",
		Summary: `DCON keeps DCQCN for persistent congestion and adds a switch fast path for bursts: an egress port whose queue passes Q_CNM stops ECN marking and sends congestion notification messages (CNMs) straight to the senders of its flows, telling them to go to C/N, but only to flows whose ingress port also carries innocent (non-congested) flows, so that PFC does not pause those. Q_CNM is derived so that the CNM arrives before the ingress would trigger PFC. The paper shows on a P4 testbed how DCQCN's bursts spread through PFC and how DCON prevents it, then compares DCON with DCQCN, Swift and PCN under burst intensity and on a 240-host leaf-spine with web-search and data-mining traffic.

ccsim runs every experiment with its own dcon, dcqcn, swift and pcn, three seeds at the paper's scale (one at quick scale: ECMP hashing, Poisson arrivals and random pairs make every experiment random). The paper's figures are not available, only their captions and the text; the numbers below come from its text, with the default tolerance (±25 % of the paper's number). Where the text leaves the setup open, every reading runs (the CNM delivery, E2's burst start, the NS-3 switch settings); interpretations are stated in each experiment's setup (all of DCON's: docs/algorithms/dcon.md).`,
		Experiments: []*experiment.Experiment{e0(), e1(), e2(), e3(), e4()},
	})
}

// algs are the algorithms compared (E2–E3), in the order of the paper's
// figures, and the names it prints.
var algs = experiment.Algs{
	{CC: "dcqcn", Name: "DCQCN"}, {CC: "swift", Name: "Swift"}, {CC: "pcn", Name: "PCN"}, {CC: "dcon", Name: "DCON"},
}

// baselines are the end-to-end algorithms DCON is compared with.
var baselines = algs[:3]

// paramsMap turns a parameter struct into a patch (its YAML fields).
func paramsMap(p any) map[string]any {
	b, err := yaml.Marshal(p)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

// dcqcnPaper is the baseline DCQCN of paper 003: "DCQCN with the DCQCN
// paper's default parameters" — the DCQCN paper's reaction point, the same
// as DCON's end-to-end loop (canonical mode: α and rate-increase timers 55
// µs, byte counter 10 MB, F = 5, g = 1/256, R_AI 40 Mb/s, R_HAI 200 Mb/s)
// and a CNP at most every 50 µs per flow.
func dcqcnPaper() map[string]any {
	return map[string]any{
		"params": map[string]any{"dcqcn": paramsMap(&cc.DCONDefaults().DCQCNParams)},
		"host":   map[string]any{"cnp_interval_us": 50},
	}
}

// swiftBaseTargetUs is Swift's base target on paper 003's fabrics (base RTT
// 40 µs across leaves): interpretation — the base target covers the
// fabric's fixed delay (Swift §3.5), so Isekai's 25 µs, a queueing
// allowance on a fabric of negligible base RTT, goes on top of the 40 µs;
// with the default 25 µs every RTT exceeds the target and Swift only
// decreases.
const swiftBaseTargetUs = 65

// ccPatch is each algorithm's patch: DCQCN as above; Swift with its base
// target above the fabric's base RTT; PCN and DCON with their defaults
// (DCON's switch part replaces the scenario's ECN marking; PCN marks with
// its NP-ECN switches).
func ccPatch() map[string]map[string]any {
	return map[string]map[string]any{"dcqcn": dcqcnPaper(), "swift": {"params": map[string]any{"swift": map[string]any{"base_target_us": swiftBaseTargetUs}}}}
}

// dconPatch is a patch of DCON's parameters (it leaves the other
// algorithms' runs unchanged: a run's resolved scenario holds only its own
// algorithm's parameters).
func dconPatch(p map[string]any) map[string]any {
	return map[string]any{"params": map[string]any{"dcon": p}}
}

// ---- Readings shared by several experiments

// CNM delivery (E1, E2, E4; docs/algorithms/dcon.md I2, I4). The primary
// reading is DCON's defaults: a CNM for every packet that finds its port in
// burst, and the sender's 50 µs window.
const (
	cnmSenderWhy = `§4.3: 「当发送端在50 µs内收到同一条流的多个CNM时,则只针对比当前速率更小的目标速率进行速率更新」 ("when the sender receives several CNMs of one flow within 50 µs, it updates the rate only for a target below the current rate"), and Algorithm 1 line 2 「发送速率=拥塞流的目标速率C/N」 (rate = C/N). Several CNMs of one flow within 50 µs reach the sender only if the switch does not space them; outside the window a CNM sets C/N even when it is higher. ccsim's defaults: no switch-side gap, the sender's 50 µs window.`
	cnmGapWhy    = `The paper gives no switch-side rate for CNMs; one CNM per flow per 50 µs at each switch (the CNP period of §4.3) bounds their traffic, and a CNM then never raises the rate (interpretation I4 and I2 before issue 16). It makes the sender's 50 µs rule vacuous wherever one switch is congested.`
)

// cnmGapReading is the switch-gap reading of the CNM delivery.
func cnmGapReading() experiment.Reading {
	return experiment.Reading{ID: "cnm-switch-gap", Title: "one CNM per flow per 50 µs at each switch, never raising the rate",
		Why: cnmGapWhy, Patch: func(experiment.Scale) map[string]any {
			return dconPatch(map[string]any{"cnm_gap_us": 50, "cnm_may_raise": false})
		}}
}

// measureAll records an analysis's measures (claim id → measure).
func measureAll(ctx *experiment.Context, ms map[string]experiment.Measure) {
	for id, m := range ms {
		ctx.Measure(id, m)
	}
}
