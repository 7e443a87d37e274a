package cc_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// buildIncastCC builds the reference 20-to-1 incast (100 Gb/s, 1 µs, 32
// MiB, dynamic PFC) with flows of size bytes and algorithm algo, with its
// switch features attached as a scenario attaches them.
func buildIncastCC(tb testing.TB, size int64, algo string) *fabric.Network {
	tb.Helper()
	flows := make([]workload.Flow, 20)
	for i := range flows {
		flows[i] = workload.Flow{Src: i, Dst: 20, Prio: 3, SizeBytes: size, Start: 2 * sim.Second}
	}
	n, err := fabric.New(topo.Star(21, 100e9, sim.Microsecond), fabric.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	spec, err := cc.Lookup(algo)
	if err != nil {
		tb.Fatal(err)
	}
	p := spec.Defaults()
	ctor, req := spec.New(p)
	n.SetRequirements(req)
	if err := n.AddFlows(flows, nil); err != nil {
		tb.Fatal(err)
	}
	if spec.Switch != nil {
		mk, period := spec.Switch(p)
		n.AddFeature(20+1, mk(n.SwitchView(21)))
		n.SetFeaturePeriod(period)
	}
	n.SetAlgorithm(ctor)
	return n
}

func benchIncastCC(b *testing.B, size int64, algo string) {
	var events, pkts int64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		n := buildIncastCC(b, size, algo)
		n.Run()
		if n.Stats.FlowsDone != 20 {
			b.Fatalf("%d flows done", n.Stats.FlowsDone)
		}
		events, pkts = n.Stats.Events, n.Stats.DataTxPackets
	}
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/(float64(pkts)*float64(b.N)), "ns/datapkt")
}

// The hot-path cost of WRCC against DCQCN on the 20:1 incast of 20 × 10
// MB (go test ./cc -run X -bench Incast20x10MB -benchmem; the flows start
// at 2 s, so WRCC's switch also ticks every 24 µs for 2 s before).
func BenchmarkIncast20x10MBWRCC(b *testing.B)  { benchIncastCC(b, 10_000_000, "wrcc") }
func BenchmarkIncast20x10MBDCQCN(b *testing.B) { benchIncastCC(b, 10_000_000, "dcqcn") }

// WRCC allocates per run and per flow, not per packet: a 10× larger
// transfer allocates no more objects.
func TestWRCCSteadyStateAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	count := func(size int64) float64 {
		return testing.AllocsPerRun(1, func() {
			n := buildIncastCC(t, size, "wrcc")
			n.Run()
		})
	}
	small, large := count(1_000_000), count(10_000_000)
	t.Logf("allocations: %v for 20 × 1 MB, %v for 20 × 10 MB", small, large)
	if large > small*1.1+50 {
		t.Fatalf("allocations grow with packets: %v for 20×1 MB, %v for 20×10 MB", small, large)
	}
}

// WRCC on paper 002's cross-DC Google RPC workload, scaled to 0.3 ms of
// arrivals (≈ 50,000 flows; the paper-scale runs have 3.3 M): most of
// its events are STimer expiries of flows at the line rate, which the
// fabric handles as idle timers (docs/fabric.md §4). NeverIdle makes
// every expiry call OnTimer, the cost before idle timers:
// go test ./cc -run X -bench CrossDCGoogleRPC -benchmem -count 5.
func BenchmarkWRCCCrossDCGoogleRPC(b *testing.B)          { benchCrossDC(b, false) }
func BenchmarkWRCCCrossDCGoogleRPCNeverIdle(b *testing.B) { benchCrossDC(b, true) }

func benchCrossDC(b *testing.B, never bool) {
	src := `
name: wrcc-bench-crossdc
stop_ms: 4
cc: [wrcc]
topology: {kind: cross_dc, link_gbps: 100, link_delay_ns: 1000, cross_dc: {long_haul_gbps: 400, long_haul_delay_ns: 1000000}}
switch: {buffer_mb: 16, pfc: dynamic, overrides: [{role: dci, buffer_mb: 250, pfc: static, pfc_static_mb: 100, headroom_rtts: 2}]}
workload:
  cross_dc: {cdf: googlerpc, load: 0.6625, cross_to_intra: 5, incast_share: 0.0943, incast_fanin: 4, duration_ms: 0.3}
`
	cc.SetWRCCTimersNeverIdle(never)
	defer cc.SetWRCCTimersNeverIdle(false)
	var events int64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bt := buildWRCCScenario(b, src)
		b.StartTimer()
		bt.Net.Run()
		events = bt.Net.Stats.Events
	}
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
