package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Expected values are PCN's receiver-driven rate adjustment, computed by
// hand (exact fractions) for line rate 100 Gb/s, ω_min = 1/128, ω_max = 0.5:
//   congested CNP:     R ← min(R, R_recv·(1 − ω_min)), ω ← ω_min
//   not congested CNP: R ← (1 − ω)·R + ω·R_line, then ω ← ω(1 − ω) + ω·ω_max
//   R rounded to the nearest b/s, clamped to [100 Mb/s, R_line].

const (
	pcnUs   = sim.Microsecond
	pcnLine = int64(100e9)
)

func pcnNew(t *testing.T, p *cc.PCNParams) (*fabric.QP, *cc.PCN) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	q := &fabric.QP{LineRateBps: pcnLine, RateBps: pcnLine}
	c := cc.NewPCN(p)(q).(*cc.PCN)
	c.Start(q, 0)
	return q, c
}

func pcnCNP(q *fabric.QP, c *cc.PCN, rate int64, congested bool) {
	c.OnNotice(q, &fabric.Notice{Kind: fabric.KindCNP, Arg: cc.PCNArg(rate, congested)}, 0)
}

func TestPCNArg(t *testing.T) {
	for _, r := range []int64{0, 1, 12_345_678_901, 400e9, 1 << 61} {
		for _, cg := range []bool{false, true} {
			if gr, gc := cc.DecodePCNArg(cc.PCNArg(r, cg)); gr != r || gc != cg {
				t.Errorf("PCNArg(%d, %v) decodes to %d, %v", r, cg, gr, gc)
			}
		}
	}
}

// The receiver: an interval starts at a boundary packet's arrival; the
// packet that arrives T or more later closes it with the wire-byte rate
// of the packets after the boundary and the congested flag (≥ 95 % of all
// its packets marked).
func TestPCNReceiver(t *testing.T) {
	q, c := pcnNew(t, cc.PCNDefaults())
	gap := sim.TxTime(1048, 50e9) // packets every 1048 B at 50 Gb/s
	at := sim.Time(0)
	var n int
	recv := func(mark uint8) (bool, int64) {
		n++
		return c.OnDataReceived(q, false, 1000, mark, at)
	}
	if notify, _ := recv(0); notify {
		t.Fatal("first packet notified")
	}
	// 95 % marked: congested
	for {
		at += gap
		var mark uint8
		if n%20 != 0 { // 1 in 20 unmarked: exactly 95 %
			mark = cc.PCNMark
		}
		notify, arg := recv(mark)
		if at < 50*pcnUs {
			if notify {
				t.Fatalf("notified at %v, before the interval ended", at)
			}
			continue
		}
		if !notify {
			t.Fatalf("no CNP at %v", at)
		}
		rate, congested := cc.DecodePCNArg(arg)
		if want := int64(50e9); rate < want-want/1000 || rate > want+want/1000 {
			t.Errorf("receive rate %d, want ≈ %d", rate, want)
		}
		if !congested {
			t.Errorf("95 %% of the packets marked: not congested")
		}
		break
	}
	if c.RxStart != at {
		t.Errorf("next interval starts at %v, want %v", c.RxStart, at)
	}
	// all but one marked (> 95 % of the ≈ 300 packets): congested; one
	// marked packet, or none: not congested
	for _, tc := range []struct {
		unmarked, marked int // leading packets of the interval unmarked / marked (-1: all)
		want             bool
	}{{1, -1, true}, {0, 1, false}, {0, 0, false}} {
		un, mk := tc.unmarked, tc.marked
		for {
			at += gap
			var mark uint8
			switch {
			case un > 0:
				un--
			case mk != 0:
				mark, mk = cc.PCNMark, mk-1
			}
			if notify, arg := c.OnDataReceived(q, true, 1000, mark, at); notify { // the ECN bit is ignored
				if _, congested := cc.DecodePCNArg(arg); congested != tc.want {
					t.Errorf("%d unmarked then %d marked: congested %v, want %v", tc.unmarked, tc.marked, congested, tc.want)
				}
				break
			}
		}
	}
}

// The sender's law, step by step, with hand-computed values.
func TestPCNSenderRateLaw(t *testing.T) {
	p := cc.PCNDefaults()
	q, c := pcnNew(t, p)
	check := func(step string, rate int64, w float64) {
		t.Helper()
		if c.RateBps != rate || c.W != w || q.RateBps != rate {
			t.Fatalf("%s: rate %d (QP %d) ω %v; want %d, %v", step, c.RateBps, q.RateBps, c.W, rate, w)
		}
	}
	check("Start", 100e9, 1.0/128)

	// congested: R_recv·127/128, the weight stays at ω_min
	pcnCNP(q, c, 25e9, true)
	check("congested 25 Gb/s", 24_804_687_500, 1.0/128) // 25e9·127/128
	pcnCNP(q, c, 30e9, true)                            // 29.77 Gb/s > R: no increase
	check("congested 30 Gb/s", 24_804_687_500, 1.0/128)
	pcnCNP(q, c, 20e9, true)
	check("congested 20 Gb/s", 19_843_750_000, 1.0/128)

	// not congested: ω 1/128 → 191/16384 → 4657535/2^28 → 1853678665065215/2^56
	// (the rate carried by a CNP that is not congested is ignored)
	pcnCNP(q, c, 5e9, false)
	check("increase 1", 20_469_970_703, 191.0/16384) // 163759765625/8 = 20469970703.125
	pcnCNP(q, c, 5e9, false)
	check("increase 2", 21_397_109_106, 4657535.0/(1<<28)) // 350570235593679/16384 = 21397109106.06
	pcnCNP(q, c, 5e9, false)
	check("increase 3", 22_760_921_923, 1853678665065215.0/(1<<56)) // 22760921923.04

	// ω tends to ω_max; the rate reaches 99 % of line after 17 CNPs from
	// 19.84 Gb/s (850 µs at T = 50 µs) and line rate after 47
	for i := 4; i <= 47; i++ {
		pcnCNP(q, c, 0, false)
		switch i {
		case 16:
			if c.RateBps >= 99e9 {
				t.Errorf("increase 16: rate %d already ≥ 99 %% of line", c.RateBps)
			}
		case 17:
			if c.RateBps != 99_113_647_563 {
				t.Errorf("increase 17: rate %d, want 99113647563", c.RateBps)
			}
		case 46:
			if c.RateBps == pcnLine {
				t.Errorf("increase 46: already at line rate")
			}
		}
	}
	if c.RateBps != pcnLine || math.Abs(c.W-0.5) > 1e-9 {
		t.Errorf("after 47 increases: rate %d ω %v; want line rate and ω ≈ 0.5", c.RateBps, c.W)
	}

	// congestion again: ω restarts at ω_min
	pcnCNP(q, c, 40e9, true)
	check("congested again", 39_687_500_000, 1.0/128)
	// floor: 50 Mb/s·127/128 < 100 Mb/s
	pcnCNP(q, c, 50e6, true)
	check("floor", 100e6, 1.0/128)
	// ACK congestion flags and other notices are ignored
	c.OnAck(q, &fabric.AckInfo{CNP: true}, 0)
	c.OnNotice(q, &fabric.Notice{Kind: fabric.KindNotice, Arg: cc.PCNArg(1, true)}, 0)
	check("ignored signals", 100e6, 1.0/128)
}

func TestPCNDefaults(t *testing.T) {
	p := cc.PCNDefaults()
	if p.ECNThreshold != 5120 || p.Interval != 50 || p.CongRatio != 0.95 || p.WMin != 1.0/128 ||
		p.WMax != 0.5 || p.MinRate != 100 || !p.NPECN {
		t.Errorf("defaults %+v", *p)
	}
}

func TestPCNValidate(t *testing.T) {
	if err := cc.PCNDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		set   func(p *cc.PCNParams)
	}{
		{"np_ecn_threshold_bytes", func(p *cc.PCNParams) { p.ECNThreshold = -1 }},
		{"cnp_interval_us", func(p *cc.PCNParams) { p.Interval = 0 }},
		{"congested_ratio", func(p *cc.PCNParams) { p.CongRatio = math.NaN() }},
		{"w_min", func(p *cc.PCNParams) { p.WMin = 0 }},
		{"w_min", func(p *cc.PCNParams) { p.WMin = 1 }},
		{"w_max", func(p *cc.PCNParams) { p.WMax = p.WMin / 2 }},
		{"w_max", func(p *cc.PCNParams) { p.WMax = 1.5 }},
		{"min_rate_mbps", func(p *cc.PCNParams) { p.MinRate = 0 }},
	} {
		p := cc.PCNDefaults()
		tc.set(p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.field+" ") {
			t.Errorf("%s: Validate() = %v, want an error naming the field", tc.field, err)
		}
	}
}
