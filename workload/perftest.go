package workload

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/sim"
)

// PerftestParams configures Perftest, the perftest model W11 of paper 002's
// prototype experiments (docs/workloads.md §3).
type PerftestParams struct {
	// Senders are the hosts of the bandwidth flows (ib_write_bw clients),
	// all sending to Receiver; QPsPerSender flows each (perftest -q).
	Senders      []int
	Receiver     int
	QPsPerSender int
	// MsgSize is the bandwidth flows' message size (perftest -s) and
	// TxDepth the messages a QP keeps outstanding (perftest -t, default
	// 128): the flow's in-flight cap is TxDepth × MsgSize bytes.
	MsgSize int64
	TxDepth int
	// LineBps is the fastest sender's NIC rate: the bandwidth flows get
	// more data than that rate can send in Duration, so none completes
	// before the end of the test.
	LineBps int64

	// Probe adds the latency probe (ib_write_lat): messages of ProbeSize
	// bytes from ProbeSrc to ProbeDst on one QP, each posted ProbeGap
	// after the previous one completed, from Start + ProbeDelay until the
	// end of the test, or ProbeCount messages if positive.
	Probe              bool
	ProbeSrc, ProbeDst int
	ProbeSize          int64
	ProbeGap           sim.Time
	ProbeDelay         sim.Time
	ProbeCount         int64

	Start    sim.Time // start of the test (the bandwidth flows start here)
	Duration sim.Time // length of the test
	Prio     int      // priority class of the bandwidth flows, 0..7
	// ProbePrio is the priority class of the probe, 0..7.
	ProbePrio int
}

// BandwidthBytes is the size given to each bandwidth flow: the smallest
// whole number of messages above LineBps × Duration / 8 payload bytes,
// more than the sender can transmit in the test (headers take part of the
// line rate), so the flow is still sending when the test ends.
func (p PerftestParams) BandwidthBytes() (int64, error) {
	b := sim.BytesIn(p.Duration, p.LineBps)
	n := b/p.MsgSize + 1
	if n > math.MaxInt64/p.MsgSize {
		return 0, fmt.Errorf("workload: perftest: %d messages of %d B overflow a flow's size", n, p.MsgSize)
	}
	return n * p.MsgSize, nil
}

// Perftest generates the perftest model (docs/workloads.md §3): for every
// sender, QPsPerSender bandwidth flows to Receiver starting at Start, each
// with BandwidthBytes of data and an in-flight cap of TxDepth × MsgSize
// (GroupBandwidth; sender-major order); then, with Probe, the probe as one
// message chain (Flow.Messages) from ProbeSrc to ProbeDst starting at
// Start + ProbeDelay and posting no message at or after Start + Duration
// (GroupProbe). The flows are sorted by start time.
func Perftest(p PerftestParams) ([]Flow, error) {
	const name = "perftest"
	switch {
	case p.QPsPerSender < 1:
		return nil, fmt.Errorf("workload: %s: %d QPs per sender, want at least 1", name, p.QPsPerSender)
	case p.MsgSize <= 0:
		return nil, fmt.Errorf("workload: %s: message size %d is not positive", name, p.MsgSize)
	case p.TxDepth < 1:
		return nil, fmt.Errorf("workload: %s: tx depth %d, want at least 1", name, p.TxDepth)
	case int64(p.TxDepth) > math.MaxInt64/p.MsgSize:
		return nil, fmt.Errorf("workload: %s: tx depth %d × message size %d overflows", name, p.TxDepth, p.MsgSize)
	case p.LineBps <= 0:
		return nil, fmt.Errorf("workload: %s: line rate %d b/s is not positive", name, p.LineBps)
	case p.Receiver < 0 || p.Receiver > maxNodeID:
		return nil, fmt.Errorf("workload: %s: receiver %d not in [0, %d]", name, p.Receiver, maxNodeID)
	case slices.Contains(p.Senders, p.Receiver):
		return nil, fmt.Errorf("workload: %s: receiver %d is also a sender", name, p.Receiver)
	case float64(len(p.Senders))*float64(p.QPsPerSender) > maxGenFlows:
		return nil, fmt.Errorf("workload: %s: more than %d flows", name, maxGenFlows)
	}
	if err := checkHosts(name, "senders", p.Senders, 1); err != nil {
		return nil, err
	}
	if err := checkWindow(name, p.Start, p.Duration, p.Prio); err != nil {
		return nil, err
	}
	size, err := p.BandwidthBytes()
	if err != nil {
		return nil, err
	}
	flows := make([]Flow, 0, len(p.Senders)*p.QPsPerSender+1)
	for _, s := range p.Senders {
		for range p.QPsPerSender {
			flows = append(flows, Flow{Src: s, Dst: p.Receiver, Prio: p.Prio, SizeBytes: size, Start: p.Start,
				MaxInFlight: int64(p.TxDepth) * p.MsgSize, Group: GroupBandwidth})
		}
	}
	if p.Probe {
		switch {
		case p.ProbeSrc < 0 || p.ProbeDst < 0 || p.ProbeSrc > maxNodeID || p.ProbeDst > maxNodeID || p.ProbeSrc == p.ProbeDst:
			return nil, fmt.Errorf("workload: %s: invalid probe %d → %d", name, p.ProbeSrc, p.ProbeDst)
		case p.ProbeSize <= 0:
			return nil, fmt.Errorf("workload: %s: probe size %d is not positive", name, p.ProbeSize)
		case p.ProbeGap < 0:
			return nil, fmt.Errorf("workload: %s: probe gap %v is negative", name, p.ProbeGap)
		case p.ProbeCount < 0:
			return nil, fmt.Errorf("workload: %s: probe count %d is negative (0 = until the end of the test)", name, p.ProbeCount)
		case p.ProbeDelay < 0 || p.ProbeDelay >= p.Duration:
			return nil, fmt.Errorf("workload: %s: probe delay %v not in [0, duration %v)", name, p.ProbeDelay, p.Duration)
		case p.ProbePrio < 0 || p.ProbePrio > 7:
			return nil, fmt.Errorf("workload: %s: probe priority %d not in [0, 7]", name, p.ProbePrio)
		}
		count := p.ProbeCount
		if count == 0 {
			count = MessagesUnlimited
		}
		flows = append(flows, Flow{Src: p.ProbeSrc, Dst: p.ProbeDst, Prio: p.ProbePrio, SizeBytes: p.ProbeSize,
			Start: p.Start + p.ProbeDelay, Messages: count, Until: p.Start + p.Duration, Gap: p.ProbeGap, Group: GroupProbe})
	}
	slices.SortStableFunc(flows, func(x, y Flow) int { return cmpTime(x.Start, y.Start) })
	finishFlows(flows)
	return flows, nil
}
