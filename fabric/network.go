// Package fabric models a RoCEv2 datacenter fabric at packet level: links,
// output-queued switches with a shared buffer, PFC, ECN/RED, INT and ECMP,
// and host NICs with paced queue pairs, go-back-N and per-packet ACKs.
//
// All state lives in flat slices addressed by integer indices (nodes, ports,
// packets, queue pairs). The event loop (Run) dispatches on a small event kind
// with a switch; congestion-control algorithms plug in through the Algorithm
// interface (per ACK, notice and timer) and switch-side mechanisms through
// SwitchFeature.
//
// The files follow a packet's path: network.go holds the types (Network,
// Node, Port, Stats) and the packet pool, build.go the construction (New,
// switch settings, flows), loop.go the event loop (Run), switch.go the
// switches (buffer admission, PFC, ECN, forwarding, notices), link.go the
// wire (transmission, link loss, PFC reception) and host.go the NICs
// (pacing, sending, receiving, ACKs).
package fabric

import (
	"math/rand/v2"
	"slices"
	"unsafe"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
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
	// qps holds the active sending QPs in creation order as slots; a
	// finished QP leaves a dead slot (−1, both bits clear) until the list
	// is compacted (qpbits.go: removeQP, compactQPs)
	qps       []int32
	openBits  []uint64          // bit j: QPs[qps[j]] is open (qpbits.go)
	dataBits  []uint64          // bit j: QPs[qps[j]] has data left to send
	rrLast    int               // slot of the QP the NIC served last (qpbits.go)
	dead      int               // dead slots in qps
	firstLive int               // the first live slot of qps (when any)
	prioQPs   [numClasses]int32 // active QPs per class
	prioMask  uint8             // bit c set: prioQPs[c] > 0
	open      int32             // active QPs that are open (see QP.open)
	ackQ      ring              // generated ACK/NACK/CNP awaiting the NIC
	wake      sim.Timer
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
	cfg           Config
	g             *topo.Graph
	routes        *topo.Routes
	now           sim.Time
	prefetchAhead bool // packets outgrew the cache: prefetch them ahead (see alloc)
	extOn         bool // the algorithm declares a header extension (ext.go)
	q             sim.Queue
	stopAt        sim.Time
	// idle holds per QP the state of a timer its algorithm declared idle
	// (idletimer.go); nil until one does.
	idle      []idleTimer
	idleEvery []sim.Time // the periods of idle timers

	Nodes []Node
	Ports []Port
	pkts  []Packet
	// INT records per packet slot, only with INT, in chunks that never
	// move: slot i's are ints[i>>intChunkBits][i&(intChunk-1)] (intsOf).
	// At 160 bytes a slot, one growing array spent 17 % of an HPCC
	// cross-DC run copying and clearing itself as the queues filled
	// (docs/fabric.md §5).
	ints []*[intChunk]intStack
	ext  []Ext // header-extension values per packet slot (only with extOn, ext.go)
	free []int32

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
	rateTrace     []RateChange // ratetrace.go

	// chained flows and message chains (chain.go): the flows flow i's
	// completion starts are succ[succOff[i]:succOff[i+1]]
	// (workload.Successors); predLeft counts the predecessors still to
	// complete of the flows that have two (nil when none has); chains
	// holds the state of the message chains (QP.chain − 1 indexes it)
	succ, succOff []int32
	predLeft      []int8
	chains        []msgChain

	// pin[qp] indexes viaDist for a QP whose data path is pinned through a
	// switch (workload.Flow.Via), -1 otherwise; nil when no flow is pinned
	// (see pinnedHop).
	pin     []int32
	viaDist [][]int32

	Stats Stats
	// latency: one-way network latency of data packets (Latency)
	latency metrics.LatencyHist

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

	// OnDataArrive, if set, is called for every data packet that reaches
	// its destination host (duplicates and out-of-order packets included),
	// with its send time and its arrival (now): the samples of
	// Latency one by one, for tests and traces.
	OnDataArrive func(q *QP, sent, now sim.Time)

	// Progress, if set, is called about every million events with the
	// current simulated time.
	Progress func(now sim.Time)

	// the receiver keeps the extension values of extEcho and writes its
	// domain into those of extDom (all-ones words; ext.go)
	extEcho, extDom Ext
	views           []SwitchView // per node; switches only (feature.go)
}

// PFCEvent is one received PFC frame (the reference's pfc.txt line).
type PFCEvent struct {
	At    sim.Time
	Node  int32
	Port  int32 // local port index at the node
	Pause bool
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

func (n *Network) alloc() int32 {
	if k := len(n.free); k > 0 {
		i := n.free[k-1]
		n.free = n.free[:k-1]
		return i
	}
	// Double each full array (append would grow a large slice by 1.25×,
	// copying the pool about four times over as queues fill: 9 % of a
	// cross-DC run whose queues hold millions of packets). Each array
	// is checked on its own: their capacities are rounded to different
	// size classes.
	n.pkts = append(grow(n.pkts), Packet{})
	if n.cfg.INT && (len(n.pkts)-1)>>intChunkBits == len(n.ints) {
		n.ints = append(n.ints, new([intChunk]intStack))
	}
	if n.extOn {
		n.ext = append(grow(n.ext), Ext{})
	}
	// Once the packets outgrow a core's cache, the loop starts
	// prefetching each packet before its arrival runs (see Run).
	n.prefetchAhead = len(n.pkts)*int(unsafe.Sizeof(Packet{}))+len(n.ints)*int(unsafe.Sizeof([intChunk]intStack{}))+len(n.ext)*int(unsafe.Sizeof(Ext{})) > prefetchAheadBytes
	return int32(len(n.pkts) - 1)
}

// minPool is the packet pool's first capacity.
const minPool = 1024

// intChunk is the number of packet slots per chunk of INT records
// (640 KiB).
const (
	intChunkBits = 12
	intChunk     = 1 << intChunkBits
)

// intsOf returns the INT records of packet slot pi.
func (n *Network) intsOf(pi int32) *intStack {
	return &n.ints[pi>>intChunkBits][pi&(intChunk-1)]
}

// grow returns s with room for one more element: s itself, or when full,
// s with its capacity doubled (at least minPool).
func grow[E any](s []E) []E {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), minPool))
}

// prefetchAheadBytes is the packet memory beyond which Run prefetches
// packets ahead: 1 MiB, a typical per-core L2 cache. Below it the prefetch
// costs more instructions than the misses it saves.
const prefetchAheadBytes = 1 << 20

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

// FlowInFlight returns the payload bytes of each flow's data packets
// queued or on wires (indexed by QP), in dst if it is long enough.
func (n *Network) FlowInFlight(dst []int64) []int64 {
	if cap(dst) < len(n.QPs) {
		dst = make([]int64, len(n.QPs))
	}
	dst = dst[:len(n.QPs)]
	clear(dst)
	inFree := make([]bool, len(n.pkts))
	for _, i := range n.free {
		inFree[i] = true
	}
	for i := range n.pkts {
		if pk := &n.pkts[i]; !inFree[i] && pk.Kind == KindData {
			dst[pk.QP] += int64(pk.Payload)
		}
	}
	return dst
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

// Latency is the one-way network latency of every data packet that
// reached its destination host, retransmitted copies included: from the
// start of its transmission at the sender's NIC (Packet.TS) to the arrival
// of its last bit at the receiver's NIC (docs/metrics.md §16). (It is not
// in Stats, which stays comparable with ==.)
func (n *Network) Latency() *metrics.LatencyHist { return &n.latency }

// QueueHighWater is the largest number of pending events the run had.
func (n *Network) QueueHighWater() int { return n.q.HighWater() }
