package cc_test

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
)

// TestWindowVariants checks the +win / +winfixed wrappers: the inner
// algorithm's rate control plus a one-BDP window that follows the rate
// (reference VAR_WIN: W = BDP × rate / line) or stays fixed.
func TestWindowVariants(t *testing.T) {
	for _, c := range []struct {
		name     string
		variable bool
	}{{"dcqcn+win", true}, {"timely+winfixed", false}} {
		spec, err := cc.Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if spec.Name != c.name {
			t.Errorf("spec name %q, want %q", spec.Name, c.name)
		}
		ctor, _ := spec.New(spec.Defaults())
		q := &fabric.QP{LineRateBps: 100e9, RateBps: 100e9, BDPBytes: 52000}
		ctor(q).Start(q, 0)
		if q.WindowBytes != 52000 || q.VarWindow != c.variable {
			t.Errorf("%s: window %d variable %v, want 52000 %v", c.name, q.WindowBytes, q.VarWindow, c.variable)
		}
		q.SetRate(25e9)
		want := int64(52000)
		if c.variable {
			want = 13000 // 52000 × 25/100
		}
		if got := q.Window(); got != want {
			t.Errorf("%s at 25 Gb/s: window %d, want %d", c.name, got, want)
		}
	}
	if _, err := cc.Lookup("nosuch+win"); err == nil || !strings.Contains(err.Error(), "nosuch+win") {
		t.Errorf("unknown base: err = %v", err)
	}
	if cc.BaseName("hpcc+winfixed") != "hpcc" || cc.BaseName("hpcc") != "hpcc" {
		t.Error("BaseName")
	}
}

// Every registered algorithm declares a valid header extension (the fabric
// panics on an invalid one).
func TestRequirementsExtValid(t *testing.T) {
	for _, name := range cc.Names() {
		spec, _ := cc.Lookup(name)
		_, req := spec.New(spec.Defaults())
		if err := req.Ext.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
