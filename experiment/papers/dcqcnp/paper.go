// Package dcqcnp reproduces paper 004: F. Wang, Z. Huang, L. Qiu, E. Guo,
// "Design of efficient congestion control method based on RDMA", Journal of
// Hefei University of Technology (Natural Science) 48(10):1344–1351, 2025
// (docs/papers.md; the mechanism: docs/algorithms/dcqcnp.md). Its three
// experiments: the single-QP behavioural model (E1, Fig. 4), the PMTU sweep
// of the 80-to-1 incast (E2, Figs. 5–6) and the comparison with DCQCN,
// TIMELY and DCTCP (E3, Table 4).
package dcqcnp

import "github.com/ccsim/ccsim/experiment"

func init() {
	experiment.Register(&experiment.Paper{
		ID:       "dcqcn-p",
		Number:   "004",
		Title:    "DCQCN-p: design of an efficient congestion control method based on RDMA",
		Citation: "F. Wang, Z. Huang, L. Qiu, E. Guo, Journal of Hefei University of Technology (Natural Science) 48(10):1344–1351, 2025, doi:10.3969/j.issn.1003-5060.2025.10.007",
		Summary: `DCQCN-p is a hardware-oriented DCQCN: the receiver sends a congestion notification for every marked packet; the sender ignores notifications closer than a decrease interval to the previous one, uses g = 1/16 and a piecewise α decay, keeps rates as fractions of line rate with an additive step of 0.2, and holds at most 512 congested flows per NIC in a CAM. The paper evaluates a single-QP behavioural model (recovery rounds after decreases) and an 80-to-1 incast in NS-3 (a PMTU sweep, and a comparison with DCQCN, TIMELY and DCTCP).

ccsim runs every experiment with its own DCQCN-p (algorithm dcqcnp) and baselines. The paper's figures are not available, only their captions and the text; the numbers below come from its text and Table 4. Where the paper is silent or inconsistent, the interpretation used is stated in each experiment's setup (docs/algorithms/dcqcnp.md lists them all); where it leaves the setup open, every reading runs and is shown beside the primary one, which is chosen from the paper's text and the constants it prints (its maximum RTT and BDP), never from which claims then hold.`,
		Experiments: []*experiment.Experiment{e1(), e2(), e3(), e3floor()},
		// The paper states its numbers without a precision: the default
		// ±25 %; exact constants (round counts, the setup's RTT and BDP)
		// carry their own precision.
		Tolerance: experiment.DefaultTolerance,
	})
}

// algs are the algorithms of the paper's comparison (E3, Table 4's
// columns) and the names it prints.
var algs = experiment.Algs{
	{CC: "dcqcn", Name: "DCQCN"}, {CC: "timely", Name: "TIMELY"}, {CC: "dctcp", Name: "DCTCP"}, {CC: "dcqcnp", Name: "DCQCN-p"},
}

// dcqcnpParams are DCQCN-p's parameters in every simulated run (E2, E3):
// its defaults with a minimum rate of 100 Mb/s — the paper gives none; it
// is the default `min_rate` of the HPCC ns-3 simulator (scratch/third.cc),
// which is built on the paper's platform ns3-rdma (its ref. [23]) and
// prints exactly the paper's pair "maximum RTT, maximum BDP" at start-up.
// e3floor shows 1 Mb/s and 1 Gb/s (that simulator's run.py presets).
var dcqcnpParams = map[string]any{"min_rate_mbps": 100}
