package env

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
)

// DECC's reward on a hand example of two active flows and a finished one
// (decc.md §1.6): thr 0.3 and 0.5 (histories 0.1, 0.3 and 0.5, 0.5), lat
// 1.5 and 1.3, rates 0.4 and 0.6, flow 1 retransmitting 1000 of 4000 B.
func TestDECCRewardHandExample(t *testing.T) {
	v := &View{Flows: []FlowState{
		{Active: true, Intervals: 2, Thr: 0.3, Lat: 1.5, Rate: 0.4, AckedBytes: 2000, Payload: 1000},
		{Active: true, Intervals: 2, Thr: 0.5, Lat: 1.3, Rate: 0.6, AckedBytes: 4000, RetxBytes: 1000, Payload: 1000},
		{Active: false, Intervals: 9, Thr: 1, Lat: 9, Rate: 1},
	}}
	v.Flows[0].ThrHist[0], v.Flows[0].ThrHist[1] = 0.1, 0.3
	v.Flows[1].ThrHist[0], v.Flows[1].ThrHist[1] = 0.5, 0.5
	r := DECCReward()
	r.Clip = 10
	// R_thr = 0.8; R_lat = (1.4 − 1.1)·0.6 = 0.18; R_loss = (0 + 0.25)/2;
	// avg_thr = 0.2, 0.5: R_fair = −0.15; CoV = (0.1/0.2, 0): R_stab = −0.25
	want := 0.1*0.8 - 0.02*0.18 - 1*0.125 + 0.02*(-0.15) + 0.01*(-0.25)
	if got := r.Reward(v, 0); math.Abs(got-want) > 1e-15 {
		t.Errorf("reward %v, want %v", got, want)
	}
	r.Clip = 0.01
	if got := r.Reward(v, 1); got != -0.01 {
		t.Errorf("clipped reward %v, want -0.01", got)
	}
	if got := (ThrLat{Delta: 2, Loss: 1}).Reward(v, 1); math.Abs(got-(0.5-2*0.3-0)) > 1e-15 {
		t.Errorf("thr-lat reward %v, want %v", got, 0.5-0.6)
	}
}

// Every bad field is refused with its name and range.
func TestConfigErrors(t *testing.T) {
	s := mustScenario(t, starYAML(2, 1, 100, 1000, 10, ""))
	bad := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "scenario is nil"},
		{Config{Scenario: s, History: 2000}, "history = 2000 out of range [1, 1024]"},
		{Config{Scenario: s, Latency: Latency{Cost: -1}}, "latency.cost"},
		{Config{Scenario: s, Latency: Latency{Cores: 5000}}, "latency.cores = 5000 out of range"},
		{Config{Scenario: s, Latency: Latency{Queue: "drop"}}, `latency.queue = "drop": allowed values wait, skip`},
		{Config{Scenario: s, Reward: ThrLat{Delta: -1}}, "reward.delta = -1 out of range [0, 1e6]"},
		{Config{Scenario: s, Reward: DECC{W: 5, Clip: 1, C2: -1}}, "reward.c2 = -1"},
		{Config{Scenario: s, Reward: DECC{W: 9, Clip: 1}}, "reward.w = 9 out of range [1, 8]"},
	}
	for _, c := range bad {
		_, err := New(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg.Latency, err, c.want)
		}
	}
	// the agent's own parameters are checked with the scenario
	_, err := scenario.Parse([]byte(starYAML(2, 1, 100, 1000, 10, "{mode: fast}")))
	if err == nil || !strings.Contains(err.Error(), `mode = "fast": allowed values scale, rate`) {
		t.Errorf("params.agent.mode: %v", err)
	}
	if _, err := mustEnv(t, Config{Scenario: s}).Run(0, 1, nil); err == nil || !strings.Contains(err.Error(), "k = 0 out of range") {
		t.Errorf("run k = 0: %v", err)
	}
	if _, err := mustEnv(t, Config{Scenario: s}).Episode(0, nil); err == nil {
		t.Error("nil policy accepted")
	}
	// a policy's error stops the episode's decisions and is returned
	boom := errors.New("boom")
	_, err = mustEnv(t, Config{Scenario: mustScenario(t, starYAML(2, 1, 100, 1_000_000, 50, ""))}).Episode(0,
		PolicyFunc(func(int, []float64, []float64) error { return boom }))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "policy, flow 0 at") {
		t.Errorf("policy error: %v", err)
	}
}
