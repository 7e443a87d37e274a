package assemble

import (
	"fmt"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// lossy reports whether some switch drops on overflow (switch.pfc off, or
// an override's pfc off).
func lossy(s *scenario.Scenario) bool {
	if s.Switch.PFC == "off" {
		return true
	}
	for _, o := range s.Switch.Overrides {
		if o.PFC != nil && *o.PFC == "off" {
			return true
		}
	}
	return false
}

// Loss recovery on long paths. The fabric's defaults (the reference
// simulator's) suit intra-DC RTTs of microseconds: NACKs of the same gap
// at most every 500 µs, and (lossy fabrics) a 1 ms retransmission timeout.
// On a path with a base RTT of milliseconds (cross_dc: 2.016 ms, two_site:
// 6.4 ms) a 1 ms timeout fires before the first ACK can return, rewinding
// every flow, and a 500 µs NACK interval repeats a NACK (and its
// go-back-N rewind) a dozen times per loss. So when host.rto_us or
// host.nack_interval_us is absent they scale with the topology's largest
// base RTT (topo.Graph.MaxRTT):
//
//	rto           = max(1 ms,   3 × max RTT)   (lossy fabrics only; 0 = off otherwise)
//	nack_interval = max(500 µs, 2 × max RTT)
//
// which leaves intra-DC topologies (max RTT < 166 µs) at the reference's
// values (docs/reference-simulator.md, D6). An explicit rto_us at or below
// the largest base RTT of a lossy fabric is an error.
const (
	rtoRTTs  = 3
	nackRTTs = 2
)

// longPathTimers applies the RTT-scaled defaults to cfg for graph g.
func longPathTimers(s *scenario.Scenario, cfg *fabric.Config, g *topo.Graph) error {
	maxRTT, _ := g.MaxRTT(cfg.PayloadBytes)
	if s.Host.NackIntervalUs == nil {
		cfg.NackInterval = max(cfg.NackInterval, nackRTTs*maxRTT)
	}
	if !lossy(s) {
		return nil
	}
	if s.Host.RTOUs == nil {
		cfg.RTO = max(cfg.RTO, rtoRTTs*maxRTT)
		return nil
	}
	if cfg.RTO > 0 && cfg.RTO <= maxRTT {
		return fmt.Errorf("host.rto_us = %v is at most the topology's largest base RTT (%.1f µs): with PFC off every flow would time out before its first ACK returns; raise it (absent = max(1000, %d × max RTT) = %.0f µs) or set 0 to disable the timeout",
			*s.Host.RTOUs, maxRTT.Microseconds(), rtoRTTs, max(sim.Millisecond, rtoRTTs*maxRTT).Microseconds())
	}
	return nil
}
