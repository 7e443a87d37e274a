// Package dcon reproduces paper 003: J. Hu, J. Huang, J. Wang, J. Wang, "A
// transmission control mechanism for lossless datacenter network based on
// direct congestion notification", Acta Electronica Sinica
// (docs/papers.md §5; the mechanism: docs/algorithms/dcon.md). Its
// experiments: bursts under PFC on the testbed with DCQCN (E0, Fig. 2) and
// DCON (E1, Fig. 6), burst intensity (E2, Fig. 7), the large-scale
// leaf-spine (E3, Figs. 8–10) and DCON's parameter sensitivity (E4, Figs.
// 11, 12).
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

ccsim runs every experiment with its own dcon, dcqcn, swift and pcn. The paper's figures are not available, only their captions and the text; the numbers below come from its text. Interpretations are stated in each experiment's setup (all of DCON's: docs/algorithms/dcon.md).`,
		Experiments: []*experiment.Experiment{e0(), e1(), e2(), e3(), e4()},
	})
}

// algs are the algorithms compared (E2–E3), in the order of the paper's
// figures, and the names it prints.
var algs = experiment.Algs{
	{CC: "dcqcn", Name: "DCQCN"}, {CC: "swift", Name: "Swift"}, {CC: "pcn", Name: "PCN"}, {CC: "dcon", Name: "DCON"},
}

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
// its NP-ECN switches); dconParams holds per-experiment DCON parameters.
func ccPatch(dconParams map[string]any) map[string]map[string]any {
	m := map[string]map[string]any{"dcqcn": dcqcnPaper(), "swift": {"params": map[string]any{"swift": map[string]any{"base_target_us": swiftBaseTargetUs}}}}
	if dconParams != nil {
		m["dcon"] = map[string]any{"params": map[string]any{"dcon": dconParams}}
	}
	return m
}
