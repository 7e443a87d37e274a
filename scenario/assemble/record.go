package assemble

import (
	"errors"
	"fmt"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// The recorders of a run: hooks and monitors on the network that collect
// what the outputs section asks for (the binned series: series.go).
// Samplers skip the times before the first flow start.

// recordMessages records the completed messages of the message chains
// (messages.csv), when the workload has one.
func (b *Built) recordMessages() {
	if !b.chains {
		return
	}
	b.Net.OnMessageDone = func(q *fabric.QP, msg int64, post, done sim.Time) {
		b.msgs = append(b.msgs, metrics.MessageRecord{Flow: int(q.ID), Msg: msg, Post: post, Done: done})
	}
}

// recordPFC records every PFC frame for pfc.txt (outputs.ref_pfc; the
// reference numbers ports from 1).
func (b *Built) recordPFC() {
	if !b.Scenario.Outputs.RefPFC {
		return
	}
	net := b.Net
	net.OnPFC(func(ev fabric.PFCEvent) {
		b.pfc = append(b.pfc, metrics.PFCEvent{At: ev.At, Node: int(ev.Node), IsSwitch: net.Nodes[ev.Node].Switch, Port: int(ev.Port) + 1, Pause: ev.Pause})
	})
}

// recordQueues samples the queues of outputs.queue_ports every
// queue_sample_us (queue.csv).
func (b *Built) recordQueues() error {
	o := &b.Scenario.Outputs
	if o.QueueSampleUs <= 0 || len(o.QueuePorts) == 0 {
		return nil
	}
	ports, err := queuePorts(b.Scenario, b.Net)
	if err != nil {
		return err
	}
	first := b.first
	b.Net.Monitor(scenario.UsTime(o.QueueSampleUs), func(n *fabric.Network, now sim.Time) {
		if now < first {
			return
		}
		for i, pt := range ports {
			b.queue = append(b.queue, result.QueueSample{At: now, Port: i, Bytes: n.Ports[pt].QueueBytes()})
		}
	})
	return nil
}

// recordQueueCDF samples every switch egress port that carries traffic
// every queue_sample_us (default 1 µs) into the classes host (switch →
// host) and fabric (switch → switch) (outputs.queue_cdf).
func (b *Built) recordQueueCDF() {
	o := &b.Scenario.Outputs
	if !o.QueueCDF {
		return
	}
	every := o.QueueSampleUs
	if every == 0 {
		every = 1
	}
	b.qcdf = &metrics.QueueCDFs{}
	first := b.first
	b.Net.Monitor(scenario.UsTime(every), func(n *fabric.Network, now sim.Time) {
		if now < first {
			return
		}
		for i := range n.Ports {
			p := &n.Ports[i]
			if !n.Nodes[p.Node].Switch || p.Stats.TxPackets == 0 {
				continue
			}
			label := "fabric"
			if !n.Nodes[n.Ports[p.Peer].Node].Switch {
				label = "host"
			}
			b.qcdf.Add(label, p.QueueBytes())
		}
	})
}

// recordThroughput samples every active flow's in-order delivered bytes
// every throughput_sample_us, and each flow's completion
// (outputs.jain_window_ms).
func (b *Built) recordThroughput() {
	o := &b.Scenario.Outputs
	if o.ThroughputSampleUs <= 0 {
		return
	}
	b.bytes = &metrics.ByteSeries{}
	b.Net.Monitor(scenario.UsTime(o.ThroughputSampleUs), func(n *fabric.Network, now sim.Time) {
		for i := range n.QPs {
			q := &n.QPs[i]
			if b.startedBy(i, now) && !q.Done {
				b.bytes.Add(i, now, q.Delivered())
			}
		}
	})
	b.Net.OnFlowDone = func(q *fabric.QP) { b.bytes.Add(int(q.ID), q.Finish, q.SizeBytes) }
}

// recordPerRTT turns on the per-RTT RTT samples (outputs.rtt_per_rtt;
// fabric/perrtt.go, docs/metrics.md §12) after checking the flows listed
// for rtt_per_rtt.csv.
func (b *Built) recordPerRTT() error {
	o := &b.Scenario.Outputs
	if !o.RTTPerRTT {
		return nil
	}
	for i, f := range o.RTTPerRTTFlows {
		if f >= len(b.Flows) {
			return fmt.Errorf("outputs.rtt_per_rtt_flows[%d] = %d: the workload has flows 0..%d", i, f, len(b.Flows)-1)
		}
	}
	// room for about 64 samples per flow, at most 2^20 (24 MB) up
	// front: a run of many short flows takes few samples per flow;
	// the slice grows beyond
	b.Net.EnablePerRTT(min(64*len(b.Flows), 1<<20))
	return nil
}

// recordRates turns on the pacing-rate trace of outputs.rate_trace_flows
// (fabric/ratetrace.go) after checking the flows exist.
func (b *Built) recordRates() error {
	fs := b.Scenario.Outputs.RateTraceFlows
	for i, f := range fs {
		if f >= len(b.Flows) {
			return fmt.Errorf("outputs.rate_trace_flows[%d] = %d: the workload has flows 0..%d", i, f, len(b.Flows)-1)
		}
	}
	b.Net.TraceRates(fs)
	return nil
}

// startedBy reports whether flow i starts at or before now: its start time
// is at most now, or, for a chained flow, it has started.
func (b *Built) startedBy(i int, now sim.Time) bool {
	if f := &b.Flows[i]; !f.HasAfter {
		return f.Start <= now
	}
	q := &b.Net.QPs[i]
	return q.Started() && q.Start <= now
}

// queuePorts resolves outputs.queue_ports to port indices of net.
func queuePorts(s *scenario.Scenario, net *fabric.Network) ([]int32, error) {
	ports := make([]int32, len(s.Outputs.QueuePorts))
	var errs scenario.Errors
	for i, p := range s.Outputs.QueuePorts {
		if p.Node.Unresolved() {
			continue // reported by validation
		}
		qp := struct{ Node, Port int }{int(p.Node), p.Port}
		if qp.Node < 0 || qp.Node >= len(net.Nodes) || qp.Port < 0 || qp.Port >= int(net.Nodes[qp.Node].NumPorts) {
			msg := fmt.Sprintf("outputs.queue_ports[%d]: node %d port %d does not exist", i, qp.Node, qp.Port)
			if qp.Node >= 0 && qp.Node < len(net.Nodes) {
				msg += fmt.Sprintf(" (node %d has ports 0..%d)", qp.Node, net.Nodes[qp.Node].NumPorts-1)
			} else {
				msg += fmt.Sprintf(" (nodes are 0..%d)", len(net.Nodes)-1)
			}
			errs = append(errs, errors.New(msg))
			continue
		}
		ports[i] = net.Nodes[qp.Node].FirstPort + int32(qp.Port)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return ports, nil
}
