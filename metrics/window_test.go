package metrics

import (
	"math"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

func relClose(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

func TestWindowThroughput(t *testing.T) {
	us := sim.Microsecond
	var s ByteSeries
	// Flow 1: 100 Gb/s from 0 to 10 us, two samples only.
	s.Add(1, 0, 0)
	s.Add(1, 10*us, 125_000)
	// Flow 2: 50 Gb/s, one sample per us (6250 B/us), added in reverse.
	for k := 10; k >= 0; k-- {
		s.Add(2, sim.Time(k)*us, int64(k)*6250)
	}
	// Flow 3: 25 Gb/s from 5 us to 8 us.
	s.Add(3, 5*us, 0)
	s.Add(3, 8*us, 9375)
	// Flow 4: finished before the window.
	s.Add(4, 0, 0)
	s.Add(4, 1*us, 1000)
	// Flow 5: a single sample has an empty active interval.
	s.Add(5, 3*us, 500)
	// Flow 0: a step at 2 us; two samples at 2 us, the later one wins.
	s.Add(0, 0, 0)
	s.Add(0, 2*us, 0)
	s.Add(0, 2*us, 1000)
	s.Add(0, 4*us, 1000)

	if got := s.Len(); got != 6 {
		t.Errorf("Len = %d, want 6", got)
	}
	if got := s.Flows(); len(got) != 6 || got[0] != 0 || got[5] != 5 {
		t.Errorf("Flows = %v", got)
	}

	from, to := 2500*sim.Nanosecond, 6500*sim.Nanosecond
	rates := WindowRates(&s, from, to)
	want := []FlowRate{
		{ID: 0, Bps: 0, Active: 1500 * sim.Nanosecond}, // 2.5..4 us, flat
		{ID: 1, Bps: 100e9, Active: 4 * us},
		{ID: 2, Bps: 50e9, Active: 4 * us},
		{ID: 3, Bps: 25e9, Active: 1500 * sim.Nanosecond}, // 5..6.5 us
	}
	if len(rates) != len(want) {
		t.Fatalf("WindowRates = %+v, want %+v", rates, want)
	}
	for i := range want {
		if rates[i].ID != want[i].ID || rates[i].Active != want[i].Active || !relClose(rates[i].Bps, want[i].Bps) {
			t.Errorf("rate %d = %+v, want %+v", i, rates[i], want[i])
		}
	}
	tp := WindowThroughput(&s, from, to)
	if len(tp) != 4 || tp[1] != rates[1].Bps || tp[3] != rates[3].Bps {
		t.Errorf("WindowThroughput = %v", tp)
	}

	// Flows 1, 2, 3 over 5..6.5 us: 100, 50, 25 Gb/s.
	// Jain = 175² / (3 · (100² + 50² + 25²)) = 30625/39375 = 7/9.
	// Flow 0 is not active after 4 us.
	if got := JainOverWindow(&s, 5*us, 6500*sim.Nanosecond); !relClose(got, 7.0/9) {
		t.Errorf("JainOverWindow = %v, want 7/9", got)
	}
	// Window over the step: B(0) = 0, B(2us) = 1000 (the last sample at 2 us).
	r := WindowRates(&s, 0, 2*us)
	if len(r) != 4 || r[0].ID != 0 || !relClose(r[0].Bps, 8000/2e-6) || r[1].ID != 1 || r[2].ID != 2 || r[3].ID != 4 {
		t.Errorf("WindowRates(0, 2us) = %+v", r)
	}
	// Flow 4 alone: 1000 B in 1 us = 8 Gb/s.
	if r := WindowRates(&s, 0, 1*us); len(r) != 4 || r[3].ID != 4 || !relClose(r[3].Bps, 8e9) {
		t.Errorf("WindowRates(0, 1us) = %+v", r)
	}
	// Equal rates: Jain is exactly 1.
	var eq ByteSeries
	for id := 0; id < 3; id++ {
		eq.Add(id, 0, 0)
		eq.Add(id, 8*us, 80_000)
	}
	if got := JainOverWindow(&eq, 1*us, 3*us); got != 1 {
		t.Errorf("JainOverWindow(equal) = %v, want 1", got)
	}

	// Empty and degenerate windows.
	if r := WindowThroughput(&s, 3*us, 3*us); r != nil {
		t.Errorf("empty window = %v, want nil", r)
	}
	if r := WindowThroughput(&s, 20*us, 30*us); len(r) != 0 {
		t.Errorf("window after all flows = %v, want none", r)
	}
	if got := JainOverWindow(&s, 20*us, 30*us); got != 0 {
		t.Errorf("JainOverWindow(no flows) = %v, want 0", got)
	}
	if r := WindowThroughput(nil, 0, us); r != nil {
		t.Errorf("nil series = %v", r)
	}
	var zero ByteSeries
	if r := WindowThroughput(&zero, 0, us); len(r) != 0 || zero.Len() != 0 || len(zero.Flows()) != 0 {
		t.Errorf("zero series = %v", r)
	}
}

func TestWindowThroughputPartialSegment(t *testing.T) {
	us := sim.Microsecond
	var s ByteSeries
	// Two segments at different rates: 0..4 us at 8 Gb/s (4000 B),
	// 4..8 us at 16 Gb/s (8000 B). Window 2..6 us: 2000 + 4000 B in 4 us.
	s.Add(7, 0, 0)
	s.Add(7, 4*us, 4000)
	s.Add(7, 8*us, 12000)
	got := WindowThroughput(&s, 2*us, 6*us)
	if len(got) != 1 || !relClose(got[0], 6000*8/4e-6) {
		t.Errorf("WindowThroughput = %v, want [%v]", got, 6000*8/4e-6)
	}
	// Window exactly on sample times.
	if got := WindowThroughput(&s, 4*us, 8*us); len(got) != 1 || !relClose(got[0], 16e9) {
		t.Errorf("WindowThroughput(4..8us) = %v, want [16e9]", got)
	}
	// Window larger than the active interval: measured over 0..8 us.
	if got := WindowRates(&s, -us, 20*us); len(got) != 1 || got[0].Active != 8*us || !relClose(got[0].Bps, 12e9) {
		t.Errorf("WindowRates(wide) = %+v", got)
	}
}
