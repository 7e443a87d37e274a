package cc_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// Expected values follow the rules documented in cc/bolt.go:
//   SRC: decrement by one packet if now − last ≥ rtt_src / target_q,
//        target_q = queue/packet × (cwnd·packet·8/RTT) / link rate
//   ACK: +1 per echoed INC, +ai when the ACK number reaches SeqAI

const (
	boUs   = sim.Microsecond
	boLine = int64(100e9)
	boMTU  = 1000
	boWire = boMTU + fabric.DataHeaderBytes
)

func boNew(t *testing.T, p *cc.BoltParams, size int64) (*fabric.QP, *cc.Bolt) {
	t.Helper()
	p.MTUBytes = boMTU
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	q := &fabric.QP{LineRateBps: boLine, RateBps: boLine, BaseRTT: 4 * boUs, PathBaseRTT: 4 * boUs, BDPBytes: 50_000, SizeBytes: size}
	b := cc.NewBolt(p)(q).(*cc.Bolt)
	b.Start(q, 0)
	return q, b
}

func TestBoltSRCArg(t *testing.T) {
	for _, tc := range []struct {
		src cc.BoltSRC
		now sim.Time
	}{
		{cc.BoltSRC{QueueBytes: 2048, LinkBps: 100e9, TxTime: 5 * boUs}, 7 * boUs},
		{cc.BoltSRC{QueueBytes: 12_800_000, LinkBps: 400e9, TxTime: 3*sim.Second + 123456*sim.Nanosecond}, 3*sim.Second + 200*sim.Millisecond},
		{cc.BoltSRC{QueueBytes: 0, LinkBps: 25e9, TxTime: 0}, 0},
	} {
		got := cc.DecodeBoltSRC(tc.src.Arg(), tc.now)
		if got != tc.src {
			t.Errorf("%+v at %v decodes to %+v", tc.src, tc.now, got)
		}
		if tc.src.Arg() < 0 {
			t.Errorf("%+v: negative payload", tc.src)
		}
	}
	// quantization: queue in 64-byte units, rate in 100 Mb/s, time in ns
	got := cc.DecodeBoltSRC(cc.BoltSRC{QueueBytes: 1000, LinkBps: 25_049_000_000, TxTime: 1500}.Arg(), 2*sim.Nanosecond)
	if got.QueueBytes != 1024 || got.LinkBps != 25e9 || got.TxTime != sim.Nanosecond {
		t.Errorf("quantized: %+v", got)
	}
}

func TestBoltStartAndFlags(t *testing.T) {
	q, b := boNew(t, cc.BoltDefaults(), 1_000_000)
	if b.Cwnd != 50 || q.WindowBytes != 50_000 || q.RateBps != boLine || !q.WantSendHook {
		t.Fatalf("Start: cwnd %v window %d rate %d hook %v; want one BDP (50), 50000 B, line rate, hook", b.Cwnd, q.WindowBytes, q.RateBps, q.WantSendHook)
	}
	flags := func(sndNxt int64) uint8 {
		q.SndNxt = sndNxt
		b.OnSend(q, boWire, 0)
		return q.DataMark
	}
	if f := flags(0); f != cc.BoltFirst {
		t.Errorf("first window: flags %#x, want FIRST", f)
	}
	if f := flags(960_000); f != cc.BoltFirst|cc.BoltLast {
		t.Errorf("first and last window: flags %#x", f)
	}
	b.OnAck(q, &fabric.AckInfo{Seq: 1000, NewlyAcked: 1000, RTT: 5 * boUs}, 5*boUs)
	if f := flags(100_000); f != cc.BoltInc {
		t.Errorf("middle: flags %#x, want INC", f)
	}
	if f := flags(950_000); f != cc.BoltLast {
		t.Errorf("last window: flags %#x, want LAST", f)
	}
}

// INC echoes add a packet each; additive increase once per RTT; the window
// cap is one BDP.
func TestBoltAck(t *testing.T) {
	p := cc.BoltDefaults()
	p.InitCwnd = 10
	q, b := boNew(t, p, 1<<40)
	if b.SeqAI != 10_000 {
		t.Fatalf("SeqAI %d, want the initial window 10000", b.SeqAI)
	}
	q.SndNxt = 10_000
	b.OnAck(q, &fabric.AckInfo{Seq: 1000, NewlyAcked: 1000, RTT: 5 * boUs, Mark: cc.BoltInc}, 5*boUs)
	if b.Cwnd != 11 || b.RTT != 5*boUs || q.WindowBytes != 11_000 {
		t.Errorf("INC: cwnd %v RTT %v window %d", b.Cwnd, b.RTT, q.WindowBytes)
	}
	b.OnAck(q, &fabric.AckInfo{Seq: 2000, NewlyAcked: 1000, RTT: 5 * boUs, Mark: cc.BoltFirst | cc.BoltDec}, 6*boUs)
	if b.Cwnd != 11 {
		t.Errorf("no INC: cwnd %v, want 11", b.Cwnd)
	}
	q.SndNxt = 21_000
	b.OnAck(q, &fabric.AckInfo{Seq: 10_000, NewlyAcked: 8000, RTT: 5 * boUs}, 7*boUs)
	if b.Cwnd != 12 || b.SeqAI != 21_000 {
		t.Errorf("AI: cwnd %v SeqAI %d; want 12, 21000", b.Cwnd, b.SeqAI)
	}
	b.OnAck(q, &fabric.AckInfo{Seq: 15_000, NewlyAcked: 5000, RTT: 5 * boUs}, 8*boUs)
	if b.Cwnd != 12 {
		t.Errorf("second AI in the same RTT: cwnd %v", b.Cwnd)
	}
	for i := 0; i < 100; i++ {
		b.OnAck(q, &fabric.AckInfo{Seq: 15_000, RTT: 5 * boUs, Mark: cc.BoltInc}, 9*boUs)
	}
	if b.Cwnd != 50 {
		t.Errorf("cwnd %v, want the one-BDP cap 50", b.Cwnd)
	}
}

// SRC: one packet per decrement, at most once per rtt_src / target_q; at
// or below one packet the window halves and the flow is paced.
func TestBoltSRCDecrement(t *testing.T) {
	p := cc.BoltDefaults()
	p.InitCwnd = 20
	q, b := boNew(t, p, 1<<40)
	b.OnAck(q, &fabric.AckInfo{Seq: 1000, NewlyAcked: 1000, RTT: 8 * boUs}, 8*boUs) // RTT 8 µs
	src := func(at, tx sim.Time, queue int64) {
		arg := cc.BoltSRC{QueueBytes: queue, LinkBps: 100e9, TxTime: tx}.Arg()
		b.OnNotice(q, &fabric.Notice{Kind: fabric.KindNotice, Arg: arg}, at)
	}
	t0 := 100 * boUs
	src(t0, t0-2*boUs, 20*boWire) // first: decrement
	if b.Cwnd != 19 || b.Decrements != 1 || b.LastDecAt != t0 {
		t.Fatalf("first SRC: cwnd %v decrements %d", b.Cwnd, b.Decrements)
	}
	// rate = 19·1048·8/8 µs = 19.912 Gb/s; target_q = 20 × 0.19912 = 3.9824
	// packets; interval = 2 µs / 3.9824 ≈ 502 ns
	rate := 19.0 * boWire * 8 / 8e-6
	iv := sim.Time(2e6 / (20 * rate / 100e9)) // ps
	src(t0+iv-2*sim.Nanosecond, t0+iv-2*sim.Nanosecond-2*boUs, 20*boWire)
	if b.Cwnd != 19 || b.SRCs != 2 {
		t.Errorf("SRC within the interval %v: cwnd %v", iv, b.Cwnd)
	}
	src(t0+iv+2*sim.Nanosecond, t0+iv+2*sim.Nanosecond-2*boUs, 20*boWire)
	if b.Cwnd != 18 || b.Decrements != 2 {
		t.Errorf("SRC after the interval %v: cwnd %v", iv, b.Cwnd)
	}
	// other notices are ignored
	b.OnNotice(q, &fabric.Notice{Kind: fabric.KindCNP}, t0+10*boUs)
	if b.SRCs != 3 {
		t.Errorf("a CNP counted as an SRC")
	}
	// at or below one packet: halve, pace one packet per RTT/cwnd
	b.Cwnd = 1
	src(t0+sim.Millisecond, t0+sim.Millisecond-2*boUs, 100*boWire)
	if b.Cwnd != 0.5 || q.WindowBytes != boMTU {
		t.Errorf("cwnd 1 → %v, window %d", b.Cwnd, q.WindowBytes)
	}
	if want := int64(0.5 * boWire * 8 * 1e12 / float64(8*boUs)); q.RateBps != want {
		t.Errorf("pacing rate %d, want %d", q.RateBps, want)
	}
	// NACK: max_mdf once per RTT
	b.Cwnd = 10
	at := t0 + 2*sim.Millisecond
	b.OnAck(q, &fabric.AckInfo{Nack: true}, at)
	b.OnAck(q, &fabric.AckInfo{Nack: true}, at+boUs)
	if b.Cwnd != 5 {
		t.Errorf("NACKs: cwnd %v, want 5", b.Cwnd)
	}
}

// The switch part outside congestion: INC packets keep the flag while a
// PRU token or a packet of supply is available, consuming it; a LAST
// packet (not FIRST) adds a PRU token.
func TestBoltSwitchTokens(t *testing.T) {
	spec, err := cc.Lookup("bolt")
	if err != nil {
		t.Fatal(err)
	}
	net, err := fabric.New(topo.Star(3, 100e9, boUs), fabric.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := cc.BoltDefaults()
	p.SMCap = 3 // 3144 B
	mk, period := spec.Switch(p)
	if period != 0 {
		t.Errorf("period %v, want none", period)
	}
	sw := net.SwitchView(3)
	f := mk(sw)
	const out = 2 // local port to host 2
	send := func(at sim.Time, mark uint8) uint8 {
		pk := &fabric.Packet{Kind: fabric.KindData, Size: 1048, Payload: 1000, Mark: mark}
		f.OnEnqueue(sw, 0, out, pk, at)
		return pk.Mark
	}
	// supply starts at the cap: 3144 − 1048 = 2096 ≥ 1048 keeps INC (→ 1048)
	if m := send(0, cc.BoltInc); m != cc.BoltInc {
		t.Errorf("INC with supply: %#x", m)
	}
	// 1048 − 1048 = 0 < 1048: cleared
	if m := send(0, cc.BoltInc); m != 0 {
		t.Errorf("INC without supply or token: %#x", m)
	}
	// LAST packets: a token each unless FIRST (supply −1048, −2096)
	send(0, cc.BoltLast)
	send(0, cc.BoltLast|cc.BoltFirst)
	if m := send(0, cc.BoltInc); m != cc.BoltInc { // supply −3144
		t.Errorf("INC with a PRU token: %#x", m)
	}
	if m := send(0, cc.BoltInc); m != 0 { // supply −4192
		t.Errorf("INC after the token was used: %#x", m)
	}
	// supply accrues at the link rate: −4192 + supply − 1048 ≥ 1048 needs
	// 6288 B of link time
	need := sim.TxTime(6*1048, 100e9)
	if m := send(need-sim.Nanosecond, cc.BoltInc); m != 0 { // ≈ −1060 after it
		t.Errorf("INC before the supply accrued: %#x", m)
	}
	if m := send(need+sim.TxTime(3*1048, 100e9), cc.BoltInc); m != cc.BoltInc {
		t.Errorf("INC after the supply accrued: %#x", m)
	}
	// without PRU and SM every INC is cleared
	p = cc.BoltDefaults()
	p.PRU, p.SM = false, false
	mk, _ = spec.Switch(p)
	f = mk(sw)
	send(0, cc.BoltLast)
	if m := send(sim.Millisecond, cc.BoltInc); m != 0 {
		t.Errorf("INC without PRU/SM: %#x", m)
	}
}

func TestBoltValidate(t *testing.T) {
	if err := cc.BoltDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		set   func(p *cc.BoltParams)
	}{
		{"cc_thresh_pkts", func(p *cc.BoltParams) { p.CCThresh = -1 }},
		{"max_pru_tokens", func(p *cc.BoltParams) { p.MaxPRUTokens = -1 }},
		{"sm_cap_pkts", func(p *cc.BoltParams) { p.SMCap = math.NaN() }},
		{"ai", func(p *cc.BoltParams) { p.AI = -1 }},
		{"max_mdf", func(p *cc.BoltParams) { p.MaxMDF = 0 }},
		{"min_cwnd", func(p *cc.BoltParams) { p.MinCwnd = 0 }},
		{"max_cwnd", func(p *cc.BoltParams) { p.MaxCwnd = 0.001 }},
		{"init_cwnd", func(p *cc.BoltParams) { p.InitCwnd = -2 }},
		{"mtu_bytes", func(p *cc.BoltParams) { p.MTUBytes = -1 }},
	} {
		p := cc.BoltDefaults()
		tc.set(p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.field+" ") {
			t.Errorf("%s: Validate() = %v, want an error naming the field", tc.field, err)
		}
	}
}
