package cc_test

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// Every field's range error names the field.
func TestAgentParamsErrors(t *testing.T) {
	if err := cc.AgentDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set  func(p *cc.AgentParams)
		want string
	}{
		{func(p *cc.AgentParams) { p.Mode = "window" }, `mode = "window": allowed values scale, rate, decc`},
		{func(p *cc.AgentParams) { p.Alpha = 0 }, "alpha = 0 out of range"},
		{func(p *cc.AgentParams) { p.MinRate = 0 }, "min_rate = 0 out of range"},
		{func(p *cc.AgentParams) { p.InitRate = 0.0001 }, "init_rate = 0.0001 out of range [min_rate, 1]"},
		{func(p *cc.AgentParams) { p.IntervalRTTs = -1 }, "interval_rtts = -1"},
		{func(p *cc.AgentParams) { p.MinPackets = 2e6 }, "min_packets = 2e+06 out of range [0, 1e6]"},
		{func(p *cc.AgentParams) { p.WindowBDPs = -1 }, "window_bdps = -1"},
		{func(p *cc.AgentParams) { p.Action = 2 }, "action = 2 out of range [-1, 1]"},
		{func(p *cc.AgentParams) { p.CwndMin = 0.5 }, "cwnd_min = 0.5 out of range [1, 1e6]"},
		{func(p *cc.AgentParams) { p.CwndMax = 0 }, "cwnd_max = 0 out of range"},
		{func(p *cc.AgentParams) { p.InitCwnd = 5 }, "init_cwnd = 5 out of range [0 (exclusive), cwnd_max]"},
	} {
		p := cc.AgentDefaults()
		c.set(p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// agentRun runs one 1 MB flow between two hosts of a 100 Gb/s star with
// the stand-alone agent's params and returns its QP after the run.
func agentRun(t *testing.T, params string) *fabric.QP {
	t.Helper()
	y := "name: a\nstop_ms: 5\ncc: [agent]\ntopology: {kind: star, hosts: 2, link_gbps: 100, link_delay_ns: 1000}\n" +
		"workload:\n  flows: [{src: 0, dst: 1, size_bytes: 1000000, start_ns: 0}]\n"
	if params != "" {
		y += "params:\n  agent: " + params + "\n"
	}
	s, err := scenario.Parse([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, "agent", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b.Net.Run()
	return &b.Net.QPs[0]
}

// Stand-alone, the agent is a fixed-rate sender: at a quarter of line
// rate (rate mode, constant action 0.25) a 1 MB flow takes four times the
// serialisation of its packets at line rate; in scale mode a constant
// action compounds at every boundary (×(1 + 0.85·a) or ÷(1 − 0.85·a))
// until the rate limits; the window caps bytes in flight.
func TestAgentStandAlone(t *testing.T) {
	line := agentRun(t, "")
	quarter := agentRun(t, "{mode: rate, init_rate: 0.25, action: 0.25}")
	pkts := line.TxPackets
	gap := sim.TxTime(1000+fabric.DataHeaderBytes, 25e9)
	// the last packet leaves at (pkts − 1) gaps; then one RTT-ish to its ACK
	if got := quarter.Finish - quarter.Start; got < sim.Time(pkts-1)*gap || got > sim.Time(pkts-1)*gap+10*sim.Microsecond {
		t.Errorf("quarter rate FCT %v, want (%d−1) × %v + an RTT", got, pkts, gap)
	}
	if quarter.RateBps != 25e9 || line.RateBps != 100e9 {
		t.Errorf("rates %d, %d", quarter.RateBps, line.RateBps)
	}
	// scale mode, a = −0.5 from line rate: ÷1.425 per boundary down to the
	// floor of 1 % of line rate, never below
	down := agentRun(t, "{init_rate: 1, min_rate: 0.01, action: -0.5}")
	if down.RateBps != 1e9 || down.Done {
		t.Errorf("decreasing agent: rate %d, done %v; want the 1 Gb/s floor, unfinished", down.RateBps, down.Done)
	}
	win := agentRun(t, "{window_bdps: 0.5}")
	if want := int64(100e9 / 8 * win.PathBaseRTT.Seconds() * 0.5); win.WindowBytes != want {
		t.Errorf("window %d, want %d (half the path BDP)", win.WindowBytes, want)
	}
	if win.Finish <= line.Finish {
		t.Errorf("half-BDP window finished at %v, unlimited at %v", win.Finish, line.Finish)
	}
}

// In decc mode the stand-alone agent is decc-nn with a constant action
// (docs/env.md §2): a = 0 keeps the window at its initial path BDP, a =
// −0.5 shrinks it by 1 − 0.85·(−0.5) = 1.425 per MTP to one packet, a =
// 0.5 grows it to 4 BDPs; the pacing rate is window / mean RTT.
func TestAgentDECCMode(t *testing.T) {
	keep := agentRun(t, "{mode: decc}")
	bdp := int64(100e9 / 8 * keep.PathBaseRTT.Seconds())
	if keep.WindowBytes != bdp || !keep.Done {
		t.Errorf("a = 0: window %d, want the path BDP %d; done %v", keep.WindowBytes, bdp, keep.Done)
	}
	down := agentRun(t, "{mode: decc, action: -0.5}")
	if down.WindowBytes != 1000 {
		t.Errorf("a = −0.5: window %d, want one 1,000-B packet", down.WindowBytes)
	}
	up := agentRun(t, "{mode: decc, action: 0.5, cwnd_max: 2}")
	if want := int64(2 * 100e9 / 8 * up.PathBaseRTT.Seconds()); up.WindowBytes != want {
		t.Errorf("a = 0.5, cwnd_max 2: window %d, want %d", up.WindowBytes, want)
	}
	if up.RateBps != 100e9 {
		t.Errorf("a = 0.5: rate %d, want the line rate (2 BDPs over any RTT below 2 base RTTs)", up.RateBps)
	}
}
