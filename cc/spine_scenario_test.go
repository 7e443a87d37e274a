package cc_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// spineProbe wraps a flow's SPINE controller and records the sender's
// counters at the first ACK at or after t1 and the last ACK at or before
// t2: the window of the measurement.
type spineProbe struct {
	*cc.Spine
	t1, t2         sim.Time
	at1, at2       sim.Time
	tx1, pk1, una1 int64
	tx2, pk2, una2 int64
	set1           bool
	hook           func(p *spineProbe, now sim.Time) // after each ACK, if set
	q              *fabric.QP                        // the flow's QP (set at the first ACK)
}

func (p *spineProbe) OnAck(q *fabric.QP, k *fabric.AckInfo, now sim.Time) {
	p.Spine.OnAck(q, k, now)
	p.q = q
	if p.hook != nil {
		p.hook(p, now)
	}
	if now >= p.t1 && !p.set1 {
		p.at1, p.tx1, p.pk1, p.una1, p.set1 = now, q.TxBytes, q.TxPackets, q.SndUna, true
	}
	if now <= p.t2 {
		p.at2, p.tx2, p.pk2, p.una2 = now, q.TxBytes, q.TxPackets, q.SndUna
	}
}

// wireRate is the sender's wire rate over the window, headers included.
func (p *spineProbe) wireRate() float64 {
	b := float64(p.tx2-p.tx1) + float64(p.pk2-p.pk1)*fabric.DataHeaderBytes
	return b * 8 / (p.at2 - p.at1).Seconds()
}

// goodput is the acknowledged payload rate over the window.
func (p *spineProbe) goodput() float64 {
	return float64(p.una2-p.una1) * 8 / (p.at2 - p.at1).Seconds()
}

// runSpineIncast runs n long flows (hosts 1 … n to host 0, all at t = 0) on
// the 16-host star at 400 Gb/s (1 µs links) for stopUs µs with SPINE's
// parameters params, and returns the probes measuring [t1Us, stopUs).
func runSpineIncast(t testing.TB, n int, stopUs, t1Us float64, params string) []*spineProbe {
	return runSpineIncastWith(t, n, stopUs, t1Us, params, nil, nil)
}

// runSpineIncastWith is runSpineIncast with the flows' agent from agent
// (nil: the deployed network).
func runSpineIncastWith(t testing.TB, n int, stopUs, t1Us float64, params string, agent func(p *cc.SpineParams) cc.SpineAgent, hook func(p *spineProbe, now sim.Time)) []*spineProbe {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "name: spine-incast\nseed: 1\nstop_ms: %g\ncc: [spine]\n", stopUs/1000)
	if params != "" {
		fmt.Fprintf(&b, "params:\n  spine: %s\n", params)
	}
	b.WriteString("topology: {kind: star, hosts: 16, link_gbps: 400, link_delay_ns: 1000}\nworkload:\n  flows:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - {src: %d, dst: 0, size_bytes: 1000000000000, start_ns: 0}\n", i+1)
	}
	s, err := scenario.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	bl, err := assemble.Build(s, "spine", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.ParamsOf("spine").(*cc.SpineParams)
	if p == nil {
		p = cc.SpineDefaults()
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	probes := make([]*spineProbe, n)
	bl.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		var a cc.SpineAgent
		if agent != nil {
			a = agent(p)
		} else {
			a = cc.NewSpineNetAgent(p.Actor())
		}
		pr := &spineProbe{Spine: cc.NewSpine(p, int(q.ID), a),
			t1: sim.Time(t1Us * float64(sim.Microsecond)), t2: sim.Time(stopUs * float64(sim.Microsecond)), hook: hook}
		probes[q.ID] = pr
		return pr
	})
	bl.Net.Run()
	return probes
}

// (a) A single long flow on the 400 Gb/s star reaches line rate: the
// sender's wire rate (payload + 48-byte headers of every data packet sent,
// retransmissions included) over the second half of a 400 µs run, with
// the shipped model, is at least 90 % of 400 Gb/s.
func TestSpineSingleFlowLineRate(t *testing.T) {
	p := runSpineIncast(t, 1, 400, 200, "")[0]
	u := p.wireRate() / 400e9
	t.Logf("single flow: wire rate %.1f Gb/s = %.4f of line rate over [%v, %v]; goodput %.1f Gb/s; window %d packets, parameters %+v, %d of %d decisions fired",
		p.wireRate()/1e9, u, p.at1, p.at2, p.goodput()/1e9, p.Cwnd, p.Exec, p.Fired, p.Decisions)
	if u < 0.9 {
		t.Errorf("wire rate %.4f of line rate, want ≥ 0.9", u)
	}
}

// (b) N long flows (N = 4, 15) into one receiver of the 16-host star at
// 400 Gb/s, all starting at t = 0, share with Jain ≥ 0.9: Jain's index of
// the flows' goodputs (bytes acknowledged) over the steady state, the
// second half of an 800 µs run, with the shipped model. The bottleneck's
// use (Σ wire rates) is reported.
func TestSpineIncastJain(t *testing.T) {
	for _, n := range []int{4, 15} {
		pr := runSpineIncast(t, n, 800, 400, "")
		g := make([]float64, n)
		tot, fired, dec := 0.0, int64(0), int64(0)
		for i, p := range pr {
			g[i] = p.goodput()
			tot += p.wireRate()
			fired += p.Fired
			dec += p.Decisions
		}
		j := jain(g)
		t.Logf("%d flows: Jain %.4f over [400, 800) µs; Σ wire rate %.4f of the bottleneck; goodputs (Gb/s) %.1f; %d of %d decisions fired",
			n, j, tot/400e9, scale(g, 1e-9), fired, dec)
		if j < 0.9 {
			t.Errorf("%d flows: Jain %.4f, want ≥ 0.9", n, j)
		}
	}
}

func scale(x []float64, f float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * f
	}
	return y
}
