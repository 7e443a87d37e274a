package env

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// flowsOf runs algorithm name of the scenario yaml alone (no controller)
// and returns its network after the run.
func flowsOf(t *testing.T, yaml, name string) *fabric.Network {
	t.Helper()
	b, err := assemble.Build(mustScenario(t, yaml), name, assemble.Options{Seed: 1, SeedSet: true})
	if err != nil {
		t.Fatal(err)
	}
	b.Net.Run()
	return b.Net
}

// sameFlows fails unless the two runs' flows finished at the same
// picosecond having sent the same packets, with the same drops.
func sameFlows(t *testing.T, what string, got, want *fabric.Network) {
	t.Helper()
	if len(got.QPs) != len(want.QPs) {
		t.Fatalf("%s: %d flows, want %d", what, len(got.QPs), len(want.QPs))
	}
	for i := range got.QPs {
		g, w := &got.QPs[i], &want.QPs[i]
		if g.Finish != w.Finish || g.TxPackets != w.TxPackets || g.RetxBytes != w.RetxBytes || g.Done != w.Done {
			t.Errorf("%s: flow %d finish %v tx %d retx %d done %v; want %v %d %d %v", what, i,
				g.Finish, g.TxPackets, g.RetxBytes, g.Done, w.Finish, w.TxPackets, w.RetxBytes, w.Done)
		}
	}
	gs, ws := got.Stats, want.Stats
	if gs.DataTxPackets != ws.DataTxPackets || gs.DataDropPackets != ws.DataDropPackets || gs.PauseFrames != ws.PauseFrames || gs.AckPackets != ws.AckPackets {
		t.Errorf("%s: stats %+v\nwant %+v", what, gs, ws)
	}
}

// An agent whose policy always keeps the rate (scale mode, action 0) or
// sets line rate (rate mode, action 1) is `none`, packet for packet; in
// rate mode a constant 0.5 is the stand-alone agent at a constant 0.5 (a
// fixed-rate flow at half the line rate). The 8-to-1 incast queues,
// pauses (PFC) and completes.
func TestConstantActionIsFixedRate(t *testing.T) {
	incast := func(params string) string {
		y := starYAML(9, 8, 100, 3_000_000, 5000, params)
		// every flow to host 8: an 8-to-1 incast
		var b strings.Builder
		for _, l := range strings.Split(y, "\n") {
			if i := strings.Index(l, "dst: "); i >= 0 {
				j := strings.Index(l[i:], ",")
				l = l[:i] + "dst: 8" + l[i+j:]
			}
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	none := flowsOf(t, incast(""), "none")
	if none.Stats.PauseFrames == 0 || none.Stats.FlowsDone != 8 {
		t.Fatalf("reference run: %d pauses, %d flows done: the test wants a congested, completed run", none.Stats.PauseFrames, none.Stats.FlowsDone)
	}
	for _, c := range []struct {
		params string
		act    float64
	}{{"", 0}, {"{mode: rate}", 1}} {
		e := mustEnv(t, Config{Scenario: mustScenario(t, incast(c.params)), Seed: 1})
		ep, err := e.Episode(0, Constant(c.act))
		if err != nil {
			t.Fatal(err)
		}
		if ep.T.Len() == 0 {
			t.Fatal("no transitions")
		}
		sameFlows(t, "agent "+c.params, ep.Net, none)
	}
	half := "{mode: rate, init_rate: 0.5, action: 0.5}"
	fixed := flowsOf(t, incast(half), "agent")
	// the stand-alone agent starts at init_rate: so does the controlled one
	e := mustEnv(t, Config{Scenario: mustScenario(t, incast("{mode: rate, init_rate: 0.5}")), Seed: 1})
	ep, err := e.Episode(0, Constant(0.5))
	if err != nil {
		t.Fatal(err)
	}
	sameFlows(t, "rate 0.5", ep.Net, fixed)
	if fixed.QPs[0].Finish <= none.QPs[0].Finish {
		t.Errorf("half rate finished at %v, line rate at %v", fixed.QPs[0].Finish, none.QPs[0].Finish)
	}
}

// interval is the monitoring interval of docs/env.md §2.1 for a flow of
// path base RTT base at rate bps with MinPackets m.
func interval(base sim.Time, bps int64, m float64) sim.Time {
	pkt := sim.TxTime(1000+fabric.DataHeaderBytes, bps)
	return max(base, sim.Time(m*float64(pkt)+0.5))
}

// Observations come at the boundaries of docs/env.md §2.1, to the
// picosecond: each interval is max(1 base RTT, 100 packets at the rate in
// effect when it starts), the rate alternating between line rate and a
// quarter of it; with a decision latency the rate changes only after the
// next interval started, so that interval still has the old length.
func TestObservationTimes(t *testing.T) {
	y := starYAML(2, 1, 100, 50_000_000, 300, "{mode: rate, min_packets: 100}")
	alt := PolicyFunc(func(_ int, w, out []float64) error {
		out[0] = 1
		if w[FRate] == 1 {
			out[0] = 0.25
		}
		return nil
	})
	for _, cost := range []sim.Time{0, 2 * sim.Microsecond} {
		e := mustEnv(t, Config{Scenario: mustScenario(t, y), Seed: 1, Latency: Latency{Cost: cost}})
		ep, err := e.Episode(0, alt)
		if err != nil {
			t.Fatal(err)
		}
		q := &ep.Net.QPs[0]
		base, line := q.PathBaseRTT, q.LineRateBps
		if base <= 0 || ep.T.Len() < 10 {
			t.Fatalf("base RTT %v, %d transitions", base, ep.T.Len())
		}
		// boundary k ends interval k; the first starts at 0 at line rate
		at := interval(base, line, 100)
		rate := []int64{line} // rate during interval k
		for i := range ep.T.Len() {
			// transition i: observation at boundary i (time prev), next
			// at boundary i+1 (At[i])
			act := ep.T.Act[i]
			next := int64(act * float64(line))
			var iv sim.Time
			if cost == 0 {
				iv = interval(base, next, 100)
				rate = append(rate, next)
			} else {
				iv = interval(base, rate[len(rate)-1], 100) // the old rate still holds at the boundary
				rate = append(rate, next)
			}
			if ep.T.At[i] != at+iv {
				t.Fatalf("cost %v: transition %d at %v, want %v + %v = %v", cost, i, ep.T.At[i], at, iv, at+iv)
			}
			if got := ep.T.Next[i*e.ObsDim()+FInterval]; got != float64(iv)/float64(base) {
				t.Fatalf("cost %v: transition %d interval feature %v, want %v", cost, i, got, float64(iv)/float64(base))
			}
			at += iv
		}
	}
}

// Two runs of one configuration give the same transitions, bit for bit.
func TestDeterministic(t *testing.T) {
	s := mustScenario(t, starYAML(8, 16, 100, 2_000_000, 100, ""))
	run := func() *Episode {
		e := mustEnv(t, Config{Scenario: s, Seed: 3, Reward: DECCReward(), Global: true, History: 3})
		r := rand.New(rand.NewPCG(7, 0))
		ep, err := e.Episode(0, PolicyFunc(func(_ int, w, out []float64) error {
			out[0] = r.Float64() - 0.5
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	a, b := run(), run()
	if a.T.Len() < 100 {
		t.Fatalf("%d transitions", a.T.Len())
	}
	sameTransitions(t, &a.T, &b.T)
}

// sameTransitions fails unless a and b are equal bit for bit.
func sameTransitions(t *testing.T, a, b *Transitions) {
	t.Helper()
	if a.Len() != b.Len() || len(a.Obs) != len(b.Obs) {
		t.Fatalf("lengths %d/%d, %d/%d", a.Len(), b.Len(), len(a.Obs), len(b.Obs))
	}
	fl := func(name string, x, y []float64) {
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Fatalf("%s[%d]: %v vs %v", name, i, x[i], y[i])
			}
		}
	}
	fl("obs", a.Obs, b.Obs)
	fl("next", a.Next, b.Next)
	fl("act", a.Act, b.Act)
	fl("rew", a.Rew, b.Rew)
	for i := range a.Len() {
		if a.Flow[i] != b.Flow[i] || a.Env[i] != b.Env[i] || a.At[i] != b.At[i] || a.Done[i] != b.Done[i] || a.End[i] != b.End[i] || a.Skipped[i] != b.Skipped[i] {
			t.Fatalf("transition %d differs", i)
		}
	}
}

// Scale mode's arithmetic (decc.md §1.5 eq. 2 on the rate): each boundary's
// observed rate is the previous one × (1 + 0.85a) for a ≥ 0 or ÷ (1 −
// 0.85a) for a < 0, truncated to whole b/s, within [min_rate, 1] × line.
func TestScaleActionArithmetic(t *testing.T) {
	y := starYAML(2, 1, 100, 50_000_000, 100, "{init_rate: 0.3, min_rate: 0.1}")
	acts := []float64{0.5, 0.5, -0.5, 1, 1, 1, -1, -1, -1, -1, -1, 0.2}
	k := 0
	e := mustEnv(t, Config{Scenario: mustScenario(t, y), Seed: 1})
	ep, err := e.Episode(0, PolicyFunc(func(_ int, _, out []float64) error {
		out[0] = acts[k%len(acts)]
		k++
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	line := float64(ep.Net.QPs[0].LineRateBps)
	rate := int64(0.3 * line)
	for i := range min(ep.T.Len(), 3*len(acts)) {
		a := ep.T.Act[i]
		r := float64(rate) * (1 + 0.85*a)
		if a < 0 {
			r = float64(rate) / (1 - 0.85*a)
		}
		rate = max(int64(min(r, line)), int64(0.1*line))
		if got := ep.T.Next[i*e.ObsDim()+FRate]; got != float64(rate)/line {
			t.Fatalf("boundary %d: rate %v, want %v", i+1, got*line, rate)
		}
	}
}
