package rl

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ccsim/ccsim/ml/nn"
)

// smoothNet returns in → hidden (tanh) → out, or with lstm an LSTM (last
// step) in front: smooth everywhere, for central differences.
func smoothNet(t testing.TB, in, hidden, out int, lstm bool) *nn.Sequential {
	t.Helper()
	var ls []nn.Layer
	w := in
	if lstm {
		l, err := nn.NewLSTM(in, hidden, false)
		if err != nil {
			t.Fatal(err)
		}
		ls, w = append(ls, l), hidden
	}
	d1, _ := nn.NewDense(w, hidden, nn.XavierUniform)
	a, _ := nn.NewActivation(nn.Tanh, hidden)
	d2, _ := nn.NewDense(hidden, out, nn.XavierUniform)
	m, err := nn.NewSequential(append(ls, d1, a, d2)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// randomReplay fills a buffer for m with random joint transitions in a few
// interleaved streams, some terminal.
func randomReplay(t testing.TB, m *MADDPG, n int, seed uint64) *Replay {
	t.Helper()
	buf, err := NewReplay(m.ReplayConfig(n))
	if err != nil {
		t.Fatal(err)
	}
	c := buf.Config()
	r := nn.NewRand(seed)
	for k := range n {
		tr := Transition{Obs: randVec(r, c.ObsDim, 1), NextObs: randVec(r, c.ObsDim, 1),
			Act: randVec(r, c.ActDim, 0.5), Rew: randVec(r, c.RewDim, 1), Done: r.IntN(7) == 0, Stream: k % 3}
		if err := buf.Add(tr); err != nil {
			t.Fatal(err)
		}
	}
	return buf
}

// checkParamGrads compares the gradients left in net's Params with central
// differences of f over every weight.
func checkParamGrads(t *testing.T, name string, net *nn.Sequential, f func() float64) {
	t.Helper()
	var gs [][]float64 // f accumulates into G: keep the analytic values first
	for _, p := range net.Params() {
		gs = append(gs, append([]float64(nil), p.G...))
	}
	for k, p := range net.Params() {
		gradCheck(t, name+" "+p.Name, f, p.W, gs[k])
	}
}

func TestMADDPGLossGradients(t *testing.T) {
	for _, c := range []struct {
		name     string
		n, h     int
		lstm     bool
		agent    int
		obs, act int
		actObs   int
	}{
		{"td3 mlp history 1", 1, 1, false, 0, 3, 2, 0},
		{"td3 lstm history 3", 1, 3, true, 0, 2, 1, 0},
		{"maddpg 3 agents, agent 2, flattened history 2", 3, 2, false, 2, 2, 1, 0},
		{"maddpg 2 agents, agent 1, lstm history 2, actor sees 2 of 3", 2, 2, true, 1, 3, 1, 2},
	} {
		cfg := DefaultTD3()
		cfg.History, cfg.BatchSize, cfg.ActorObs = c.h, 6, c.actObs
		actorIn := c.obs
		if c.actObs > 0 {
			actorIn = c.actObs
		}
		if !c.lstm {
			actorIn *= c.h
		}
		m, err := NewMADDPG(cfg, c.n, c.obs, c.act, smoothNet(t, actorIn, 4, c.act, c.lstm),
			smoothNet(t, c.h*c.n*c.obs+c.n*c.act, 5, 1, false), nn.NewRand(3))
		if err != nil {
			t.Fatal(err)
		}
		// larger weights than the initialisation, away from linear regimes
		r := nn.NewRand(4)
		for _, net := range []*nn.Sequential{m.actors[c.agent], m.actorsT[c.agent], m.critics[c.agent][0], m.critsT[c.agent][0], m.critsT[c.agent][1]} {
			for _, p := range net.Params() {
				copy(p.W, randVec(r, len(p.W), 0.8))
			}
		}
		buf := randomReplay(t, m, 40, 5)
		m.batch, _ = buf.NewSeqBatch(cfg.BatchSize, cfg.History, true)
		if err := buf.SampleSeq(m.rng, m.batch); err != nil {
			t.Fatal(err)
		}
		if err := m.targetActions(); err != nil {
			t.Fatal(err)
		}
		if err := m.criticTargets(c.agent); err != nil {
			t.Fatal(err)
		}
		critic := m.critics[c.agent][0]
		critic.ZeroGrad()
		m.criticGrad(c.agent, 0)
		checkParamGrads(t, c.name+": critic", critic, func() float64 {
			l, _, _ := m.criticGrad(c.agent, 0)
			return l
		})
		actor := m.actors[c.agent]
		actor.ZeroGrad()
		inv := 1 / float64(cfg.BatchSize)
		m.actorGrad(c.agent, inv)
		checkParamGrads(t, c.name+": actor", actor, func() float64 {
			l, _ := m.actorGrad(c.agent, inv)
			return l
		})
	}
}

// TestMADDPGSharedActor checks that one network serves all agents and that
// its gradient is that of the mean of the agents' actor losses.
func TestMADDPGSharedActor(t *testing.T) {
	cfg := DefaultTD3()
	cfg.History, cfg.BatchSize, cfg.SharedActor = 2, 5, true
	const n = 3
	m, err := NewMADDPG(cfg, n, 2, 1, smoothNet(t, 2, 4, 1, true), smoothNet(t, 2*n*2+n, 5, 1, false), nn.NewRand(3))
	if err != nil {
		t.Fatal(err)
	}
	if m.Actor(0) != m.Actor(2) || m.actorsT[1] != m.actorsT[0] || m.optA[2] != m.optA[0] {
		t.Fatal("the agents do not share one actor, target and optimiser")
	}
	r := nn.NewRand(4)
	nets := []*nn.Sequential{m.actors[0]}
	for i := range n {
		nets = append(nets, m.critics[i][0])
	}
	for _, net := range nets {
		for _, p := range net.Params() {
			copy(p.W, randVec(r, len(p.W), 0.8))
		}
	}
	buf := randomReplay(t, m, 40, 5)
	m.batch, _ = buf.NewSeqBatch(cfg.BatchSize, cfg.History, true)
	if err := buf.SampleSeq(m.rng, m.batch); err != nil {
		t.Fatal(err)
	}
	scale := 1 / float64(cfg.BatchSize*n)
	loss := func() float64 {
		s := 0.0
		for i := range n {
			l, _ := m.actorGrad(i, scale)
			s += l
		}
		return s
	}
	m.actors[0].ZeroGrad()
	loss()
	checkParamGrads(t, "shared actor", m.actors[0], loss)
	// an update moves the one actor; the agents still act alike on equal windows
	for range 2 {
		if _, err := m.Update(buf); err != nil {
			t.Fatal(err)
		}
	}
	w := randVec(r, 4, 1)
	a0, a2 := make([]float64, 1), make([]float64, 1)
	m.Act(0, w, nil, a0)
	m.Act(2, w, nil, a2)
	if a0[0] != a2[0] {
		t.Fatalf("agents 0 and 2 act %v and %v on the same window", a0, a2)
	}
}

func TestMADDPGActorObs(t *testing.T) {
	// observations of 3 values per step, the actor sees the first 2: its
	// action does not depend on the third
	cfg := DefaultTD3()
	cfg.History, cfg.ActorObs = 2, 2
	m, err := NewMADDPG(cfg, 2, 3, 1, smoothNet(t, 2, 4, 1, true), smoothNet(t, 2*2*3+2, 4, 1, false), nn.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	a1, a2 := make([]float64, 1), make([]float64, 1)
	m.Act(1, w, nil, a1)
	w[2], w[5] = -7, 9
	m.Act(1, w, nil, a2)
	if a1[0] != a2[0] {
		t.Fatalf("the action changed with a value the actor does not see: %v, %v", a1, a2)
	}
	w[4] = -0.5
	m.Act(1, w, nil, a2)
	if a1[0] == a2[0] {
		t.Fatal("the action did not change with a value the actor sees")
	}
	// in a joint window (2 steps × 2 agents × 3 values = 0..11) agent 1's
	// actor part is steps' values 3, 4 and 9, 10
	joint := make([]float64, 12)
	for i := range joint {
		joint[i] = float64(i)
	}
	got := m.agentWindow(joint, 1)
	for i, want := range []float64{3, 4, 9, 10} {
		if got[i] != want {
			t.Fatalf("agent 1's actor window %v, want (3, 4, 9, 10)", got)
		}
	}
	cfg.ActorObs = 4
	if _, err := NewMADDPG(cfg, 2, 3, 1, smoothNet(t, 4, 4, 1, true), smoothNet(t, 14, 4, 1, false), nn.NewRand(1)); err == nil || !strings.Contains(err.Error(), "actor_obs = 4") {
		t.Errorf("actor_obs 4 of 3: %v", err)
	}
}

func TestTD3DelayedUpdatesAndTargets(t *testing.T) {
	cfg := DefaultTD3()
	cfg.History, cfg.BatchSize, cfg.PolicyDelay, cfg.Tau = 1, 8, 3, 0.5
	m, err := NewTD3(cfg, 2, 1, smoothNet(t, 2, 4, 1, false), smoothNet(t, 3, 4, 1, false), nn.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	buf := randomReplay(t, m, 50, 2)
	snap := func(net *nn.Sequential) []float64 {
		var w []float64
		for _, p := range net.Params() {
			w = append(w, p.W...)
		}
		return w
	}
	actor0, targ0, critT0 := snap(m.actors[0]), snap(m.actorsT[0]), snap(m.critsT[0][0])
	for u := 1; u <= 2; u++ {
		st, err := m.Update(buf)
		if err != nil {
			t.Fatal(err)
		}
		if st.ActorStep || !math.IsNaN(st.ActorLoss) {
			t.Fatalf("update %d: actor step %v (loss %v), want none before update 3", u, st.ActorStep, st.ActorLoss)
		}
	}
	for i, w := range snap(m.actors[0]) {
		if w != actor0[i] {
			t.Fatal("the actor moved before its delayed update")
		}
	}
	for i, w := range snap(m.actorsT[0]) {
		if w != targ0[i] {
			t.Fatal("the target actor moved before the delayed update")
		}
	}
	critic := snap(m.critics[0][0])
	if st, _ := m.Update(buf); !st.ActorStep {
		t.Fatal("no actor step at update 3")
	}
	// the target critic is now ½·(critic after update 3) + ½·(its old value)
	c3 := snap(m.critics[0][0])
	for i, w := range snap(m.critsT[0][0]) {
		if want := float64(0.5*c3[i]) + float64(0.5*critT0[i]); w != want {
			t.Fatalf("target critic weight %d = %v, want %v", i, w, want)
		}
	}
	if snap(m.critics[0][0])[0] == critic[0] {
		t.Fatal("the critic did not move at update 3")
	}
}

func TestTD3CriticLearnsTerminalReward(t *testing.T) {
	// every transition terminal with reward 0.3: Q → 0.3 (y = r, no bootstrap)
	cfg := DefaultTD3()
	cfg.History, cfg.BatchSize = 1, 16
	m, _ := NewTD3(cfg, 1, 1, mlp(t, 1, []int{8}, 1), mlp(t, 2, []int{16}, 1), nn.NewRand(2))
	buf, _ := NewReplay(m.ReplayConfig(100))
	r := nn.NewRand(3)
	for range 100 {
		buf.Add(Transition{Obs: randVec(r, 1, 1), Act: randVec(r, 1, 0.5), Rew: []float64{0.3}, NextObs: []float64{5}, Done: true})
	}
	var st UpdateStats
	for range 1500 {
		st, _ = m.Update(buf)
	}
	if math.Abs(st.MeanQ-0.3) > 0.02 || st.CriticLoss > 1e-3 {
		t.Fatalf("mean Q %v, loss %v; want Q = 0.3", st.MeanQ, st.CriticLoss)
	}
}

func TestTD3Deterministic(t *testing.T) {
	run := func() []float64 {
		cfg := DefaultTD3()
		cfg.History, cfg.BatchSize = 2, 8
		m, _ := NewTD3(cfg, 2, 1, smoothNet(t, 2, 4, 1, true), smoothNet(t, 5, 4, 1, false), nn.NewRand(9))
		buf := randomReplay(t, m, 60, 1)
		for range 10 {
			if _, err := m.Update(buf); err != nil {
				t.Fatal(err)
			}
		}
		var w []float64
		for _, p := range m.actors[0].Params() {
			w = append(w, p.W...)
		}
		return w
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("two runs with the same seeds differ")
		}
	}
}

func TestTD3ConfigAndShapeErrors(t *testing.T) {
	for _, c := range []struct {
		mod  func(*TD3Config)
		want string
	}{
		{func(c *TD3Config) { c.Gamma = 1 }, "gamma = 1"},
		{func(c *TD3Config) { c.Tau = 0 }, "tau = 0"},
		{func(c *TD3Config) { c.BatchSize = 0 }, "batch_size = 0"},
		{func(c *TD3Config) { c.History = 0 }, "history = 0"},
		{func(c *TD3Config) { c.PolicyDelay = 0 }, "policy_delay = 0"},
		{func(c *TD3Config) { c.PolicyNoise = -1 }, "policy_noise = -1"},
		{func(c *TD3Config) { c.NoiseClip = math.NaN() }, "noise_clip = NaN"},
		{func(c *TD3Config) { c.ExploreNoise = 11 }, "explore_noise = 11"},
		{func(c *TD3Config) { c.Actor.LR = 0 }, "actor optimiser"},
		{func(c *TD3Config) { c.Critic.Beta1 = 1 }, "critic optimiser"},
		{func(c *TD3Config) { c.Action = Squash{1, 0} }, "action range"},
		{func(c *TD3Config) { c.StepsPerRound = 0 }, "steps_per_round = 0"},
		{func(c *TD3Config) { c.ActorObs = -1 }, "actor_obs = -1"},
	} {
		cfg := DefaultTD3()
		c.mod(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	if err := DefaultTD3().Validate(); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultTD3()
	r := nn.NewRand(1)
	if _, err := NewTD3(cfg, 5, 1, mlp(t, 7, []int{4}, 1), mlp(t, 26, []int{4}, 1), r); err == nil || !strings.Contains(err.Error(), "actor input width 7") {
		t.Errorf("bad actor: %v", err)
	}
	if _, err := NewTD3(cfg, 5, 1, mlp(t, 25, []int{4}, 1), mlp(t, 25, []int{4}, 1), r); err == nil || !strings.Contains(err.Error(), "critic maps 25 inputs") {
		t.Errorf("bad critic: %v", err)
	}
	m, err := NewTD3(cfg, 5, 1, mlp(t, 25, []int{4}, 1), mlp(t, 26, []int{4}, 1), r)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewReplay(ReplayConfig{Capacity: 10, ObsDim: 4, ActDim: 1, RewDim: 1})
	if _, err := m.Update(other); err == nil || !strings.Contains(err.Error(), "this learner needs 5, 1, 1") {
		t.Errorf("wrong replay: %v", err)
	}
}

func TestMADDPGReachesCooperativeOptimum(t *testing.T) {
	start := time.Now()
	cfg := toyTD3Config()
	m, err := NewMADDPG(cfg, 2, 1, 1, mlp(t, 1, []int{32, 32}, 1), mlp(t, 4, []int{32, 32}, 1), nn.NewRand(5))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := Evaluate(&coopEnv{flip: true}, m, 1, 200, 1, nn.NewRand(77))
	trainOffPolicy(t, &coopEnv{flip: true}, m, 1, 300, 1500, 6)
	got, err := Evaluate(&coopEnv{flip: true}, m, 1, 200, 1, nn.NewRand(77))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MADDPG cooperative: return %.4f before, %.4f after (optimum 1), %v", before, got, time.Since(start))
	if got < 0.95 {
		t.Fatalf("MADDPG reached %.4f, below 95 %% of the optimum 1", got)
	}
}

func TestMADDPGSharedActorReachesCooperativeOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s; TestMADDPGSharedActor checks the shared gradient in -short")
	}
	cfg := toyTD3Config()
	cfg.SharedActor = true
	m, err := NewMADDPG(cfg, 2, 1, 1, mlp(t, 1, []int{32, 32}, 1), mlp(t, 4, []int{32, 32}, 1), nn.NewRand(5))
	if err != nil {
		t.Fatal(err)
	}
	trainOffPolicy(t, &coopEnv{}, m, 1, 300, 1500, 6) // both agents see s: one policy fits both
	got, err := Evaluate(&coopEnv{}, m, 1, 200, 1, nn.NewRand(77))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MADDPG, shared actor, cooperative: return %.4f (optimum 1)", got)
	if got < 0.95 {
		t.Fatalf("reached %.4f, below 95 %% of the optimum 1", got)
	}
}
