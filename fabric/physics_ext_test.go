package fabric_test

// Physics tests that need a real congestion-control algorithm (package cc
// imports fabric, so they live in the external test package).

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// buildCC builds a network on g with cfg and flows under the registered
// algorithm algo with its default parameters.
func buildCC(tb testing.TB, g *topo.Graph, cfg fabric.Config, flows []workload.Flow, algo string) *fabric.Network {
	tb.Helper()
	n, err := fabric.New(g, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	spec, err := cc.Lookup(algo)
	if err != nil {
		tb.Fatal(err)
	}
	ctor, req := spec.New(spec.Defaults())
	n.SetRequirements(req)
	if err := n.AddFlows(flows, nil); err != nil {
		tb.Fatal(err)
	}
	n.SetAlgorithm(ctor)
	return n
}

// jain is Jain's fairness index (Σx)² / (n·Σx²).
func jain(x []float64) float64 {
	var s, s2 float64
	for _, v := range x {
		s += v
		s2 += v * v
	}
	if s2 == 0 {
		return 0
	}
	return s * s / (float64(len(x)) * s2)
}

// TestDCQCNFairness: four long DCQCN flows from four hosts into one
// receiver, started 100 µs apart so the late ones must claw back bandwidth.
// Over the second half of the interval in which all four are active, the
// bytes each delivers (from SndUna samples every 10 µs) must have a Jain
// index ≥ 0.99, and together they must keep the bottleneck ≥ 90 % busy.
func TestDCQCNFairness(t *testing.T) {
	const k = 4
	g := topo.Star(k+1, 100e9, sim.Microsecond)
	flows := make([]workload.Flow, k)
	for i := range flows {
		flows[i] = workload.Flow{Src: i, Dst: k, Prio: 3, SizeBytes: 30_000_000, Start: sim.Time(i) * 100 * sim.Microsecond}
	}
	n := buildCC(t, g, fabric.DefaultConfig(), flows, "dcqcn")
	type sample struct {
		at  sim.Time
		una [k]int64
	}
	var samples []sample
	n.Monitor(10*sim.Microsecond, func(n *fabric.Network, now sim.Time) {
		var s sample
		s.at = now
		for i := range k {
			s.una[i] = n.QPs[i].SndUna
		}
		samples = append(samples, s)
	})
	n.Run()
	if n.Stats.FlowsDone != k {
		t.Fatalf("%d of %d flows done", n.Stats.FlowsDone, k)
	}
	from := flows[k-1].Start
	to := sim.Never
	for i := range n.QPs {
		to = min(to, n.QPs[i].Finish)
	}
	if to-from < sim.Millisecond {
		t.Fatalf("flows overlap only %v; make them longer", to-from)
	}
	mid := from + (to-from)/2
	// first and last sample inside [mid, to]
	var a, b *sample
	for i := range samples {
		s := &samples[i]
		if s.at >= mid && a == nil {
			a = s
		}
		if s.at <= to {
			b = s
		}
	}
	if a == nil || b == nil || b.at-a.at < 100*sim.Microsecond {
		t.Fatalf("not enough samples in [%v, %v]", mid, to)
	}
	x := make([]float64, k)
	var sum float64
	for i := range k {
		x[i] = float64(b.una[i] - a.una[i])
		sum += x[i]
	}
	j := jain(x)
	util := sum * 8 / (b.at - a.at).Seconds() / 100e9
	t.Logf("all active %v–%v; window %v–%v: bytes %v, Jain %.5f, bottleneck payload utilisation %.3f",
		from, to, a.at, b.at, x, j, util)
	if j < 0.99 {
		t.Errorf("Jain index %.4f < 0.99 over %v–%v (bytes %v)", j, a.at, b.at, x)
	}
	// payload share of the line is 1000/1048 = 0.954
	if util < 0.9*1000/1048 {
		t.Errorf("bottleneck payload utilisation %.3f < 0.9 × 1000/1048", util)
	}
}

// TestDeterminism: the same configuration and seed give identical finish
// times, network statistics and per-port counters; another seed changes the
// RED draws and therefore DCQCN's trajectory.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) *fabric.Network {
		cfg := fabric.DefaultConfig()
		cfg.Seed = seed
		g := topo.Star(9, 100e9, sim.Microsecond)
		flows := make([]workload.Flow, 8)
		for i := range flows {
			flows[i] = workload.Flow{Src: i, Dst: 8, Prio: 3, SizeBytes: 1_000_000, Start: sim.Time(i) * 3 * sim.Microsecond}
		}
		n := buildCC(t, g, cfg, flows, "dcqcn")
		n.Run()
		if n.Stats.FlowsDone != len(flows) {
			t.Fatalf("seed %d: %d of %d flows done", seed, n.Stats.FlowsDone, len(flows))
		}
		return n
	}
	same := func(a, b *fabric.Network) bool {
		if a.Stats != b.Stats {
			return false
		}
		for i := range a.QPs {
			if a.QPs[i].Finish != b.QPs[i].Finish || a.QPs[i].CNPs != b.QPs[i].CNPs || a.QPs[i].RateBps != b.QPs[i].RateBps {
				return false
			}
		}
		for i := range a.Ports {
			if a.Ports[i].Stats != b.Ports[i].Stats {
				return false
			}
		}
		return true
	}
	a, b := run(7), run(7)
	if !same(a, b) {
		t.Errorf("two runs with seed 7 differ: stats %+v vs %+v", a.Stats, b.Stats)
		for i := range a.QPs {
			if a.QPs[i].Finish != b.QPs[i].Finish {
				t.Errorf("flow %d: finish %v vs %v", i, a.QPs[i].Finish, b.QPs[i].Finish)
			}
		}
	}
	if a.Stats.CNPs == 0 {
		t.Fatalf("no CNPs: the scenario does not exercise the RED random draws")
	}
	c := run(8)
	if same(a, c) {
		t.Errorf("seeds 7 and 8 give identical runs: the seed does not reach the RED draws")
	}
}
