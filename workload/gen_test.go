package workload

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// Statistical tests. Every generator is deterministic for a given seed, so
// these tests cannot flake; the thresholds are nevertheless chosen so that
// they would hold for almost every seed, as stated at each check.
//
// Kolmogorov–Smirnov critical values (two-sided, asymptotic, valid for the
// large n used here): D_crit = c(α)/√n with c(α) = √(−ln(α/2)/2);
// c(0.01) = 1.628. For a discrete null distribution (integer flow sizes) the
// test with these critical values is conservative.

const ksC01 = 1.628 // c(α = 0.01)

// ksC returns c(α) = √(−ln(α/2)/2).
func ksC(alpha float64) float64 { return math.Sqrt(-math.Log(alpha/2) / 2) }

// ksContinuous is the one-sample KS statistic of x against the continuous
// CDF F.
func ksContinuous(x []float64, F func(float64) float64) float64 {
	s := slices.Sorted(slices.Values(x))
	n := float64(len(s))
	d := 0.0
	for i, v := range s {
		f := F(v)
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d
}

// ksSizes is the one-sample KS statistic of integer sizes against the
// distribution of CDF.Sample, S = max(1, ⌊X⌋) with X ~ c: P(S ≤ k) =
// F(k+1) for k ≥ 1, 0 below. Both the empirical and the null CDF are step
// functions constant on [k, k+1), so sup |F_n − G| is attained at an
// observed value v (after its jump) or at v−1 (just before it).
func ksSizes(sizes []int64, c *CDF) float64 {
	g := func(k int64) float64 {
		if k < 1 {
			return 0
		}
		return c.Prob(float64(k + 1))
	}
	s := slices.Sorted(slices.Values(sizes))
	n := float64(len(s))
	d, before := 0.0, 0.0
	for i := 0; i < len(s); {
		v, j := s[i], i
		for j < len(s) && s[j] == v {
			j++
		}
		after := float64(j) / n
		d = max(d, math.Abs(g(v-1)-before), math.Abs(after-g(v)))
		before, i = after, j
	}
	return d
}

// secondMoment is E[X²] of the interpolated distribution: per segment X is
// uniform on [x0, x1] with mass (y1−y0)/100, E[X²] = (x0²+x0x1+x1²)/3.
func secondMoment(c *CDF) float64 {
	xs, ys := c.Points()
	s := 0.0
	for i := 1; i < len(xs); i++ {
		a, b := xs[i-1], xs[i]
		s += (a*a + a*b + b*b) / 3 * (ys[i] - ys[i-1]) / 100
	}
	return s
}

func hostRange(n int) []int {
	h := make([]int, n)
	for i := range h {
		h[i] = i
	}
	return h
}

// checkFlows checks the invariants every generator promises.
func checkFlows(t *testing.T, flows []Flow) {
	t.Helper()
	ports := map[[2]int]int{}
	for i, f := range flows {
		if i > 0 && f.Start < flows[i-1].Start {
			t.Fatalf("flow %d starts at %v, before flow %d at %v", i, f.Start, i-1, flows[i-1].Start)
		}
		if f.Src == f.Dst || f.SizeBytes <= 0 || f.DPort != RefDPort || f.RefStart != RefStartTime(f.Start) {
			t.Fatalf("flow %d invalid: %+v", i, f)
		}
		k := [2]int{f.Src, f.Dst}
		if f.SPort != RefSPortBase+ports[k] {
			t.Fatalf("flow %d: SPort %d, want %d", i, f.SPort, RefSPortBase+ports[k])
		}
		ports[k]++
	}
}

func TestPoissonLoadAndStatistics(t *testing.T) {
	ws, _ := BuiltinCDF("websearch")
	const nHosts, bps = 64, 100_000_000_000
	start := 2 * sim.Second
	// Offered bytes over the window are a compound Poisson sum: with N_e the
	// expected flow count, the relative standard deviation of the achieved
	// load is σ = √(E[X²]/E[X]²/N_e) (E[X²]/E[X]² = 6.37 for WebSearch). A
	// 3 s window gives N_e = 420,745 flows at load 0.3 (σ = 0.39 %) and
	// 981,738 at 0.7 (σ = 0.25 %), so the 2 % tolerance is more than 5σ (a
	// seed fails with probability < 1e-6); the truncation of sizes to whole
	// bytes lowers the mean by ~0.5 B of 1.7 MB and the ns flooring of
	// start times does not change the count.
	cv2 := secondMoment(ws) / (ws.Mean() * ws.Mean())
	for i, load := range []float64{0.3, 0.7} {
		p := PoissonParams{Hosts: hostRange(nHosts), HostBps: bps, Load: load, CDF: ws, Start: start, Duration: 3 * sim.Second, Prio: 3, Seed: 42 + uint64(i)}
		perHost := 1 / p.MeanInterArrival() // flows per second per host
		ne := perHost * nHosts * p.Duration.Seconds()
		sigma := math.Sqrt(cv2 / ne)
		if 5*sigma > 0.02 {
			t.Fatalf("window too short: σ = %.3g", sigma)
		}
		flows, err := Poisson(p)
		if err != nil {
			t.Fatal(err)
		}
		checkFlows(t, flows)
		got := OfferedLoad(flows, bps, nHosts, p.Duration)
		t.Logf("load %.1f: %d flows (expected %.0f) over %v, achieved load %.5f (%+.3f %%, σ %.3f %%)",
			load, len(flows), ne, p.Duration, got, (got/load-1)*100, sigma*100)
		if math.Abs(got/load-1) > 0.02 {
			t.Errorf("load %.1f: achieved %.5f, not within 2 %%", load, got)
		}

		// Every start is in the window and a whole ns; destinations are
		// other hosts and roughly uniform: each host receives N/64 ± 5√(N/64).
		dstCount := make([]int, nHosts)
		perSrc := make([][]sim.Time, nHosts)
		sizes := make([]int64, len(flows))
		for i, f := range flows {
			if f.Start < start || f.Start >= start+p.Duration || f.Start%sim.Nanosecond != 0 || f.Prio != 3 {
				t.Fatalf("flow %d: %+v outside the window", i, f)
			}
			dstCount[f.Dst]++
			perSrc[f.Src] = append(perSrc[f.Src], f.Start)
			sizes[i] = f.SizeBytes
		}
		mu := float64(len(flows)) / nHosts
		for h, c := range dstCount {
			if math.Abs(float64(c)-mu) > 5*math.Sqrt(mu) {
				t.Errorf("host %d receives %d flows, expected %.0f", h, c, mu)
			}
		}

		// Inter-arrival times per host: Exp(MeanInterArrival). The first gap
		// is measured from the window start (memoryless). Start times are
		// floored to whole ns, which moves the CDF by at most 1 ns / mean gap
		// (< 1e-5 here), far below the critical values. Per host, with a
		// Bonferroni correction for the 64 hosts (α = 0.01/64 each, c =
		// 2.175); pooled over all hosts at α = 0.01 (c = 1.628).
		meanNs := p.MeanInterArrival() * 1e9
		expCDF := func(x float64) float64 { return 1 - math.Exp(-x/meanNs) }
		cHost := ksC(0.01 / nHosts)
		var pooled []float64
		worst := 0.0
		for h, ts := range perSrc {
			gaps := make([]float64, len(ts))
			prev := start
			for i, s := range ts {
				gaps[i] = (s - prev).Nanoseconds()
				prev = s
			}
			d := ksContinuous(gaps, expCDF)
			crit := cHost / math.Sqrt(float64(len(gaps)))
			worst = max(worst, d/crit)
			if d > crit {
				t.Errorf("host %d: inter-arrival KS D = %.4g > %.4g (n = %d)", h, d, crit, len(gaps))
			}
			pooled = append(pooled, gaps...)
		}
		d := ksContinuous(pooled, expCDF)
		crit := ksC01 / math.Sqrt(float64(len(pooled)))
		t.Logf("load %.1f: inter-arrivals: pooled KS D = %.5f (n = %d, D_crit(0.01) = %.5f); worst host D/D_crit = %.3f",
			load, d, len(pooled), crit, worst)
		if d > crit {
			t.Errorf("pooled inter-arrival KS D = %.4g > %.4g", d, crit)
		}

		// Sizes follow the CDF: one-sample KS at α = 0.01.
		d = ksSizes(sizes, ws)
		crit = ksC01 / math.Sqrt(float64(len(sizes)))
		t.Logf("load %.1f: sizes: KS D = %.5f (n = %d, D_crit(0.01) = %.5f)", load, d, len(sizes), crit)
		if d > crit {
			t.Errorf("size KS D = %.4g > %.4g", d, crit)
		}
	}
}

// TestPoissonFbHadoopW2 generates the W2 background workload (docs/papers.md §3.3, E2:
// 320 hosts, 100 Gb/s, FB Hadoop, 30 %, [2 s, 2.01 s)): 99,651 flows
// expected; the count is Poisson, so ±5√N ≈ ±1,580.
func TestPoissonFbHadoopW2(t *testing.T) {
	fb, _ := BuiltinCDF("fbhadoop")
	p := PoissonParams{Hosts: hostRange(320), HostBps: 100e9, Load: 0.3, CDF: fb, Start: 2 * sim.Second, Duration: 10 * sim.Millisecond, Prio: 3, Seed: 7}
	flows, err := Poisson(p)
	if err != nil {
		t.Fatal(err)
	}
	checkFlows(t, flows)
	want := 320 * 100e9 * 0.3 * 0.01 / 8 / fb.Mean()
	if math.Abs(float64(len(flows))-want) > 5*math.Sqrt(want) {
		t.Errorf("%d flows, expected %.0f", len(flows), want)
	}
	sizes := make([]int64, len(flows))
	for i, f := range flows {
		sizes[i] = f.SizeBytes
	}
	d := ksSizes(sizes, fb)
	crit := ksC01 / math.Sqrt(float64(len(sizes)))
	t.Logf("W2: %d flows (expected %.0f), load %.4f; sizes KS D = %.5f (D_crit(0.01) = %.5f)",
		len(flows), want, OfferedLoad(flows, 100e9, 320, p.Duration), d, crit)
	if d > crit {
		t.Errorf("size KS D = %.4g > %.4g", d, crit)
	}
}

func TestPoissonErrors(t *testing.T) {
	ws, _ := BuiltinCDF("websearch")
	ok := PoissonParams{Hosts: []int{0, 1}, HostBps: 1e9, Load: 0.5, CDF: ws, Duration: sim.Millisecond}
	if _, err := Poisson(ok); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*PoissonParams){
		"no cdf":      func(p *PoissonParams) { p.CDF = nil },
		"zero load":   func(p *PoissonParams) { p.Load = 0 },
		"load > 1":    func(p *PoissonParams) { p.Load = 1.5 },
		"NaN load":    func(p *PoissonParams) { p.Load = math.NaN() },
		"zero rate":   func(p *PoissonParams) { p.HostBps = 0 },
		"one host":    func(p *PoissonParams) { p.Hosts = []int{3} },
		"repeated":    func(p *PoissonParams) { p.Hosts = []int{3, 4, 3} },
		"negative id": func(p *PoissonParams) { p.Hosts = []int{-1, 4} },
		"no window":   func(p *PoissonParams) { p.Duration = 0 },
		"neg start":   func(p *PoissonParams) { p.Start = -1 },
		"overflow":    func(p *PoissonParams) { p.Start = sim.Never - 5 },
		"prio":        func(p *PoissonParams) { p.Prio = 8 },
		"too many":    func(p *PoissonParams) { p.Duration = 1000 * sim.Second; p.HostBps = 1e12 },
	} {
		p := ok
		mod(&p)
		if _, err := Poisson(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestGeneratorsDeterministic(t *testing.T) {
	fb, _ := BuiltinCDF("fbhadoop")
	gens := map[string]func(seed uint64, stream string) []Flow{
		"poisson": func(seed uint64, stream string) []Flow {
			f, err := Poisson(PoissonParams{Hosts: hostRange(16), HostBps: 100e9, Load: 0.5, CDF: fb, Duration: sim.Millisecond, Seed: seed, Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
		"incast": func(seed uint64, stream string) []Flow {
			f, err := IncastBursts(IncastBurstParams{Hosts: hostRange(16), Senders: 5, SizeBytes: 1000, BurstRate: 1e5, Duration: sim.Millisecond, Seed: seed, Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
		"longshort": func(seed uint64, stream string) []Flow {
			f, err := LongShort(LongShortParams{LongSenders: []int{0}, LongSize: 1e6, ShortSenders: []int{1, 2, 3}, Receiver: 4,
				ShortCount: 50, ShortCDF: fb, Interval: sim.Microsecond, Poisson: true, RandomSenders: true, Seed: seed, Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
		"manytomany": func(seed uint64, stream string) []Flow {
			f, err := ManyToMany(ManyToManyParams{Senders: hostRange(8), Receivers: hostRange(8), SizeBytes: 64 << 10, Count: 20, RandomDst: true, Seed: seed, Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
	}
	for name, gen := range gens {
		a, b := gen(1, ""), gen(1, "")
		if len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed, different flows", name)
		}
		if reflect.DeepEqual(a, gen(2, "")) {
			t.Errorf("%s: seeds 1 and 2 give the same flows", name)
		}
		if reflect.DeepEqual(a, gen(1, "other")) {
			t.Errorf("%s: streams %q and %q give the same flows", name, "", "other")
		}
		checkFlows(t, a)
	}
}

func TestIncastBurstsW3(t *testing.T) {
	w3 := IncastBurstParams{Hosts: hostRange(320), Senders: 60, SizeBytes: 500_000, Load: 0.02, HostBps: 100e9,
		Start: 2 * sim.Second, Duration: 10 * sim.Millisecond, Prio: 3, Seed: 1}
	if e := w3.ExpectedBursts(); math.Abs(e-80.0/3) > 1e-9 {
		t.Fatalf("W3 expected bursts %v, want 26.67 (docs/papers.md §3.3, E2)", e)
	}
	// A 1 s window: 2,667 bursts expected (Poisson, σ = 51.6); the offered
	// load has relative σ = 1/√2667 = 1.9 %.
	p := w3
	p.Duration = sim.Second
	flows, err := IncastBursts(p)
	if err != nil {
		t.Fatal(err)
	}
	checkFlows(t, flows)
	if len(flows)%60 != 0 {
		t.Fatalf("%d flows is not a multiple of 60", len(flows))
	}
	nb := len(flows) / 60
	e := p.ExpectedBursts()
	if math.Abs(float64(nb)-e) > 5*math.Sqrt(e) {
		t.Errorf("%d bursts, expected %.1f", nb, e)
	}
	load := OfferedLoad(flows, 100e9, 320, p.Duration)
	if math.Abs(load/0.02-1) > 5/math.Sqrt(e) {
		t.Errorf("burst load %.5f, want 0.02", load)
	}
	var gaps []float64
	prev := p.Start
	for b := range nb {
		burst := flows[b*60 : b*60+60]
		senders := map[int]bool{}
		for _, f := range burst {
			if f.Start != burst[0].Start || f.Dst != burst[0].Dst || f.SizeBytes != 500_000 || f.Prio != 3 || senders[f.Src] {
				t.Fatalf("burst %d malformed: %+v", b, f)
			}
			senders[f.Src] = true
		}
		gaps = append(gaps, (burst[0].Start - prev).Nanoseconds())
		prev = burst[0].Start
	}
	meanNs := 1e9 / p.BurstsPerSecond()
	d := ksContinuous(gaps, func(x float64) float64 { return 1 - math.Exp(-x/meanNs) })
	crit := ksC01 / math.Sqrt(float64(len(gaps)))
	t.Logf("W3 over 1 s: %d bursts (expected %.1f), load %.5f, inter-burst KS D = %.4f (D_crit(0.01) = %.4f)", nb, e, load, d, crit)
	if d > crit {
		t.Errorf("inter-burst KS D = %.4g > %.4g", d, crit)
	}

	// Count: exactly Count bursts in the window.
	p = w3
	p.Load, p.Count = 0, 34
	flows, err = IncastBursts(p)
	if err != nil {
		t.Fatal(err)
	}
	checkFlows(t, flows)
	if len(flows) != 34*60 || flows[0].Start < p.Start || flows[len(flows)-1].Start >= p.Start+p.Duration {
		t.Fatalf("Count 34: %d flows", len(flows))
	}
	for name, mod := range map[string]func(*IncastBurstParams){
		"none set":    func(p *IncastBurstParams) { p.Load = 0 },
		"two set":     func(p *IncastBurstParams) { p.Count = 3 },
		"no rate":     func(p *IncastBurstParams) { p.HostBps = 0 },
		"too many":    func(p *IncastBurstParams) { p.Senders = 320 },
		"no senders":  func(p *IncastBurstParams) { p.Senders = 0 },
		"size":        func(p *IncastBurstParams) { p.SizeBytes = 0 },
		"neg rate":    func(p *IncastBurstParams) { p.Load, p.BurstRate = 0, -1 },
		"huge window": func(p *IncastBurstParams) { p.Duration = 1e5 * sim.Second },
	} {
		p := w3
		mod(&p)
		if _, err := IncastBursts(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestAllToAll(t *testing.T) {
	flows := AllToAll([]int{3, 1, 7}, 1000, 5*sim.Microsecond, 2)
	want := [][2]int{{3, 1}, {3, 7}, {1, 3}, {1, 7}, {7, 3}, {7, 1}}
	if len(flows) != len(want) {
		t.Fatalf("%d flows", len(flows))
	}
	for i, f := range flows {
		if [2]int{f.Src, f.Dst} != want[i] || f.SizeBytes != 1000 || f.Start != 5*sim.Microsecond || f.Prio != 2 || f.SPort != RefSPortBase {
			t.Errorf("flow %d = %+v", i, f)
		}
	}
	checkFlows(t, flows)
	if n := len(AllToAll(hostRange(64), 1, 0, 0)); n != 64*63 {
		t.Errorf("64 hosts: %d flows", n)
	}
}

func TestManyToMany(t *testing.T) {
	hosts := hostRange(4)
	p := ManyToManyParams{Senders: hosts, Receivers: hosts, SizeBytes: 64 << 10, PerSender: 2, Count: 3, Interval: sim.Microsecond, Start: sim.Millisecond, Prio: 1}
	flows, err := ManyToMany(p)
	if err != nil {
		t.Fatal(err)
	}
	checkFlows(t, flows)
	if len(flows) != 4*2*3 {
		t.Fatalf("%d flows", len(flows))
	}
	k := 0
	for m := range 3 {
		for i := range 4 {
			for j := range 2 {
				f := flows[k]
				k++
				// R_i = the other 3 hosts in order; round robin from i+j+m.
				var rs []int
				for _, h := range hosts {
					if h != i {
						rs = append(rs, h)
					}
				}
				if f.Src != i || f.Dst != rs[(i+j+m)%3] || f.Start != sim.Millisecond+sim.Time(m)*sim.Microsecond || f.SizeBytes != 64<<10 {
					t.Fatalf("message %d of stream %d of sender %d: %+v", m, j, i, f)
				}
			}
		}
	}
	// Stream 0's first message goes to the next node.
	if flows[0].Dst != 1 || flows[2].Dst != 2 {
		t.Errorf("first destinations %d, %d", flows[0].Dst, flows[2].Dst)
	}
	// Many-to-one: 63 senders, 130 messages each.
	one, err := ManyToMany(ManyToManyParams{Senders: hostRange(63), Receivers: []int{63}, SizeBytes: 64 << 10, Count: 130})
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != 63*130 || one[len(one)-1].Dst != 63 {
		t.Fatalf("many-to-one: %d flows", len(one))
	}
	for name, q := range map[string]ManyToManyParams{
		"count":     {Senders: hosts, Receivers: hosts, SizeBytes: 1},
		"size":      {Senders: hosts, Receivers: hosts, Count: 1},
		"self only": {Senders: []int{1}, Receivers: []int{1}, SizeBytes: 1, Count: 1},
		"repeated":  {Senders: []int{1, 1}, Receivers: hosts, SizeBytes: 1, Count: 1},
		"overflow":  {Senders: hosts, Receivers: hosts, SizeBytes: 1, Count: 4, Interval: sim.Never / 2},
	} {
		if _, err := ManyToMany(q); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestLongShortW8(t *testing.T) {
	// docs/papers.md §5.3 (E2) default: H0→R0, H1→R1 200 MB; H2–H15 → R1, 30 flows of
	// 64 KB each, every 15 µs. Hosts: H0..H15 = 0..15, R0 = 16, R1 = 17.
	p := LongShortParams{
		LongSenders: []int{0, 1}, LongReceivers: []int{16, 17}, LongSize: 200_000_000, LongStart: sim.Second,
		ShortSenders: hostRange(16)[2:], Receiver: 17, ShortCount: 30, ShortMin: 64_000, ShortMax: 64_000,
		ShortStart: sim.Second + sim.Millisecond, Interval: 15 * sim.Microsecond, Prio: 3, Seed: 3,
	}
	flows, err := LongShort(p)
	if err != nil {
		t.Fatal(err)
	}
	checkFlows(t, flows)
	if len(flows) != 422 {
		t.Fatalf("%d flows, want 422", len(flows))
	}
	if f := flows[0]; f.Src != 0 || f.Dst != 16 || f.SizeBytes != 200_000_000 || f.Start != sim.Second {
		t.Errorf("long flow 0 = %+v", f)
	}
	if f := flows[1]; f.Src != 1 || f.Dst != 17 {
		t.Errorf("long flow 1 = %+v", f)
	}
	perSender := map[int][]sim.Time{}
	for _, f := range flows[2:] {
		if f.Dst != 17 || f.SizeBytes != 64_000 {
			t.Fatalf("short flow %+v", f)
		}
		perSender[f.Src] = append(perSender[f.Src], f.Start)
	}
	for s := 2; s < 16; s++ {
		ts := perSender[s]
		if len(ts) != 30 || ts[0] != p.ShortStart || ts[29] != p.ShortStart+29*15*sim.Microsecond {
			t.Errorf("sender %d: %d flows %v…", s, len(ts), ts[:1])
		}
	}

	// Uniform sizes on [32 KB, 512 KB]: mean 272 KB, σ of the mean of 420 =
	// 138.6 KB/√420 = 6.8 KB; all within range, mean within 5σ.
	p.ShortMin, p.ShortMax = 32_000, 512_000
	flows, err = LongShort(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range flows[2:] {
		if f.SizeBytes < 32_000 || f.SizeBytes > 512_000 {
			t.Fatalf("size %d out of range", f.SizeBytes)
		}
		sum += float64(f.SizeBytes)
	}
	if m := sum / 420; math.Abs(m-272_000) > 5*480_001/math.Sqrt(12*420) {
		t.Errorf("uniform mean %.0f", m)
	}

	// DECC E7 style: 150 short flows from random senders, Poisson arrivals
	// with mean gap 10 ms / 150, sizes from a CDF.
	// 16 long flows from 15 senders (host 0 carries two) to host 15.
	ali, _ := BuiltinCDF("alistorage")
	q := LongShortParams{LongSenders: append(hostRange(15), 0), LongSize: 1e9, Receiver: 15,
		ShortSenders: hostRange(15), ShortCount: 150, RandomSenders: true, Poisson: true, ShortCDF: ali,
		ShortStart: sim.Millisecond, Interval: 10 * sim.Millisecond / 150, Seed: 5}
	flows, err = LongShort(q)
	if err != nil {
		t.Fatal(err)
	}
	checkFlows(t, flows)
	if len(flows) != 166 {
		t.Fatalf("%d flows, want 166", len(flows))
	}
	for i, f := range flows {
		long := i < 16
		if f.Dst != 15 || long != (f.SizeBytes == 1e9) || !long && (f.Start <= q.ShortStart || f.SizeBytes > 2e6) {
			t.Fatalf("flow %d = %+v", i, f)
		}
	}
	for name, mod := range map[string]func(*LongShortParams){
		"receiver sends":   func(p *LongShortParams) { p.ShortSenders = []int{1, 17} },
		"cdf and range":    func(p *LongShortParams) { p.ShortCDF = ali },
		"empty range":      func(p *LongShortParams) { p.ShortMin = 600_000 },
		"poisson interval": func(p *LongShortParams) { p.Poisson, p.Interval = true, 0 },
		"long receivers":   func(p *LongShortParams) { p.LongReceivers = []int{16, 17, 17} },
		"long to self":     func(p *LongShortParams) { p.LongReceivers = []int{0} },
		"long size":        func(p *LongShortParams) { p.LongSize = 0 },
		"prio":             func(p *LongShortParams) { p.Prio = -1 },
	} {
		q := p
		mod(&q)
		if _, err := LongShort(q); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMerge(t *testing.T) {
	a := []Flow{{Src: 1, Dst: 2, SizeBytes: 1, Start: 10}, {Src: 1, Dst: 2, SizeBytes: 2, Start: 30}}
	b := []Flow{{Src: 1, Dst: 2, SizeBytes: 3, Start: 10}, {Src: 3, Dst: 2, SizeBytes: 4, Start: 20}}
	got := Merge(a, b)
	sizes := []int64{}
	ports := []int{}
	for _, f := range got {
		sizes = append(sizes, f.SizeBytes)
		ports = append(ports, f.SPort)
	}
	if !slices.Equal(sizes, []int64{1, 3, 4, 2}) || !slices.Equal(ports, []int{10000, 10001, 10000, 10002}) {
		t.Fatalf("Merge sizes %v ports %v", sizes, ports)
	}
	if a[0].SPort != 0 || b[0].SPort != 0 {
		t.Fatal("Merge modified its input")
	}
	if len(Merge()) != 0 {
		t.Fatal("Merge() not empty")
	}
}

func TestOfferedLoad(t *testing.T) {
	// 2 × 1.25 MB = 20 Mb over 4 hosts × 10 Gb/s × 1 ms = 40 Mb → 0.5.
	flows := []Flow{{SizeBytes: 1_250_000}, {SizeBytes: 1_250_000}}
	if got := OfferedLoad(flows, 10e9, 4, sim.Millisecond); got != 0.5 {
		t.Fatalf("OfferedLoad = %v, want 0.5", got)
	}
	if OfferedLoad(flows, 0, 4, sim.Millisecond) != 0 || OfferedLoad(flows, 1, 0, 1) != 0 || OfferedLoad(flows, 1, 1, 0) != 0 {
		t.Fatal("degenerate arguments")
	}
}

// TestGeneratedRoundTrip writes a combined generated workload in the
// reference flow file format and reads it back. FormatSeconds prints 9
// decimals for whole-ns starts (all generated starts when Start is a whole
// ns, as in the reference files) and 12 otherwise, and ReadNS3Flows parses
// the decimal exactly, so starts come back exactly, not just within 1 ns.
func TestGeneratedRoundTrip(t *testing.T) {
	fb, _ := BuiltinCDF("fbhadoop")
	for _, start := range []sim.Time{2 * sim.Second, 2*sim.Second + 500} {
		bg, err := Poisson(PoissonParams{Hosts: hostRange(32), HostBps: 100e9, Load: 0.3, CDF: fb, Start: start, Duration: sim.Millisecond, Prio: 3, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		inc, err := IncastBursts(IncastBurstParams{Hosts: hostRange(32), Senders: 10, SizeBytes: 500_000, Load: 0.02, HostBps: 100e9, Start: start, Duration: sim.Millisecond, Prio: 3, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		for i := range inc {
			if inc[i].Group != GroupIncast {
				t.Fatalf("burst flow %d not tagged incast", i)
			}
			inc[i].Group = GroupNone // the reference flow format has no traffic class
		}
		flows := Merge(bg, inc, AllToAll(hostRange(4), 1000, start, 3))
		checkFlows(t, flows)
		var buf bytes.Buffer
		if err := WriteNS3Flows(&buf, flows); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		wantDigits := 9
		if start%sim.Nanosecond != 0 {
			wantDigits = 12
		}
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			if frac := f[5][strings.IndexByte(f[5], '.')+1:]; len(frac) != wantDigits {
				t.Fatalf("start %q: %d decimals, want %d", f[5], len(frac), wantDigits)
			}
		}
		back, err := ReadNS3Flows(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, flows) {
			for i := range flows {
				if back[i] != flows[i] {
					t.Fatalf("flow %d: read back %+v, wrote %+v", i, back[i], flows[i])
				}
			}
			t.Fatalf("round trip differs (%d vs %d flows)", len(back), len(flows))
		}
		t.Logf("start %d ps: %d flows round-tripped exactly", int64(start), len(flows))
	}
}

// TestLongShortPinned: LongPinned pins the long flows (and only them)
// through LongVia; the flows are otherwise those of the unpinned call.
func TestLongShortPinned(t *testing.T) {
	p := LongShortParams{LongSenders: []int{0, 1}, LongReceivers: []int{16, 17}, LongSize: 200e6,
		ShortSenders: []int{2, 3, 4}, Receiver: 17, ShortCount: 5, ShortMin: 64000, ShortMax: 64000,
		ShortStart: sim.Millisecond, Interval: 20 * sim.Microsecond, Prio: 3, Seed: 1}
	free, err := LongShort(p)
	if err != nil {
		t.Fatal(err)
	}
	p.LongVia, p.LongPinned = 22, true
	pinned, err := LongShort(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(pinned) != 2+15 || len(free) != len(pinned) {
		t.Fatalf("%d / %d flows", len(pinned), len(free))
	}
	for i, f := range pinned {
		long := f.SizeBytes == 200e6
		if f.HasVia != long || long && f.Via != 22 {
			t.Errorf("flow %d %+v: pinned %v, want %v", i, f, f.HasVia, long)
		}
		f.Via, f.HasVia = 0, false
		if f != free[i] {
			t.Errorf("flow %d differs from the unpinned call: %+v vs %+v", i, f, free[i])
		}
	}
}
