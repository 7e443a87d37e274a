package env

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// deccCheck is a controller that, at every boundary, computes the
// environment's features (observe) and DECC's local state by
// cc.DECCLocalState and by the definitions of docs/env.md §3 written out
// here, then applies a random scale action so that rates, queues and
// losses vary.
type deccCheck struct {
	t                    *testing.T
	st                   []FlowState
	prev                 [][]float64
	r                    *rand.Rand
	n, noAck, lossy, bad int
}

func (d *deccCheck) AgentBoundary(a *cc.Agent, q *fabric.QP, now sim.Time) {
	obs := make([]float64, NumLocal)
	prev := d.prev[a.Flow]
	observe(&d.st[a.Flow], a, q, now, obs, prev)
	var got [cc.DECCFeatures]float64
	cc.DECCLocalState(got[:], &a.C, cc.DECCFlowOf(q), now, prev[FLat])
	// the definitions, independently
	c := &a.C
	iv := float64(now - c.Start)
	line := float64(q.LineRateBps)
	want := [cc.DECCFeatures]float64{
		float64(c.AckedBytes) * 8 / (iv / 1e12) / line,
		prev[FLat],
		float64(q.RetxBytes-c.RetxBytes0) / float64(max(q.TxBytes-c.TxBytes0, q.PayloadBytes())),
		float64(q.SndNxt-q.SndUna) * 8 / (line * q.PathBaseRTT.Seconds()),
		float64(q.RateBps) / line,
	}
	if c.RTTN > 0 {
		want[1] = float64(c.RTTSum) / float64(c.RTTN) / float64(q.PathBaseRTT)
	} else {
		d.noAck++
	}
	if want[2] > 0 {
		d.lossy++
	}
	for i := range want {
		// the written-out goodput divides in another order: 1e-12 relative
		if obs[i] != got[i] || !relClose(want[i], got[i], 1e-12) {
			if d.bad++; d.bad <= 5 {
				d.t.Errorf("flow %d at %v feature %d: env %v, cc.DECCLocalState %v, definition %v", a.Flow, now, i, obs[i], got[i], want[i])
			}
		}
	}
	d.n++
	copy(prev, obs)
	a.Apply(q, d.r.Float64()-0.5)
}

func (d *deccCheck) AgentFinish(a *cc.Agent, q *fabric.QP, now sim.Time) {}

func relClose(a, b, rel float64) bool {
	return a == b || (a-b) <= rel*max(a, b, -a, -b) && (b-a) <= rel*max(a, b, -a, -b)
}

// TestDECCLocalStateShared: train/env's first five features are
// cc.DECCLocalState's values (the deployed decc-nn sender's state) bit for
// bit, and match the definitions, over a lossy 6-to-1 incast with random
// actions (docs/algorithms/decc.md §3).
func TestDECCLocalStateShared(t *testing.T) {
	y := starYAML(7, 6, 100, 300_000, 150, "{window_bdps: 2}")
	y = strings.Replace(y, "workload:", "switch: {pfc: \"off\", buffer_mib: 0.6}\nworkload:", 1)
	for i := range 6 { // everyone to host 6: an incast
		y = strings.Replace(y, "dst: "+string(rune('1'+i))+",", "dst: 6,", 1)
	}
	s := mustScenario(t, y)
	b, err := assemble.Build(s, "agent", assemble.Options{Seed: 1, SeedSet: true})
	if err != nil {
		t.Fatal(err)
	}
	n := len(b.Net.QPs)
	d := &deccCheck{t: t, st: make([]FlowState, n), prev: make([][]float64, n), r: rand.New(rand.NewPCG(1, 2))}
	p := cc.AgentDefaults()
	p.WindowBDPs = 2
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		d.prev[q.ID] = make([]float64, NumLocal)
		initialObs(d.prev[q.ID], 1)
		return cc.NewAgent(p, int(q.ID), d)
	})
	b.Net.Run()
	t.Logf("%d boundaries, %d without an ACK, %d with retransmissions", d.n, d.noAck, d.lossy)
	if d.n < 100 || d.lossy == 0 || d.noAck == 0 {
		t.Errorf("%d boundaries, %d without an ACK, %d with loss: the run does not exercise every branch", d.n, d.noAck, d.lossy)
	}
}
