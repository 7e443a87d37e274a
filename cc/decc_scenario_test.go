package cc_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// deccProbe wraps a flow's decc-nn controller: it sums the RTT samples of
// each MTP itself and records, at each MTP's end and each delayed action,
// the time, the MTP's mean RTT, and the window, cwnd and rate after.
type deccProbe struct {
	*cc.DECC
	rttSum, rttN int64
	dec          []deccStep // one per MTP end
	act          []deccStep // one per delayed action
}

type deccStep struct {
	at       sim.Time
	meanRTT  float64 // the MTP's mean RTT (ps), 0 without a sample
	interval sim.Time
	cwnd     float64
	window   int64
	rate     int64
	action   float64
	pending  int
}

func (p *deccProbe) OnAck(q *fabric.QP, k *fabric.AckInfo, now sim.Time) {
	p.rttSum += int64(k.RTT)
	p.rttN++
	p.DECC.OnAck(q, k, now)
}

func (p *deccProbe) OnTimer(q *fabric.QP, id int, now sim.Time) {
	s := deccStep{at: now}
	if id == 0 && p.rttN > 0 {
		s.meanRTT = float64(p.rttSum) / float64(p.rttN)
	}
	p.DECC.OnTimer(q, id, now)
	s.interval, s.cwnd, s.window, s.rate, s.action, s.pending = p.Interval, p.Cwnd, q.WindowBytes, q.RateBps, p.LastAction, p.Pending()
	if id == 0 {
		p.rttSum, p.rttN = 0, 0
		p.dec = append(p.dec, s)
	} else {
		p.act = append(p.act, s)
	}
}

type deccResult struct {
	net    *fabric.Network
	probes []*deccProbe
	end    sim.Time
}

// deccScenario is a star of hosts hosts at 100 Gb/s (1 µs links) with
// flows flows of size bytes from hosts 0, 1, … into the last host, all at
// t = 0, stopped after stopUs µs; params are extra decc-nn parameters
// ("key: value, …").
func deccScenario(hosts, flows int, size int64, stopUs float64, params string) string {
	y := fmt.Sprintf("name: decc-test\nstop_ms: %g\ncc: [decc-nn]\ntopology: {kind: star, hosts: %d, link_gbps: 100, link_delay_ns: 1000}\n", stopUs/1000, hosts)
	y += "params:\n  decc-nn: {model: MODEL" + params + "}\nworkload:\n  flows:\n"
	for i := range flows {
		y += fmt.Sprintf("    - {src: %d, dst: %d, size_bytes: %d, start_ns: 0}\n", i, hosts-1, size)
	}
	return y
}

// deccRun runs scenario y with actor m (saved to a model file, which the
// scenario's validation loads) and probes every flow.
func deccRun(t testing.TB, y string, m *nn.Sequential) deccResult {
	t.Helper()
	y = replaceOnce(y, "MODEL", fmt.Sprintf("%q", deccModelFile(t, m)))
	s, err := scenario.Parse([]byte(y))
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	b, err := assemble.Build(s, "decc-nn", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := cc.Lookup("decc-nn")
	ctor, _ := spec.New(s.ParamsOf("decc-nn"))
	r := deccResult{net: b.Net, probes: make([]*deccProbe, len(b.Net.QPs))}
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		pr := &deccProbe{DECC: ctor(q).(*cc.DECC)} // the registered constructor: per-host cores
		r.probes[q.ID] = pr
		return pr
	})
	r.end = b.Net.Run()
	return r
}

func replaceOnce(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	return s
}

// deccExpect replays the sender's arithmetic from the probe's own RTT
// sums: per MTP, eq. 2 with the forced action value a and α = 0.85, the
// clamp to [1 packet, 4 BDP], the window (whole bytes), the pacing rate
// cwnd·8 / mean RTT (the previous mean without a sample, the base RTT
// before the first) truncated and capped at line rate, and the next MTP
// max(base RTT, 2 full packets at that rate).
type deccExpect struct {
	cwnd, rtt, lo, hi float64
	line              int64
	base              sim.Time
	pkt               int64
}

func newDECCExpect(q *fabric.QP) *deccExpect {
	bdp := float64(q.LineRateBps) / 8 * q.PathBaseRTT.Seconds()
	return &deccExpect{cwnd: bdp, rtt: float64(q.PathBaseRTT), lo: float64(q.PayloadBytes()), hi: 4 * bdp,
		line: q.LineRateBps, base: q.PathBaseRTT, pkt: q.PayloadBytes() + fabric.DataHeaderBytes}
}

func (e *deccExpect) step(a, meanRTT float64) (cwnd float64, window, rate int64, next sim.Time) {
	if a >= 0 {
		e.cwnd = e.cwnd * (1 + 0.85*a)
	} else {
		e.cwnd = e.cwnd / (1 - 0.85*a)
	}
	e.cwnd = min(max(e.cwnd, e.lo), e.hi)
	if meanRTT > 0 {
		e.rtt = meanRTT
	}
	r := e.cwnd * 8 / (e.rtt * 1e-12)
	rate = e.line
	if r < float64(e.line) {
		rate = int64(r)
	}
	next = max(e.base, sim.Time(2*float64(sim.TxTime(e.pkt, rate))+0.5))
	return e.cwnd, int64(e.cwnd), rate, next
}

// TestDECCWindowAndPacing: one long flow on a 2-host star (base RTT ≈ 4.2
// µs) with actors that force an action: a = −0.2 (window ÷1.17 per MTP down
// to 1 packet) and a = +0.3 (×1.255 up to 4 BDP). Every MTP end (at the
// exact picosecond of the interval rule), the window, cwnd and pacing rate
// equal the hand replay of decc.md §1.3.
func TestDECCWindowAndPacing(t *testing.T) {
	for _, c := range []struct {
		k int
		a float64
	}{{3, -0.2}, {8, 0.3}} {
		r := deccRun(t, deccScenario(2, 1, 1_000_000_000, 120, ""), deccForced(c.k))
		q, pr := &r.net.QPs[0], r.probes[0]
		e := newDECCExpect(q)
		if len(pr.dec) < 20 {
			t.Fatalf("a = %v: %d MTPs, want ≥ 20", c.a, len(pr.dec))
		}
		at, iv := sim.Time(0), e.base // the first MTP: base RTT at line rate
		clampedLo, clampedHi := false, false
		for i, s := range pr.dec {
			cw, w, rate, next := e.step(c.a, s.meanRTT)
			if s.at != at+iv || s.action != deccmodel.ActionValue(c.k) || s.cwnd != cw || s.window != w || s.rate != rate || s.interval != next {
				t.Fatalf("a = %v, MTP %d: at %v action %v cwnd %v window %d rate %d next %v; want %v, %v, %v, %d, %d, %v",
					c.a, i, s.at, s.action, s.cwnd, s.window, s.rate, s.interval, at+iv, deccmodel.ActionValue(c.k), cw, w, rate, next)
			}
			clampedLo, clampedHi = clampedLo || cw == e.lo, clampedHi || cw == e.hi
			at, iv = s.at, next
		}
		if c.a < 0 && !clampedLo || c.a > 0 && !clampedHi {
			t.Errorf("a = %v: the window never reached its clamp", c.a)
		}
		if pr.Decisions != int64(len(pr.dec)) || pr.Applied != pr.Decisions {
			t.Errorf("decisions %d, applied %d, MTPs %d", pr.Decisions, pr.Applied, len(pr.dec))
		}
	}
}

// TestDECCDecisionLatency: with decision_ns 1500 each action takes effect
// 1.5 µs after its MTP ended (the window and rate unchanged until then),
// in order, with the same arithmetic.
func TestDECCDecisionLatency(t *testing.T) {
	r := deccRun(t, deccScenario(2, 1, 1_000_000_000, 60, ", decision_ns: 1500"), deccForced(3))
	q, pr := &r.net.QPs[0], r.probes[0]
	e := newDECCExpect(q)
	if len(pr.dec) < 10 || len(pr.act) < len(pr.dec)-1 {
		t.Fatalf("%d MTPs, %d delayed actions", len(pr.dec), len(pr.act))
	}
	prevW, prevRate := int64(e.cwnd), e.line
	for i, a := range pr.act {
		s := pr.dec[i]
		if s.window != prevW || s.rate != prevRate || s.pending != 1 {
			t.Fatalf("MTP %d: window %d rate %d pending %d at its end, want the previous %d, %d and 1 pending", i, s.window, s.rate, s.pending, prevW, prevRate)
		}
		// the rate uses the latest mean RTT known when the action applies
		// (the MTP just closed: the next one is 4 µs away)
		_, w, rate, _ := e.step(-0.2, s.meanRTT)
		if a.at != s.at+1500*sim.Nanosecond || a.window != w || a.rate != rate || a.pending != 0 {
			t.Fatalf("action %d at %v: window %d rate %d pending %d, want %v, %d, %d, 0", i, a.at, a.window, a.rate, a.pending, s.at+1500*sim.Nanosecond, w, rate)
		}
		prevW, prevRate = w, rate
	}
}

// TestDECCScenarioRandomModel: a 4-to-1 incast of 200 KB flows with a
// seeded random (untrained) actor (seed 9: four distinct actions, 19/12/16/20
// times) completes; each flow decides at the end
// of every MTP until it completes (consecutive decisions one interval
// apart, none after the flow's completion, one decision per MTP); two runs
// give the same decisions and completion times.
func TestDECCScenarioRandomModel(t *testing.T) {
	run := func() deccResult {
		return deccRun(t, deccScenario(5, 4, 200_000, 3000, ""), deccRandom(9))
	}
	r1, r2 := run(), run()
	actions := map[float64]int{}
	for i, pr := range r1.probes {
		q := &r1.net.QPs[i]
		if !q.Done {
			t.Fatalf("flow %d did not complete by %v", i, r1.end)
		}
		if len(pr.dec) < 5 || pr.Decisions != int64(len(pr.dec)) {
			t.Fatalf("flow %d: %d MTPs, %d decisions", i, len(pr.dec), pr.Decisions)
		}
		prev := sim.Time(0)
		iv := q.PathBaseRTT
		for k, s := range pr.dec {
			if s.at != prev+iv {
				t.Fatalf("flow %d MTP %d ended at %v, want %v + %v", i, k, s.at, prev, iv)
			}
			prev, iv = s.at, s.interval
			actions[s.action]++
		}
		if last := pr.dec[len(pr.dec)-1].at; last > q.Finish || q.Finish-last > iv {
			t.Errorf("flow %d: last decision %v, completion %v, interval %v", i, last, q.Finish, iv)
		}
		q2, p2 := &r2.net.QPs[i], r2.probes[i]
		if q2.Finish != q.Finish || len(p2.dec) != len(pr.dec) {
			t.Fatalf("flow %d: second run finished %v after %d MTPs, first %v after %d", i, q2.Finish, len(p2.dec), q.Finish, len(pr.dec))
		}
		for k := range pr.dec {
			if p2.dec[k] != pr.dec[k] {
				t.Fatalf("flow %d MTP %d differs between runs: %+v vs %+v", i, k, p2.dec[k], pr.dec[k])
			}
		}
	}
	t.Logf("end %v, actions chosen (index: count) %v", r1.end, actions)
	if len(actions) < 3 {
		t.Errorf("actions %v: want at least 3 distinct ones (the decisions must depend on the state)", actions)
	}
}

// TestDECCDecisionQueue: decisions of 10 µs, longer than an MTP (≈ 4.2
// µs). wait: one core per flow, FIFO — decision i starts at max(its MTP's
// end, the previous one's finish) and applies 10 µs later; skip: an MTP
// ending while the core is busy takes no decision (its state still enters
// the history). The action times equal a replay of that core from the
// MTP ends, and each applied window is the replayed one.
func TestDECCDecisionQueue(t *testing.T) {
	const lat = 10 * sim.Microsecond
	for _, mode := range []string{"wait", "skip"} {
		r := deccRun(t, deccScenario(2, 1, 1_000_000_000, 80, ", decision_ns: 10000, decision_queue: "+mode), deccForced(3))
		q, pr := &r.net.QPs[0], r.probes[0]
		e := newDECCExpect(q)
		var want []sim.Time
		free, skipped := sim.Time(0), int64(0)
		for _, s := range pr.dec {
			switch {
			case mode == "skip" && s.at < free:
				skipped++
			case mode == "skip":
				free = s.at + lat
				want = append(want, free)
			default:
				free = max(s.at, free) + lat
				want = append(want, free)
			}
		}
		if pr.Skipped != skipped || pr.MTPs != int64(len(pr.dec)) || pr.Decisions != int64(len(want)) {
			t.Errorf("%s: %d MTPs, %d decisions, %d skipped; want %d, %d, %d", mode, pr.MTPs, pr.Decisions, pr.Skipped, len(pr.dec), len(want), skipped)
		}
		if len(pr.act) < 3 || mode == "skip" && skipped == 0 {
			t.Fatalf("%s: %d actions, %d skipped: the run does not exercise the queue", mode, len(pr.act), skipped)
		}
		for i, a := range pr.act {
			// the rate uses the latest mean RTT at the action's time
			var mean float64
			for _, s := range pr.dec {
				if s.at <= a.at && s.meanRTT > 0 {
					mean = s.meanRTT
				}
			}
			_, w, rate, _ := e.step(-0.2, mean)
			if a.at != want[i] || a.window != w || a.rate != rate {
				t.Fatalf("%s: action %d at %v window %d rate %d, want %v, %d, %d", mode, i, a.at, a.window, a.rate, want[i], w, rate)
			}
		}
		t.Logf("%s: %d MTPs, %d decisions, %d applied by %v, %d skipped", mode, pr.MTPs, pr.Decisions, len(pr.act), r.end, pr.Skipped)
	}
}

// TestDECCHostCores: two flows of one sending host whose MTPs end
// together, decisions of 500 ns (shorter than an MTP). With the host's
// single decision core (decision_cores 1, docs/env.md §5) `wait` serves
// the two decisions one after the other and `skip` takes one of them;
// the action times (both flows together) equal a replay of that core over
// the MTP ends. With a core per flow (0) or two per host nothing is
// skipped.
func TestDECCHostCores(t *testing.T) {
	const lat = 500 * sim.Nanosecond
	for _, c := range []struct {
		queue string
		cores int
		skips bool
	}{{"wait", 1, false}, {"skip", 1, true}, {"skip", 0, false}, {"skip", 2, false}} {
		y := deccScenario(3, 2, 1_000_000_000, 40, fmt.Sprintf(", decision_ns: 500, decision_queue: %s, decision_cores: %d", c.queue, c.cores))
		r := deccRun(t, replaceOnce(y, "{src: 1,", "{src: 0,"), deccForced(3))
		var ends, acts []sim.Time
		skipped := int64(0)
		for _, pr := range r.probes {
			for _, s := range pr.dec {
				ends = append(ends, s.at)
			}
			for _, a := range pr.act {
				acts = append(acts, a.at)
			}
			skipped += pr.Skipped
		}
		slices.Sort(ends)
		slices.Sort(acts)
		n := max(c.cores, 1)
		if c.cores == 0 {
			n = 2 // one per flow: as many as flows for this check (never busy at an MTP end)
		}
		cores := cc.NewDECCCores(n)
		var want []sim.Time
		wantSkipped := int64(0)
		for _, e := range ends {
			if at, ok := cores.Book(e, lat, c.queue == "skip"); !ok {
				wantSkipped++
			} else if at <= r.end {
				want = append(want, at)
			}
		}
		coinciding := 0
		for i := 1; i < len(ends); i++ {
			if ends[i] == ends[i-1] {
				coinciding++
			}
		}
		if coinciding < 5 || !slices.Equal(acts, want) || skipped != wantSkipped || (skipped > 0) != c.skips {
			t.Errorf("%s, %d cores: %d coinciding MTP ends; actions %v, want %v; skipped %d, want %d", c.queue, c.cores, coinciding, acts, want, skipped, wantSkipped)
		}
	}
}
