// Package wrcc reproduces paper 002: Liu Yaping, Yan Dingyu, Fang Binxing,
// Xu Mingguang, Zhang Shuo, Yang Zhikai, "Congestion control for RDMA with
// end-network collaboration in computing power network", Journal on
// Communications, 2026 (docs/papers.md; the mechanism:
// docs/algorithms/wrcc.md, the baseline BiCC: docs/algorithms/bicc.md).
// Its experiments: the cross-datacenter motivation (E0, Fig. 2), the basic
// results with three traffic patterns (E1, Figs. 8, 9), load robustness
// (E2, Table 3), the sampling period WRCCT (E3, Table 4) and the prototype
// experiments, simulated (E4, Figs. 10–13); E5 measures how fast a
// cross-DC sender climbs after a cut (no claim of the paper).
package wrcc

import "github.com/ccsim/ccsim/experiment"

func init() {
	experiment.Register(&experiment.Paper{
		ID:       "wrcc",
		Number:   "002",
		Title:    "WRCC: congestion control for RDMA with end-network collaboration in computing power networks",
		Citation: "Liu Yaping, Yan Dingyu, Fang Binxing, Xu Mingguang, Zhang Shuo, Yang Zhikai, Journal on Communications, 2026, doi:10.11959/j.issn.1000-436x.2026038",
		Summary: `WRCC is explicit-rate congestion control for RoCEv2 across datacenters joined by long-haul links. Every switch computes a port fair rate (PFR) per egress port every WRCCT from the port's measured input rate, its queue, PFC activity of the ingress ports that feed it and the mean RTT of the traffic through it; data packets carry a 12-byte INT extension whose fair-rate field each switch lowers to its PFR, the receiver echoes it and the sender takes it as its rate (the end-to-end loop). A switch in the sender's datacenter that lowers the rate of a new (burst) or cross-datacenter flow also sends a fast congestion notification packet (FCNP) straight back to the sender (the sub-RTT loop). The paper compares WRCC with DCQCN, HPCC and BiCC on two fat-trees joined by a 1-ms, 400-Gb/s long haul in NS-3, and on a 640-km prototype (Tofino2 switches, FPGA NICs) against ConnectX-7 DCQCN.

ccsim runs every experiment with its own wrcc, dcqcn, hpcc and bicc; the prototype experiments are simulated on the same topology and traffic model. BiCC is modelled from paper 002's description only (its own paper was not available; docs/algorithms/bicc.md), so its numbers are those of ccsim's interpretation. The paper's figures are not available, only their captions, the text and Tables 3 and 4. Interpretations are stated in each experiment's setup (all of WRCC's: docs/algorithms/wrcc.md).`,
		Experiments: []*experiment.Experiment{e0(), e1(), e2(), e3(), e4(), e5()},
	})
}

// algs are the algorithms compared on the cross-DC fabric (E1–E3; E0 and
// E4 run some of them), in the order of the paper's tables, and the names
// it prints.
var algs = experiment.Algs{
	{CC: "wrcc", Name: "WRCC"}, {CC: "dcqcn", Name: "DCQCN"}, {CC: "hpcc", Name: "HPCC"}, {CC: "bicc", Name: "BiCC"},
}
