package experiment_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/ccsim/ccsim/experiment"
)

// The three cell formats differ only in what they print for NaN and
// infinities; the finite values are %.4g in all three (the paper tables'
// bytes depend on it).
func TestG4Formats(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		v                 float64
		g4, dash, dashNaN string
	}{
		{0, "0", "0", "0"},
		{1, "1", "1", "1"},
		{12.345678, "12.35", "12.35", "12.35"},
		{-0.000123456, "-0.0001235", "-0.0001235", "-0.0001235"},
		{123456, "1.235e+05", "1.235e+05", "1.235e+05"},
		{99.995, "100", "100", "100"},
		{nan, "NaN", "—", "—"},
		{inf, "+Inf", "—", "+Inf"},
		{-inf, "-Inf", "—", "-Inf"},
	} {
		if got := experiment.G4(c.v); got != c.g4 {
			t.Errorf("G4(%v) = %q, want %q", c.v, got, c.g4)
		}
		if got := experiment.G4Dash(c.v); got != c.dash {
			t.Errorf("G4Dash(%v) = %q, want %q", c.v, got, c.dash)
		}
		if got := experiment.G4DashNaN(c.v); got != c.dashNaN {
			t.Errorf("G4DashNaN(%v) = %q, want %q", c.v, got, c.dashNaN)
		}
	}
}

func TestPctCut(t *testing.T) {
	for _, c := range []struct{ a, b, want float64 }{{124, 100, 24}, {50, 100, -50}, {3, 3, 0}} {
		if got := experiment.Pct(c.a, c.b); got != c.want {
			t.Errorf("Pct(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := experiment.Pct(1, 0); !math.IsInf(got, 1) {
		t.Errorf("Pct(1, 0) = %v, want +Inf", got)
	}
	for _, c := range []struct{ v, base, want float64 }{{25, 100, 75}, {150, 100, -50}, {0, 0, 0}, {3, 3, 0}, {0, 7, 100}} {
		if got := experiment.Cut(c.v, c.base); got != c.want {
			t.Errorf("Cut(%v, %v) = %v, want %v", c.v, c.base, got, c.want)
		}
	}
	// a cut over a zero base is not a number unless both are 0
	if got := experiment.Cut(1, 0); !math.IsInf(got, -1) {
		t.Errorf("Cut(1, 0) = %v, want -Inf", got)
	}
}

func TestEventsPerSecond(t *testing.T) {
	for _, c := range []struct {
		events int64
		wall   float64
		want   string
	}{{2779335, 0.2, "1.39e+07"}, {900, 1, "900"}, {1, 0, "+Inf"}} {
		if got := experiment.EventsPerSecond(c.events, c.wall); got != c.want {
			t.Errorf("EventsPerSecond(%d, %v) = %q, want %q", c.events, c.wall, got, c.want)
		}
	}
}

func TestAtScale(t *testing.T) {
	if got := experiment.AtScale(experiment.ScaleQuick, 1, 2); got != 1 {
		t.Errorf("quick: %v, want 1", got)
	}
	if got := experiment.AtScale(experiment.ScalePaper, "q", "p"); got != "p" {
		t.Errorf("paper: %q, want p", got)
	}
}

func TestAlgs(t *testing.T) {
	as := experiment.Algs{{"dcqcn", "DCQCN"}, {"dcqcnp", "DCQCN-p"}}
	if got := as.CCs(); !reflect.DeepEqual(got, []string{"dcqcn", "dcqcnp"}) {
		t.Errorf("CCs = %v", got)
	}
	if got := as.Name("dcqcnp"); got != "DCQCN-p" {
		t.Errorf("Name(dcqcnp) = %q", got)
	}
	if got := as.Name("hpcc"); got != "hpcc" {
		t.Errorf("Name of an algorithm not in the list = %q, want the id", got)
	}
	if got := as.CC("DCQCN-p"); got != "dcqcnp" {
		t.Errorf("CC(DCQCN-p) = %q", got)
	}
	if got := as.CC("HPCC"); got != "HPCC" {
		t.Errorf("CC of a name not in the list = %q, want the name", got)
	}
	if got := (experiment.Algs{}).CCs(); len(got) != 0 {
		t.Errorf("empty list: CCs = %v", got)
	}
}
