package fabric

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// Config.Routes is used when it was computed from the very graph New is
// given (the networks of one check share one table, issue 19 §2) and
// ignored otherwise.
func TestConfigRoutesShared(t *testing.T) {
	g := topo.Star(3, 100e9, sim.Microsecond)
	cfg := DefaultConfig()
	cfg.Routes = g.NextHops()
	n, err := New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n.routes != cfg.Routes {
		t.Error("the shared routing table of the same graph was not used")
	}
	other := topo.Star(3, 100e9, sim.Microsecond)
	n2, err := New(other, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n2.routes == cfg.Routes || n2.routes.Graph() != other {
		t.Error("another graph's routing table was used")
	}
}
