package workload

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// crossDCBase is paper 002's setting on two 32-host domains: WebSearch,
// ρ = 0.6 of a 400 Gb/s long haul, cross : intra = 5 : 1, half of the load
// incast of 4 × 100 MB.
func crossDCBase(t *testing.T) CrossDCParams {
	t.Helper()
	c, err := BuiltinCDF("websearch")
	if err != nil {
		t.Fatal(err)
	}
	var a, b []int
	for i := range 32 {
		a, b = append(a, i), append(b, 32+i)
	}
	return CrossDCParams{DomainA: a, DomainB: b, CDF: c, Load: 0.6, LongHaulBps: 400e9, CrossToIntra: 5,
		IncastShare: 0.5, IncastFanin: 4, IncastSize: 100_000_000, Duration: 20 * sim.Millisecond, Prio: 3, Seed: 1}
}

func inDomain(d []int, h int) bool {
	for _, x := range d {
		if x == h {
			return true
		}
	}
	return false
}

// TestCrossDCRates: the arrival rates of both load bases, exactly.
func TestCrossDCRates(t *testing.T) {
	p := crossDCBase(t)
	m := p.CDF.Mean()
	got := p.Rates()
	// long haul: 0.6 × 400 G = 240 Gb/s per direction, half cross, half incast
	want := CrossDCRates{CrossPerDir: 120e9 / (8 * m), Intra: 2 * 120e9 / (8 * m) / 5, IncastPerDir: 120e9 / (8 * 4 * 1e8)}
	if !close(got.CrossPerDir, want.CrossPerDir) || !close(got.Intra, want.Intra) || got.IncastPerDir != 37.5 {
		t.Errorf("long haul: %+v, want %+v", got, want)
	}
	// host basis: 0.6 × 64 × 100 G = 3.84 Tb/s in all; incast 1.92 Tb/s
	// (0.96 per direction); all-to-all 1.92 Tb/s, 5/6 of it cross (0.8 Tb/s
	// per direction)
	p.Basis, p.HostsBps = BasisHost, 64*100e9
	got = p.Rates()
	want = CrossDCRates{CrossPerDir: 0.8e12 / (8 * m), Intra: 1.6e12 / (8 * m) / 5, IncastPerDir: 0.96e12 / (8 * 4 * 1e8)}
	if !close(got.CrossPerDir, want.CrossPerDir) || !close(got.Intra, want.Intra) || !close(got.IncastPerDir, want.IncastPerDir) {
		t.Errorf("host: %+v, want %+v", got, want)
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }

// TestCrossDCLoad: over a long window the generated flows offer ρ of the
// long haul in each direction, split between cross-domain all-to-all and
// incast by the incast share, and cross : intra = 5 : 1 by count. The
// bounds are 4 standard deviations of the compound Poisson sums (estimated
// from the sample's Σ size²), and σ is below 1 % of the mean (so the
// bounds are within 4 %).
func TestCrossDCLoad(t *testing.T) {
	p := crossDCBase(t)
	p.Duration = 10 * sim.Second
	p.IncastSize = 10_000_000 // 375 incast events/s per direction: a tight estimate in 10 s
	flows, err := CrossDC(p)
	if err != nil {
		t.Fatal(err)
	}
	secs := p.Duration.Seconds()
	type acc struct{ n, sum, sq float64 }
	var cross, incast [2]acc // by direction: 0 = A→B, 1 = B→A
	var intra acc
	for _, f := range flows {
		sa, da := inDomain(p.DomainA, f.Src), inDomain(p.DomainA, f.Dst)
		x := float64(f.SizeBytes) * 8
		var a *acc
		switch f.Group {
		case GroupCross:
			if sa == da {
				t.Fatalf("cross flow %d → %d within one domain", f.Src, f.Dst)
			}
			a = &cross[b2i(!sa)]
		case GroupIntra:
			if sa != da || f.Src == f.Dst {
				t.Fatalf("intra flow %d → %d", f.Src, f.Dst)
			}
			a = &intra
		case GroupIncast:
			if sa == da || f.SizeBytes != p.IncastSize {
				t.Fatalf("incast flow %d → %d of %d B", f.Src, f.Dst, f.SizeBytes)
			}
			a = &incast[b2i(!sa)]
		default:
			t.Fatalf("flow without a group: %+v", f)
		}
		a.n++
		a.sum += x
		a.sq += x * x
	}
	check := func(what string, got acc, want float64) {
		t.Helper()
		sd := math.Sqrt(got.sq)
		if sd > 0.01*want {
			t.Errorf("%s: σ = %.3g bits is more than 1 %% of the mean %.3g: window too short", what, sd, want)
		}
		if math.Abs(got.sum-want) > 4*sd {
			t.Errorf("%s: %.4g bits, want %.4g ± %.3g (4σ)", what, got.sum, want, 4*sd)
		}
	}
	c := 400e9 * secs
	for d := range 2 {
		check("cross bits, direction "+[]string{"A→B", "B→A"}[d], cross[d], 0.6*0.5*c)
		check("incast bits, direction "+[]string{"A→B", "B→A"}[d], incast[d], 0.6*0.5*c)
		var both acc
		both.sum, both.sq = cross[d].sum+incast[d].sum, cross[d].sq+incast[d].sq
		check("long-haul load", both, 0.6*c)
		t.Logf("direction %d: long-haul load %.4f (cross %.4f, incast %.4f), %v cross flows, %v incast flows", d,
			both.sum/c, cross[d].sum/c, incast[d].sum/c, cross[d].n, incast[d].n)
	}
	// counts: a flow is intra with probability 1/(r+1) = 1/6
	n := cross[0].n + cross[1].n + intra.n
	sd := math.Sqrt(n * (1.0 / 6) * (5.0 / 6))
	if math.Abs(intra.n-n/6) > 4*sd {
		t.Errorf("%v intra flows of %v all-to-all, want %.0f ± %.0f (4σ): ratio %.3f : 1", intra.n, n, n/6, 4*sd, (n-intra.n)/intra.n)
	}
	if dn := math.Abs(cross[0].n - cross[1].n); dn > 4*math.Sqrt(cross[0].n+cross[1].n) {
		t.Errorf("directions unbalanced: %v vs %v cross flows", cross[0].n, cross[1].n)
	}
	t.Logf("cross : intra = %.3f : 1 (%v flows)", (n-intra.n)/intra.n, n)
	for i := 1; i < len(flows); i++ {
		if flows[i].Start < flows[i-1].Start || flows[i].Start >= p.Start+p.Duration {
			t.Fatalf("flow %d starts at %v (previous %v)", i, flows[i].Start, flows[i-1].Start)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCrossDCIncastStructure: an incast event is fan-in distinct senders
// of one domain, starting together, to one receiver of the other; with
// IncastEvents each direction has exactly that many events.
func TestCrossDCIncastStructure(t *testing.T) {
	p := crossDCBase(t)
	p.IncastEvents = 3
	p.IncastFanin = 6
	flows, err := CrossDC(p)
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		start sim.Time
		dst   int
	}
	events := map[ev][]int{}
	var order []ev
	for _, f := range flows {
		if f.Group != GroupIncast {
			continue
		}
		k := ev{f.Start, f.Dst}
		if _, ok := events[k]; !ok {
			order = append(order, k)
		}
		events[k] = append(events[k], f.Src)
		if f.SizeBytes != p.IncastSize || f.Prio != 3 || f.DPort != RefDPort {
			t.Errorf("incast flow %+v", f)
		}
	}
	var dirs [2]int
	for _, k := range order {
		srcs := events[k]
		if len(srcs) != 6 {
			t.Fatalf("event %+v has senders %v, want 6", k, srcs)
		}
		seen := map[int]bool{}
		for _, s := range srcs {
			if seen[s] || inDomain(p.DomainA, s) == inDomain(p.DomainA, k.dst) || inDomain(p.DomainA, s) != inDomain(p.DomainA, srcs[0]) {
				t.Fatalf("event %+v: senders %v (repeated, or not all in the other domain)", k, srcs)
			}
			seen[s] = true
		}
		dirs[b2i(inDomain(p.DomainB, k.dst))]++
	}
	if dirs != [2]int{3, 3} {
		t.Errorf("events per direction %v, want 3 and 3", dirs)
	}
	// the default: a Poisson process of 37.5 events/s per direction over 20 ms
	p.IncastEvents, p.IncastFanin = 0, 4
	var total int
	for seed := range uint64(200) {
		p.Seed = seed
		fl, err := CrossDC(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fl {
			if f.Group == GroupIncast {
				total++
			}
		}
	}
	// 200 windows × 2 directions × 0.75 events × 4 flows = 1200 expected
	// flows; events are Poisson (sd √600 events)
	if want := 1200.0; math.Abs(float64(total)-want) > 4*4*math.Sqrt(600) {
		t.Errorf("%d incast flows over 200 seeds, want %.0f ± %.0f", total, want, 16*math.Sqrt(600))
	}
}

// TestCrossDCDeterministic: the same parameters give the same flows; a
// different seed different flows; the stream name separates generators.
func TestCrossDCDeterministic(t *testing.T) {
	p := crossDCBase(t)
	p.IncastEvents = 1
	a, err1 := CrossDC(p)
	b, err2 := CrossDC(p)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) || len(a) < 100 {
		t.Fatalf("two runs differ (%v, %v; %d flows)", err1, err2, len(a))
	}
	p.Seed = 2
	c, _ := CrossDC(p)
	p.Seed, p.Stream = 1, "other"
	d, _ := CrossDC(p)
	if reflect.DeepEqual(a, c) || reflect.DeepEqual(a, d) {
		t.Error("another seed or stream gives the same flows")
	}
	for i, f := range a {
		if f.SPort < RefSPortBase || f.RefStart == 0 && f.Start != 0 {
			t.Fatalf("flow %d: ports/reference start not set: %+v", i, f)
		}
	}
}

// TestCrossDCErrors: every invalid parameter is named.
func TestCrossDCErrors(t *testing.T) {
	cases := []struct {
		mod  func(p *CrossDCParams)
		want string
	}{
		{func(p *CrossDCParams) { p.Load = 0 }, "load 0 not in (0, 1]"},
		{func(p *CrossDCParams) { p.Load = 1.5 }, "load 1.5 not in (0, 1]"},
		{func(p *CrossDCParams) { p.LongHaulBps = 0 }, "long-haul rate 0 b/s is not positive"},
		{func(p *CrossDCParams) { p.Basis = BasisHost }, "host capacity 0 b/s is not positive"},
		{func(p *CrossDCParams) { p.Basis = 7 }, "load basis 7 unknown"},
		{func(p *CrossDCParams) { p.CrossToIntra = 0 }, "cross-to-intra ratio 0"},
		{func(p *CrossDCParams) { p.CrossToIntra = math.Inf(1) }, "cross-to-intra ratio +Inf"},
		{func(p *CrossDCParams) { p.IncastShare = -0.1 }, "incast share -0.1 not in [0, 1]"},
		{func(p *CrossDCParams) { p.CDF = nil }, "no size CDF"},
		{func(p *CrossDCParams) { p.IncastSize = 0 }, "incast size 0 is not positive"},
		{func(p *CrossDCParams) { p.IncastFanin = 33 }, "incast fan-in 33 not in [1, 32]"},
		{func(p *CrossDCParams) { p.IncastEvents = -1 }, "-1 incast events"},
		{func(p *CrossDCParams) { p.DomainA, p.IncastFanin = p.DomainA[:1], 1 }, "1 domain A hosts, want at least 2"},
		{func(p *CrossDCParams) { p.DomainB = append(p.DomainB, 3) }, "host 3 is in both domains"},
		{func(p *CrossDCParams) { p.DomainB = append(p.DomainB, 40) }, "id 40 repeated"},
		{func(p *CrossDCParams) { p.Duration = 0 }, "duration 0ns is not positive"},
		{func(p *CrossDCParams) { p.Prio = 9 }, "priority 9 not in [0, 7]"},
		{func(p *CrossDCParams) { p.Load, p.Duration = 1, 1000*sim.Second }, "flows expected, more than"},
	}
	for _, c := range cases {
		p := crossDCBase(t)
		c.mod(&p)
		_, err := CrossDC(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error containing %q, got %v", c.want, err)
		}
	}
	// share 1 needs no CDF; share 0 needs no incast size or fan-in
	p := crossDCBase(t)
	p.IncastShare, p.CDF, p.IncastEvents = 1, nil, 1
	if fl, err := CrossDC(p); err != nil || len(fl) != 8 {
		t.Errorf("incast only: %d flows, %v; want 2 events of 4", len(fl), err)
	}
	p = crossDCBase(t)
	p.IncastShare, p.IncastSize, p.IncastFanin = 0, 0, 0
	if fl, err := CrossDC(p); err != nil || len(fl) == 0 {
		t.Errorf("all-to-all only: %d flows, %v", len(fl), err)
	}
}
