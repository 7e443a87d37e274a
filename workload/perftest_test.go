package workload

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

func perftestBase() PerftestParams {
	return PerftestParams{Senders: []int{0, 1}, Receiver: 2, QPsPerSender: 1, MsgSize: 1_000_000, TxDepth: 128,
		LineBps: 400e9, Probe: true, ProbeSrc: 0, ProbeDst: 2, ProbeSize: 64,
		Start: 5 * sim.Microsecond, Duration: 200 * sim.Millisecond, Prio: 3, ProbePrio: 3}
}

// TestPerftestFlows: the bandwidth flows (sender-major, QPs per sender),
// their size (whole messages above line rate × duration) and in-flight cap
// (tx depth × message size), and the probe chain.
func TestPerftestFlows(t *testing.T) {
	p := perftestBase()
	p.QPsPerSender = 2
	p.ProbeDelay = sim.Millisecond
	p.ProbeGap = 2 * sim.Microsecond
	flows, err := Perftest(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(flows) != 5 {
		t.Fatalf("%d flows, want 2 senders × 2 QPs + the probe", len(flows))
	}
	// 400 Gb/s × 200 ms = 10 GB = 10,000 messages exactly: one more message
	const size = 10_001_000_000
	for i, src := range []int{0, 0, 1, 1} {
		f := flows[i]
		if f.Src != src || f.Dst != 2 || f.SizeBytes != size || f.MaxInFlight != 128_000_000 || f.Group != GroupBandwidth ||
			f.Start != p.Start || f.Messages != 0 || f.Prio != 3 {
			t.Errorf("flow %d: %+v", i, f)
		}
	}
	pr := flows[4]
	if pr.Src != 0 || pr.Dst != 2 || pr.SizeBytes != 64 || pr.Messages != MessagesUnlimited || pr.Until != p.Start+p.Duration ||
		pr.Gap != p.ProbeGap || pr.Start != p.Start+sim.Millisecond || pr.Group != GroupProbe || pr.MaxInFlight != 0 {
		t.Errorf("probe: %+v", pr)
	}
	if b, _ := p.BandwidthBytes(); b != size {
		t.Errorf("BandwidthBytes %d", b)
	}
	// a count, no probe
	p.ProbeCount = 1000
	if fl, _ := Perftest(p); fl[4].Messages != 1000 {
		t.Errorf("probe count: %d messages", fl[4].Messages)
	}
	p.Probe = false
	if fl, _ := Perftest(p); len(fl) != 4 {
		t.Errorf("no probe: %d flows", len(fl))
	}
	// a line rate that does not divide: 100 Gb/s × 1 ms = 12.5 MB → 13 messages of 1 MB
	p.LineBps, p.Duration = 100e9, sim.Millisecond
	if b, _ := p.BandwidthBytes(); b != 13_000_000 {
		t.Errorf("BandwidthBytes %d, want 13 MB", b)
	}
}

// TestPerftestErrors: every invalid parameter is named.
func TestPerftestErrors(t *testing.T) {
	cases := []struct {
		mod  func(p *PerftestParams)
		want string
	}{
		{func(p *PerftestParams) { p.QPsPerSender = 0 }, "0 QPs per sender"},
		{func(p *PerftestParams) { p.MsgSize = 0 }, "message size 0"},
		{func(p *PerftestParams) { p.TxDepth = 0 }, "tx depth 0"},
		{func(p *PerftestParams) { p.TxDepth, p.MsgSize = 1<<40, 1<<40 }, "overflows"},
		{func(p *PerftestParams) { p.LineBps = 0 }, "line rate 0"},
		{func(p *PerftestParams) { p.Receiver = 1 }, "receiver 1 is also a sender"},
		{func(p *PerftestParams) { p.Senders = nil }, "0 senders, want at least 1"},
		{func(p *PerftestParams) { p.Senders = []int{0, 0} }, "id 0 repeated"},
		{func(p *PerftestParams) { p.Duration = 0 }, "duration 0ns is not positive"},
		{func(p *PerftestParams) { p.ProbeDst = 0 }, "invalid probe 0 → 0"},
		{func(p *PerftestParams) { p.ProbeSize = 0 }, "probe size 0"},
		{func(p *PerftestParams) { p.ProbeGap = -1 }, "probe gap"},
		{func(p *PerftestParams) { p.ProbeCount = -1 }, "probe count -1"},
		{func(p *PerftestParams) { p.ProbeDelay = p.Duration }, "probe delay 200ms not in [0, duration 200ms)"},
		{func(p *PerftestParams) { p.ProbePrio = 8 }, "probe priority 8"},
	}
	for _, c := range cases {
		p := perftestBase()
		c.mod(&p)
		_, err := Perftest(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error containing %q, got %v", c.want, err)
		}
	}
}
