package fabric

import (
	"errors"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// PFC headroom (HeadroomRTTs × one-way BDP per switch port) plus the
// reserves must fit in the buffer: with 10 ms links it cannot, and New says
// so with the numbers instead of running with a pause threshold of 0.
func TestNewRejectsHeadroomLargerThanBuffer(t *testing.T) {
	g := topo.Star(3, 100e9, 10*sim.Millisecond)
	cfg := DefaultConfig()
	_, err := New(g, cfg)
	var he *HeadroomError
	if !errors.As(err, &he) {
		t.Fatalf("New = %v, want a *HeadroomError", err)
	}
	// 3 ports × 3 × 100 Gb/s × 10 ms / 8 = 375 MB, reserves 3 × 4096 B
	if he.Node != 3 || he.Ports != 3 || he.HeadroomBytes != 3*375_000_000 || he.ReserveBytes != 3*4096 ||
		he.BufferBytes != 32<<20 || he.MaxDelay != 10*sim.Millisecond {
		t.Errorf("HeadroomError = %+v", he)
	}
	for _, want := range []string{"switch 3", "1125000000", "12288", "33554432", "10ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// fits: 1 µs links; and without PFC there is no headroom
	if _, err := New(topo.Star(3, 100e9, sim.Microsecond), cfg); err != nil {
		t.Errorf("1 µs links: %v", err)
	}
	cfg.PFC = PFCOff
	if _, err := New(g, cfg); err != nil {
		t.Errorf("PFC off: %v", err)
	}
}
