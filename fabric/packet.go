package fabric

import "github.com/ccsim/ccsim/sim"

// Kind is the type of a packet.
type Kind uint8

// Packet kinds.
const (
	KindData   Kind = iota // RoCEv2 data (UDP) packet of a QP
	KindAck                // cumulative ACK, one per in-order data packet
	KindNack               // go-back-N request: resend from Seq
	KindCNP                // stand-alone congestion notification packet
	KindPFC                // PFC pause/resume frame (hop by hop, never forwarded)
	KindNotice             // switch-generated notification to a sender (SwitchView.SendNotice)
)

var kindNames = [...]string{"data", "ack", "nack", "cnp", "pfc", "notice"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Wire sizes in bytes, as in the reference simulator
// (docs/reference-simulator.md §1.6): a padded
// 14-byte L2 header, IPv4 20, UDP 8 and the 6-byte sequence/priority header
// for data; ACK/NACK/CNP padded to a 60-byte minimum frame; PFC 43 bytes.
const (
	DataHeaderBytes = 48 // L2 14 + IPv4 20 + UDP 8 + SeqTs 6
	AckBytes        = 60 // minimum ACK/NACK frame
	AckHeaderBytes  = 46 // L2 14 + IPv4 20 + ACK header 12 (before INT and padding)
	PFCBytes        = 43 // L2 14 + IPv4 20 + time 4 + qlen 4 + class 1
	CNPBytes        = 60
	// IntHopBytes is the size of one INT hop record (the reference's HPCC
	// INT format) and IntHeaderBytes the fixed INT stack the reference
	// always carries in HPCC mode (5 records of 8 bytes + 2-byte hop
	// count).
	IntHopBytes    = 8
	IntHeaderBytes = 42
	// MaxIntHops is the capacity of a packet's INT stack.
	MaxIntHops = 5
)

// IntHop is one in-band telemetry record stamped by a switch egress port
// when the packet starts transmitting (the fields of the reference's HPCC
// INT record).
type IntHop struct {
	Bps     int64    // line rate of the egress link, bits per second
	TS      sim.Time // time the packet started transmitting
	TxBytes int64    // bytes that started transmitting on the port before this packet
	QLen    int64    // bytes queued at the port (all classes) after this packet left
}

// Packet is a packet in flight. Packets live in the network's pool and are
// addressed by index; nothing on the per-packet path allocates.
type Packet struct {
	Kind  Kind
	Prio  uint8 // priority class 0..7 used in switch queues
	ECN   bool  // congestion experienced (CE) mark set by a switch
	CNP   bool  // ACK/NACK: the acked data packet carried a CE mark
	Pause bool  // PFC: pause (true) or resume (false)
	NHop  uint8 // INT records used
	// Mark is a byte for switch features and their senders (marks and
	// flags); the fabric never reads it. The receiver passes it to
	// ReceiverAlgorithm and echoes it in the ACK (AckInfo.Mark).
	Mark uint8
	// Hop counts the switches the packet has entered (route cache index).
	Hop     uint8
	inPort  int32 // global port index the packet entered the current switch on
	QP      int32 // queue pair (flow) index; -1 for PFC
	Src     int32 // source node
	Dst     int32 // destination node
	Size    int32 // wire bytes
	Payload int32 // payload bytes (data)
	Seq     int64 // data: first payload byte; ACK: next expected byte
	TS      sim.Time
	Hash    uint32 // per-flow ECMP hash (direction-specific)
	Arg     int64  // notices: algorithm-defined payload (e.g. a rate in b/s)
}

// intStack is a packet's INT records. It lives in a side array parallel to
// the packet pool, allocated only when INT is enabled, so packets of runs
// without INT stay small (64 bytes).
type intStack [MaxIntHops]IntHop
