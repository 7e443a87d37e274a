package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// bruteLatency is the reference: the canonical percentile of the samples
// truncated to whole ns, from a sorted copy.
func bruteLatency(xs []sim.Time, p float64) int64 {
	s := make([]int64, len(xs))
	for i, x := range xs {
		s[i] = int64(max(x, 0) / sim.Nanosecond)
	}
	slices.Sort(s)
	return s[PercentileIndex(len(s), p)]
}

// TestLatencyHistMatchesSort compares every percentile with a sort of all
// samples, on distributions that cross pages, leave gaps and have rare
// huge values.
func TestLatencyHistMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	gens := map[string]func() sim.Time{
		"narrow": func() sim.Time { return 2*sim.Microsecond + sim.Time(r.IntN(5000)) },
		"wide":   func() sim.Time { return sim.Time(r.Int64N(int64(3 * sim.Millisecond))) },
		"tail": func() sim.Time {
			if r.IntN(1000) == 0 {
				return 10*sim.Millisecond + sim.Time(r.Int64N(int64(sim.Second)))
			}
			return 3*sim.Microsecond + sim.Time(r.IntN(200_000))
		},
		"ties": func() sim.Time { return sim.Time(r.IntN(3)) * 4096 * sim.Nanosecond },
	}
	for _, name := range []string{"narrow", "wide", "tail", "ties"} {
		gen := gens[name]
		for _, n := range []int{1, 2, 99, 100, 1000, 20_001} {
			var h LatencyHist
			xs := make([]sim.Time, n)
			var sum int64
			for i := range xs {
				xs[i] = gen()
				sum += int64(xs[i])
				h.Add(xs[i])
			}
			for _, p := range []float64{0, 0.001, 0.5, 0.9, 0.99, 0.999, 0.9999, 1} {
				if got, want := h.PercentileNs(p), bruteLatency(xs, p); got != want {
					t.Fatalf("%s n=%d p=%v: %d ns, sort says %d ns", name, n, p, got, want)
				}
			}
			if h.Count() != int64(n) || h.Min() != slices.Min(xs) || h.Max() != slices.Max(xs) {
				t.Fatalf("%s n=%d: count %d min %v max %v", name, n, h.Count(), h.Min(), h.Max())
			}
			if s, ok := h.SumPs(); !ok || s != sum {
				t.Fatalf("%s n=%d: sum %d (%v), want %d", name, n, s, ok, sum)
			}
			if m := h.Mean(); math.Abs(m-float64(sum)/float64(n)) > 1e-9*m {
				t.Fatalf("%s n=%d: mean %v", name, n, m)
			}
		}
	}
}

// TestLatencyHistEdges: empty, negative and sub-ns samples, the summary's
// fields, Reset.
func TestLatencyHistEdges(t *testing.T) {
	var h LatencyHist
	if h.PercentileNs(0.5) != -1 || h.Summary() != (PacketLatency{}) {
		t.Fatal("empty histogram")
	}
	h.Add(-5)
	h.Add(999)                       // 0.999 ns → bucket 0
	h.Add(1500)                      // 1.5 ns → 1
	h.Add(4096*sim.Nanosecond + 700) // first ns of the second page
	s := h.Summary()
	want := PacketLatency{Packets: 4, MeanNs: 4099199.0 / 4 / 1000, MinNs: 0, P50Ns: 1, P99Ns: 4096, P999Ns: 4096, MaxNs: 4096.7}
	if s != want {
		t.Fatalf("summary %+v, want %+v", s, want)
	}
	// a sum that may pass 2⁶³ ps: the mean falls back to the buckets (each
	// sample its ns + 0.5)
	var g LatencyHist
	g.Add(3 * sim.Nanosecond)
	g.Add(5*sim.Nanosecond + 999)
	if s, ok := g.SumPs(); !ok || s != 8999 || g.Mean() != 4499.5 {
		t.Fatalf("sum %d %v mean %v", s, ok, g.Mean())
	}
	g.max = 1 << 62
	if _, ok := g.SumPs(); ok || g.Mean() != 4500 {
		t.Fatalf("overflow fallback: ok %v, mean %v, want 4500", ok, g.Mean())
	}
	h.Reset()
	if h.Count() != 0 || h.PercentileNs(0) != -1 {
		t.Fatal("Reset kept samples")
	}
	h.Add(7 * sim.Nanosecond)
	if h.PercentileNs(1) != 7 || h.Min() != 7*sim.Nanosecond {
		t.Fatalf("after Reset: %d", h.PercentileNs(1))
	}
}

// TestLatencyHistCarry: buckets past 65,535 samples carry into their
// page's carry counters and keep exact counts; the percentiles still match
// a sort, and Reset clears the carries.
func TestLatencyHistCarry(t *testing.T) {
	var h LatencyHist
	var xs []sim.Time
	add := func(x sim.Time, k int) {
		for range k {
			h.Add(x)
			xs = append(xs, x)
		}
	}
	add(5*sim.Microsecond, 1)
	add(10*sim.Nanosecond, 70_000)              // one carry in page 0
	add(10*sim.Microsecond+300, 3*65_536+1)     // three carries in page 2
	add(10*sim.Microsecond+1*sim.Nanosecond, 5) // its neighbour, no carry
	add(1*sim.Millisecond, 2)
	if h.carry[0][10] != 1 || h.carry[2][10000-8192] != 3 || h.carry[1] != nil {
		t.Fatalf("carries: %v %v %v", h.carry[0][10], h.carry[2][10000-8192], h.carry[1])
	}
	for _, p := range []float64{0, 0.2, 0.25, 0.5, 0.9, 0.99, 0.999999, 1} {
		if got, want := h.PercentileNs(p), bruteLatency(xs, p); got != want {
			t.Errorf("p=%v: %d ns, sort says %d", p, got, want)
		}
	}
	h.Reset()
	h.Add(10 * sim.Nanosecond)
	if h.carry[0][10] != 0 || h.PercentileNs(1) != 10 || h.Count() != 1 {
		t.Fatalf("after Reset: carry %d", h.carry[0][10])
	}
}

// TestLatencyHistNoAllocSteady: once its pages exist, Add allocates
// nothing.
func TestLatencyHistNoAllocSteady(t *testing.T) {
	var h LatencyHist
	for i := range 100 {
		h.Add(sim.Time(i) * 97 * sim.Nanosecond)
	}
	k := 0
	if a := testing.AllocsPerRun(1000, func() {
		h.Add(sim.Time(k%100) * 97 * sim.Nanosecond)
		k++
	}); a != 0 {
		t.Fatalf("%v allocations per Add", a)
	}
	// memory: 9.6 µs of range → 3 pages of 8 KiB and a table of 4 entries (grown 1, 2, 4)
	if b := h.Bytes(); b != 3*8192+4*8 {
		t.Fatalf("%d bytes", b)
	}
}

func BenchmarkLatencyHistAdd(b *testing.B) {
	var h LatencyHist
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]sim.Time, 4096)
	for i := range xs {
		xs[i] = 2*sim.Microsecond + sim.Time(r.Int64N(int64(100*sim.Microsecond)))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Add(xs[i&4095])
	}
}

// Summary's percentiles come from one walk over the buckets; they must
// equal PercentileNs's, which walks once per quantile.
func TestLatencySummaryOneWalk(t *testing.T) {
	var h LatencyHist
	r := rand.New(rand.NewPCG(7, 9))
	for i := 0; i < 200000; i++ {
		// a dense body and a sparse tail across many pages
		v := sim.Time(r.IntN(50000)) * sim.Nanosecond
		if i%97 == 0 {
			v = sim.Time(r.IntN(3_000_000))*sim.Nanosecond + sim.Time(r.IntN(1000))
		}
		h.Add(v)
	}
	s := h.Summary()
	if s.P50Ns != h.PercentileNs(0.5) || s.P99Ns != h.PercentileNs(0.99) || s.P999Ns != h.PercentileNs(0.999) {
		t.Errorf("Summary p50/p99/p999 = %d/%d/%d, PercentileNs %d/%d/%d", s.P50Ns, s.P99Ns, s.P999Ns,
			h.PercentileNs(0.5), h.PercentileNs(0.99), h.PercentileNs(0.999))
	}
	var one LatencyHist
	one.Add(1234567)
	if s := one.Summary(); s.P50Ns != 1234 || s.P999Ns != 1234 {
		t.Errorf("one sample: %+v", s)
	}
}

// BenchmarkLatencySummary: the end-of-run summary of a histogram shaped
// like the 20 × 10 MB incast's (samples over ≈ 1.9 ms, 450 pages).
func BenchmarkLatencySummary(b *testing.B) {
	var h LatencyHist
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200000; i++ {
		h.Add(sim.Time(r.IntN(1_900_000)) * sim.Nanosecond)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = h.Summary()
	}
}
