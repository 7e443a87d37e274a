package assemble

import (
	"fmt"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// workload.perftest (paper 002's W11; docs/workloads.md §3): its
// endpoints resolved on the run's graph, and its summary.

// perftestParams resolves workload.perftest against topology g: the
// default endpoints by name, the senders' line rate.
func perftestParams(s *scenario.Scenario, g *topo.Graph) (workload.PerftestParams, error) {
	c := s.Workload.Perftest
	const f = "workload.perftest."
	p := workload.PerftestParams{QPsPerSender: c.Flows, MsgSize: c.MsgSizeBytes, TxDepth: c.TxDepth,
		Probe: c.Probe == nil || *c.Probe, ProbeSize: c.ProbeSizeBytes, ProbeGap: scenario.UsTime(c.ProbeGapUs),
		ProbeDelay: scenario.UsTime(c.ProbeDelayUs), ProbeCount: c.ProbeCount,
		Start: scenario.NsTime(c.StartNs), Duration: scenario.MsTime(c.DurationMs), Prio: c.Prio, ProbePrio: c.ProbePrio}
	byName := func(field string, names ...string) ([]int, error) {
		var out []int
		for _, n := range names {
			id, ok := g.NodeByName(n)
			if !ok {
				return nil, fmt.Errorf("%s%s: not given, and the topology has no node named %s (topology.kind two_site names its hosts A, B and C): give node ids", f, field, n)
			}
			out = append(out, id)
		}
		return out, nil
	}
	var err error
	if len(c.Senders) > 0 {
		p.Senders = scenario.IDs(c.Senders)
	} else if p.Senders, err = byName("senders", "A", "B"); err != nil {
		return p, err
	}
	if c.Receiver != nil {
		p.Receiver = int(*c.Receiver)
	} else {
		r, err := byName("receiver", "C")
		if err != nil {
			return p, err
		}
		p.Receiver = r[0]
	}
	p.ProbeSrc, p.ProbeDst = p.Senders[0], p.Receiver
	if c.ProbeSrc != nil {
		p.ProbeSrc = int(*c.ProbeSrc)
	}
	if c.ProbeDst != nil {
		p.ProbeDst = int(*c.ProbeDst)
	}
	check := func(field string, h int) error {
		if !isHost(g, h) {
			return fmt.Errorf("%s%s = %d is not a host of the topology (%s)", f, field, h, describeHosts(g))
		}
		return nil
	}
	for i, h := range p.Senders {
		if err := check(fmt.Sprintf("senders[%d]", i), h); err != nil {
			return p, err
		}
		p.LineBps = max(p.LineBps, hostBps(g, h))
	}
	if err := check("receiver", p.Receiver); err != nil {
		return p, err
	}
	if p.Probe {
		if err := check("probe_src", p.ProbeSrc); err != nil {
			return p, err
		}
		if err := check("probe_dst", p.ProbeDst); err != nil {
			return p, err
		}
	}
	return p, nil
}

// perftestSummary builds the perftest summary of a run that ended at end.
func (b *Built) perftestSummary(end sim.Time) *result.PerftestSummary {
	n := b.Net
	pt := b.Scenario.Workload.Perftest
	measured := max(min(end, b.testEnd)-b.testStart, 0)
	out := &result.PerftestSummary{DurationMs: pt.DurationMs, MeasuredMs: measured.Seconds() * 1e3}
	bw := &out.Bandwidth
	var rates []float64
	probe := map[int]bool{}
	var lat []sim.Time
	for i := range b.Flows {
		f, q := &b.Flows[i], &n.QPs[i]
		switch f.Group {
		case workload.GroupBandwidth:
			fl := result.BandwidthFlow{FlowID: i, Src: f.Src, Dst: f.Dst, DeliveredBytes: q.Delivered(), AckedBytes: q.SndUna}
			if measured > 0 {
				fl.Gbps = float64(fl.DeliveredBytes) * 8 / measured.Seconds() / 1e9
				fl.AckedGbps = float64(fl.AckedBytes) * 8 / measured.Seconds() / 1e9
			}
			bw.Flows = append(bw.Flows, fl)
			bw.TotalGbps += fl.Gbps
			rates = append(rates, fl.Gbps)
		case workload.GroupProbe:
			probe[i] = true
			if f.Messages <= 1 && q.Done { // a one-message probe is a plain flow
				lat = append(lat, q.Finish-q.Start)
			}
		}
	}
	if len(rates) > 0 {
		bw.MeanGbps = bw.TotalGbps / float64(len(rates))
	}
	bw.Jain = metrics.Jain(rates)
	for _, m := range b.msgs {
		if probe[m.Flow] {
			lat = append(lat, m.Latency())
		}
	}
	out.Latency = metrics.SummarizeLatency(lat)
	return out
}
