package scenario

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// RunOptions modify one run.
type RunOptions struct {
	Seed uint64 // overrides the scenario seed when non-zero or SeedSet
	// SeedSet makes Seed override the scenario seed even when it is 0.
	SeedSet bool
	// Progress, if set, is called about every million events with the
	// simulated time elapsed since the first flow start (from the run's
	// goroutine: it must be safe for concurrent use).
	Progress func(name string, elapsed sim.Time)
}

// Built is a simulation ready to run, with the inputs it was built from.
type Built struct {
	Scenario *Scenario
	CC       string
	Net      *fabric.Network
	Graph    *topo.Graph
	Flows    []workload.Flow
	pfc      []metrics.PFCEvent
	queue    []QueueSample
	qcdf     *metrics.QueueCDFs
	bytes    *metrics.ByteSeries
	series   *seriesRec
	first    sim.Time
	stop     sim.Time
	// message chains (perftest's probe): completed messages; the test
	// window of workload.perftest
	chains             bool
	msgs               []metrics.MessageRecord
	testStart, testEnd sim.Time
}

// QueueSample is one sampled queue length of a monitored port.
type QueueSample struct {
	At    sim.Time
	Port  int // index into Outputs.QueuePorts
	Bytes int64
}

// Graph builds the scenario's topology, with topology.host_links applied.
func (s *Scenario) Graph() (*topo.Graph, error) {
	g, err := s.baseGraph()
	if err != nil {
		return nil, err
	}
	return g, s.applyHostLinks(g)
}

// applyHostLinks sets the rate and delay of the links of the hosts listed
// in topology.host_links.
func (s *Scenario) applyHostLinks(g *topo.Graph) error {
	for i, hl := range s.Topology.HostLinks {
		for j, hid := range hl.Hosts {
			h := int(hid)
			if h < 0 || h >= g.NumNodes() || g.Kinds[h] != topo.Host {
				return fmt.Errorf("topology.host_links[%d].hosts[%d] = %d is not a host of the topology (%d nodes)", i, j, h, g.NumNodes())
			}
			for li := range g.Links {
				l := &g.Links[li]
				if l.A != h && l.B != h {
					continue
				}
				if hl.Gbps != nil {
					l.Bps = int64(*hl.Gbps * 1e9)
				}
				if hl.DelayNs != nil {
					l.Delay = nsTime(*hl.DelayNs)
				}
			}
		}
	}
	return nil
}

func (s *Scenario) baseGraph() (*topo.Graph, error) {
	t := &s.Topology
	switch t.Kind {
	case "star":
		return topo.Star(t.Hosts, int64(t.LinkGbps*1e9), nsTime(t.LinkDelayNs)), nil
	case "ns3":
		f, err := os.Open(s.path(t.File))
		if err != nil {
			return nil, fmt.Errorf("topology.file: %w", err)
		}
		defer f.Close()
		g, err := topo.ReadNS3(f)
		if err != nil {
			return nil, fmt.Errorf("topology.file %s: %w", t.File, err)
		}
		return g, nil
	}
	return s.builtGraph()
}

// Flows builds the scenario's workload: the flows of every section given,
// merged (workload.Merge) when there are several or any is generated.
func (s *Scenario) Flows(g *topo.Graph) ([]workload.Flow, error) {
	w := &s.Workload
	var lists [][]workload.Flow
	var errs Errors
	if len(w.Flows) > 0 {
		var fl []workload.Flow
		for i, f := range w.Flows {
			wf := workload.Flow{Src: int(f.Src), Dst: int(f.Dst), Prio: f.Prio, SizeBytes: f.SizeBytes,
				Start: nsTime(f.StartNs)}
			if f.After != nil {
				wf.After, wf.HasAfter, wf.Gap = *f.After, true, nsTime(f.GapNs)
			}
			if f.Via != nil {
				if err := checkVia(g, fmt.Sprintf("workload.flows[%d].via", i), wf.Src, wf.Dst, *f.Via); err != nil {
					errs = append(errs, err)
				}
				wf.Via, wf.HasVia = int(*f.Via), true
			}
			fl = append(fl, wf)
		}
		lists = append(lists, fl)
	}
	if w.File != "" {
		if fl, err := s.readFlowFile(); err != nil {
			errs = append(errs, err)
		} else {
			lists = append(lists, fl)
		}
	}
	if in := w.Incast; in != nil {
		sizes := in.SizesBytes
		if len(sizes) == 1 {
			for len(sizes) < len(in.Senders) {
				sizes = append(sizes, in.SizesBytes[0])
			}
		}
		fl := workload.IncastQPs(ids(in.Senders), int(in.Receiver), sizes, in.QPsPerSender, nsTime(in.StartNs), in.Prio)
		if in.Via != nil {
			for _, snd := range in.Senders {
				if err := checkVia(g, "workload.incast.via", int(snd), int(in.Receiver), *in.Via); err != nil {
					errs = append(errs, err)
					break
				}
			}
			for i := range fl {
				fl[i].Via, fl[i].HasVia = int(*in.Via), true
			}
		}
		lists = append(lists, fl)
	}
	if w.hasGenerators() {
		gen, err := s.generated(g)
		if err != nil {
			errs = appendErr(errs, err)
		}
		lists = append(lists, gen...)
	}
	if len(errs) > 0 {
		// the sections that built are checked too
		if err := checkEndpoints(g, slices.Concat(lists...)); err != nil {
			errs = appendErr(errs, err)
		}
		return nil, errs
	}
	var flows []workload.Flow
	if len(lists) == 1 && !w.hasGenerators() {
		flows = lists[0] // as the section gives them (reference files keep their ports)
	} else {
		flows = workload.Merge(lists...)
	}
	if err := checkEndpoints(g, flows); err != nil {
		return nil, err
	}
	return flows, nil
}

// readFlowFile reads workload.file.
func (s *Scenario) readFlowFile() ([]workload.Flow, error) {
	w := &s.Workload
	fh, err := os.Open(s.path(w.File))
	if err != nil {
		return nil, fmt.Errorf("workload.file: %w", err)
	}
	defer fh.Close()
	fl, err := workload.ReadNS3Flows(fh)
	if err != nil {
		return nil, fmt.Errorf("workload.file %s: %w", w.File, err)
	}
	return fl, nil
}

// checkVia checks that via (field) is a switch on a shortest path from
// host src to host dst of g, for route pinning. Endpoints that are not
// hosts are left to checkEndpoints.
func checkVia(g *topo.Graph, field string, src, dst int, via NodeID) error {
	if !isHost(g, src) || !isHost(g, dst) {
		return nil
	}
	if err := g.CheckVia(src, dst, int(via)); err != nil {
		return fmt.Errorf("%s = %d: cannot pin the flow %d → %d through it: %v", field, via, src, dst, err)
	}
	return nil
}

// maxEndpointErrors bounds the bad flows listed one by one.
const maxEndpointErrors = 10

// checkEndpoints reports the flows whose source or destination is not a
// host of g.
func checkEndpoints(g *topo.Graph, flows []workload.Flow) error {
	var errs Errors
	bad := 0
	for i, f := range flows {
		for _, e := range []struct {
			what string
			id   int
		}{{"src", f.Src}, {"dst", f.Dst}} {
			if isHost(g, e.id) {
				continue
			}
			if bad++; bad <= maxEndpointErrors {
				errs = append(errs, fmt.Errorf("workload flow %d: %s %d is not a host of the topology (%s)", i, e.what, e.id, describeHosts(g)))
			}
		}
	}
	if bad > maxEndpointErrors {
		errs = append(errs, fmt.Errorf("workload: %d more flow endpoints are not hosts of the topology", bad-maxEndpointErrors))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func isHost(g *topo.Graph, id int) bool {
	return id >= 0 && id < g.NumNodes() && g.Kinds[id] == topo.Host
}

// describeHosts summarises the host ids of g for error messages.
func describeHosts(g *topo.Graph) string {
	hs := g.Hosts()
	if len(hs) > 0 && hs[len(hs)-1]-hs[0] == len(hs)-1 {
		return fmt.Sprintf("hosts are %d..%d of %d nodes", hs[0], hs[len(hs)-1], g.NumNodes())
	}
	return fmt.Sprintf("%d hosts among %d nodes", len(hs), g.NumNodes())
}

// FabricConfig translates the scenario's switch and host settings.
func (s *Scenario) FabricConfig() fabric.Config {
	c := fabric.DefaultConfig()
	sw, h := &s.Switch, &s.Host
	c.PayloadBytes = h.PayloadBytes
	c.BufferBytes = int64(sw.BufferMiB * (1 << 20))
	if sw.BufferMB != nil {
		c.BufferBytes = int64(math.Round(*sw.BufferMB * 1e6))
	}
	c.PFC = pfcMode(sw.PFC)
	c.PFCStaticBytes = int64(sw.PFCStaticKB * 1000)
	if sw.ReserveBytes != nil {
		c.ReserveBytes = *sw.ReserveBytes
	}
	if sw.ResumeOffsetBytes != nil {
		c.ResumeOffsetBytes = *sw.ResumeOffsetBytes
	}
	if sw.HeadroomRTTs != nil {
		c.HeadroomRTTs = *sw.HeadroomRTTs
	}
	if sw.ECN != nil {
		c.ECN = *sw.ECN
	}
	if len(sw.ECNRules) > 0 {
		c.ECNRule = ecnRules(sw.ECNRules)
	}
	c.Switches = s.overrides()
	c.RefECMP = sw.RefECMP
	c.SwitchCtrlHighPrio = sw.CtrlHighPrio
	if h.AckHighPrio != nil {
		c.AckHighPrio = *h.AckHighPrio
	}
	if h.CNPIntervalUs != nil {
		c.CNPInterval = usTime(*h.CNPIntervalUs)
	}
	c.CNPAsPacket = h.CNPAsPacket
	if h.NackIntervalUs != nil {
		c.NackInterval = usTime(*h.NackIntervalUs)
	}
	// rto_us: absent = auto: off in lossless fabrics (as the reference),
	// 1 ms when PFC is off (at any switch) so that tail losses are
	// repaired; on long paths newNetwork raises it (longPathTimers).
	if h.RTOUs != nil {
		c.RTO = usTime(*h.RTOUs)
	} else if s.lossy() {
		c.RTO = sim.Millisecond
	}
	c.Seed = s.Seed
	return c
}

// newNetwork is fabric.New with its errors in the scenario's terms. It
// checks the switch.overrides against g and scales the loss-recovery
// timers to g's longest path first (longPathTimers).
func (s *Scenario) newNetwork(g *topo.Graph, cfg fabric.Config) (*fabric.Network, error) {
	if err := s.checkOverrideTargets(g); err != nil {
		return nil, err
	}
	if err := s.longPathTimers(&cfg, g); err != nil {
		return nil, err
	}
	net, err := fabric.New(g, cfg)
	var he *fabric.HeadroomError
	if errors.As(err, &he) {
		t := &s.Topology
		delays := fmt.Sprintf("topology.link_delay_ns = %v", t.LinkDelayNs)
		switch {
		case t.Kind == "ns3":
			delays = "the link delays of topology.file"
		case t.FabricDelayNs != nil:
			delays += fmt.Sprintf(", topology.fabric_delay_ns = %v", *t.FabricDelayNs)
		}
		if t.Kind == "cross_dc" || t.Kind == "two_site" {
			delays += fmt.Sprintf(", the long haul's topology.%s.long_haul_delay_ns (or long_haul_km)", t.Kind)
		}
		for _, hl := range t.HostLinks {
			if hl.DelayNs != nil {
				delays += ", topology.host_links delay_ns"
				break
			}
		}
		bufField, headField, pfcField := s.switchFields(g, he.Node)
		headroom := fmt.Sprintf("%s = %d × one-way BDP of its link (%s)", headField, he.HeadroomRTTs, delays)
		if he.PortHeadroom > 0 {
			headroom = fmt.Sprintf("%s = %d B", headField, he.PortHeadroom)
		}
		return nil, fmt.Errorf("%s (%d B) is too small for PFC: %v; headroom per port = %s; "+
			"raise %s, lower %s or the link delays, or set %s: off",
			bufField, he.BufferBytes, he, headroom, bufField, headField, pfcField)
	}
	return net, err
}

// switchFields names the fields that set switch sw's buffer, headroom
// and PFC mode: the last override of switch.overrides that selects sw and
// sets each, else the switch section's field, with the buffer's value.
func (s *Scenario) switchFields(g *topo.Graph, sw int) (buf, head, pfc string) {
	sec := &s.Switch
	buf = fmt.Sprintf("switch.buffer_mib = %v", sec.BufferMiB)
	if sec.BufferMB != nil {
		buf = fmt.Sprintf("switch.buffer_mb = %v", *sec.BufferMB)
	}
	head, pfc = "switch.headroom_rtts", "switch.pfc"
	for i := range sec.Overrides {
		o := &sec.Overrides[i]
		if !slices.Contains(o.Nodes, NodeID(sw)) && (o.Role == "" || g.Role(sw) != o.Role) {
			continue
		}
		f := fmt.Sprintf("switch.overrides[%d]", i)
		switch {
		case o.BufferMB != nil:
			buf = fmt.Sprintf("%s.buffer_mb = %v", f, *o.BufferMB)
		case o.BufferMiB != nil:
			buf = fmt.Sprintf("%s.buffer_mib = %v", f, *o.BufferMiB)
		}
		switch {
		case o.HeadroomMB != nil:
			head = f + ".headroom_mb"
		case o.HeadroomKB != nil:
			head = f + ".headroom_kb"
		case o.HeadroomRTTs != nil:
			head = f + ".headroom_rtts"
		case o.HeadroomExtraKB != nil:
			head = f + ".headroom_extra_kb"
		}
		if o.PFC != nil {
			pfc = f + ".pfc"
		}
	}
	return buf, head, pfc
}

// Build constructs the simulation of algorithm ccName.
func (s *Scenario) Build(ccName string, opt RunOptions) (*Built, error) {
	if _, err := cc.Lookup(ccName); err != nil {
		return nil, err
	}
	g, err := s.Graph()
	if err != nil {
		return nil, err
	}
	flows, err := s.Flows(g)
	if err != nil {
		return nil, err
	}
	return s.build(ccName, opt, g, flows)
}

// build constructs the simulation of algorithm ccName on graph g with
// flows.
func (s *Scenario) build(ccName string, opt RunOptions, g *topo.Graph, flows []workload.Flow) (*Built, error) {
	spec, err := cc.Lookup(ccName)
	if err != nil {
		return nil, err
	}
	p := s.ccParams[ccName]
	if p == nil {
		p = spec.Defaults()
		if err := p.Validate(); err != nil {
			return nil, err
		}
	}
	cfg := s.FabricConfig()
	if opt.Seed != 0 || opt.SeedSet {
		cfg.Seed = opt.Seed
	}
	ctor, req := spec.New(p)
	// the algorithm's reference preset decides what the scenario leaves open
	if s.Host.AckHighPrio == nil && req.AckPrio != 0 {
		cfg.AckHighPrio = req.AckPrio > 0
	}
	if len(s.Switch.ECNRules) == 0 && req.ECN != nil {
		cfg.ECNRule = req.ECN
	}
	if s.Host.CNPIntervalUs == nil && req.CNPInterval != 0 {
		cfg.CNPInterval = req.CNPInterval
	}
	net, err := s.newNetwork(g, cfg)
	if err != nil {
		return nil, err
	}
	net.SetRequirements(req)
	if err := net.AddFlows(flows, func(int) fabric.Algorithm { return nil }); err != nil {
		return nil, err
	}
	// switch features after the flows, so that they can size per-flow state
	if spec.Switch != nil {
		mk, period := spec.Switch(p)
		for i := range net.Nodes {
			if net.Nodes[i].Switch {
				net.AddFeature(i, mk(net.SwitchView(i)))
			}
		}
		net.SetFeaturePeriod(period)
	}
	b := &Built{Scenario: s, CC: ccName, Net: net, Graph: g, Flows: flows}
	net.SetAlgorithm(ctor)
	first := sim.Never
	for _, f := range flows {
		if f.Start < first && !f.HasAfter { // a chained flow's Start is not a start time
			first = f.Start
		}
		b.chains = b.chains || f.Messages > 1
	}
	if first == sim.Never {
		first = 0
	}
	b.stop = first + msTime(s.StopMs)
	if pt := s.Workload.Perftest; pt != nil {
		// the run ends with the test (docs/workloads.md §3)
		b.testStart, b.testEnd = nsTime(pt.StartNs), pt.testEnd()
		b.stop = min(b.stop, b.testEnd)
	}
	net.SetStop(b.stop)
	if b.chains {
		net.OnMessageDone = func(q *fabric.QP, msg int64, post, done sim.Time) {
			b.msgs = append(b.msgs, metrics.MessageRecord{Flow: int(q.ID), Msg: msg, Post: post, Done: done})
		}
	}
	if s.Outputs.RefPFC {
		net.OnPFC(func(ev fabric.PFCEvent) {
			b.pfc = append(b.pfc, metrics.PFCEvent{At: ev.At, Node: int(ev.Node), IsSwitch: net.Nodes[ev.Node].Switch, Port: int(ev.Port) + 1, Pause: ev.Pause})
		})
	}
	if s.Outputs.QueueSampleUs > 0 && len(s.Outputs.QueuePorts) > 0 {
		ports, err := s.queuePorts(net)
		if err != nil {
			return nil, err
		}
		net.Monitor(usTime(s.Outputs.QueueSampleUs), func(n *fabric.Network, now sim.Time) {
			if now < first {
				return
			}
			for i, pt := range ports {
				b.queue = append(b.queue, QueueSample{At: now, Port: i, Bytes: n.Ports[pt].QueueBytes()})
			}
		})
	}
	b.first = first
	if s.Outputs.QueueCDF {
		every := s.Outputs.QueueSampleUs
		if every == 0 {
			every = 1
		}
		b.qcdf = &metrics.QueueCDFs{}
		net.Monitor(usTime(every), func(n *fabric.Network, now sim.Time) {
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
	if s.Outputs.ThroughputSampleUs > 0 {
		b.bytes = &metrics.ByteSeries{}
		net.Monitor(usTime(s.Outputs.ThroughputSampleUs), func(n *fabric.Network, now sim.Time) {
			for i := range n.QPs {
				q := &n.QPs[i]
				if b.startedBy(i, now) && !q.Done {
					b.bytes.Add(i, now, q.Delivered())
				}
			}
		})
		net.OnFlowDone = func(q *fabric.QP) { b.bytes.Add(int(q.ID), q.Finish, q.SizeBytes) }
	}
	if err := b.setupSeries(); err != nil {
		return nil, err
	}
	if s.Outputs.RTTPerRTT {
		for i, f := range s.Outputs.RTTPerRTTFlows {
			if f >= len(flows) {
				return nil, fmt.Errorf("outputs.rtt_per_rtt_flows[%d] = %d: the workload has flows 0..%d", i, f, len(flows)-1)
			}
		}
		// room for about 64 samples per flow, at most 2^20 (24 MB) up
		// front: a run of many short flows takes few samples per flow;
		// the slice grows beyond
		net.EnablePerRTT(min(64*len(flows), 1<<20))
	}
	return b, nil
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
func (s *Scenario) queuePorts(net *fabric.Network) ([]int32, error) {
	ports := make([]int32, len(s.Outputs.QueuePorts))
	var errs Errors
	for i, p := range s.Outputs.QueuePorts {
		if p.Node.unresolved() {
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

// Result is the outcome of one run.
type Result struct {
	Scenario string             `json:"scenario"`
	CC       string             `json:"cc"`
	Seed     uint64             `json:"seed"`
	Summary  metrics.FCTSummary `json:"fct"`
	RTT      RTTSummary         `json:"rtt"`
	// RTTPerRTT summarises the per-RTT samples (outputs.rtt_per_rtt):
	// exact statistics.
	RTTPerRTT   *RTTSummary `json:"rtt_per_rtt,omitempty"`
	perRTT      []fabric.PerRTTSample
	PFC         PFCSummary           `json:"pfc"`
	Bytes       ByteSummary          `json:"bytes"`
	Drops       int64                `json:"drops"`
	Notices     int64                `json:"notices,omitempty"`
	LinkLosses  int64                `json:"link_losses"` // packets lost on lossy links (topology error rates), included in drops
	ECNMarked   int64                `json:"ecn_marked"`  // packets switches marked CE (RED at dequeue, or an algorithm's own marking)
	Jain        float64              `json:"jain_goodput"`
	Events      int64                `json:"events"`
	WallSeconds float64              `json:"wall_seconds"`
	EventsPerS  float64              `json:"events_per_second"`
	SimEndNs    float64              `json:"sim_end_ns"`
	Flows       []metrics.FlowRecord `json:"-"`
	PFCEvents   []metrics.PFCEvent   `json:"-"`
	Queue       []QueueSample        `json:"-"`
	QueuePorts  []Port               `json:"-"`
	Workload    []workload.Flow      `json:"-"`
	QueueStats  []metrics.QueueStats `json:"queue_stats,omitempty"`
	Window      *WindowSummary       `json:"window,omitempty"`
	Congestion  CongestionSummary    `json:"congestion"`
	// FCTGroups summarises the flows of each traffic class (flows.csv's
	// group column) when the workload tags flows (cross_dc, perftest).
	FCTGroups map[string]metrics.FCTSummary `json:"fct_groups,omitempty"`
	// Perftest is the outcome of workload.perftest.
	Perftest *PerftestSummary `json:"perftest,omitempty"`
	// Messages are the completed messages of the message chains
	// (messages.csv, written when the workload has a chain).
	Messages  []metrics.MessageRecord `json:"-"`
	chains    bool
	FlowStats []FlowStat `json:"-"`
	queueCDFs *metrics.QueueCDFs
	series    *seriesRec
}

// CongestionSummary counts the congestion events senders saw: congestion
// notifications received (ACKs with the CNP flag and CNP packets) and rate
// decreases (the algorithm lowered the pacing rate).
type CongestionSummary struct {
	CNPs     int64 `json:"cnps_rx"`
	RateCuts int64 `json:"rate_cuts"`
}

// FlowStat is one row of flow_stats.csv: a flow's congestion events and
// transmissions.
type FlowStat struct {
	ID                  int
	CNPs, RateCuts      int64
	TxPackets, RetxByte int64
}

// WindowSummary is per-flow throughput over outputs.jain_window_ms.
type WindowSummary struct {
	FromMs      float64   `json:"from_ms"`
	ToMs        float64   `json:"to_ms"`
	Flows       int       `json:"flows"`
	Jain        float64   `json:"jain"`
	MeanGbps    float64   `json:"mean_gbps"`
	MinGbps     float64   `json:"min_gbps"`
	MaxGbps     float64   `json:"max_gbps"`
	PerFlowGbps []float64 `json:"per_flow_gbps"`
}

// RTTSummary summarises the RTT samples senders took from ACKs (µs).
type RTTSummary struct {
	Samples int64   `json:"samples"`
	MeanUs  float64 `json:"mean_us"`
	P50Us   float64 `json:"p50_us"`
	P99Us   float64 `json:"p99_us"`
	MaxUs   float64 `json:"max_us"`
}

// PFCSummary counts PFC activity.
type PFCSummary struct {
	PauseFrames  int64       `json:"pause_frames"`
	ResumeFrames int64       `json:"resume_frames"`
	PausedUs     float64     `json:"paused_us_total"`
	Ports        []PortPause `json:"ports,omitempty"`
}

// PortPause is the PFC activity of one transmitter that was paused.
type PortPause struct {
	Node     int     `json:"node"`
	Port     int     `json:"port"`
	PauseRx  int64   `json:"pause_frames_rx"`
	PausedUs float64 `json:"paused_us"`
}

// ByteSummary is the data-byte conservation account (payload bytes).
type ByteSummary struct {
	Sent      int64 `json:"sent"`
	Delivered int64 `json:"delivered"`
	InFlight  int64 `json:"in_flight"`
	Dropped   int64 `json:"dropped"`
}

// Run executes the built simulation and collects its results.
func (b *Built) Run() *Result {
	t0 := time.Now()
	end := b.Net.Run()
	wall := time.Since(t0).Seconds()
	return b.collect(end, wall)
}

func (b *Built) collect(end sim.Time, wall float64) *Result {
	n := b.Net
	s := b.Scenario
	r := &Result{Scenario: s.Name, CC: b.CC, Seed: n.Config().Seed, Events: n.Stats.Events, WallSeconds: wall, SimEndNs: end.Nanoseconds()}
	if wall > 0 {
		r.EventsPerS = float64(n.Stats.Events) / wall
	}
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
		r.FlowStats = append(r.FlowStats, FlowStat{ID: i, CNPs: q.CNPs, RateCuts: q.RateCuts, TxPackets: q.TxPackets, RetxByte: q.RetxBytes})
		r.Congestion.CNPs += q.CNPs
		r.Congestion.RateCuts += q.RateCuts
	}
	r.Summary = metrics.SummarizeFlows(r.Flows)
	r.FCTGroups = groupSummaries(r.Flows)
	r.Jain = metrics.Jain(goodputs)
	r.Messages, r.chains = b.msgs, b.chains
	if s.Workload.Perftest != nil {
		r.Perftest = b.perftestSummary(end)
	}
	h := &n.Stats.RTT
	r.RTT = RTTSummary{Samples: h.Count, MeanUs: h.Mean().Microseconds(), P50Us: h.Quantile(0.5).Microseconds(),
		P99Us: h.Quantile(0.99).Microseconds(), MaxUs: h.MaxRTT.Microseconds()}
	if s.Outputs.RTTPerRTT {
		r.RTTPerRTT, r.perRTT = perRTTSummary(n.PerRTTSamples(), s.Outputs.RTTPerRTTFlows)
	}
	r.PFC.PauseFrames, r.PFC.ResumeFrames = n.Stats.PauseFrames, n.Stats.ResumeFrames
	for i := range n.Ports {
		p := &n.Ports[i]
		if p.Stats.PauseRx > 0 {
			nd := &n.Nodes[p.Node]
			r.PFC.Ports = append(r.PFC.Ports, PortPause{Node: int(p.Node), Port: i - int(nd.FirstPort), PauseRx: p.Stats.PauseRx, PausedUs: p.Stats.PausedTime.Microseconds()})
			r.PFC.PausedUs += p.Stats.PausedTime.Microseconds()
		}
		r.Drops += p.Stats.Drops
		r.ECNMarked += p.Stats.Marked
	}
	r.LinkLosses = n.Stats.LinkLosses
	r.Notices = n.Stats.Notices // switch notices: DCON CNMs, Bolt SRCs, WRCC FCNPs
	_, inflight := n.DataInFlight()
	r.Bytes = ByteSummary{Sent: n.Stats.DataTxBytes, Delivered: n.Stats.DataRxBytes, InFlight: inflight, Dropped: n.Stats.DataDropBytes}
	r.PFCEvents = b.pfc
	r.Workload = b.Flows
	if b.qcdf != nil {
		r.queueCDFs = b.qcdf
		r.QueueStats = b.qcdf.AllStats()
	}
	if b.bytes != nil && len(s.Outputs.JainWindowMs) == 2 {
		from := b.first + msTime(s.Outputs.JainWindowMs[0])
		to := b.first + msTime(s.Outputs.JainWindowMs[1])
		rates := metrics.WindowThroughput(b.bytes, from, to)
		w := &WindowSummary{FromMs: s.Outputs.JainWindowMs[0], ToMs: s.Outputs.JainWindowMs[1], Flows: len(rates), Jain: metrics.JainOverWindow(b.bytes, from, to)}
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
		r.Window = w
	}
	r.Queue = b.queue
	r.QueuePorts = s.Outputs.QueuePorts
	if b.series != nil {
		b.series.finish(b, end)
		r.series = b.series
	}
	return r
}

// Write stores a result in dir: summary.json, flows.csv, and on request the
// reference-format fct.txt and pfc.txt and queue.csv. The files are written
// into a fresh directory beside dir that then replaces dir as a whole, so
// that dir never mixes the files of two runs. An existing dir is replaced
// only if it is empty or a result directory (it holds summary.json).
func (r *Result) Write(dir string, s *Scenario) error {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if err := replaceable(dir); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := r.writeFiles(tmp, s); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return replaceDir(tmp, dir)
}

// replaceable reports why dir may not be replaced by a result directory.
func replaceable(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		return nil
	}
	if st, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil && st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("refusing to replace %s: it is not a ccsim result directory (no summary.json) and not empty", dir)
}

// replaceDir moves directory tmp to dir, removing the old dir.
func replaceDir(tmp, dir string) error {
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		os.RemoveAll(tmp)
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// writeFiles writes the result's files into the existing directory dir.
func (r *Result) writeFiles(dir string, s *Scenario) error {
	js, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "flows.csv"), func(f *os.File) error { return metrics.WriteFlowsCSV(f, r.Flows) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "flow_stats.csv"), func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<16)
		w.WriteString("flow_id,cnps_rx,rate_cuts,tx_packets,retx_bytes\n")
		for _, st := range r.FlowStats {
			fmt.Fprintf(w, "%d,%d,%d,%d,%d\n", st.ID, st.CNPs, st.RateCuts, st.TxPackets, st.RetxByte)
		}
		return w.Flush()
	}); err != nil {
		return err
	}
	if r.series != nil {
		if err := r.series.write(dir); err != nil {
			return err
		}
	}
	if s != nil && s.Outputs.RTTPerRTT && len(s.Outputs.RTTPerRTTFlows) > 0 {
		if err := writeFile(filepath.Join(dir, "rtt_per_rtt.csv"), func(f *os.File) error { return writePerRTT(f, r.perRTT) }); err != nil {
			return err
		}
	}
	if r.chains {
		if err := writeFile(filepath.Join(dir, "messages.csv"), func(f *os.File) error { return metrics.WriteMessagesCSV(f, r.Messages) }); err != nil {
			return err
		}
	}
	if s != nil && s.Outputs.RefFCT {
		if err := writeFile(filepath.Join(dir, "fct.txt"), func(f *os.File) error { return metrics.WriteRefFCT(f, r.Flows, metrics.RefIP) }); err != nil {
			return err
		}
	}
	if s != nil && s.Outputs.RefPFC {
		if err := writeFile(filepath.Join(dir, "pfc.txt"), func(f *os.File) error { return metrics.WriteRefPFC(f, r.PFCEvents) }); err != nil {
			return err
		}
	}
	if s != nil && s.Outputs.FlowFile {
		if err := WriteFlowFile(dir, r.Workload); err != nil {
			return err
		}
	}
	if r.queueCDFs != nil {
		if err := writeFile(filepath.Join(dir, "queue_cdf.csv"), func(f *os.File) error { return r.queueCDFs.WriteQueueCDF(f) }); err != nil {
			return err
		}
	}
	if len(r.Queue) > 0 {
		if err := writeFile(filepath.Join(dir, "queue.csv"), func(f *os.File) error {
			fmt.Fprintln(f, "time_ns,node,port,bytes")
			for _, q := range r.Queue {
				qp := r.QueuePorts[q.Port]
				fmt.Fprintf(f, "%s,%d,%d,%d\n", metrics.AppendNs(nil, q.At), qp.Node, qp.Port, q.Bytes)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, fn func(f *os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// RunAll runs the scenario once per algorithm, in parallel on up to
// `workers` cores (0 = all), and returns results in the order of names. A
// failing run yields an error in its slot and does not affect the others.
func (s *Scenario) RunAll(names []string, opt RunOptions, workers int, progress func(name string, done bool)) ([]*Result, []error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := make([]*Result, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, workers)
	done := make(chan int, len(names))
	for i, name := range names {
		go func(i int, name string) {
			sem <- struct{}{}
			defer func() { <-sem; done <- i }()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("%s: internal error: %v", name, p)
				}
			}()
			if progress != nil {
				progress(name, false)
			}
			b, err := s.Build(name, opt)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", name, err)
				return
			}
			if opt.Progress != nil {
				b.Net.Progress = func(now sim.Time) { opt.Progress(name, now-b.first) }
			}
			res[i] = b.Run()
		}(i, name)
	}
	for range names {
		i := <-done
		if progress != nil {
			progress(names[i], true)
		}
	}
	return res, errs
}
