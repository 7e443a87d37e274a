package fabric_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// buildPreset is buildCC with the algorithm's reference presets applied as
// a scenario applies them: the NIC's ACK priority and the switch ECN rules.
func buildPreset(tb testing.TB, g *topo.Graph, cfg fabric.Config, flows []workload.Flow, algo string) *fabric.Network {
	tb.Helper()
	spec, err := cc.Lookup(algo)
	if err != nil {
		tb.Fatal(err)
	}
	_, req := spec.New(spec.Defaults())
	if req.AckPrio != 0 {
		cfg.AckHighPrio = req.AckPrio > 0
	}
	if req.ECN != nil {
		cfg.ECNRule = req.ECN
	}
	return buildCC(tb, g, cfg, flows, algo)
}

// E3 is paper 004's 80:1 incast: 80 senders on 100 Gb/s links and one
// receiver on a 25 Gb/s link (star, 1 µs links, 32 MiB buffer, dynamic PFC,
// payload 1000 B); flows 1 × 150 MB, 2 × 200 MB, 17 × 10 MB and 60 × 5 MB,
// each split evenly over 50 QPs: 4000 QPs, 1.02 M data packets, about
// 330 ms simulated.
const (
	e3Senders = 80
	e3QPs     = 50
)

func e3Flows() []workload.Flow {
	senders := make([]int, e3Senders)
	sizes := make([]int64, e3Senders)
	for i := range senders {
		senders[i] = i
		switch {
		case i == 0:
			sizes[i] = 150_000_000
		case i < 3:
			sizes[i] = 200_000_000
		case i < 20:
			sizes[i] = 10_000_000
		default:
			sizes[i] = 5_000_000
		}
	}
	return workload.IncastQPs(senders, e3Senders, sizes, e3QPs, 0, 3)
}

// buildE3 builds E3 under algo (reference presets), stopped at stop if > 0.
func buildE3(tb testing.TB, algo string, stop sim.Time) *fabric.Network {
	g := topo.Star(e3Senders+1, 100e9, sim.Microsecond)
	for i := range g.Links {
		if l := &g.Links[i]; l.A == e3Senders || l.B == e3Senders {
			l.Bps = 25e9
		}
	}
	n := buildPreset(tb, g, fabric.DefaultConfig(), e3Flows(), algo)
	if stop > 0 {
		n.SetStop(stop)
	}
	return n
}

// benchRun runs build() b.N times and reports events, data packets and the
// wall time per data packet put on a host wire.
func benchRun(b *testing.B, build func() *fabric.Network, check func(n *fabric.Network)) {
	var events, pkts int64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		n := build()
		b.StartTimer()
		n.Run()
		b.StopTimer()
		if check != nil {
			check(n)
		}
		b.StartTimer()
		events, pkts = n.Stats.Events, n.Stats.DataTxPackets
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(float64(pkts), "datapkts/op")
	b.ReportMetric(float64(events)*float64(b.N)/sec, "events/s")
	b.ReportMetric(sec*1e9/(float64(pkts)*float64(b.N)), "ns/datapkt")
}

func benchE3(b *testing.B, algo string, stop sim.Time) {
	benchRun(b, func() *fabric.Network { return buildE3(b, algo, stop) }, func(n *fabric.Network) {
		if stop == 0 && n.Stats.FlowsDone != e3Senders*e3QPs {
			b.Fatalf("%d of %d flows done", n.Stats.FlowsDone, e3Senders*e3QPs)
		}
	})
}

// BenchmarkE3*: the whole run (target: at most twice the wall time per data
// packet of BenchmarkIncast20x10MBDCQCN). go test ./fabric -run X -bench E3 -benchtime 1x
func BenchmarkE3DCQCN(b *testing.B)  { benchE3(b, "dcqcn", 0) }
func BenchmarkE3TIMELY(b *testing.B) { benchE3(b, "timely", 0) }
func BenchmarkE3DCTCP(b *testing.B)  { benchE3(b, "dctcp", 0) }
func BenchmarkE3DCQCNP(b *testing.B) { benchE3(b, "dcqcnp", 0) }

// BenchmarkE3Cut*: the first 30 ms of E3 (4000 QPs all active, PFC-bound).
func BenchmarkE3Cut30msDCQCN(b *testing.B)  { benchE3(b, "dcqcn", 30*sim.Millisecond) }
func BenchmarkE3Cut30msTIMELY(b *testing.B) { benchE3(b, "timely", 30*sim.Millisecond) }
func BenchmarkE3Cut30msDCTCP(b *testing.B)  { benchE3(b, "dctcp", 30*sim.Millisecond) }
func BenchmarkE3Cut30msDCQCNP(b *testing.B) { benchE3(b, "dcqcnp", 30*sim.Millisecond) }

// BenchmarkIncast20x10MBPreset*: the 20 × 10 MB incast of the other
// algorithms, with their reference presets, for the per-packet comparison.
func benchIncastPreset(b *testing.B, algo string) {
	benchRun(b, func() *fabric.Network {
		flows := make([]workload.Flow, 20)
		for i := range flows {
			flows[i] = workload.Flow{Src: i, Dst: 20, Prio: 3, SizeBytes: 10_000_000, Start: 2 * sim.Second}
		}
		return buildPreset(b, topo.Star(21, 100e9, sim.Microsecond), fabric.DefaultConfig(), flows, algo)
	}, func(n *fabric.Network) {
		if n.Stats.FlowsDone != 20 {
			b.Fatalf("%d flows done", n.Stats.FlowsDone)
		}
	})
}

func BenchmarkIncast20x10MBPresetDCQCN(b *testing.B)  { benchIncastPreset(b, "dcqcn") }
func BenchmarkIncast20x10MBPresetTIMELY(b *testing.B) { benchIncastPreset(b, "timely") }
func BenchmarkIncast20x10MBPresetDCTCP(b *testing.B)  { benchIncastPreset(b, "dctcp") }
func BenchmarkIncast20x10MBPresetDCQCNP(b *testing.B) { benchIncastPreset(b, "dcqcnp") }
