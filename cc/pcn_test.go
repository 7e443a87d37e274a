package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Expected values follow the rate law documented in cc/pcn.go:
//   congested CNP: R = min(R, R_recv·(1 − ω)), ω ← min(2ω, w_max)
//   clean CNP:     R = (1 − ω)R + ω·R_line,   ω ← min(ω + w_min, w_max)
//   ω ← w_min first whenever the state flips; partial CNP: hold.

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

func pcnCNP(q *fabric.QP, c *cc.PCN, rate int64, state int) {
	c.OnNotice(q, &fabric.Notice{Kind: fabric.KindCNP, Arg: cc.PCNArg(rate, state)}, 0)
}

func TestPCNArg(t *testing.T) {
	for _, r := range []int64{0, 1, 12_345_678_901, 400e9, 1 << 60} {
		for st := 0; st < 3; st++ {
			if gr, gs := cc.DecodePCNArg(cc.PCNArg(r, st)); gr != r || gs != st {
				t.Errorf("PCNArg(%d, %d) decodes to %d, %d", r, st, gr, gs)
			}
		}
	}
}

// The receiver: an interval starts at a boundary packet's arrival; the
// packet that arrives T or more later closes it with the wire-byte rate
// of the packets after the boundary and the marked fraction of all.
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
	// 95 % or more marked: congested
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
		rate, st := cc.DecodePCNArg(arg)
		if want := int64(50e9); rate < want-want/1000 || rate > want+want/1000 {
			t.Errorf("receive rate %d, want ≈ %d", rate, want)
		}
		if st != cc.PCNCongested {
			t.Errorf("state %d with 95 %% of the packets marked, want congested", st)
		}
		break
	}
	if c.RxStart != at {
		t.Errorf("next interval starts at %v, want %v", c.RxStart, at)
	}
	// one marked packet of many: partial; none: clean
	for _, tc := range []struct {
		marks int
		want  int
	}{{1, cc.PCNPartial}, {0, cc.PCNClean}} {
		marks := tc.marks
		for {
			at += gap
			var mark uint8
			if marks > 0 {
				mark, marks = cc.PCNMark, marks-1
			}
			if notify, arg := c.OnDataReceived(q, true, 1000, mark, at); notify { // the ECN bit is ignored
				if _, st := cc.DecodePCNArg(arg); st != tc.want {
					t.Errorf("%d marked: state %d, want %d", tc.marks, st, tc.want)
				}
				break
			}
		}
	}
}

// The sender's rate law and its weight ω.
func TestPCNSenderRateLaw(t *testing.T) {
	p := cc.PCNDefaults()
	q, c := pcnNew(t, p)
	if c.RateBps != pcnLine || c.W != p.WMin || q.RateBps != pcnLine {
		t.Fatalf("Start: rate %d ω %v", c.RateBps, c.W)
	}
	w := p.WMin
	rate := float64(pcnLine)
	// persistent congestion: ω doubles per CNP from w_min
	recv := []int64{30e9, 28e9, 27e9, 26e9, 25e9, 24e9, 23e9, 22e9}
	for i, rr := range recv {
		rate = math.Min(rate, float64(int64(float64(rr)*(1-w))))
		w = math.Min(2*w, p.WMax)
		pcnCNP(q, c, rr, cc.PCNCongested)
		if c.RateBps != int64(rate) || c.W != w || q.RateBps != c.RateBps {
			t.Fatalf("congested CNP %d: rate %d ω %v; want %d, %v", i, c.RateBps, c.W, int64(rate), w)
		}
	}
	if w != p.WMax {
		t.Fatalf("ω %v, want w_max after %d congested CNPs", w, len(recv))
	}
	// a receive rate above the current rate does not raise it
	pcnCNP(q, c, 90e9, cc.PCNCongested)
	if c.RateBps != int64(rate) {
		t.Errorf("congested CNP raised the rate to %d", c.RateBps)
	}
	w = math.Min(2*w, p.WMax)
	// partial: hold
	pcnCNP(q, c, 1e9, cc.PCNPartial)
	if c.RateBps != int64(rate) || c.W != w {
		t.Errorf("partial CNP changed rate %d / ω %v", c.RateBps, c.W)
	}
	// clean: ω restarts at w_min and grows by w_min per CNP
	w = p.WMin
	r := int64(rate)
	for i := 0; i < 5; i++ {
		r = int64((1-w)*float64(r) + w*float64(pcnLine))
		w = math.Min(w+p.WMin, p.WMax)
		pcnCNP(q, c, 5e9, cc.PCNClean)
		if c.RateBps != r || c.W != w {
			t.Fatalf("clean CNP %d: rate %d ω %v; want %d, %v", i, c.RateBps, c.W, r, w)
		}
	}
	// congestion again: ω restarts at w_min
	pcnCNP(q, c, 20e9, cc.PCNCongested)
	if want := int64(20e9 * (1 - p.WMin)); c.RateBps != want || c.W != 2*p.WMin {
		t.Errorf("congested after clean: rate %d ω %v; want %d, %v", c.RateBps, c.W, want, 2*p.WMin)
	}
	// floor
	pcnCNP(q, c, 1e6, cc.PCNCongested)
	if c.RateBps != 1e9 {
		t.Errorf("rate %d, want the 1 Gb/s floor", c.RateBps)
	}
	// ACK congestion flags and other notices are ignored
	c.OnAck(q, &fabric.AckInfo{CNP: true}, 0)
	c.OnNotice(q, &fabric.Notice{Kind: fabric.KindNotice, Arg: cc.PCNArg(1, cc.PCNCongested)}, 0)
	if c.RateBps != 1e9 {
		t.Errorf("ignored signals changed the rate to %d", c.RateBps)
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
		{"w_max", func(p *cc.PCNParams) { p.WMax = p.WMin / 2 }},
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
