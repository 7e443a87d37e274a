package fabric

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
)

// PFCMode selects how a switch decides to pause an upstream sender.
type PFCMode uint8

const (
	// PFCDynamic pauses an ingress (port, class) when its shared-buffer use
	// reaches (free shared buffer) >> shift, the reference simulator's rule
	// (docs/reference-simulator.md §7.3–7.5). Lossless.
	PFCDynamic PFCMode = iota
	// PFCStatic pauses at a fixed per-(port, class) shared-buffer threshold.
	PFCStatic
	// PFCOff disables PFC: the switch is lossy and drops packets that the
	// dynamic shared-buffer threshold refuses (drop-tail).
	PFCOff
)

func (m PFCMode) String() string {
	switch m {
	case PFCDynamic:
		return "dynamic"
	case PFCStatic:
		return "static"
	case PFCOff:
		return "off"
	}
	return "pfc?"
}

// ECNRule holds the RED marking thresholds for egress ports of one speed.
type ECNRule struct {
	Bps       int64   // port speed this rule applies to
	KminBytes int64   // no marking at or below
	KmaxBytes int64   // marking with probability 1 above
	Pmax      float64 // marking probability at Kmax
}

// Config holds the fabric-wide settings. Defaults (DefaultConfig) are the
// reference simulator's `dcqcn` preset at 100 Gb/s
// (docs/reference-simulator.md §12).
type Config struct {
	PayloadBytes int // payload per data packet (MTU), bytes

	BufferBytes       int64 // shared buffer per switch
	ReserveBytes      int64 // guaranteed bytes per (ingress port, class)
	ResumeOffsetBytes int64 // PFC resume hysteresis below the threshold
	PFC               PFCMode
	// PFCStaticBytes is the pause threshold on an ingress queue's shared use
	// with PFCStatic.
	PFCStaticBytes int64
	// HeadroomRTTs scales per-port PFC headroom: headroom = HeadroomRTTs ×
	// (one-way bandwidth-delay product of the port's link). The reference
	// uses 3.
	HeadroomRTTs int64

	ECN     bool      // RED/ECN marking at switch egress
	ECNRule []ECNRule // one per port speed; a port uses the rule of its speed

	// AckHighPrio sends host-generated ACK/NACK/CNP in class 0 at the NIC
	// (never paused). Switches still queue them in the flow's class, as the
	// reference does.
	AckHighPrio bool
	// SwitchCtrlHighPrio queues ACK/NACK in the strict-priority class 0 at
	// switches (bypassing the shared buffer and PFC). Off by default: the
	// reference simulator queues ACKs with the flow's data class.
	SwitchCtrlHighPrio bool
	// CNPInterval is the receiver's minimum time between two congestion
	// notifications of a flow (DCQCN NP timer); 0 = one per marked packet.
	CNPInterval sim.Time
	// CNPAsPacket sends a separate CNP packet instead of flagging the ACK.
	CNPAsPacket bool
	// NackInterval suppresses repeated NACKs for the same expected sequence.
	NackInterval sim.Time
	// RTO is the sender's retransmission timeout (go-back-N from the oldest
	// unacknowledged byte when no ACK progress for RTO); 0 disables it.
	RTO sim.Time

	// INT stamps HPCC telemetry records at switch egress for data packets.
	INT bool

	// RefECMP uses the reference simulator's ECMP: Murmur3 over
	// (sip, dip, ports) seeded with the switch id. Otherwise a cheap per-flow
	// hash mixed with the switch id is used.
	RefECMP bool

	Seed uint64
}

// DefaultConfig returns the reference `dcqcn` preset settings at 100 Gb/s.
func DefaultConfig() Config {
	return Config{
		PayloadBytes:      1000,
		BufferBytes:       32 << 20,
		ReserveBytes:      4096,
		ResumeOffsetBytes: 3072,
		PFC:               PFCDynamic,
		PFCStaticBytes:    512 << 10,
		HeadroomRTTs:      3,
		ECN:               true,
		ECNRule: []ECNRule{
			{Bps: 100e9, KminBytes: 400_000, KmaxBytes: 1_600_000, Pmax: 0.2},
			{Bps: 400e9, KminBytes: 1_600_000, KmaxBytes: 6_400_000, Pmax: 0.2},
		},
		AckHighPrio:  true,
		NackInterval: 500 * sim.Microsecond,
		Seed:         1,
	}
}

// Validate checks the configuration and names the first bad field.
func (c *Config) Validate() error {
	switch {
	case c.PayloadBytes < 64 || c.PayloadBytes > 9000:
		return fmt.Errorf("payload_bytes %d out of range [64, 9000]", c.PayloadBytes)
	case c.BufferBytes < 64<<10:
		return fmt.Errorf("buffer %d B out of range [65536, ∞)", c.BufferBytes)
	case c.ReserveBytes < 0:
		return fmt.Errorf("reserve %d B must be >= 0", c.ReserveBytes)
	case c.PFC > PFCOff:
		return fmt.Errorf("pfc mode %d unknown", c.PFC)
	}
	for _, r := range c.ECNRule {
		if r.KminBytes < 0 || r.KmaxBytes < r.KminBytes || r.Pmax < 0 || r.Pmax > 1 {
			return fmt.Errorf("ecn rule for %d b/s: need 0 <= kmin <= kmax and pmax in [0, 1]", r.Bps)
		}
	}
	return nil
}

// ecnFor returns the rule for a port speed: the exact match, or the rule of
// the nearest speed scaled linearly (thresholds scale with bandwidth).
func (c *Config) ecnFor(bps int64) ECNRule {
	var best ECNRule
	found := false
	for _, r := range c.ECNRule {
		if r.Bps == bps {
			return r
		}
		if !found || absDiff(r.Bps, bps) < absDiff(best.Bps, bps) {
			best, found = r, true
		}
	}
	if !found {
		return ECNRule{Bps: bps, KminBytes: 1 << 62, KmaxBytes: 1 << 62}
	}
	f := float64(bps) / float64(best.Bps)
	return ECNRule{Bps: bps, KminBytes: int64(float64(best.KminBytes) * f), KmaxBytes: int64(float64(best.KmaxBytes) * f), Pmax: best.Pmax}
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}
