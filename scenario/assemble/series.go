package assemble

import (
	"fmt"
	"slices"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// The recorder of the binned time series (outputs.series; scenario.Series,
// docs/outputs.md §13): monitors that close the bins while the
// run is simulated, into the rows of a result.Series that the result's
// writers turn into flow_rate.csv, link_rate.csv, queue_series.csv and
// pfc_bins.csv.

// seriesRec collects the binned series while a run is simulated.
type seriesRec struct {
	cfg   *scenario.Series
	first sim.Time
	bin   sim.Time
	out   result.Series

	// flow rate
	fbin      sim.Time
	group     []int32 // flow -> group index (into out.FlowRate.IDs)
	lastDel   []int64 // per flow: delivered bytes at the previous boundary
	perBuf    []int64 // per group: bytes in the bin being closed
	activeBuf []bool

	// links
	links    []int32 // global port index
	lastWire []int64
	lastPay  []int64

	// queues: egress ports, then ingress ports (out.Queue.Ingress of them)
	qports []int32
	qSum   []int64
	qMin   []int64
	qMax   []int64
	qN     int64
	qBin   sim.Time // start of the bin being accumulated
	qBinW  sim.Time // queue bin width

	// PFC
	pfc map[pfcKey]int64
}

// pfcKey is one bin of one link direction of pfc_bins.csv.
type pfcKey struct {
	bin                            int64
	fromNode, fromPort, toNode, to int32
}

// setupSeries registers the monitors of outputs.series on b's network, in
// a fixed order: flow rate, link rate, queues, PFC.
func (b *Built) setupSeries() error {
	sr := b.Scenario.Outputs.Series
	if !sr.On() {
		return nil
	}
	rec := &seriesRec{cfg: sr, first: b.first, bin: scenario.UsTime(sr.BinUs)}
	rec.out.First = b.first
	if err := rec.resolveLinks(b.Net); err != nil {
		return err
	}
	if err := rec.resolveQueues(b.Net); err != nil {
		return err
	}
	if sr.FlowRate != "" {
		rec.monitorFlowRate(b)
	}
	if len(rec.links) > 0 {
		rec.monitorLinks(b.Net)
	}
	if len(rec.qports) > 0 {
		rec.monitorQueues(b.Net)
	}
	if sr.PFC {
		rec.monitorPFC(b.Net)
	}
	b.series = rec
	return nil
}

// resolvePorts resolves the ports of outputs.series.<field> to port
// indices of n.
func resolvePorts(n *fabric.Network, field string, ps []scenario.Port) ([]int32, error) {
	out := make([]int32, len(ps))
	for i, qp := range ps {
		if qp.Node.Unresolved() {
			continue // reported by validation
		}
		if qp.Node < 0 || int(qp.Node) >= len(n.Nodes) || qp.Port < 0 || qp.Port >= int(n.Nodes[qp.Node].NumPorts) {
			return nil, fmt.Errorf("outputs.series.%s[%d]: node %d port %d does not exist", field, i, qp.Node, qp.Port)
		}
		out[i] = n.Nodes[qp.Node].FirstPort + int32(qp.Port)
	}
	return out, nil
}

// resultPorts converts ports of the scenario for the result's files.
func resultPorts(ps []scenario.Port) []result.Port {
	if ps == nil {
		return nil
	}
	out := make([]result.Port, len(ps))
	for i, p := range ps {
		out[i] = result.Port{Node: int(p.Node), Port: p.Port}
	}
	return out
}

// resolveLinks resolves the ports of link_rate.csv: link_ports, or every
// switch port when link_rate is on without them.
func (rec *seriesRec) resolveLinks(n *fabric.Network) error {
	sr := rec.cfg
	var err error
	if rec.links, err = resolvePorts(n, "link_ports", sr.LinkPorts); err != nil {
		return err
	}
	ports := resultPorts(sr.LinkPorts)
	if sr.LinkRate && len(sr.LinkPorts) == 0 {
		for i := range n.Nodes {
			nd := &n.Nodes[i]
			if !nd.Switch {
				continue
			}
			for k := range nd.NumPorts {
				rec.links = append(rec.links, nd.FirstPort+k)
				ports = append(ports, result.Port{Node: i, Port: int(k)})
			}
		}
	}
	if len(rec.links) > 0 {
		rec.out.LinkRate = &result.LinkRateSeries{Ports: ports}
	}
	return nil
}

// resolveQueues resolves the ports of queue_series.csv: the egress queues
// of queue_ports, then the ingress queues of ingress_ports (switches
// only).
func (rec *seriesRec) resolveQueues(n *fabric.Network) error {
	sr := rec.cfg
	var err error
	if rec.qports, err = resolvePorts(n, "queue_ports", sr.QueuePorts); err != nil {
		return err
	}
	ing, err := resolvePorts(n, "ingress_ports", sr.IngressPorts)
	if err != nil {
		return err
	}
	for i, pt := range ing {
		if !n.Nodes[n.Ports[pt].Node].Switch {
			return fmt.Errorf("outputs.series.ingress_ports[%d]: node %d is not a switch", i, sr.IngressPorts[i].Node)
		}
	}
	rec.qports = append(rec.qports, ing...)
	if len(rec.qports) > 0 {
		rec.out.Queue = &result.QueueSeries{Ports: append(resultPorts(sr.QueuePorts), resultPorts(sr.IngressPorts)...), Ingress: len(ing)}
	}
	return nil
}

// monitorFlowRate groups the flows (by flow, sender or receiver) and
// closes a flow-rate bin every flow_rate_bin_us (default bin_us).
func (rec *seriesRec) monitorFlowRate(b *Built) {
	sr := rec.cfg
	rec.fbin = rec.bin
	if sr.FlowRateBinUs != nil {
		rec.fbin = scenario.UsTime(*sr.FlowRateBinUs)
	}
	fr := &result.FlowRateSeries{By: sr.FlowRate}
	rec.group = make([]int32, len(b.Flows))
	idx := map[int]int32{}
	for i, f := range b.Flows {
		key := i
		switch sr.FlowRate {
		case "src":
			key = f.Src
		case "dst":
			key = f.Dst
		}
		g, ok := idx[key]
		if !ok {
			g = int32(len(fr.IDs))
			idx[key] = g
			fr.IDs = append(fr.IDs, key)
		}
		rec.group[i] = g
	}
	rec.out.FlowRate = fr
	rec.lastDel = make([]int64, len(b.Flows))
	rec.perBuf = make([]int64, len(fr.IDs))
	rec.activeBuf = make([]bool, len(fr.IDs))
	first := rec.first
	b.Net.Monitor(rec.fbin, func(n *fabric.Network, now sim.Time) {
		if now <= first {
			return
		}
		rec.flowBin(b, now, now-rec.fbin)
	})
}

// monitorLinks closes a link-rate bin every bin_us.
func (rec *seriesRec) monitorLinks(n *fabric.Network) {
	rec.lastWire = make([]int64, len(rec.links))
	rec.lastPay = make([]int64, len(rec.links))
	first := rec.first
	n.Monitor(rec.bin, func(n *fabric.Network, now sim.Time) {
		if now <= first {
			return
		}
		rec.linkBin(n, now-rec.bin, rec.bin)
	})
}

// monitorQueues samples the queues every queue_sample_us (default 1 µs)
// into bins of queue_bin_us (default bin_us).
func (rec *seriesRec) monitorQueues(n *fabric.Network) {
	sr := rec.cfg
	every := 1.0
	if sr.QueueSampleUs != nil {
		every = *sr.QueueSampleUs
	}
	k := len(rec.qports)
	rec.qSum, rec.qMin, rec.qMax = make([]int64, k), make([]int64, k), make([]int64, k)
	rec.qBin = rec.first
	rec.qBinW = rec.bin
	if sr.QueueBinUs != nil {
		rec.qBinW = scenario.UsTime(*sr.QueueBinUs)
	}
	rec.resetQueue()
	first := rec.first
	eg := len(rec.qports) - rec.out.Queue.Ingress
	n.Monitor(scenario.UsTime(every), func(n *fabric.Network, now sim.Time) {
		if now < first {
			return
		}
		for now >= rec.qBin+rec.qBinW {
			rec.flushQueue()
			rec.qBin += rec.qBinW
		}
		for i, pt := range rec.qports {
			q := n.Ports[pt].QueueBytes()
			if i >= eg {
				q = n.Ports[pt].IngressBytes()
			}
			rec.qSum[i] += q
			rec.qMin[i] = min(rec.qMin[i], q)
			rec.qMax[i] = max(rec.qMax[i], q)
		}
		rec.qN++
	})
}

// monitorPFC counts the PAUSE frames per link direction and bin, after
// the PFC hook already installed (outputs.ref_pfc's).
func (rec *seriesRec) monitorPFC(n *fabric.Network) {
	rec.pfc = map[pfcKey]int64{}
	prev := n.PFCHook()
	first := rec.first
	n.OnPFC(func(ev fabric.PFCEvent) {
		if prev != nil {
			prev(ev)
		}
		if !ev.Pause || ev.At < first {
			return
		}
		pt := n.Nodes[ev.Node].FirstPort + ev.Port
		peer := &n.Ports[n.Ports[pt].Peer]
		from := n.Ports[pt].Peer - n.Nodes[peer.Node].FirstPort
		rec.pfc[pfcKey{int64((ev.At - first) / rec.bin), peer.Node, from, ev.Node, ev.Port}]++
	})
}

// flowBin closes the flow-rate bin [start, now).
func (rec *seriesRec) flowBin(b *Built, now, start sim.Time) {
	n := b.Net
	per, active := rec.perBuf, rec.activeBuf
	clear(per)
	clear(active)
	for i := range n.QPs {
		q := &n.QPs[i]
		f := &b.Flows[i]
		if f.HasAfter && (!q.Started() || q.Start >= now) || !f.HasAfter && f.Start >= now || q.Done && q.Finish < start {
			continue
		}
		d := q.Delivered()
		if q.Done {
			d = q.SizeBytes
		}
		g := rec.group[i]
		per[g] += d - rec.lastDel[i]
		active[g] = true
		rec.lastDel[i] = d
	}
	fr := rec.out.FlowRate
	for g := range fr.IDs {
		if active[g] {
			fr.Rows = append(fr.Rows, result.FlowRateRow{Start: start, Length: now - start, Group: g, Bytes: per[g]})
		}
	}
}

// linkBin closes the link-rate bin [start, start+length).
func (rec *seriesRec) linkBin(n *fabric.Network, start, length sim.Time) {
	lr := rec.out.LinkRate
	for i, pt := range rec.links {
		st := &n.Ports[pt].Stats
		w, p := st.TxBytes-rec.lastWire[i], st.TxPayloadBytes-rec.lastPay[i]
		rec.lastWire[i], rec.lastPay[i] = st.TxBytes, st.TxPayloadBytes
		if w == 0 && rec.cfg.LinkRate && len(rec.cfg.LinkPorts) == 0 {
			continue // all switch ports: idle ones are left out
		}
		lr.Rows = append(lr.Rows, result.LinkRateRow{Start: start, Length: length, Link: i, Wire: w, Payload: p})
	}
}

// resetQueue starts a queue bin.
func (rec *seriesRec) resetQueue() {
	for i := range rec.qSum {
		rec.qSum[i], rec.qMin[i], rec.qMax[i] = 0, 1<<62, 0
	}
	rec.qN = 0
}

// flushQueue closes the queue bin being accumulated (a bin without
// samples has no rows).
func (rec *seriesRec) flushQueue() {
	if rec.qN > 0 {
		q := rec.out.Queue
		for i := range rec.qports {
			q.Rows = append(q.Rows, result.QueueRow{Start: rec.qBin, Port: i, Min: rec.qMin[i], Max: rec.qMax[i], Sum: rec.qSum[i], N: rec.qN})
		}
	}
	rec.resetQueue()
}

// finish closes the partial bins at the end of the run (time end) and
// returns the finished series.
func (rec *seriesRec) finish(b *Built, end sim.Time) *result.Series {
	if rec.group != nil {
		last := b.first + (end-b.first)/rec.fbin*rec.fbin
		if end > last {
			rec.flowBin(b, end, last)
		}
	}
	if len(rec.links) > 0 {
		last := b.first + (end-b.first)/rec.bin*rec.bin
		if end > last {
			rec.linkBin(b.Net, last, end-last)
		}
	}
	if len(rec.qports) > 0 {
		rec.flushQueue()
	}
	if rec.pfc != nil {
		rec.out.PFC = &result.PFCSeries{Bin: rec.bin, Rows: pfcRows(rec.pfc)}
	}
	return &rec.out
}

// pfcRows returns the PAUSE counts in file order: by bin, then the
// pausing port, then the paused one.
func pfcRows(counts map[pfcKey]int64) []result.PFCRow {
	keys := make([]pfcKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pfcKey) int {
		for _, d := range []int64{a.bin - b.bin, int64(a.fromNode - b.fromNode), int64(a.fromPort - b.fromPort), int64(a.toNode - b.toNode), int64(a.to - b.to)} {
			if d != 0 {
				if d < 0 {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	rows := make([]result.PFCRow, len(keys))
	for i, k := range keys {
		rows[i] = result.PFCRow{Bin: k.bin, FromNode: k.fromNode, FromPort: k.fromPort, ToNode: k.toNode, ToPort: k.to, Pauses: counts[k]}
	}
	return rows
}
