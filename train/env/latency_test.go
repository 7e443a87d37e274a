package env

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/sim"
)

// The decision processor's queue, exactly: cost 3, decisions at 0, 1, 2,
// 10 on one core; then three at once on two cores.
func TestDecisionQueueWaitAndSkip(t *testing.T) {
	type want struct {
		at sim.Time
		ok bool
	}
	cases := []struct {
		name   string
		cores  int
		skip   bool
		arrive []sim.Time
		want   []want
		busy   sim.Time
	}{
		{"wait 1 core", 1, false, []sim.Time{0, 1, 2, 10}, []want{{3, true}, {6, true}, {9, true}, {13, true}}, 12},
		{"skip 1 core", 1, true, []sim.Time{0, 1, 2, 10}, []want{{3, true}, {0, false}, {0, false}, {13, true}}, 6},
		{"wait 2 cores", 2, false, []sim.Time{0, 0, 0}, []want{{3, true}, {3, true}, {6, true}}, 9},
		{"skip 2 cores", 2, true, []sim.Time{0, 0, 0}, []want{{3, true}, {3, true}, {0, false}}, 6},
	}
	for _, c := range cases {
		h := &cores{DECCCores: *cc.NewDECCCores(c.cores)}
		for i, a := range c.arrive {
			at, ok := h.decide(a, 3, c.skip)
			if at != c.want[i].at || ok != c.want[i].ok {
				t.Errorf("%s: decision %d at %d: (%d, %v), want (%d, %v)", c.name, i, a, at, ok, c.want[i].at, c.want[i].ok)
			}
		}
		if h.busy != c.busy {
			t.Errorf("%s: busy %d, want %d", c.name, h.busy, c.busy)
		}
	}
	// busy fraction over [0, 12] of "wait 1 core": 12 booked, 1 past the end
	h := &cores{DECCCores: *cc.NewDECCCores(1)}
	for _, a := range []sim.Time{0, 1, 2, 10} {
		h.decide(a, 3, false)
	}
	if got := h.busyFraction(0, 12); got != 11.0/12 {
		t.Errorf("busy fraction %v, want 11/12", got)
	}
}

// Four flows of one host reach their boundaries together (same path,
// rate and interval): with one core and a cost below a quarter of the
// interval, "wait" takes all four decisions, "skip" one of four; the busy
// fraction is decisions × cost over the episode.
func TestDecisionLatencyInEpisode(t *testing.T) {
	y := starYAML(2, 4, 100, 50_000_000, 100, "")
	// every flow from host 0 to host 1
	y = regexp.MustCompile(`src: \d+, dst: \d+`).ReplaceAllString(y, "src: 0, dst: 1")
	cost := 500 * sim.Nanosecond
	for _, q := range []string{"wait", "skip"} {
		e := mustEnv(t, Config{Scenario: mustScenario(t, y), Seed: 1, Latency: Latency{Cost: cost, Cores: 1, Queue: q}})
		ep, err := e.Episode(0, Constant(0))
		if err != nil {
			t.Fatal(err)
		}
		if len(ep.Hosts) != 1 || ep.Hosts[0].Host != 0 {
			t.Fatalf("%s: hosts %+v, want host 0 only", q, ep.Hosts)
		}
		boundaries := ep.Net.QPs[0].CC.(*cc.Agent).Boundaries
		for i := range ep.Net.QPs {
			if b := ep.Net.QPs[i].CC.(*cc.Agent).Boundaries; b != boundaries {
				t.Fatalf("%s: flow %d has %d boundaries, flow 0 %d", q, i, b, boundaries)
			}
		}
		h := ep.Hosts[0]
		wantDec, wantSkip := 4*boundaries, int64(0)
		if q == "skip" {
			wantDec, wantSkip = boundaries, 3*boundaries
		}
		if h.Decisions != wantDec || h.Skipped != wantSkip {
			t.Errorf("%s: %d decisions, %d skipped; want %d, %d", q, h.Decisions, h.Skipped, wantDec, wantSkip)
		}
		span := float64(ep.End - ep.First)
		if want := float64(h.Decisions) * float64(cost) / span; h.Busy > want || h.Busy < want-4*float64(cost)/span {
			t.Errorf("%s: busy %v, want %v (less at most the decisions running past the end)", q, h.Busy, want)
		}
		nskip := 0
		for _, s := range ep.T.Skipped {
			if s {
				nskip++
			}
		}
		if q == "skip" && int64(nskip) < wantSkip-3 || q == "wait" && nskip != 0 {
			t.Errorf("%s: %d skipped transitions, %d skipped decisions", q, nskip, wantSkip)
		}
	}
}

// K environments merge in environment order, the same for 1, 2 or 3
// workers, bit for bit; each environment draws its policy's noise from its
// own seed.
func TestParallelMergeOrder(t *testing.T) {
	s := mustScenario(t, starYAML(4, 6, 100, 1_000_000, 60, ""))
	e := mustEnv(t, Config{Scenario: s, Seed: 5, Reward: DECCReward(), History: 2})
	newPol := func(k int) (Policy, error) {
		r := rand.New(rand.NewPCG(uint64(k), 99))
		return PolicyFunc(func(_ int, w, out []float64) error {
			out[0] = r.Float64() - 0.5
			return nil
		}), nil
	}
	var ref *Batch
	for _, workers := range []int{1, 2, 3} {
		b, err := e.Run(5, workers, newPol)
		if err != nil {
			t.Fatal(err)
		}
		if workers == 1 {
			ref = b
			n := 0
			for k, ep := range b.Episodes {
				for i := range ep.T.Len() {
					if b.T.Env[n+i] != int32(k) {
						t.Fatalf("merged transition %d from env %d, want %d", n+i, b.T.Env[n+i], k)
					}
				}
				n += ep.T.Len()
			}
			if n != b.T.Len() || b.Episodes[0].T.Act[0] == b.Episodes[1].T.Act[0] {
				t.Fatalf("merge: %d of %d transitions; env 0 and 1 first actions %v, %v", n, b.T.Len(), b.Episodes[0].T.Act[0], b.Episodes[1].T.Act[0])
			}
			continue
		}
		sameTransitions(t, &b.T, &ref.T)
	}
}
