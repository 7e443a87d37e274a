// Package result holds the outcome of one simulated run, Result, with its
// summaries (summary.json) and the writers of every file of a run's
// result directory (flows.csv, flow_stats.csv, queue.csv, queue_cdf.csv,
// messages.csv, rtt_per_rtt.csv, the time series, the reference-format
// files); docs/outputs.md describes them. Package scenario/assemble fills
// a Result from a simulation; report and experiment read it back from
// summary.json. It depends on no simulation package (no fabric, no
// algorithm, no scenario): what the writers need is data in the Result.
package result

import (
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/workload"
	"math"
)

// Result is the outcome of one run. Its JSON form is summary.json (the
// fields tagged json:"-" are the per-flow and per-sample data of the other
// files, not set when a Result is read back from summary.json).
type Result struct {
	Scenario string             `json:"scenario"`
	CC       string             `json:"cc"`
	Seed     uint64             `json:"seed"`
	Summary  metrics.FCTSummary `json:"fct"`
	RTT      RTTSummary         `json:"rtt"`
	// RTTPerRTT summarises the per-RTT samples (outputs.rtt_per_rtt):
	// exact statistics.
	RTTPerRTT   *RTTSummary          `json:"rtt_per_rtt,omitempty"`
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
	// Latency is the one-way network latency of every data packet that
	// reached its receiver (docs/metrics.md §16).
	Latency metrics.PacketLatency `json:"latency"`
	// Losses and Goodput total flow_losses.csv (docs/metrics.md §17, §18).
	Losses  LossSummary    `json:"losses"`
	Goodput GoodputSummary `json:"goodput"`
	// FCTGroups summarises the flows of each traffic class (flows.csv's
	// group column) when the workload tags flows (cross_dc, perftest).
	FCTGroups map[string]metrics.FCTSummary `json:"fct_groups,omitempty"`
	// Perftest is the outcome of workload.perftest.
	Perftest *PerftestSummary `json:"perftest,omitempty"`
	// Messages are the completed messages of the message chains
	// (messages.csv, written when Files.Messages is set).
	Messages  []metrics.MessageRecord `json:"-"`
	FlowStats []FlowStat              `json:"-"`
	// FlowLosses are the rows of flow_losses.csv, in flow order.
	FlowLosses []FlowLoss `json:"-"`
	// PerRTT are the per-RTT samples of the flows listed in
	// outputs.rtt_per_rtt_flows, in the order taken (rtt_per_rtt.csv).
	PerRTT []PerRTTSample `json:"-"`
	// RateTrace are the pacing-rate changes of the flows listed in
	// outputs.rate_trace_flows, in the order they happened
	// (rate_trace.csv).
	RateTrace []RateChange `json:"-"`
	// QueueCDFs are the queue-length distributions of outputs.queue_cdf
	// (queue_cdf.csv); nil when off.
	QueueCDFs *metrics.QueueCDFs `json:"-"`
	// Series are the binned time series of outputs.series; nil when off.
	Series *Series `json:"-"`
	// Files selects the optional files Write produces.
	Files Files `json:"-"`
}

// Files selects the optional files of a result directory: what the
// scenario's outputs section asks for, and messages.csv when the workload
// has message chains.
type Files struct {
	RefFCT    bool // fct.txt (outputs.ref_fct)
	RefPFC    bool // pfc.txt (outputs.ref_pfc)
	FlowFile  bool // flows.txt, the workload as a reference flow file (outputs.flow_file)
	RTTPerRTT bool // rtt_per_rtt.csv (outputs.rtt_per_rtt with rtt_per_rtt_flows)
	Messages  bool // messages.csv (a message chain in the workload)
	RateTrace bool // rate_trace.csv (outputs.rate_trace_flows)
}

// QueueSample is one sampled queue length of a monitored port.
type QueueSample struct {
	At    sim.Time
	Port  int // index into Result.QueuePorts
	Bytes int64
}

// Port names one port: node id and local port index (link order), as the
// scenario's outputs name it.
type Port struct {
	Node int
	Port int
}

// PerRTTSample is one per-RTT RTT sample of a flow (outputs.rtt_per_rtt;
// docs/metrics.md §12).
type PerRTTSample struct {
	Flow int      // flow (workload) index
	At   sim.Time // the ACK's arrival at the sender
	RTT  sim.Time
}

// RateChange is one pacing-rate or window change of a traced flow
// (rate_trace.csv).
type RateChange struct {
	Flow   int32    // flow (workload) index
	At     sim.Time // when the algorithm set the rate or window
	Bps    int64    // the pacing rate from then on, b/s
	Window int64    // the window from then on, bytes (0 = none)
}

// End is the run's end (SimEndNs), the time where its unfinished flows are
// censored (metrics.SummarizeFlows, docs/metrics.md §5).
func (r *Result) End() sim.Time {
	return sim.Time(math.Round(r.SimEndNs * float64(sim.Nanosecond)))
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
	// Decisions counts the algorithm's control decisions
	// (cc.DecisionCounter; 0 for an algorithm that does not count them).
	Decisions int64
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

// LossSummary totals the packets dropped in the network (switch
// admission, no route, lossy links), attributed to flows
// (docs/metrics.md §17; per flow in flow_losses.csv).
type LossSummary struct {
	DataPackets int64 `json:"data_packets"` // data packets dropped
	DataBytes   int64 `json:"data_bytes"`   // their payload (= bytes.dropped)
	CtrlPackets int64 `json:"ctrl_packets"` // ACKs, NACKs, CNPs and switch notices of flows dropped
	// Unattributed counts dropped packets of no flow (PFC frames lost on
	// lossy links).
	Unattributed int64 `json:"unattributed"`
	// FlowsWithLoss counts the flows that lost at least one data packet.
	FlowsWithLoss int `json:"flows_with_loss"`
	// FlowsAwaitingAck counts the flows unfinished at the run's end whose
	// receiver holds every byte: only the ACK of their last bytes is
	// missing — still on its way when the run stopped, or dropped, which
	// in a lossless fabric (no retransmission timeout) leaves the flow
	// unfinished for good (docs/metrics.md §17).
	FlowsAwaitingAck int `json:"flows_awaiting_ack,omitempty"`
}

// GoodputSummary totals the goodput (docs/metrics.md §18): payload
// delivered in order for the first time, each byte counted once.
type GoodputSummary struct {
	Bytes int64 `json:"bytes"`
	// DuplicateBytes is the payload that reached receivers but was not
	// new in-order data (retransmitted copies of delivered bytes,
	// out-of-order packets discarded by go-back-N).
	DuplicateBytes int64 `json:"duplicate_bytes"`
	// RetransmittedBytes is the payload senders sent more than once.
	RetransmittedBytes int64 `json:"retransmitted_bytes"`
	// Gbps is Bytes × 8 over the time from the first flow start to the
	// end of the run.
	Gbps float64 `json:"gbps"`
}

// FlowLoss is one row of flow_losses.csv: a flow's data-byte account,
// its drops and its goodput (docs/outputs.md §16).
type FlowLoss struct {
	ID            int
	SentBytes     int64 // payload sent, retransmissions included
	RxBytes       int64 // payload that reached the receiver, duplicates included
	InFlightBytes int64 // payload queued or on wires at the end
	DataDrops     int64 // data packets dropped
	DropBytes     int64 // their payload
	CtrlDrops     int64 // ACKs, NACKs, CNPs and notices of the flow dropped
	GoodputBytes  int64 // payload delivered in order for the first time
	// Duration is the goodput's time base: the FCT of a finished flow,
	// end − start of an unfinished one, 0 for a flow that never started.
	Duration sim.Time
}

// GoodputGbps is the flow's goodput rate, GoodputBytes × 8 / Duration
// (0 when Duration is 0).
func (f *FlowLoss) GoodputGbps() float64 {
	if f.Duration <= 0 {
		return 0
	}
	return float64(f.GoodputBytes) * 8 / f.Duration.Seconds() / 1e9
}
