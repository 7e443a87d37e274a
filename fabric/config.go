package fabric

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
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
	// notifications of a flow (the notification point's CNP timer of the
	// reference's dcqcn preset); 0 = one per marked packet.
	CNPInterval sim.Time
	// CNPAsPacket sends a separate CNP packet instead of flagging the ACK.
	CNPAsPacket bool
	// AckDuplicates makes the receiver answer a duplicate data packet
	// (one whose bytes it already holds) with a cumulative ACK, as an RC
	// responder does. The reference's receiver discards duplicates
	// silently (the default), so a flow whose last ACK is dropped never
	// finishes, even with a retransmission timeout: the resent packet is a
	// duplicate and draws no ACK (docs/metrics.md §17).
	AckDuplicates bool
	// NackInterval suppresses repeated NACKs for the same expected sequence.
	NackInterval sim.Time
	// RTO is the sender's retransmission timeout (go-back-N from the oldest
	// unacknowledged byte when no ACK progress for RTO); 0 disables it.
	RTO sim.Time

	// INT stamps telemetry records (IntHop, the reference's HPCC INT
	// format) at switch egress for data packets.
	INT bool

	// Switches overrides the switch settings above (buffer, PFC, headroom,
	// ECN) at some switches, e.g. the DCI switches of a cross-datacenter
	// fabric (paper 002: 250 MB buffers with static PFC thresholds beside
	// 16 MB intra-DC switches with dynamic ones). New resolves them once
	// into per-switch and per-port fields; later entries win over earlier
	// ones, field by field. The fields above stay the defaults.
	Switches []SwitchOverride

	// RefECMP uses the reference simulator's ECMP: Murmur3 over
	// (sip, dip, ports) seeded with the switch id. Otherwise a cheap per-flow
	// hash mixed with the switch id is used.
	RefECMP bool

	Seed uint64

	// Routes, if set, are the routing tables of the graph New is given
	// (topo.Graph.NextHops of that very graph, which New checks), computed
	// once and shared by the networks built on one graph: they are read
	// only. nil: New computes them.
	Routes *topo.Routes
}

// SwitchOverride sets some switch settings at a set of switches: the
// switch node ids in Nodes plus every switch whose topology role
// (topo.Graph.Roles) is Role. A nil (or empty, for ECNRule) field leaves the
// setting as the fabric-wide value or an earlier override made it.
type SwitchOverride struct {
	Nodes []int  // switch node ids
	Role  string // every switch with this role ("" = none)

	BufferBytes    *int64   // shared buffer, in [65536, 2^50]
	PFC            *PFCMode // dynamic, static or off
	PFCStaticBytes *int64   // static pause threshold, in [1, 2^50]
	// HeadroomRTTs sets the per-port headroom to HeadroomRTTs × one-way
	// BDP of each port's link (as Config.HeadroomRTTs), in [0, 1000]; it
	// clears an explicit HeadroomBytes of an earlier override.
	HeadroomRTTs *int64
	// HeadroomBytes sets an explicit PFC headroom per port, the same on
	// every port of the switch, in [0, 2^50]; it takes precedence over
	// HeadroomRTTs given in the same override.
	HeadroomBytes *int64
	// HeadroomExtraBytes is added to every port's HeadroomRTTs-scaled
	// headroom, in [0, 2^50]: the allowance for the packets in service at
	// both ends of the link when the pause is sent and when it arrives
	// (IEEE 802.1Qbb budgets 2 × BDP plus about 2 MTU and the response
	// time; the reference's 3 × one-way BDP covers that on µs links, 2 ×
	// does not). About 3 wire packets + a PFC frame suffice: 3 × 1048 + 43
	// B with the default payload. It does not apply to HeadroomBytes.
	HeadroomExtraBytes *int64
	ECN                *bool     // RED/ECN marking at egress
	ECNRule            []ECNRule // RED rules of this switch's ports (nil = unchanged)
}

// maxOverrideBytes bounds the byte fields of a SwitchOverride (1 PiB).
const maxOverrideBytes = int64(1) << 50

// validate checks one override (its node ids are checked against the
// graph by New).
func (o *SwitchOverride) validate() error {
	switch {
	case len(o.Nodes) == 0 && o.Role == "":
		return fmt.Errorf("selects no switch: give nodes and/or role")
	case o.BufferBytes != nil && (*o.BufferBytes < 64<<10 || *o.BufferBytes > maxOverrideBytes):
		return fmt.Errorf("buffer %d B out of range [65536, %d]", *o.BufferBytes, maxOverrideBytes)
	case o.PFC != nil && *o.PFC > PFCOff:
		return fmt.Errorf("pfc mode %d unknown", *o.PFC)
	case o.PFCStaticBytes != nil && (*o.PFCStaticBytes < 1 || *o.PFCStaticBytes > maxOverrideBytes):
		return fmt.Errorf("pfc static threshold %d B out of range [1, %d]", *o.PFCStaticBytes, maxOverrideBytes)
	case o.HeadroomRTTs != nil && (*o.HeadroomRTTs < 0 || *o.HeadroomRTTs > 1000):
		return fmt.Errorf("headroom_rtts %d out of range [0, 1000]", *o.HeadroomRTTs)
	case o.HeadroomBytes != nil && (*o.HeadroomBytes < 0 || *o.HeadroomBytes > maxOverrideBytes):
		return fmt.Errorf("headroom %d B out of range [0, %d]", *o.HeadroomBytes, maxOverrideBytes)
	case o.HeadroomExtraBytes != nil && (*o.HeadroomExtraBytes < 0 || *o.HeadroomExtraBytes > maxOverrideBytes):
		return fmt.Errorf("headroom extra %d B out of range [0, %d]", *o.HeadroomExtraBytes, maxOverrideBytes)
	}
	for _, id := range o.Nodes {
		if id < 0 {
			return fmt.Errorf("node %d out of range", id)
		}
	}
	return validateECN(o.ECNRule)
}

// switchSettings are the resolved settings of one switch.
type switchSettings struct {
	bufferBytes    int64
	pfc            PFCMode
	pfcStaticBytes int64
	headroomRTTs   int64
	headroomExtra  int64 // added to the RTT-scaled headroom
	headroomBytes  int64 // explicit per-port headroom when headroomSet
	headroomSet    bool
	ecn            bool
	ecnRule        []ECNRule
}

// switchDefaults are the fabric-wide switch settings.
func (c *Config) switchDefaults() switchSettings {
	return switchSettings{bufferBytes: c.BufferBytes, pfc: c.PFC, pfcStaticBytes: c.PFCStaticBytes,
		headroomRTTs: c.HeadroomRTTs, ecn: c.ECN, ecnRule: c.ECNRule}
}

// apply applies override o to s.
func (s *switchSettings) apply(o *SwitchOverride) {
	if o.BufferBytes != nil {
		s.bufferBytes = *o.BufferBytes
	}
	if o.PFC != nil {
		s.pfc = *o.PFC
	}
	if o.PFCStaticBytes != nil {
		s.pfcStaticBytes = *o.PFCStaticBytes
	}
	if o.HeadroomRTTs != nil {
		s.headroomRTTs, s.headroomSet = *o.HeadroomRTTs, false
	}
	if o.HeadroomBytes != nil {
		s.headroomBytes, s.headroomSet = *o.HeadroomBytes, true
	}
	if o.HeadroomExtraBytes != nil {
		s.headroomExtra = *o.HeadroomExtraBytes
	}
	if o.ECN != nil {
		s.ecn = *o.ECN
	}
	if len(o.ECNRule) > 0 {
		s.ecnRule = o.ECNRule
	}
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
	if err := validateECN(c.ECNRule); err != nil {
		return err
	}
	for i := range c.Switches {
		if err := c.Switches[i].validate(); err != nil {
			return fmt.Errorf("switch override %d: %w", i, err)
		}
	}
	return nil
}

func validateECN(rules []ECNRule) error {
	for _, r := range rules {
		if r.KminBytes < 0 || r.KmaxBytes < r.KminBytes || r.Pmax < 0 || r.Pmax > 1 {
			return fmt.Errorf("ecn rule for %d b/s: need 0 <= kmin <= kmax and pmax in [0, 1]", r.Bps)
		}
	}
	return nil
}

// ecnFor returns the rule of rules for a port speed: the exact match, or
// the rule of the nearest speed scaled linearly (thresholds scale with
// bandwidth).
func ecnFor(rules []ECNRule, bps int64) ECNRule {
	var best ECNRule
	found := false
	for _, r := range rules {
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
