package assemble

import (
	"slices"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// collect fills the Result of a run that ended at end after wall seconds:
// the flows and their summaries, the RTT samples, the ports' counters,
// the conservation account, and what the recorders collected.
func (b *Built) collect(end sim.Time, wall float64) *result.Result {
	n := b.Net
	s := b.Scenario
	r := &result.Result{Scenario: s.Name, CC: b.CC, Seed: n.Config().Seed, Events: n.Stats.Events, WallSeconds: wall, SimEndNs: end.Nanoseconds()}
	if wall > 0 {
		r.EventsPerS = float64(n.Stats.Events) / wall
	}
	b.collectFlows(r, end)
	b.collectLosses(r, end)
	r.Messages = b.msgs
	if s.Workload.Perftest != nil {
		r.Perftest = b.perftestSummary(end)
	}
	h := &n.Stats.RTT
	r.RTT = result.RTTSummary{Samples: h.Count, MeanUs: h.Mean().Microseconds(), P50Us: h.Quantile(0.5).Microseconds(),
		P99Us: h.Quantile(0.99).Microseconds(), MaxUs: h.MaxRTT.Microseconds()}
	if s.Outputs.RTTPerRTT {
		r.RTTPerRTT, r.PerRTT = perRTTSummary(n.PerRTTSamples(), s.Outputs.RTTPerRTTFlows)
	}
	if len(s.Outputs.RateTraceFlows) > 0 {
		for _, c := range n.RateTrace() {
			r.RateTrace = append(r.RateTrace, result.RateChange{Flow: c.Flow, At: c.At, Bps: c.Bps, Window: c.Window})
		}
	}
	collectPorts(n, r)
	r.LinkLosses = n.Stats.LinkLosses
	r.Notices = n.Stats.Notices // switch notices: DCON CNMs, Bolt SRCs, WRCC FCNPs
	_, inflight := n.DataInFlight()
	r.Bytes = result.ByteSummary{Sent: n.Stats.DataTxBytes, Delivered: n.Stats.DataRxBytes, InFlight: inflight, Dropped: n.Stats.DataDropBytes}
	r.PFCEvents = b.pfc
	r.Workload = b.Flows
	if b.qcdf != nil {
		r.QueueCDFs = b.qcdf
		r.QueueStats = b.qcdf.AllStats()
	}
	r.Window = b.windowSummary()
	r.Queue = b.queue
	r.QueuePorts = resultPorts(s.Outputs.QueuePorts)
	if b.series != nil {
		r.Series = b.series.finish(b, end)
	}
	o := &s.Outputs
	r.Files = result.Files{RefFCT: o.RefFCT, RefPFC: o.RefPFC, FlowFile: o.FlowFile,
		RTTPerRTT: o.RTTPerRTT && len(o.RTTPerRTTFlows) > 0, Messages: b.chains,
		RateTrace: len(o.RateTraceFlows) > 0}
	return r
}

// collectFlows fills the flow records (flows.csv), the per-flow counters
// (flow_stats.csv), the FCT summaries, Jain's index of the goodputs and
// the congestion counts. Unfinished flows enter the FCT summaries censored
// at the run's end (docs/metrics.md §5).
func (b *Built) collectFlows(r *result.Result, end sim.Time) {
	n := b.Net
	payload := n.Config().PayloadBytes
	goodputs := make([]float64, 0, len(n.QPs))
	r.Flows = make([]metrics.FlowRecord, 0, len(n.QPs))
	for i := range n.QPs {
		q := &n.QPs[i]
		f := &b.Flows[i]
		pi := n.PathConsts(f.Src, f.Dst)
		size := f.SizeBytes
		if f.Messages > 1 {
			size = q.SizeBytes // a message chain: the bytes of the messages posted
		}
		rec := metrics.FlowRecord{ID: i, Src: f.Src, Dst: f.Dst, SPort: int(q.SPort), DPort: int(q.DPort), Prio: f.Prio,
			SizeBytes: size, Start: f.Start, IdealFCT: topo.IdealFCT(pi, size, payload, fabric.DataHeaderBytes), Done: q.Done,
			Group: workload.GroupName(f.Group)}
		if f.HasAfter {
			rec.Start, rec.NotStarted = q.Start, !q.Started()
		}
		if q.Done {
			rec.Finish = q.Finish
			goodputs = append(goodputs, float64(size)*8/(q.Finish-q.Start).Seconds())
		}
		r.Flows = append(r.Flows, rec)
		st := result.FlowStat{ID: i, CNPs: q.CNPs, RateCuts: q.RateCuts, TxPackets: q.TxPackets, RetxByte: q.RetxBytes}
		if d, ok := q.CC.(cc.DecisionCounter); ok {
			st.Decisions = d.DecisionCount()
		}
		r.FlowStats = append(r.FlowStats, st)
		r.Congestion.CNPs += q.CNPs
		r.Congestion.RateCuts += q.RateCuts
	}
	r.Summary = metrics.SummarizeFlows(r.Flows, end)
	r.FCTGroups = groupSummaries(r.Flows, end)
	r.Jain = metrics.Jain(goodputs)
}

// collectLosses fills flow_losses.csv's rows and the totals of
// summary.json's latency, losses and goodput (docs/metrics.md §16–§18).
func (b *Built) collectLosses(r *result.Result, end sim.Time) {
	n := b.Net
	r.Latency = n.Latency().Summary()
	inflight := n.FlowInFlight(nil)
	r.FlowLosses = make([]result.FlowLoss, len(n.QPs))
	var ctrl int64
	for i := range n.QPs {
		q := &n.QPs[i]
		fl := result.FlowLoss{ID: i, SentBytes: q.TxBytes, RxBytes: q.RxBytes, InFlightBytes: inflight[i],
			DataDrops: q.DataDrops, DropBytes: q.DataDropBytes, CtrlDrops: q.CtrlDrops, GoodputBytes: q.Delivered()}
		switch {
		case q.Done:
			fl.Duration = q.Finish - q.Start
		case q.Started() && q.Start < end:
			fl.Duration = end - q.Start
		}
		r.FlowLosses[i] = fl
		l, g := &r.Losses, &r.Goodput
		l.DataPackets += q.DataDrops
		l.DataBytes += q.DataDropBytes
		ctrl += q.CtrlDrops
		if q.DataDrops > 0 {
			l.FlowsWithLoss++
		}
		if !q.Done && q.Started() && q.SizeBytes > 0 && q.Delivered() >= q.SizeBytes {
			l.FlowsAwaitingAck++
		}
		g.Bytes += fl.GoodputBytes
		g.DuplicateBytes += q.RxBytes - fl.GoodputBytes
		g.RetransmittedBytes += q.RetxBytes
	}
	r.Losses.CtrlPackets = ctrl
	r.Losses.Unattributed = n.Stats.CtrlDrops - ctrl // PFC frames: no flow
	if span := end - b.first; len(n.QPs) > 0 && span > 0 {
		r.Goodput.Gbps = float64(r.Goodput.Bytes) * 8 / span.Seconds() / 1e9
	}
}

// collectPorts fills the PFC account (per paused transmitter), the drops
// and the ECN marks from the ports' counters.
func collectPorts(n *fabric.Network, r *result.Result) {
	r.PFC.PauseFrames, r.PFC.ResumeFrames = n.Stats.PauseFrames, n.Stats.ResumeFrames
	for i := range n.Ports {
		p := &n.Ports[i]
		if p.Stats.PauseRx > 0 {
			nd := &n.Nodes[p.Node]
			r.PFC.Ports = append(r.PFC.Ports, result.PortPause{Node: int(p.Node), Port: i - int(nd.FirstPort), PauseRx: p.Stats.PauseRx, PausedUs: p.Stats.PausedTime.Microseconds()})
			r.PFC.PausedUs += p.Stats.PausedTime.Microseconds()
		}
		r.Drops += p.Stats.Drops
		r.ECNMarked += p.Stats.Marked
	}
}

// windowSummary is the per-flow throughput over outputs.jain_window_ms
// (ms after the first flow start), nil when it is not asked for.
func (b *Built) windowSummary() *result.WindowSummary {
	win := b.Scenario.Outputs.JainWindowMs
	if b.bytes == nil || len(win) != 2 {
		return nil
	}
	from := b.first + scenario.MsTime(win[0])
	to := b.first + scenario.MsTime(win[1])
	rates := metrics.WindowThroughput(b.bytes, from, to)
	w := &result.WindowSummary{FromMs: win[0], ToMs: win[1], Flows: len(rates), Jain: metrics.JainOverWindow(b.bytes, from, to)}
	for i, x := range rates {
		g := x / 1e9
		w.PerFlowGbps = append(w.PerFlowGbps, g)
		w.MeanGbps += g / float64(len(rates))
		if i == 0 || g < w.MinGbps {
			w.MinGbps = g
		}
		if g > w.MaxGbps {
			w.MaxGbps = g
		}
	}
	return w
}

// perRTTSummary computes the exact statistics of the per-RTT samples of
// all flows (outputs.rtt_per_rtt; docs/metrics.md §12): count, mean, p50,
// p99 (the sample at index ⌊n·p⌋ of the sorted samples) and max, in µs;
// and returns the samples of the listed flows, in the order taken, for
// rtt_per_rtt.csv.
func perRTTSummary(samples []fabric.PerRTTSample, flows []int) (*result.RTTSummary, []result.PerRTTSample) {
	st := metrics.NewRTTStats(len(samples))
	var keep []result.PerRTTSample
	for _, x := range samples {
		st.Add(x.RTT)
		if len(flows) > 0 && slices.Contains(flows, int(x.Flow)) {
			keep = append(keep, result.PerRTTSample{Flow: int(x.Flow), At: x.At, RTT: x.RTT})
		}
	}
	return &result.RTTSummary{Samples: int64(st.Count()), MeanUs: st.Mean().Microseconds(), P50Us: st.Percentile(0.5).Microseconds(),
		P99Us: st.P99().Microseconds(), MaxUs: st.Max().Microseconds()}, keep
}

// groupSummaries summarises the flows of each group (nil when no flow has
// one).
func groupSummaries(recs []metrics.FlowRecord, end sim.Time) map[string]metrics.FCTSummary {
	// count first, so each group's slice is allocated once (a run may hold
	// hundreds of thousands of flows)
	count := map[string]int{}
	for i := range recs {
		if g := recs[i].Group; g != "" {
			count[g]++
		}
	}
	by := make(map[string][]metrics.FlowRecord, len(count))
	for g, c := range count {
		by[g] = make([]metrics.FlowRecord, 0, c)
	}
	for i := range recs {
		if g := recs[i].Group; g != "" {
			by[g] = append(by[g], recs[i])
		}
	}
	if len(by) == 0 {
		return nil
	}
	out := make(map[string]metrics.FCTSummary, len(by))
	for g, rs := range by {
		out[g] = metrics.SummarizeFlows(rs, end)
	}
	return out
}
