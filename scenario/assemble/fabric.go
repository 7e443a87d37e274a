package assemble

import (
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
)

// FabricConfig translates the scenario's switch and host settings (the
// algorithm's preset completes them when a network is built).
func FabricConfig(s *scenario.Scenario) fabric.Config {
	c := fabric.DefaultConfig()
	sw, h := &s.Switch, &s.Host
	c.PayloadBytes = h.PayloadBytes
	c.BufferBytes = int64(sw.BufferMiB * (1 << 20))
	if sw.BufferMB != nil {
		c.BufferBytes = int64(math.Round(*sw.BufferMB * 1e6))
	}
	c.PFC = pfcMode(sw.PFC)
	c.PFCStaticBytes = int64(sw.PFCStaticKB * 1000)
	if sw.ReserveBytes != nil {
		c.ReserveBytes = *sw.ReserveBytes
	}
	if sw.ResumeOffsetBytes != nil {
		c.ResumeOffsetBytes = *sw.ResumeOffsetBytes
	}
	if sw.HeadroomRTTs != nil {
		c.HeadroomRTTs = *sw.HeadroomRTTs
	}
	if sw.ECN != nil {
		c.ECN = *sw.ECN
	}
	if len(sw.ECNRules) > 0 {
		c.ECNRule = ecnRules(sw.ECNRules)
	}
	c.Switches = overrides(s)
	c.RefECMP = sw.RefECMP
	c.SwitchCtrlHighPrio = sw.CtrlHighPrio
	if h.AckHighPrio != nil {
		c.AckHighPrio = *h.AckHighPrio
	}
	if h.CNPIntervalUs != nil {
		c.CNPInterval = scenario.UsTime(*h.CNPIntervalUs)
	}
	c.CNPAsPacket = h.CNPAsPacket
	c.AckDuplicates = h.AckDuplicates
	if h.NackIntervalUs != nil {
		c.NackInterval = scenario.UsTime(*h.NackIntervalUs)
	}
	// rto_us: absent = auto: off in lossless fabrics (as the reference),
	// 1 ms when PFC is off (at any switch) so that tail losses are
	// repaired; on long paths newNetwork raises it (longPathTimers, timers.go).
	if h.RTOUs != nil {
		c.RTO = scenario.UsTime(*h.RTOUs)
	} else if lossy(s) {
		c.RTO = sim.Millisecond
	}
	c.Seed = s.Seed
	return c
}

// pfcMode translates a switch.pfc value.
func pfcMode(v string) fabric.PFCMode {
	switch v {
	case "static":
		return fabric.PFCStatic
	case "off":
		return fabric.PFCOff
	}
	return fabric.PFCDynamic
}

// ecnRules translates ECN rules.
func ecnRules(rs []scenario.ECNRule) []fabric.ECNRule {
	var out []fabric.ECNRule
	for _, r := range rs {
		out = append(out, fabric.ECNRule{Bps: int64(r.LinkGbps * 1e9),
			KminBytes: int64(r.KminKB * 1000), KmaxBytes: int64(r.KmaxKB * 1000), Pmax: r.Pmax})
	}
	return out
}
