package decc

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/train/env"
)

// deccStep is one MTP end of a decc-nn flow: its time, the local state,
// the action chosen and the window and rate after it.
type deccStep struct {
	at     sim.Time
	state  [cc.DECCFeatures]float64
	action float64
	cwnd   float64
	rate   int64
}

// deccRec records a decc-nn flow's MTP ends.
type deccRec struct {
	*cc.DECC
	log *[]deccStep
}

func (d deccRec) OnTimer(q *fabric.QP, id int, now sim.Time) {
	d.DECC.OnTimer(q, id, now)
	if id == 0 { // the MTP timer (decision_ns 0: the action applied at once)
		var s [cc.DECCFeatures]float64
		copy(s[:], d.State())
		*d.log = append(*d.log, deccStep{at: now, state: s, action: d.LastAction, cwnd: d.Cwnd, rate: q.RateBps})
	}
}

// dynamicsActor is a seeded actor whose weights are scaled up so that its
// greedy action changes with the state (an untrained actor at its
// initial scale picks one action everywhere).
func dynamicsActor() *nn.Sequential { return scaled(deccmodel.NewActor()) }

// dynamicsContinuousActor is a seeded continuous actor scaled up as
// dynamicsActor.
func dynamicsContinuousActor() *nn.Sequential { return scaled(deccmodel.NewContinuousActor()) }

// scaled initialises a from seed 11 and multiplies every weight by 2.5.
func scaled(a *nn.Sequential) *nn.Sequential {
	a.Init(nn.NewRand(11))
	for _, p := range a.Params() {
		for i := range p.W {
			p.W[i] *= 2.5
		}
	}
	return a
}

// TestTrainingDynamicsMatchDeployment (docs/algorithms/decc.md I9, I13):
// the same actor run (a) as the decc-nn sender and (b) through train/env's
// `agent` in decc mode with the deterministic Policy gives the same MTP
// ends, local states, actions and rates bit for bit, and the same final
// windows, over a lossy 12-to-1 incast; for the categorical actor and the
// continuous one (whose actions are not the 11 levels).
func TestTrainingDynamicsMatchDeployment(t *testing.T) {
	t.Run("categorical", func(t *testing.T) { testDynamics(t, dynamicsActor()) })
	t.Run("continuous", func(t *testing.T) { testDynamics(t, dynamicsContinuousActor()) })
}

func testDynamics(t *testing.T, actor *nn.Sequential) {
	cont := deccmodel.IsContinuous(actor)
	cfg := DefaultConfig()
	cfg.Hosts, cfg.Gbps, cfg.BufferMB, cfg.EpisodeUs, cfg.StaggerUs = 8, 100, 0.3, 120, 10
	const seed = 5
	sc, err := cfg.Parse(Scenario{N: 12}, seed)
	if err != nil {
		t.Fatal(err)
	}
	// (a) the deployed sender (built as the environment builds its
	// network, then every flow given decc-nn's controller)
	b, err := assemble.Build(sc, "agent", assemble.Options{Seed: seed, SeedSet: true})
	if err != nil {
		t.Fatal(err)
	}
	p := cc.DECCDefaults()
	p.SetPolicy(actor, "test actor")
	logs := make([][]deccStep, len(b.Net.QPs))
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		return deccRec{DECC: cc.NewDECC(p, actor), log: &logs[q.ID]}
	})
	b.Net.Run()
	// (b) the trainer's environment
	e, err := env.New(env.Config{Scenario: sc, Seed: seed, History: deccmodel.History, Global: true, Reward: env.DECCReward()})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := e.Episode(0, NewPolicy(actor.Clone(), nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	tr := &ep.T
	seen := make([]int, len(logs))
	var actions [deccmodel.Actions]int
	bad, lossy, offLevel := 0, 0, 0
	for i := range tr.Len() {
		f := int(tr.Flow[i])
		j := seen[f]
		seen[f]++
		if j+1 >= len(logs[f]) {
			t.Fatalf("flow %d: env transition %d past decc-nn's %d MTPs", f, j, len(logs[f]))
		}
		d, dn := logs[f][j], logs[f][j+1]
		obs, next := tr.Obs[i*tr.ObsDim:], tr.Next[i*tr.ObsDim:]
		act := cc.DECCNearest(tr.Act[i])
		actions[act]++
		if deccmodel.ActionValue(act) != tr.Act[i] {
			offLevel++
		}
		ok := tr.At[i] == dn.at && tr.Act[i] == d.action && (cont || deccmodel.ActionValue(act) == tr.Act[i]) &&
			next[env.FRate] == float64(d.rate)/float64(100e9)
		for k := range cc.DECCFeatures {
			ok = ok && obs[k] == d.state[k] && next[k] == dn.state[k]
		}
		if d.state[cc.DECCLoss] > 0 {
			lossy++
		}
		if !ok {
			if bad++; bad <= 5 {
				t.Errorf("flow %d MTP %d: env at %v act %v obs %v next %v; decc-nn at %v act %v state %v next %v rate %d",
					f, j, tr.At[i], tr.Act[i], obs[:5], next[:5], dn.at, d.action, d.state, dn.state, d.rate)
			}
		}
	}
	for i, q := range ep.Net.QPs {
		if w := b.Net.QPs[i].Window(); q.Window() != w {
			t.Errorf("flow %d: final window env %d, decc-nn %d", i, q.Window(), w)
		}
	}
	distinct := 0
	for _, c := range actions {
		if c > 0 {
			distinct++
		}
	}
	t.Logf("%d decisions compared, actions (nearest levels) %v, %d off the levels, %d with retransmissions", tr.Len(), actions, offLevel, lossy)
	if cont && offLevel < tr.Len()/2 {
		t.Errorf("continuous actor: %d of %d actions off the 11 levels, want most", offLevel, tr.Len())
	}
	if tr.Len() < 100 || distinct < 3 || lossy == 0 {
		t.Errorf("%d decisions, %d distinct actions, %d lossy MTPs: the run does not exercise the rules", tr.Len(), distinct, lossy)
	}
}
