package cc_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// wrccNet builds a WRCC network as a scenario does (requirements, flows,
// one switch feature per switch, the feature period, the senders) and
// returns it with the switch features by node id (nil for hosts).
func wrccNet(tb testing.TB, g *topo.Graph, cfg fabric.Config, flows []workload.Flow, p *cc.WRCCParams) (*fabric.Network, []*cc.WRCCSwitch) {
	tb.Helper()
	if err := p.Validate(); err != nil {
		tb.Fatal(err)
	}
	n, err := fabric.New(g, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	spec, err := cc.Lookup("wrcc")
	if err != nil {
		tb.Fatal(err)
	}
	ctor, req := spec.New(p)
	n.SetRequirements(req)
	if err := n.AddFlows(flows, nil); err != nil {
		tb.Fatal(err)
	}
	mk, period := spec.Switch(p)
	sws := make([]*cc.WRCCSwitch, len(n.Nodes))
	for i := range n.Nodes {
		if n.Nodes[i].Switch {
			f := mk(n.SwitchView(i))
			sws[i] = f.(*cc.WRCCSwitch)
			n.AddFeature(i, f)
		}
	}
	n.SetFeaturePeriod(period)
	n.SetAlgorithm(ctor)
	return n, sws
}
