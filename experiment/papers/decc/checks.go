package decc

// Consistency checks (docs/reproduce.md, "Readings and consistency
// checks"): constants the paper prints that follow from the setup alone,
// derived from the resolved scenario of the experiment's first run at the
// paper's scale.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

// mib is the OSU message of the paper's quoted point, "1024 KB" (§4.3).
const mib = 1 << 20

// fatTreeChecks are the fat-tree's printed constants (§4.1): 64 compute
// nodes, 400 Gb/s links.
func fatTreeChecks() []experiment.Check {
	return []experiment.Check{
		{ID: "nodes", Description: "compute nodes of the two-level fat-tree (§4.1: 4 ToRs × 16)", Unit: "nodes", Paper: 64,
			Derive: func(s *scenario.Scenario) (float64, error) {
				return float64(s.Topology.Leaves * s.Topology.HostsPerLeaf), nil
			}},
		{ID: "link-rate", Description: "link rate (§4.1)", Unit: "Gb/s", Paper: 400,
			Derive: func(s *scenario.Scenario) (float64, error) { return s.Topology.LinkGbps, nil }},
	}
}

// latencyChecks are E4's and E5's: the P99 latencies the paper prints
// (15.32 µs, 17.32 µs; the lowest of all, Table 6's 12.32 µs) cannot be
// below the one-way latency of an empty path across the spine, the path of
// most of their packets.
func latencyChecks() []experiment.Check {
	return []experiment.Check{{ID: "p99-above-base", Bounds: true, Lo: 0, Hi: math.Inf(1), Unit: "µs",
		Description: "the lowest P99 latency the paper prints (12.32 µs, Table 6) minus the one-way latency of a 1,024-B packet on an empty path across the spine: not negative",
		Derive: func(s *scenario.Scenario) (float64, error) {
			us, err := emptyPathUs(s, 0, s.Topology.HostsPerLeaf, int64(s.Host.PayloadBytes))
			return 12.32 - us, err
		}}}
}

// osuChecks are E6's: 1 MiB at 400 Gb/s serialises in 20.97 µs, and the
// paper's 21.59 µs per message at 1024 KB is at least the time of one
// message alone on the shortest path (two nodes under one ToR).
func osuChecks() []experiment.Check {
	return []experiment.Check{
		{ID: "mib-serialisation", Description: "1 MiB at the link rate (decc.md §2.6: 20.97 µs at 400 Gb/s)", Unit: "µs", Paper: 20.97, Tol: &experiment.Tolerance{Abs: 0.005},
			Derive: func(s *scenario.Scenario) (float64, error) { return mib * 8 / (s.Topology.LinkGbps * 1e3), nil }},
		{ID: "osu-1mib-alone", Bounds: true, Lo: 0, Hi: math.Inf(1), Unit: "µs",
			Description: "DECC's 21.59 µs per 1024-KB message (§4.3) minus the one-way time of one 1-MiB message alone between two nodes of one ToR: not negative",
			Derive: func(s *scenario.Scenario) (float64, error) {
				us, err := emptyPathUs(s, 0, 1, mib)
				return 21.59 - us, err
			}},
	}
}

// emptyPathUs is the one-way time of a message of size bytes from src to
// dst on an empty path, in µs: its serialisation at the bottleneck, the
// propagation of every link and, pipelined, one packet's serialisation at
// each further hop (store-and-forward; payload only, headers left out, so
// it is a lower bound).
func emptyPathUs(s *scenario.Scenario, src, dst int, size int64) (float64, error) {
	g, err := assemble.Graph(s)
	if err != nil {
		return math.NaN(), err
	}
	pi := g.PathInfo(src, dst, s.Host.PayloadBytes)
	if pi.Hops <= 0 {
		return math.NaN(), fmt.Errorf("no path from node %d to node %d", src, dst)
	}
	ser := float64(size) * 8 / float64(pi.MinBps) * 1e6
	pkt := float64(min(size, int64(s.Host.PayloadBytes))) * 8 / float64(pi.MinBps) * 1e6
	return ser + pi.Delay.Microseconds() + float64(pi.Hops-1)*pkt, nil
}

// maxGoodputCheck is E5's: the paper's goodput ratio at 16 processes
// (90.82 %) cannot exceed what the fat-tree carries for uniform
// many-to-many traffic (maxManyToManyPct).
var maxGoodputCheck = experiment.Check{ID: "max-goodput", Bounds: true, Lo: 0, Hi: math.Inf(1), Unit: "points",
	Description: "the largest goodput ratio the tree allows for uniform many-to-many traffic minus DECC's 90.82 % (§4.2): not negative",
	Derive: func(s *scenario.Scenario) (float64, error) {
		fab := s.Topology.LinkGbps
		if s.Topology.FabricGbps != nil {
			fab = *s.Topology.FabricGbps
		}
		t := s.Topology
		return maxManyToManyPct(t.Spines, t.Leaves, t.HostsPerLeaf, t.LinkGbps, fab) - 90.82, nil
	}}

// maxManyToManyPct is the largest aggregate goodput, in per cent of the
// hosts' capacity, of uniform many-to-many traffic on a leaf-spine: every
// host sends at rate r, a share f = (L−1)·H / (L·H − 1) of it to other
// ToRs, and a ToR's uplinks carry S·fabric: r ≤ S·fabric / (H·f), capped at
// the host link.
func maxManyToManyPct(spines, tors, perToR int, hostGbps, fabricGbps float64) float64 {
	n := float64(tors * perToR)
	f := float64((tors-1)*perToR) / (n - 1)
	r := float64(spines) * fabricGbps / (float64(perToR) * f)
	return 100 * math.Min(1, r/hostGbps)
}

// goodputCeiling checks a goodput ratio the paper prints against the
// largest the setup allows: payload / (payload + the 48-B data header) of
// the link (95.52 % with 1,024-B payloads); the derived constant is the
// ceiling minus the paper's value, which must not be negative.
func goodputCeiling(paper float64, what string) experiment.Check {
	return experiment.Check{ID: "goodput-ceiling", Bounds: true, Lo: 0, Hi: math.Inf(1), Unit: "points",
		Description: fmt.Sprintf("the goodput ratio's ceiling, payload / (payload + %d-B header), minus %s: not negative", fabric.DataHeaderBytes, what),
		Derive: func(s *scenario.Scenario) (float64, error) {
			p := float64(s.Host.PayloadBytes)
			if p <= 0 {
				return 0, fmt.Errorf("payload_bytes %d", s.Host.PayloadBytes)
			}
			return 100*p/(p+fabric.DataHeaderBytes) - paper, nil
		}}
}
