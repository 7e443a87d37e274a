package fabric

import (
	"math/bits"

	"github.com/ccsim/ccsim/sim"
)

// Algorithm is a sender-side congestion-control algorithm. One instance
// serves one queue pair. Callbacks run per ACK, per notice and per timer,
// never per byte; the fabric calls OnSend before each data packet only for
// algorithms that ask for it (QP.WantSendHook), e.g. to advance lazily
// evaluated periodic timers up to the present.
type Algorithm interface {
	// Start sets the initial rate/window and arms timers.
	Start(q *QP, now sim.Time)
	// OnAck handles an ACK or NACK (a.Nack) of this QP.
	OnAck(q *QP, a *AckInfo, now sim.Time)
	// OnNotice handles a stand-alone congestion notification (CNP packet)
	// or a switch-generated notice addressed to this QP.
	OnNotice(q *QP, n *Notice, now sim.Time)
	// OnTimer handles the expiry of a timer armed with QP.ArmTimer.
	OnTimer(q *QP, id int, now sim.Time)
	// OnSend runs just before a data packet of size wire bytes is paced,
	// if the QP's WantSendHook is set.
	OnSend(q *QP, size int, now sim.Time)
}

// Requirements lists what an algorithm needs from the fabric.
type Requirements struct {
	INT       bool // switches stamp INT records; data and ACK carry the INT stack
	Timestamp bool // data carries an 8-byte send timestamp header
	// AckPrio is the algorithm's reference preset for the NIC's ACK queue
	// (ACK_HIGH_PRIO): 1 = class 0, -1 = the flow's class, 0 = no
	// preference. A scenario's host.ack_high_prio overrides it.
	AckPrio int8
	// ECN is the algorithm's reference preset for switch marking (e.g. a
	// step rule, Kmin = Kmax); nil = the scenario's or the fabric's
	// default.
	ECN []ECNRule
	// OwnECN: the algorithm's switch feature decides ECN marks itself (in
	// its OnEnqueue or OnDequeue hook, with SwitchView.MarkCE); the
	// fabric's RED marking at dequeue is off.
	OwnECN bool
	// CNPInterval is the algorithm's preset for the receiver's minimum time
	// between two congestion notifications of a flow (e.g. 50 µs, the
	// notification point of the reference's dcqcn preset); 0 = no
	// preference. A scenario's host.cnp_interval_us overrides it.
	CNPInterval sim.Time
	// Ext declares the algorithm's per-packet header extension (ext.go):
	// the sender stamps QP.Ext on every data packet, switch features read
	// and rewrite it (SwitchView.Ext, SetExt), the receiver echoes it as
	// declared and the sender sees it in AckInfo.Ext. The zero value
	// declares none.
	Ext ExtSpec
}

// ReceiverAlgorithm is implemented by algorithms with receiver-side logic
// (e.g. a receiver that measures the flow's rate). The fabric calls OnDataReceived for
// every data packet that reaches the receiver in order; when it returns
// notify, the receiver sends a CNP packet carrying arg to the sender, where
// it arrives through OnNotice.
type ReceiverAlgorithm interface {
	OnDataReceived(q *QP, ecn bool, payloadBytes int, mark uint8, now sim.Time) (notify bool, arg int64)
}

// TimeoutAlgorithm is implemented by algorithms that react to the sender's
// retransmission timeout (e.g. a window cut on timeout). The fabric checks
// for it once, when the QP starts, and calls OnTimeout each time the RTO
// fires with data outstanding, after it has gone back to the oldest
// unacknowledged byte and before it sends again.
type TimeoutAlgorithm interface {
	OnTimeout(q *QP, now sim.Time)
}

// AckInfo is what a sender learns from one ACK or NACK.
type AckInfo struct {
	Seq        int64    // cumulative: next byte the receiver expects
	NewlyAcked int64    // bytes newly acknowledged by this ACK (0 for duplicates)
	Nack       bool     // NACK: the receiver saw a gap at Seq
	CNP        bool     // the acknowledged data packet carried a CE mark
	SentAt     sim.Time // send time of the acknowledged data packet (echoed)
	RTT        sim.Time // now − SentAt
	Hops       []IntHop // INT records echoed from the data packet (valid during the call)
	NHop       int      // switches that stamped the data packet (may exceed len(Hops))
	Mark       uint8    // the acknowledged data packet's Mark byte, echoed by the receiver (e.g. a flag a switch cleared)
	// Ext is the header extension of the ACK (Requirements.Ext; zero
	// otherwise): the data packet's values the receiver echoes and its
	// domain where declared, zero elsewhere.
	Ext Ext
}

// Notice is a congestion notification that is not an ACK.
type Notice struct {
	Kind Kind  // KindCNP or KindNotice
	From int32 // node that generated it
	Arg  int64 // algorithm-defined payload (Args[0] for a notice sent with SendNoticeArgs)
	// Args is the payload of a notice sent with SendNoticeArgs (several
	// values, e.g. a congested-flow count and a link rate); zero
	// otherwise.
	Args NoticeArgs
}

// NoticeArgs is the payload of a switch notice that carries several
// values.
type NoticeArgs [4]int64

// Timer slots per QP available to algorithms.
const MaxQPTimers = 4

// QP is the sender and receiver state of one flow (queue pair). Algorithms
// read its counters and act through SetRate, SetWindow and ArmTimer.
type QP struct {
	ID       int32
	Src, Dst int32
	Prio     uint8
	SPort    uint16
	DPort    uint16

	// SizeBytes is the flow's size; for a message chain
	// (workload.Flow.Messages > 1), the end of the data posted so far.
	SizeBytes int64
	SndNxt    int64 // next byte to send
	SndUna    int64 // oldest unacknowledged byte
	// RateBps is the current pacing rate; LineRateBps the NIC rate.
	RateBps     int64
	LineRateBps int64
	// WindowBytes caps bytes in flight (SndNxt − SndUna); 0 = no window.
	// With VarWindow the cap follows the rate: WindowBytes × RateBps /
	// LineRateBps (at least 1 byte), the reference simulator's VAR_WIN.
	WindowBytes int64
	VarWindow   bool
	// InFlightCap is the flow's own cap on bytes in flight
	// (workload.Flow.MaxInFlight, e.g. perftest's tx-depth), independent
	// of the algorithm's window: a packet may be sent while the bytes in
	// flight are below both (0 = none). Algorithms must not change it.
	InFlightCap int64
	// BaseRTT is the base round-trip time used by window-based algorithms
	// (the reference uses the network's maximum base RTT) and BDPBytes the
	// matching bandwidth-delay product.
	BaseRTT  sim.Time
	BDPBytes int64
	// PathBaseRTT and PathBps are the QP's own path base RTT and bottleneck.
	PathBaseRTT sim.Time
	PathBps     int64
	Hops        int // switches on the path

	Start, Finish sim.Time
	Done          bool

	nextAvail sim.Time // pacing: earliest time of the next data packet
	// pacing gap of the last packet size at the last rate (a division
	// saved while the rate holds)
	paceSize    int32
	paceBps     int64
	paceGap     sim.Time
	maxSent     int64 // highest byte sent so far (retransmission accounting)
	lastPktSize int32
	dataHdr     int32 // data header bytes (48 + INT/timestamp extensions)
	ackSize     int32

	// active: started and not finished (in its host's QP list); open:
	// active, data left to send and not window-bound (Network.refresh)
	active, open bool
	hasData      bool  // active with data left to send (SndNxt < SizeBytes)
	hpos         int32 // position in its host's QP list (Node.qps)
	started      bool  // the flow has started (Start is its start time)
	chain        int32 // message chain: Network.chains[chain−1]; 0 = none

	// receiver side
	rcvNxt int64
	// RxBytes counts the payload of every data packet that reached the
	// receiver, duplicates and out-of-order packets it discarded included
	// (Delivered counts each byte once).
	RxBytes   int64
	nackTimer sim.Time
	lastNack  int64
	lastCNP   sim.Time

	// WantSendHook makes the fabric call Algorithm.OnSend before each packet.
	WantSendHook bool
	// DataMark is copied into Packet.Mark of every data packet the QP
	// sends; algorithms that flag their packets for switch features (e.g.
	// first/last window flags) set it, e.g. in OnSend.
	DataMark uint8
	// Ext holds the header-extension values stamped on every data packet
	// the QP sends when the algorithm declares an extension
	// (Requirements.Ext). It is zero when the algorithm starts; the
	// algorithm keeps it current (e.g. with SrcDomain).
	Ext Ext

	CC     Algorithm
	rx     ReceiverAlgorithm // CC's receiver side, if it has one
	tmo    TimeoutAlgorithm  // CC's timeout reaction, if it has one
	timers [MaxQPTimers]sim.Timer
	// the deadline and generation of the timer declared idle when it was
	// (idletimer.go)
	idleAt0      sim.Time
	idleGen0     uint32
	rto          sim.Timer
	lastProgress sim.Time
	rs           rttSample // per-RTT sampling (perrtt.go)
	traceRate    bool      // record the pacing rate's and window's changes (ratetrace.go)

	hashFwd, hashRev uint32
	net              *Network

	// statistics
	TxPackets, RetxBytes, TxBytes int64
	CNPs, Nacks                   int64 // congestion notifications (CNP flags and CNP packets) and NACKs received
	// DataDrops and DataDropBytes count the flow's data packets dropped
	// (switch admission, no route, link loss) and their payload; CtrlDrops
	// its ACKs, NACKs, CNPs and switch notices dropped
	// (docs/metrics.md §17).
	DataDrops, DataDropBytes, CtrlDrops int64
	// RateCuts counts rate decreases: calls of SetRate/SetRateRepace with
	// a rate below the current one (congestion events as the sender acts
	// on them).
	RateCuts int64
}

// Now is the current simulated time.
func (q *QP) Now() sim.Time { return q.net.now }

// Remaining is the number of payload bytes not yet sent for the first time.
func (q *QP) Remaining() int64 { return q.SizeBytes - q.SndNxt }

// InFlight is SndNxt − SndUna in bytes.
func (q *QP) InFlight() int64 { return q.SndNxt - q.SndUna }

// SetRate sets the pacing rate, clamped to [1, LineRateBps]. The change
// applies from the next packet: the already computed departure time of the
// next packet is kept (the reference's behaviour outside its HPCC mode).
func (q *QP) SetRate(bps int64) {
	if bps > q.LineRateBps {
		bps = q.LineRateBps
	}
	if bps < 1 {
		bps = 1
	}
	if bps < q.RateBps {
		q.RateCuts++
	}
	if q.traceRate && bps != q.RateBps {
		q.net.recordLimits(q, bps, q.WindowBytes)
	}
	q.RateBps = bps
}

// SetRateRepace sets the rate and moves the pending departure time as if the
// previous packet had been paced at the new rate (the reference's
// ChangeRate of its HPCC mode): nextAvail += tx(last, new) − tx(last, old).
func (q *QP) SetRateRepace(bps int64) {
	if bps > q.LineRateBps {
		bps = q.LineRateBps
	}
	if bps < 1 {
		bps = 1
	}
	if bps < q.RateBps {
		q.RateCuts++
	}
	if q.traceRate && bps != q.RateBps {
		q.net.recordLimits(q, bps, q.WindowBytes)
	}
	if q.lastPktSize > 0 && bps != q.RateBps {
		n := q.net
		q.nextAvail += sim.TxTime(int64(q.lastPktSize), bps) - sim.TxTime(int64(q.lastPktSize), q.RateBps)
		q.RateBps = bps
		n.pullWake(q.Src, q.nextAvail)
		return
	}
	q.RateBps = bps
}

// SetWindow sets the in-flight cap in bytes (0 = none).
func (q *QP) SetWindow(bytes int64) {
	if q.traceRate && bytes != q.WindowBytes {
		q.net.recordLimits(q, q.RateBps, bytes)
	}
	q.WindowBytes = bytes
}

// ArmTimer schedules timer id (0..MaxQPTimers-1) at time at, replacing any
// pending expiry of the same id.
func (q *QP) ArmTimer(id int, at sim.Time) {
	q.unidle(id)
	g := q.timers[id].Arm(at)
	q.net.q.Push(at, evQPTimer, q.ID, g<<2|uint32(id))
}

// ArmTimerAfter arms timer id at now + delay, where now is the time of the
// event being handled (the now of the callback). The event order is that
// of ArmTimer(id, now+delay) — exactly (time, arming order) — but a delay
// that recurs (a periodic timer of an algorithm) costs an append to a FIFO
// lane of the scheduler instead of a heap insertion (sim.Queue.PushDelay).
func (q *QP) ArmTimerAfter(id int, now, delay sim.Time) {
	q.unidle(id)
	g := q.timers[id].Arm(now + delay)
	q.net.q.PushDelay(now, delay, evQPTimer, q.ID, g<<2|uint32(id))
}

// CancelTimer cancels timer id.
func (q *QP) CancelTimer(id int) { q.unidle(id); q.timers[id].Cancel() }

// TimerArmed reports whether timer id is pending and its deadline.
func (q *QP) TimerArmed(id int) (sim.Time, bool) {
	if n := q.net; n.idle != nil {
		if it := &n.idle[q.ID]; it.on && int(it.id) == id {
			// an idle timer's state lives in its slot (idletimer.go)
			t := sim.TimerState(it.gen, q.idleDeadline(it))
			return t.Armed()
		}
	}
	return q.timers[id].Armed()
}

// Window is the current in-flight cap in bytes (0 = none).
func (q *QP) Window() int64 {
	if q.WindowBytes <= 0 {
		return 0
	}
	if !q.VarWindow {
		return q.WindowBytes
	}
	// reference GetWin: win · m_rate / m_max_rate in integer arithmetic
	// (both fit: window ≤ 2^32, rate ≤ 2^43 b/s; use 128-bit to be safe)
	hi, lo := bits.Mul64(uint64(q.WindowBytes), uint64(q.RateBps))
	w, _ := bits.Div64(hi, lo, uint64(q.LineRateBps))
	if w < 1 {
		w = 1
	}
	return int64(w)
}

// winBound: a packet may be sent while in-flight is below the window even
// if it then exceeds it (reference IsWinBound), and below the flow's own
// InFlightCap (the cap is the smaller of the two).
func (q *QP) winBound() bool {
	f := q.SndNxt - q.SndUna
	return q.WindowBytes > 0 && f >= q.Window() || q.InFlightCap > 0 && f >= q.InFlightCap
}

// Started reports whether the flow has started (a chained flow starts only
// when its predecessor completes).
func (q *QP) Started() bool { return q.started }

// PayloadBytes is the fabric's payload per data packet (MTU).
func (q *QP) PayloadBytes() int64 { return int64(q.net.cfg.PayloadBytes) }

// Delivered is the number of payload bytes the receiver has accepted in
// order (goodput bytes).
func (q *QP) Delivered() int64 { return q.rcvNxt }

// SrcDomain is the topology domain (datacenter, topo.Graph.Domain) of the
// QP's sender; 0 on single-domain graphs.
func (q *QP) SrcDomain() uint16 { return q.net.g.Domain(int(q.Src)) }
