// Package fabric models a RoCEv2 datacenter fabric at packet level: links,
// output-queued switches with a shared buffer, PFC, ECN/RED, INT and ECMP,
// and host NICs with paced queue pairs, go-back-N and per-packet ACKs.
//
// All state lives in flat slices addressed by integer indices (nodes, ports,
// packets, queue pairs). The event loop (Run) dispatches on a small event kind
// with a switch; congestion-control algorithms plug in through the Algorithm
// interface (per ACK, notice and timer) and switch-side mechanisms through
// SwitchFeature.
package fabric

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"unsafe"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// Event kinds of the fabric's event loop.
const (
	evArrive     uint8 = iota // packet Idx's last bit reaches host port Arg
	evArriveSw                // ... reaches switch port Arg
	evArriveData              // ... a data packet reaches its host's port Arg
	evArriveAck               // ... an ACK/NACK reaches its host's port Arg
	evTxDone                  // switch port Idx's transmitter is free
	evHostWake                // host node Idx's NIC may be able to send
	evFlowStart               // flow Idx becomes ready at its sender
	evQPTimer                 // algorithm timer of QP Idx (Arg = gen<<2 | id)
	evRTO                     // retransmission timer of QP Idx
	evMonitor                 // periodic sampling
	evStop                    // end of simulation
	evFeature                 // periodic switch-feature tick
	evLost                    // packet Idx, lost on its link, would have reached port Arg
	evMsgPost                 // QP Idx's message chain posts its next message (chain.go)
)

// routeCacheHops is the number of switches per path whose forwarding
// decision is cached per QP (longer paths route the rest normally).
const routeCacheHops = 8

// numClasses is the number of priority classes per port.
const numClasses = 8

// Port is one end of a link: a transmitter with its egress queues and the
// wire towards the peer, and (at switches) the ingress buffer accounting of
// packets received on it.
type Port struct {
	// Fields are ordered hot first: the first cache lines hold what every
	// packet touches.
	Node       int32 // owner node
	Peer       int32 // global index of the port at the other end
	isSwitch   bool
	peerSwitch bool  // the port at the other end belongs to a switch
	txOdd      bool  // the packet being sent is a flow's short last one
	lossy      bool  // the link towards the peer loses packets (lossRate > 0)
	shift      uint8 // dynamic PFC threshold = free buffer >> shift
	rrLast     uint8
	qMask      uint8            // bit c set: class c's queue is non-empty
	pauseMask  uint8            // bit c set: paused[c]
	paused     [numClasses]bool // this transmitter is paused by the peer
	pauseSent  [numClasses]bool // we paused the peer for this ingress class

	busyUntil sim.Time // transmitter busy until
	psPerByte sim.Time // serialization time of one byte when exact (8e12 % Bps == 0), else 0
	Delay     sim.Time
	Bps       int64
	txTimer   sim.Timer // pending transmit-complete (switch ports)
	qTotal    int64     // bytes queued, all classes
	txBytes   int64     // all bytes that started transmission (INT)
	headroom  int64

	// ECN
	kmin, kmax int64
	pmax       float64

	// link error model of the direction towards the peer (lossy only)
	lossRate float64
	lossRng  *rand.Rand

	qBytes [numClasses]int64 // bytes queued per class (egress accounting)
	// ingress accounting at switches (packets that entered on this port)
	ingress      [numClasses]int64
	headroomUsed [numClasses]int64

	q [numClasses]ring

	pausedSince [numClasses]sim.Time

	// statistics
	Stats PortStats
}

// PortStats are per-port counters.
type PortStats struct {
	TxPackets, TxBytes int64    // all packets that started transmission (wire bytes)
	TxPayloadBytes     int64    // data payload among them (retransmissions included)
	PauseSent          int64    // PFC pause frames sent by this port (for its ingress)
	ResumeSent         int64    // PFC resume frames sent
	PauseRx            int64    // pause frames received (this transmitter paused)
	PausedTime         sim.Time // total time some class of this transmitter was paused
	Drops              int64    // packets dropped on ingress at this port (buffer admission or link loss)
	LinkLosses         int64    // among them: packets lost on the link towards this port (topo.Link.ErrRate)
	MaxQueueBytes      int64
	Marked             int64
}

// Node is a host or a switch.
type Node struct {
	Switch    bool
	FirstPort int32
	NumPorts  int32
	// hosts
	qps      []int32  // active sending QPs in creation order
	openBits []uint64 // bit j: QPs[qps[j]] is open (qpbits.go)
	dataBits []uint64 // bit j: QPs[qps[j]] has data left to send
	rrLast   int
	prioQPs  [numClasses]int32 // active QPs per class
	prioMask uint8             // bit c set: prioQPs[c] > 0
	open     int32             // active QPs that are open (see QP.open)
	ackQ     ring              // generated ACK/NACK/CNP awaiting the NIC
	wake     sim.Timer
	// switches: settings resolved by New (Config and its Switches
	// overrides), then the shared-buffer state
	pfc           PFCMode
	ecn           bool  // RED/ECN marking at this switch's egress ports
	pfcStatic     int64 // static pause threshold (pfc == PFCStatic)
	sharedUsed    int64
	bufferBytes   int64
	totalHeadroom int64
	totalReserve  int64
	rng           *rand.Rand
	features      []SwitchFeature
	Drops         int64
}

// SwitchFeature is a switch-side mechanism (PCN, Bolt, DCON, WRCC, BiCC, ...)
// attached to a switch. Hooks run on enqueue and dequeue of data packets and
// at a fixed sampling period.
type SwitchFeature interface {
	OnEnqueue(n *Network, sw int32, in, out int32, p *Packet, now sim.Time)
	OnDequeue(n *Network, sw int32, out int32, p *Packet, now sim.Time)
	OnPeriod(n *Network, sw int32, now sim.Time)
}

// Stats are network-wide counters.
type Stats struct {
	Events                         int64
	DataTxPackets, DataTxBytes     int64 // data packets put on host wires (incl. retransmissions)
	DataRxPackets, DataRxBytes     int64 // data packets that reached their destination host
	DataDropPackets, DataDropBytes int64
	CtrlDrops                      int64
	AckPackets, NackPackets, CNPs  int64
	PauseFrames, ResumeFrames      int64
	Retransmits                    int64
	Notices                        int64 // switch-generated notices
	Timeouts                       int64
	LinkLosses                     int64 // packets lost on links with an error rate (counted in the drops above)
	// RouteLookups counts forwarding decisions taken from the routing
	// table (and ECMP hash) rather than the per-QP route cache.
	RouteLookups int64
	RTT          RTTHist
	FlowsDone    int
}

// Network is a simulated fabric.
type Network struct {
	cfg        Config
	g          *topo.Graph
	routes     *topo.Routes
	now        sim.Time
	touch      int32 // sink of software prefetch loads (see switchSend, Run)
	touchAhead bool  // packets outgrew the cache: touch them ahead (see alloc)
	q          sim.Queue
	stopAt     sim.Time

	Nodes []Node
	Ports []Port
	pkts  []Packet
	ints  []intStack // INT records per packet slot (only with INT)
	wrcc  []WRCCExt  // WRCC INT extension per packet slot (only with Requirements.WRCCExt)
	free  []int32

	QPs []QP
	// flow arrivals in (start, index) order; the next one is in the queue
	startOrder []int32
	startNext  int
	startSeq   uint64
	// routeCache[(qp·2 + dir)·routeCacheHops + hop] = egress port + 1 chosen
	// at the hop-th switch of the QP's data (dir 0) or reverse (dir 1)
	// path; 0 = not yet known.
	routeCache []int32
	Flows      []workload.Flow
	newCC      func(i int) Algorithm
	req        Requirements

	// per-RTT RTT sampling (perrtt.go)
	perRTT        bool
	perRTTSamples []PerRTTSample

	// chained flows and message chains (chain.go): succFirst[i] is the
	// first flow that flow i's completion starts (-1 none) and succNext
	// links the others (nil when no flow is chained); chains holds the
	// state of the message chains (QP.chain − 1 indexes it).
	succFirst, succNext []int32
	chains              []msgChain

	// pin[qp] indexes viaDist for a QP whose data path is pinned through a
	// switch (workload.Flow.Via), -1 otherwise; nil when no flow is pinned
	// (see pinnedHop).
	pin     []int32
	viaDist [][]int32

	Stats Stats

	ackInfo AckInfo // scratch passed to Algorithm.OnAck
	notice  Notice  // scratch passed to Algorithm.OnNotice
	// payloads of notices in flight sent with SendNoticeArgs (the packet's
	// Arg is the slot), and the free slots
	noticeArgs     []NoticeArgs
	noticeArgsFree []int32

	featureEvery sim.Time
	monitors     []monitor
	OnFlowDone   func(q *QP)
	// OnMessageDone, if set, is called when a message of a message chain
	// (workload.Flow.Messages > 1) completes: message msg (0-based),
	// posted at post, completed (last byte acknowledged) now.
	OnMessageDone func(q *QP, msg int64, post, done sim.Time)

	pfcLog func(ev PFCEvent)

	// Progress, if set, is called about every million events with the
	// current simulated time.
	Progress func(now sim.Time)
}

// PFCEvent is one received PFC frame (the reference's pfc.txt line).
type PFCEvent struct {
	At    sim.Time
	Node  int32
	Port  int32 // local port index at the node
	Pause bool
}

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
	n.routes = g.NextHops()
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

// Headroom is the PFC headroom of switch port pt (global index), bytes.
func (p *Port) Headroom() int64 { return p.headroom }

// ECNRule is the RED rule of switch port p (zero at hosts).
func (p *Port) ECNRule() ECNRule {
	return ECNRule{Bps: p.Bps, KminBytes: p.kmin, KmaxBytes: p.kmax, Pmax: p.pmax}
}

// Config returns the network's configuration.
func (n *Network) Config() *Config { return &n.cfg }

// Graph returns the topology.
func (n *Network) Graph() *topo.Graph { return n.g }

// PathInfo describes the first equal-cost path from src to dst (the one
// the ideal FCT assumes), from the precomputed routes.
func (n *Network) PathInfo(src, dst int) topo.PathInfo {
	return n.routes.PathInfo(src, dst, n.cfg.PayloadBytes)
}

// PathConsts is PathInfo without the per-hop slices (no allocation).
func (n *Network) PathConsts(src, dst int) topo.PathInfo {
	return n.routes.PathConsts(src, dst, n.cfg.PayloadBytes)
}

// Now is the current simulated time.
func (n *Network) Now() sim.Time { return n.now }

// Packet returns packet i of the pool.
func (n *Network) Packet(i int32) *Packet { return &n.pkts[i] }

// AddFeature attaches a switch-side feature to switch sw. A nil f attaches
// nothing: a feature's constructor returns nil at switches where it does
// not act (BiCC off the DCI switches), which then run no hook at all.
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
// timestamps); it fixes the wire sizes of data and ACK packets.
func (n *Network) SetRequirements(r Requirements) {
	n.req = r
	n.cfg.INT = n.cfg.INT || r.INT
	if r.WRCCExt && len(n.wrcc) < len(n.pkts) {
		n.wrcc = append(n.wrcc, make([]WRCCExt, len(n.pkts)-len(n.wrcc))...)
	}
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

// PFCThreshold is the current PFC pause threshold of switch ingress port
// pt (global index): the static threshold (capped by the free shared
// buffer, for the port's class with the most shared use), or the dynamic
// one (free shared buffer >> shift) at this moment; bytes of shared-buffer
// use per class.
func (n *Network) PFCThreshold(pt int32) int64 {
	p := &n.Ports[pt]
	var c uint8 = 1
	for k := uint8(2); k < numClasses; k++ {
		if p.ingress[k] > p.ingress[c] {
			c = k
		}
	}
	return n.threshold(&n.Nodes[p.Node], p, c)
}

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

func (n *Network) alloc() int32 {
	if k := len(n.free); k > 0 {
		i := n.free[k-1]
		n.free = n.free[:k-1]
		return i
	}
	n.pkts = append(n.pkts, Packet{})
	if n.cfg.INT {
		n.ints = append(n.ints, intStack{})
	}
	if n.req.WRCCExt {
		n.wrcc = append(n.wrcc, WRCCExt{})
	}
	// Once the packets outgrow a core's cache, the loop starts touching
	// each packet before its arrival runs (see Run).
	n.touchAhead = len(n.pkts)*int(unsafe.Sizeof(Packet{}))+len(n.ints)*int(unsafe.Sizeof(intStack{}))+len(n.wrcc)*int(unsafe.Sizeof(WRCCExt{})) > touchAheadBytes
	return int32(len(n.pkts) - 1)
}

// touchAheadBytes is the packet memory beyond which Run touches packets
// ahead: 1 MiB, a typical per-core L2 cache. Below it the touch costs more
// instructions than the misses it saves.
const touchAheadBytes = 1 << 20

func (n *Network) release(i int32) { n.free = append(n.free, i) }

// PacketsLive is the number of packets currently allocated (queued or on a wire).
func (n *Network) PacketsLive() int { return len(n.pkts) - len(n.free) }

// DataInFlight counts data packets and payload bytes queued or on wires.
func (n *Network) DataInFlight() (pkts, bytes int64) {
	inFree := make([]bool, len(n.pkts))
	for _, i := range n.free {
		inFree[i] = true
	}
	for i := range n.pkts {
		if !inFree[i] && n.pkts[i].Kind == KindData {
			pkts++
			bytes += int64(n.pkts[i].Payload)
		}
	}
	return
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

// Run executes events until all flows completed, the stop time, or the
// event queue is empty. It returns the time of the last event.
func (n *Network) Run() sim.Time {
	for i := range n.monitors {
		n.q.Push(0, evMonitor, int32(i), 0)
	}
	if n.stopAt != sim.Never {
		n.q.Push(n.stopAt, evStop, 0, 0)
	}
	if n.featureEvery > 0 {
		n.q.Push(n.featureEvery, evFeature, 0, 0)
	}
	for {
		e, ok := n.q.Next()
		if !ok {
			break
		}
		n.now = e.At
		if n.touchAhead {
			if f, ok := n.q.Following(); ok && f.Kind() <= evArriveAck {
				// the packet of an arrival about to come has likely left
				// the cache since it was sent; start loading it now
				n.touch += n.pkts[f.Idx].Size
			}
		}
		n.Stats.Events++
		if n.Stats.Events&(1<<20-1) == 0 && n.Progress != nil {
			n.Progress(n.now)
		}
		switch e.Kind() {
		case evArriveSw:
			n.switchReceive(int32(e.Arg), e.Idx)
		case evArriveData:
			n.receiveData(e.Idx)
		case evArriveAck:
			n.receiveAck(e.Idx)
		case evArrive:
			n.hostReceive(int32(e.Arg), e.Idx)
		case evLost:
			n.linkLoss(int32(e.Arg), e.Idx)
		case evTxDone:
			if !n.Ports[e.Idx].txTimer.Fires(e.Arg) {
				continue
			}
			n.switchSend(e.Idx)
		case evHostWake:
			nd := &n.Nodes[e.Idx]
			if !nd.wake.Fires(e.Arg) {
				continue
			}
			n.hostSend(e.Idx)
		case evFlowStart:
			if e.Arg == 0 { // else a chained flow (chain.go)
				n.pushNextStart()
			}
			n.startFlow(e.Idx)
		case evMsgPost:
			n.postMessage(e.Idx)
		case evQPTimer:
			q := &n.QPs[e.Idx]
			id := int(e.Arg & 3)
			if !q.timers[id].Fires(e.Arg >> 2) {
				continue
			}
			if q.Done {
				continue
			}
			q.CC.OnTimer(q, id, n.now)
			n.refresh(q)
		case evRTO:
			n.onRTO(e.Idx, e.Arg)
		case evMonitor:
			if n.Stats.FlowsDone == len(n.QPs) && len(n.QPs) > 0 {
				continue
			}
			m := &n.monitors[e.Idx]
			m.fn(n, n.now)
			n.q.PushDelay(n.now, m.every, evMonitor, e.Idx, 0)
		case evFeature:
			if n.Stats.FlowsDone == len(n.QPs) && len(n.QPs) > 0 {
				continue
			}
			for i := range n.Nodes {
				if fs := n.Nodes[i].features; fs != nil {
					for _, f := range fs {
						f.OnPeriod(n, int32(i), n.now)
					}
				}
			}
			n.q.PushDelay(n.now, n.featureEvery, evFeature, 0, 0)
		case evStop:
			n.q.Done()
			n.closePauses()
			return n.now
		}
		if n.Stats.FlowsDone == len(n.QPs) && len(n.QPs) > 0 {
			break
		}
	}
	n.q.Done()
	n.closePauses()
	return n.now
}

// closePauses adds still-open pause intervals to the paused-time counters.
func (n *Network) closePauses() {
	for i := range n.Ports {
		p := &n.Ports[i]
		for c := 0; c < numClasses; c++ {
			if p.paused[c] {
				p.Stats.PausedTime += n.now - p.pausedSince[c]
				p.pausedSince[c] = n.now
			}
		}
	}
}

// transmit puts packet pi on port pt's wire now; the transmitter is free
// again after the serialization time.
func (n *Network) transmit(pt int32, pi int32) {
	p := &n.Ports[pt]
	pk := &n.pkts[pi]
	var tx sim.Time
	if p.psPerByte > 0 {
		tx = sim.Time(pk.Size) * p.psPerByte // exact, no division
	} else {
		tx = sim.TxTime(int64(pk.Size), p.Bps)
	}
	p.busyUntil = n.now + tx
	p.txBytes += int64(pk.Size)
	p.Stats.TxPackets++
	p.Stats.TxBytes += int64(pk.Size)
	p.Stats.TxPayloadBytes += int64(pk.Payload) // 0 for control packets
	// The last bit reaches the peer after serialization and propagation.
	// That delay recurs (few packet sizes × few link types), so the event
	// goes into one of the scheduler's FIFO lanes: an append, no heap work.
	// The event kind names the handler, so dispatch is one jump.
	kind := evArriveSw
	if !p.peerSwitch {
		switch pk.Kind {
		case KindData:
			kind = evArriveData
		case KindAck, KindNack:
			kind = evArriveAck
		default:
			kind = evArrive
		}
	}
	if p.lossy && p.lossRng.Float64() < p.lossRate {
		// the packet will be lost on the link (the draw is made as it
		// starts: the link is FIFO, so in the order of arrivals)
		kind = evLost
	}
	p.txOdd = pk.Kind == KindData && int(pk.Payload) != n.cfg.PayloadBytes
	if !p.txOdd {
		n.q.PushDelay(n.now, tx+p.Delay, kind, pi, uint32(p.Peer))
	} else {
		// a flow's short last packet: its delay is rare, keep it out of
		// the lanes (few, busy lanes keep the scan short)
		n.q.Push(n.now+tx+p.Delay, kind, pi, uint32(p.Peer))
	}
}

// linkLoss discards packet pi, lost on the link that ends at port in: the
// receiver drops the corrupted frame (any kind, PFC frames included, as the
// reference's per-link error model does). It counts as a drop at port in.
func (n *Network) linkLoss(in int32, pi int32) {
	p := &n.Ports[in]
	p.Stats.Drops++
	p.Stats.LinkLosses++
	n.Nodes[p.Node].Drops++
	n.Stats.LinkLosses++
	n.countDrop(&n.pkts[pi])
	n.release(pi)
}

// receivePFC applies a PFC frame arriving on port in (which pauses or
// resumes in's own transmitter).
func (n *Network) receivePFC(in int32, pi int32) {
	pk := &n.pkts[pi]
	p := &n.Ports[in]
	c, pause := pk.Prio, pk.Pause
	if pause {
		p.Stats.PauseRx++
		if !p.paused[c] {
			p.paused[c] = true
			p.pauseMask |= 1 << c
			p.pausedSince[c] = n.now
		}
	} else if p.paused[c] {
		p.paused[c] = false
		p.pauseMask &^= 1 << c
		p.Stats.PausedTime += n.now - p.pausedSince[c]
	}
	if n.pfcLog != nil {
		nd := &n.Nodes[p.Node]
		n.pfcLog(PFCEvent{At: n.now, Node: p.Node, Port: in - nd.FirstPort, Pause: pause})
	}
	n.release(pi)
	if !pause {
		if p.isSwitch {
			n.switchSend(in)
		} else {
			n.hostSend(p.Node)
		}
	}
}

// SetAlgorithm sets the constructor of the per-QP congestion-control
// instances (used by flows that start after the call).
func (n *Network) SetAlgorithm(newCC func(q *QP) Algorithm) {
	n.newCC = func(i int) Algorithm { return newCC(&n.QPs[i]) }
}

// QueueBytes is the number of bytes queued at the port, all classes.
func (p *Port) QueueBytes() int64 { return p.qTotal }

// IngressBytes is the number of bytes a switch holds that entered on this
// port (reserve, shared and headroom use, all classes): the ingress queue
// whose shared use PFC watches.
func (p *Port) IngressBytes() int64 {
	var b int64
	for c := range numClasses {
		b += p.ingress[c] + p.headroomUsed[c]
	}
	return b
}

// QueueHighWater is the largest number of pending events the run had.
func (n *Network) QueueHighWater() int { return n.q.HighWater() }

// pushNextStart queues the next flow arrival with its reserved sequence.
func (n *Network) pushNextStart() {
	if n.startNext >= len(n.startOrder) {
		return
	}
	i := n.startOrder[n.startNext]
	n.q.PushSeq(n.Flows[i].Start, n.startSeq+uint64(i), evFlowStart, i, 0)
	n.startNext++
}
