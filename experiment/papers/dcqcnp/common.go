package dcqcnp

// Shared by E2 and E3: the 80-to-1 incast (scenarios/papers/dcqcn-p/
// incast80.yaml), its patches at each scale, the readings of its setup and
// the checks of each reading against the constants the paper prints, and
// the senders' flows read from its result files.

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

const (
	base     = "incast80.yaml"
	switchID = 81 // the star's switch
	recvPort = 80 // its port towards the receiver (host 80)
	receiver = 80
	// hdrBytes are the headers of every data packet on the wire.
	hdrBytes = 48
)

// paperSizes are the senders' bytes: 1 × 150 MB, 2 × 200 MB, 17 × 10 MB,
// 60 × 5 MB (the paper's 143.05, 190.73, 9.54 and 4.77 MiB).
func paperSizes(div int64) []any {
	var out []any
	for i := range 80 {
		var s int64
		switch {
		case i == 0:
			s = 150_000_000
		case i < 3:
			s = 200_000_000
		case i < 20:
			s = 10_000_000
		default:
			s = 5_000_000
		}
		out = append(out, s/div)
	}
	return out
}

// sizeDiv is how much the quick scale divides the senders' bytes by.
func sizeDiv(sc experiment.Scale) int64 { return experiment.AtScale[int64](sc, 1000, 1) }

// sizeLabel names a paper size (bytes) at a scale: "10 MB" at paper scale,
// "10 KB" at quick scale.
func sizeLabel(sc experiment.Scale, paperBytes int64) string {
	return experiment.AtScale(sc, fmt.Sprintf("%d KB", paperBytes/1_000_000), fmt.Sprintf("%d MB", paperBytes/1_000_000))
}

// scalePatch is the part of every run's patch that depends on the scale:
// quick divides the bytes by 1000 and uses finer bins.
func scalePatch(sc experiment.Scale) map[string]any {
	if sc == experiment.ScaleQuick {
		return map[string]any{
			"stop_ms":  50,
			"workload": map[string]any{"incast": map[string]any{"sizes_bytes": paperSizes(1000)}},
			"outputs": map[string]any{"series": map[string]any{
				"bin_us": 10, "flow_rate_bin_us": 20, "queue_bin_us": 1}},
		}
	}
	return map[string]any{}
}

// Readings of the incast's setup (E2 and E3 share them, so that their
// DCQCN-p runs at PMTU 1024 are one run per reading and seed). The base
// file is the primary reading, `mix`.
const (
	whyMix  = `§3: "链路层传输路径设置为 100 Gbit/s 和 25 Gbit/s 的混合网络" (the links are a mix of 100 Gb/s and 25 Gb/s); §3.2: "主机从 100 Gbit/s 网络切换到 25 Gbit/s 网络" (hosts moving from the 100 Gb/s to the 25 Gb/s network); §3.1: "分别监测 80 个网络流各自的完成时间" (the completion time of each of the 80 flows: one flow per sender). The printed maximum RTT 4,654 ns = 2·2000 + 2·⌊1024·8/25⌋ needs two 25 Gb/s hosts on one switch, the printed BDP 52,025 B = 4,162 ns × 100 Gb/s / 8 two 100 Gb/s hosts; Table 4's averages (≤ 25.08 Gb/s) put the receiver on 25 Gb/s. How many senders are on 25 Gb/s is not said: half of them (the odd ones, so that every size class is split).`
	whyMix1 = `As mix, with the smallest split consistent with both printed constants: the receiver and one sender (79, a 5 MB one) on 25 Gb/s.`
	whyRx25 = `80 flows (§3.1), only the receiver on 25 Gb/s (the setup before issue 16): its maximum RTT is 4,408 ns, not the printed 4,654 (inconsistent).`
	whyQP   = `Sensitivity: "使用 4 000 个调度流" (§3.2, "using 4,000 scheduled flows") read as 4,000 active QPs, 50 per sender (not in the paper: §2.2 names 4,000 scheduled flows as the NIC's capacity, "以 4 000 个调度流为例，能够处理 512 个拥塞流"), receiver alone on 25 Gb/s (the setup before issue 16; inconsistent with 4,654 ns).`
)

// hostLinks25 is a patch putting the listed hosts on 25 Gb/s links.
func hostLinks25(hosts ...int) map[string]any {
	hs := make([]any, len(hosts))
	for i, h := range hosts {
		hs[i] = h
	}
	return map[string]any{"topology": map[string]any{"host_links": []any{map[string]any{"hosts": hs, "gbps": 25}}}}
}

// incastReadings are the readings of the incast's setup.
func incastReadings() []experiment.Reading {
	return []experiment.Reading{
		{ID: "mix", Title: "80 flows, one QP per sender; the receiver and the odd senders on 25 Gb/s, the even senders on 100 Gb/s", Why: whyMix, Primary: true},
		{ID: "mix1", Title: "80 flows, one QP per sender; the receiver and sender 79 on 25 Gb/s", Why: whyMix1,
			Patch: func(experiment.Scale) map[string]any { return hostLinks25(receiver, 79) }},
		{ID: "rx25", Title: "80 flows, one QP per sender; only the receiver on 25 Gb/s", Why: whyRx25,
			Patch: func(experiment.Scale) map[string]any { return hostLinks25(receiver) }},
		{ID: "qp4000", Title: "4,000 QPs (50 per sender; 5 at quick scale); only the receiver on 25 Gb/s", Why: whyQP,
			Patch: func(sc experiment.Scale) map[string]any {
				return experiment.Merge(hostLinks25(receiver), map[string]any{"workload": map[string]any{"incast": map[string]any{
					"qps_per_sender": experiment.AtScale(sc, 5, 50)}}})
			}},
	}
}

// checkPMTU is the PMTU at which the paper prints its maximum RTT and BDP.
const checkPMTU = 1024

// incastChecks are the constants the paper prints that follow from the
// setup alone (§3.1, §4): the maximum RTT and BDP at PMTU 1,024 B (the
// start-up constants of the HPCC ns-3 simulator built on the paper's
// platform ns3-rdma, which ccsim computes the same way: topo.Graph.MaxRTT,
// docs/reference-simulator.md §1.4) and the total of the printed sizes.
func incastChecks() []experiment.Check {
	return []experiment.Check{
		{ID: "max-rtt", Description: "maximum RTT of the topology at PMTU 1,024 B (§3.1, §4: 4 654 ns): max over host pairs of 2·delay + Σ ⌊1024·8/rate⌋", Unit: "ns", Paper: 4654,
			Derive: func(s *scenario.Scenario) (float64, error) { r, _, err := setupRTT(s, checkPMTU); return r, err }},
		{ID: "max-bdp", Description: "maximum BDP at PMTU 1,024 B (§3.1: printed \"52 025 MiB/s\", a unit error): max over host pairs of RTT × the path's slowest link", Unit: "B", Paper: 52025,
			Derive: func(s *scenario.Scenario) (float64, error) { _, b, err := setupRTT(s, checkPMTU); return b, err }},
		{ID: "total-mib", Description: "total bytes (§3.1: 972.89 MiB = 143.05 + 2·190.73 + 17·9.54 + 60·4.77, the sum of the rounded sizes)", Unit: "MiB", Paper: 972.89,
			Tol: &experiment.Tolerance{Abs: 0.005}, Derive: totalMiB},
	}
}

// setupRTT is the maximum RTT (ns) and BDP (B) of s's topology at a payload
// (the reference rule: topo.Graph.MaxRTT).
func setupRTT(s *scenario.Scenario, payload int) (rttNs, bdpBytes float64, err error) {
	g, err := assemble.Graph(s)
	if err != nil {
		return 0, 0, err
	}
	rtt, bdp := g.MaxRTT(payload)
	return float64(rtt.Nanoseconds()), float64(bdp), nil
}

// totalMiB is the sum of the incast's sizes in MiB, each rounded to two
// decimals as the paper prints them.
func totalMiB(s *scenario.Scenario) (float64, error) {
	if s.Workload.Incast == nil {
		return 0, fmt.Errorf("no incast workload")
	}
	sum := 0.0
	for _, b := range s.Workload.Incast.SizesBytes {
		sum += math.Round(float64(b)/(1<<20)*100) / 100
	}
	return sum, nil
}

// receiverBps is the rate of the receiver's link in s.
func receiverBps(s *scenario.Scenario) (float64, error) {
	g, err := assemble.Graph(s)
	if err != nil {
		return 0, err
	}
	for _, l := range g.Links {
		if l.A == receiver || l.B == receiver {
			return float64(l.Bps), nil
		}
	}
	return 0, fmt.Errorf("no link at the receiver (host %d)", receiver)
}

// transferFloor is the least time the incast's bytes need through the
// receiver's link: payload only, and with the headers of every packet
// (ns).
func transferFloor(s *scenario.Scenario) (payloadNs, wireNs float64, err error) {
	bps, err := receiverBps(s)
	if err != nil {
		return 0, 0, err
	}
	if s.Workload.Incast == nil {
		return 0, 0, fmt.Errorf("no incast workload")
	}
	p := int64(s.Host.PayloadBytes)
	var pay, wire float64
	for _, b := range s.Workload.Incast.SizesBytes {
		pay += float64(b)
		wire += float64(b + (b+p-1)/p*hdrBytes)
	}
	return pay * 8 / bps * 1e9, wire * 8 / bps * 1e9, nil
}

// senderFlow is one sender's data: the flows of its QPs as one flow.
type senderFlow struct {
	Src   int
	Bytes int64
	Start sim.Time
	// FCT is the last QP's finish − the first QP's start; a sender with an
	// unfinished QP is censored at the run's end (FCT = end − start, a
	// lower bound; docs/metrics.md §5).
	FCT      sim.Time
	Censored bool
}

// Done is when the sender completed (the run's end if censored).
func (s senderFlow) Done() sim.Time { return s.Start + s.FCT }

// senderFlows groups the per-QP records by sender, in sender order; end is
// the run's end (result.Result.End), where unfinished senders are
// censored.
func senderFlows(recs []metrics.FlowRecord, end sim.Time) []senderFlow {
	by := map[int]*senderFlow{}
	fin := map[int]sim.Time{}
	for _, r := range recs {
		if r.NotStarted {
			continue
		}
		s := by[r.Src]
		if s == nil {
			s = &senderFlow{Src: r.Src, Start: r.Start}
			by[r.Src] = s
		}
		s.Bytes += r.SizeBytes
		s.Start = min(s.Start, r.Start)
		if r.Done {
			fin[r.Src] = max(fin[r.Src], r.Finish)
		} else {
			s.Censored = true
		}
	}
	var out []senderFlow
	for src, s := range by {
		if s.Censored {
			fin[src] = end
		}
		s.FCT = fin[src] - s.Start
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b senderFlow) int { return a.Src - b.Src })
	return out
}

// censored counts the censored senders.
func censored(snd []senderFlow) int {
	n := 0
	for _, s := range snd {
		if s.Censored {
			n++
		}
	}
	return n
}

// cell formats a sample for a table: its mean, and its range over several
// seeds.
func cell(s experiment.Sample) string {
	if len(s) == 0 {
		return "—"
	}
	m := s.Mean()
	if len(s) == 1 {
		return experiment.G4Dash(m)
	}
	lo, hi := s.Span()
	if lo == hi {
		return experiment.G4Dash(m)
	}
	return fmt.Sprintf("%s (%s … %s)", experiment.G4Dash(m), experiment.G4(lo), experiment.G4(hi))
}

// seedsText says how many seeds a scale runs.
func seedsText(sc experiment.Scale) string {
	n := len(experiment.Seeds(sc))
	if n == 1 {
		return "one seed (1)"
	}
	return fmt.Sprintf("%d seeds (1–%d); tables give the mean and, where the seeds differ, the range", n, n)
}
