package cc

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
)

func TestUnits(t *testing.T) {
	if got := usToTime(1.5); got != 1500*sim.Nanosecond {
		t.Errorf("usToTime(1.5) = %v", got)
	}
	if got := usToTime(1e-7); got != 0 { // 0.1 ps rounds to 0
		t.Errorf("usToTime(1e-7) = %v", got)
	}
	if got := mbpsToBps(40.5); got != 40_500_000 {
		t.Errorf("mbpsToBps(40.5) = %d", got)
	}
	if now := 1000 * sim.Second; now-longAgo <= 0 || longAgo >= 0 {
		t.Errorf("longAgo %v is not far in the past", longAgo)
	}
	if e := rangeErr("x", 3, "0", "1").Error(); e != "x = 3 out of range [0, 1]" {
		t.Errorf("rangeErr: %q", e)
	}
	if e := rangeErrS("m", "y", "a, b").Error(); e != `m = "y": allowed values a, b` {
		t.Errorf("rangeErrS: %q", e)
	}
}
