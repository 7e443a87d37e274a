package fabric

// Construction of a network: New resolves the switch settings (fabric-wide
// ones and their per-switch overrides) and checks the PFC headroom; the
// setters attach flows, the algorithm, switch features and hooks before Run.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// HeadroomError is New's error when a switch's PFC headroom (HeadroomRTTs ×
// one-way BDP per port, or an explicit per-port headroom) plus its reserves
// exceed its buffer (the fabric-wide one or its override's).
type HeadroomError struct {
	Node          int      // the switch
	Name, Role    string   // its name and role in the graph ("" if none)
	Ports         int      // its ports
	HeadroomBytes int64    // total PFC headroom over its ports
	ReserveBytes  int64    // total reserve over its ports
	BufferBytes   int64    // the switch's buffer
	HeadroomRTTs  int64    // the switch's HeadroomRTTs (when PortHeadroom is 0)
	HeadroomExtra int64    // bytes added per port to the RTT-scaled headroom
	PortHeadroom  int64    // the switch's explicit per-port headroom, 0 if none
	MaxDelay      sim.Time // longest link delay at the switch
}

func (e *HeadroomError) Error() string {
	who := fmt.Sprintf("switch %d", e.Node)
	switch {
	case e.Name != "" && e.Role != "":
		who += fmt.Sprintf(" (%s, role %s)", e.Name, e.Role)
	case e.Name != "":
		who += fmt.Sprintf(" (%s)", e.Name)
	case e.Role != "":
		who += fmt.Sprintf(" (role %s)", e.Role)
	}
	how := fmt.Sprintf("%d × one-way BDP, links up to %v", e.HeadroomRTTs, e.MaxDelay)
	if e.HeadroomExtra > 0 {
		how = fmt.Sprintf("%d × one-way BDP + %d B, links up to %v", e.HeadroomRTTs, e.HeadroomExtra, e.MaxDelay)
	}
	if e.PortHeadroom > 0 {
		how = fmt.Sprintf("%d B per port", e.PortHeadroom)
	}
	return fmt.Sprintf("%s: PFC headroom %d B (%d ports, %s) + reserves %d B = %d B exceed the buffer of %d B",
		who, e.HeadroomBytes, e.Ports, how, e.ReserveBytes, e.HeadroomBytes+e.ReserveBytes, e.BufferBytes)
}

// switchSettings resolves the settings of every switch of g: the
// fabric-wide ones with cfg.Switches applied in order. It checks that every
// override selects existing switches.
func switchSettingsOf(g *topo.Graph, cfg *Config) ([]switchSettings, error) {
	set := make([]switchSettings, g.NumNodes())
	def := cfg.switchDefaults()
	for i := range set {
		set[i] = def
	}
	for k := range cfg.Switches {
		o := &cfg.Switches[k]
		for _, id := range o.Nodes {
			if id < 0 || id >= g.NumNodes() {
				return nil, fmt.Errorf("switch override %d: node %d out of range [0, %d)", k, id, g.NumNodes())
			}
			if g.Kinds[id] != topo.Switch {
				return nil, fmt.Errorf("switch override %d: node %d%s is not a switch", k, id, nodeLabel(g, id))
			}
			set[id].apply(o)
		}
		if o.Role != "" {
			found := false
			for id, r := range g.Roles {
				if r == o.Role && g.Kinds[id] == topo.Switch {
					set[id].apply(o)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("switch override %d: no switch has role %q (roles: %s)", k, o.Role, switchRoles(g))
			}
		}
	}
	return set, nil
}

// nodeLabel is " (name)" for a named node, else "".
func nodeLabel(g *topo.Graph, id int) string {
	if nm := g.Name(id); nm != "" {
		return " (" + nm + ")"
	}
	return ""
}

// switchRoles lists the distinct roles of g's switches, in order of first
// appearance ("none" without roles).
func switchRoles(g *topo.Graph) string {
	var rs []string
	seen := map[string]bool{}
	for id, r := range g.Roles {
		if r != "" && g.Kinds[id] == topo.Switch && !seen[r] {
			seen[r] = true
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return "none"
	}
	return strings.Join(rs, ", ")
}

// New builds a network from a topology. Switch settings are the
// fabric-wide ones of cfg with cfg.Switches applied per switch; New
// resolves them into per-switch and per-port fields. It fails with a
// *HeadroomError if a switch's PFC headroom and reserves do not fit in its
// buffer.
func New(g *topo.Graph, cfg Config) (*Network, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	set, err := switchSettingsOf(g, &cfg)
	if err != nil {
		return nil, err
	}
	n := &Network{cfg: cfg, g: g, stopAt: sim.Never}
	if cfg.Routes != nil && cfg.Routes.Graph() == g {
		n.routes = cfg.Routes
	} else {
		n.routes = g.NextHops()
	}
	ports := g.Ports()
	n.Nodes = make([]Node, g.NumNodes())
	total := 0
	for i := range n.Nodes {
		n.Nodes[i].Switch = g.Kinds[i] == topo.Switch
		n.Nodes[i].FirstPort = int32(total)
		n.Nodes[i].NumPorts = int32(len(ports[i]))
		total += len(ports[i])
	}
	n.Ports = make([]Port, total)
	n.views = make([]SwitchView, len(n.Nodes))
	// NIC rate for the PFC threshold shift: rate of the lowest-id host.
	var nicBps int64
	for i, k := range g.Kinds {
		if k == topo.Host && len(ports[i]) > 0 {
			nicBps = g.Links[ports[i][0].Link].Bps
			break
		}
	}
	for i := range n.Nodes {
		nd := &n.Nodes[i]
		st := &set[i]
		var maxDelay sim.Time
		for k, pr := range ports[i] {
			l := g.Links[pr.Link]
			p := &n.Ports[int(nd.FirstPort)+k]
			p.Node = int32(i)
			p.Peer = n.Nodes[pr.Peer].FirstPort + int32(pr.PeerPort)
			p.Bps, p.Delay, p.isSwitch = l.Bps, l.Delay, nd.Switch
			p.peerSwitch = n.Nodes[pr.Peer].Switch
			if l.ErrRate > 0 {
				// each direction of the link draws from its own stream
				p.lossy, p.lossRate = true, l.ErrRate
				p.lossRng = sim.Stream(cfg.Seed, fmt.Sprintf("link/%d/%d->%d/loss", pr.Link, i, pr.Peer))
			}
			if 8*int64(sim.Second)%l.Bps == 0 {
				p.psPerByte = sim.Time(8 * int64(sim.Second) / l.Bps)
			}
			if nd.Switch {
				r := ecnFor(st.ecnRule, l.Bps)
				p.kmin, p.kmax, p.pmax = r.KminBytes, r.KmaxBytes, r.Pmax
				switch {
				case st.pfc == PFCOff:
				case st.headroomSet:
					p.headroom = st.headroomBytes
				default:
					// reference: rate·delay_ns/8/1e9·3 (bytes), integer arithmetic
					// (128-bit safe: BytesIn(d, r) = floor(d·r / 8e12) = the
					// reference's integer rate·delay_ns/8/1e9 for whole-ns delays)
					p.headroom = sim.BytesIn(l.Delay/sim.Nanosecond*sim.Nanosecond, l.Bps)*st.headroomRTTs + st.headroomExtra
				}
				shift, r2 := uint8(3), l.Bps
				for nicBps > 0 && r2 > nicBps && shift > 0 {
					shift--
					r2 /= 2
				}
				p.shift = shift
				nd.totalHeadroom += p.headroom
				nd.totalReserve += cfg.ReserveBytes
				maxDelay = max(maxDelay, l.Delay)
			}
		}
		if nd.Switch && nd.totalHeadroom+nd.totalReserve > st.bufferBytes {
			// the pause threshold would be 0 and the headroom unbounded
			he := &HeadroomError{Node: i, Name: g.Name(i), Role: g.Role(i), Ports: int(nd.NumPorts), HeadroomBytes: nd.totalHeadroom,
				ReserveBytes: nd.totalReserve, BufferBytes: st.bufferBytes, HeadroomRTTs: st.headroomRTTs, HeadroomExtra: st.headroomExtra, MaxDelay: maxDelay}
			if st.headroomSet {
				he.PortHeadroom = st.headroomBytes
			}
			return nil, he
		}
		if nd.Switch {
			n.views[i] = SwitchView{n: n, id: int32(i), first: nd.FirstPort, np: nd.NumPorts}
			nd.bufferBytes = st.bufferBytes
			nd.pfc, nd.pfcStatic, nd.ecn = st.pfc, st.pfcStaticBytes, st.ecn
			nd.rng = sim.Stream(cfg.Seed, fmt.Sprintf("switch/%d/ecn", i))
		}
	}
	return n, nil
}

// SwitchSettings are the resolved settings of one switch (see
// Config.Switches).
type SwitchSettings struct {
	BufferBytes    int64
	PFC            PFCMode
	PFCStaticBytes int64
	ECN            bool
	HeadroomBytes  int64 // total PFC headroom over the switch's ports
	ReserveBytes   int64 // total reserve over its ports
}

// Switch returns the resolved settings of switch node sw.
func (n *Network) Switch(sw int) SwitchSettings {
	nd := &n.Nodes[sw]
	return SwitchSettings{BufferBytes: nd.bufferBytes, PFC: nd.pfc, PFCStaticBytes: nd.pfcStatic, ECN: nd.ecn,
		HeadroomBytes: nd.totalHeadroom, ReserveBytes: nd.totalReserve}
}

// AddFeature attaches a switch-side feature to switch sw. A nil f attaches
// nothing: a feature's constructor returns nil at switches where it does
// not act (e.g. off the switches of some topology role), which then run no
// hook at all.
func (n *Network) AddFeature(sw int, f SwitchFeature) {
	if f == nil {
		return
	}
	n.Nodes[sw].features = append(n.Nodes[sw].features, f)
}

// Features returns the switch-side features attached to switch sw (e.g.
// to read their statistics after a run).
func (n *Network) Features(sw int) []SwitchFeature { return n.Nodes[sw].features }

// SetRequirements declares what the senders' algorithm needs (INT stamping,
// timestamps, a header extension); it fixes the wire sizes of data and ACK
// packets. It panics if r.Ext is invalid (ExtSpec.Validate): an
// algorithm's declaration is code.
func (n *Network) SetRequirements(r Requirements) {
	n.req = r
	n.cfg.INT = n.cfg.INT || r.INT
	n.setExt(r.Ext)
	if r.OwnECN {
		n.cfg.ECN = false
		for i := range n.Nodes {
			n.Nodes[i].ecn = false
		}
	}
}

// SetFeaturePeriod makes the network call OnPeriod of every attached switch
// feature every d (0 = never).
func (n *Network) SetFeaturePeriod(d sim.Time) { n.featureEvery = d }

// OnPFC registers a callback for every received PFC frame, replacing the
// previous one (PFCHook returns it, to chain).
func (n *Network) OnPFC(f func(ev PFCEvent)) { n.pfcLog = f }

// PFCHook returns the callback registered with OnPFC (nil if none).
func (n *Network) PFCHook() func(ev PFCEvent) { return n.pfcLog }

type monitor struct {
	every sim.Time
	fn    func(n *Network, now sim.Time)
}

// Monitor registers a callback run every period from time 0 (e.g. queue
// sampling). Several monitors may be registered.
func (n *Network) Monitor(every sim.Time, f func(n *Network, now sim.Time)) {
	if every > 0 && f != nil {
		n.monitors = append(n.monitors, monitor{every, f})
	}
}

// AddFlows registers flows; newCC creates the algorithm of flow i. Flow i
// becomes QP i. A flow with HasVia has its data packets routed through
// switch Via (see pinnedHop); Via must be a switch on a shortest path from
// the flow's source to its destination. A flow with HasAfter starts when
// flow After completes, plus Gap; MaxInFlight caps its bytes in flight;
// Messages > 1 makes it a message chain (chain.go).
func (n *Network) AddFlows(flows []workload.Flow, newCC func(i int) Algorithm) error {
	n.Flows = flows
	n.newCC = newCC
	n.QPs = make([]QP, len(flows))
	n.idle = nil // sized by the QPs when first needed (idletimer.go)
	n.routeCache = make([]int32, len(flows)*2*routeCacheHops)
	maxRTT, maxBDP := n.g.MaxRTT(n.cfg.PayloadBytes)
	sport := map[[2]int]int{}
	for i, f := range flows {
		if f.Src < 0 || f.Src >= len(n.Nodes) || n.Nodes[f.Src].Switch || f.Dst < 0 || f.Dst >= len(n.Nodes) || n.Nodes[f.Dst].Switch {
			return fmt.Errorf("flow %d: src %d / dst %d must be host ids", i, f.Src, f.Dst)
		}
		if f.Src == f.Dst {
			return fmt.Errorf("flow %d: src and dst are both %d", i, f.Src)
		}
		if f.SizeBytes <= 0 {
			return fmt.Errorf("flow %d: size_bytes %d must be > 0", i, f.SizeBytes)
		}
		if f.Prio < 1 || f.Prio >= numClasses {
			return fmt.Errorf("flow %d: prio %d out of range [1, 7] (class 0 is reserved for control)", i, f.Prio)
		}
		if err := checkChainFields(i, &f); err != nil {
			return err
		}
		q := &n.QPs[i]
		q.ID = int32(i)
		q.net = n
		q.Src, q.Dst = int32(f.Src), int32(f.Dst)
		q.Prio = uint8(f.Prio)
		q.SizeBytes = f.SizeBytes
		key := [2]int{f.Src, f.Dst}
		sp := f.SPort
		if sp == 0 {
			sp = 10000 + sport[key]
			sport[key]++
		}
		q.SPort = uint16(sp)
		dp := f.DPort
		if dp == 0 {
			dp = 100
		}
		q.DPort = uint16(dp)
		q.LineRateBps = n.Ports[n.Nodes[f.Src].FirstPort].Bps
		q.RateBps = q.LineRateBps
		pi := n.routes.PathConsts(f.Src, f.Dst, n.cfg.PayloadBytes)
		q.PathBaseRTT = pi.BaseRTT()
		q.PathBps = pi.MinBps
		q.Hops = pi.Hops - 1
		q.BaseRTT, q.BDPBytes = maxRTT, maxBDP
		q.lastNack = -1
		q.lastCNP = -sim.Never / 2
		q.InFlightCap = f.MaxInFlight
		if n.cfg.RefECMP {
			// the reference hashes (sip, dip, ports) with Murmur3 seeded by
			// the switch id at every switch; the packet carries the ports
			// word, the addresses come from its endpoints
			q.hashFwd = uint32(q.SPort) | uint32(q.DPort)<<16
			q.hashRev = uint32(q.DPort) | uint32(q.SPort)<<16
		} else {
			q.hashFwd = topo.FlowHash(f.Src, f.Dst, q.SPort, q.DPort, uint32(n.cfg.Seed))
			q.hashRev = topo.FlowHash(f.Dst, f.Src, q.DPort, q.SPort, uint32(n.cfg.Seed))
		}
	}
	if err := n.setPins(flows); err != nil {
		return err
	}
	if err := n.setChains(flows); err != nil {
		return err
	}
	// Flow arrivals enter the event queue one at a time, in (start, index)
	// order, with sequence numbers reserved now: the same order as pushing
	// them all at once, without a queue as large as the flow list. Chained
	// flows start from their predecessor's completion (chain.go).
	n.startOrder = make([]int32, 0, len(flows))
	for i := range flows {
		if !flows[i].HasAfter {
			n.startOrder = append(n.startOrder, int32(i))
		}
	}
	sort.SliceStable(n.startOrder, func(a, b int) bool {
		return flows[n.startOrder[a]].Start < flows[n.startOrder[b]].Start
	})
	n.startSeq = n.q.Reserve(len(flows))
	n.startNext = 0
	n.pushNextStart()
	return nil
}

// SetStop sets the simulation end time.
func (n *Network) SetStop(at sim.Time) { n.stopAt = at }

// SetAlgorithm sets the constructor of the per-QP congestion-control
// instances (used by flows that start after the call).
func (n *Network) SetAlgorithm(newCC func(q *QP) Algorithm) {
	n.newCC = func(i int) Algorithm { return newCC(&n.QPs[i]) }
}
