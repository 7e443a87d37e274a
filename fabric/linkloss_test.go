package fabric_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// TestLinkErrorRate: a long flow crosses a link with error rate 0.01 (from
// a reference topology file's fifth column) in both directions: data one
// way, ACKs the other. Each direction loses a binomial share of the packets
// that cross it (within 4σ of 1 %), the losses count as drops (data bytes
// among the dropped bytes, so sent = delivered + in flight + dropped), and
// go-back-N with the RTO still completes the flow.
func TestLinkErrorRate(t *testing.T) {
	const rate = 0.01
	// host 0 — switch 2 — host 1; the receiver's link is lossy
	g, err := topo.ReadNS3(strings.NewReader("3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0.01\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := fabric.DefaultConfig()
	cfg.RTO = 100 * sim.Microsecond
	flows := []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 20_000_000}}
	n := buildCC(t, g, cfg, flows, "dcqcn")
	n.Run()
	if n.Stats.FlowsDone != 1 {
		t.Fatalf("flow not done (SndUna %d of %d)", n.QPs[0].SndUna, n.QPs[0].SizeBytes)
	}
	// ports: host 0's 0, host 1's 1, switch 2's 2 (to host 0) and 3 (to host 1)
	sw := n.Nodes[2].FirstPort
	h1 := n.Nodes[1].FirstPort
	var losses int64
	for _, d := range []struct {
		name     string
		from, to int32
	}{{"switch→host 1 (data)", sw + 1, h1}, {"host 1→switch (ACKs)", h1, sw + 1}} {
		crossed := n.Ports[d.from].Stats.TxPackets
		lost := n.Ports[d.to].Stats.LinkLosses
		mean, sd := float64(crossed)*rate, math.Sqrt(float64(crossed)*rate*(1-rate))
		t.Logf("%s: %d of %d packets lost (expected %.0f ± %.1f)", d.name, lost, crossed, mean, sd)
		if crossed < 10000 || math.Abs(float64(lost)-mean) > 4*sd {
			t.Errorf("%s: %d of %d lost, outside %.0f ± 4·%.1f", d.name, lost, crossed, mean, sd)
		}
		losses += lost
	}
	for _, p := range []int32{n.Nodes[0].FirstPort, sw} {
		if l := n.Ports[p].Stats.LinkLosses; l != 0 {
			t.Errorf("port %d on a loss-free link lost %d packets", p, l)
		}
	}
	if n.Stats.LinkLosses != losses {
		t.Errorf("Stats.LinkLosses %d, ports %d", n.Stats.LinkLosses, losses)
	}
	if n.Stats.DataDropPackets == 0 || n.Stats.Retransmits == 0 {
		t.Errorf("data drops %d, retransmissions %d: want go-back-N at work", n.Stats.DataDropPackets, n.Stats.Retransmits)
	}
	_, inflight := n.DataInFlight()
	if s := n.Stats; s.DataTxBytes != s.DataRxBytes+inflight+s.DataDropBytes {
		t.Errorf("byte conservation: sent %d != delivered %d + in flight %d + dropped %d", s.DataTxBytes, s.DataRxBytes, inflight, s.DataDropBytes)
	}
	if drops := n.Ports[h1].Stats.Drops + n.Ports[sw+1].Stats.Drops; drops != losses {
		t.Errorf("port drops %d, want the %d link losses", drops, losses)
	}
}

// TestLinkErrorRateDeterministic: the losses follow named per-direction
// streams of the seed: the same seed gives the same run, another seed
// another one.
func TestLinkErrorRateDeterministic(t *testing.T) {
	run := func(seed uint64) (int64, sim.Time) {
		g, err := topo.ReadNS3(strings.NewReader("3 1 2\n2\n0 2 100Gbps 1000ns 0.001\n1 2 100Gbps 1000ns 0.002\n"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := fabric.DefaultConfig()
		cfg.RTO, cfg.Seed = 100*sim.Microsecond, seed
		n := buildCC(t, g, cfg, []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 5_000_000}}, "dcqcn")
		n.Run()
		if n.Stats.FlowsDone != 1 {
			t.Fatal("flow not done")
		}
		return n.Stats.LinkLosses, n.QPs[0].Finish
	}
	l1, f1 := run(1)
	l1b, f1b := run(1)
	l2, f2 := run(2)
	if l1 != l1b || f1 != f1b {
		t.Errorf("seed 1 twice: %d losses at %v, then %d at %v", l1, f1, l1b, f1b)
	}
	if l1 == 0 || l1 == l2 && f1 == f2 {
		t.Errorf("seed 1: %d losses, finish %v; seed 2: %d, %v", l1, f1, l2, f2)
	}
}
