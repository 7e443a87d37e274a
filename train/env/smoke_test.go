package env

import "testing"

func TestSmoke(t *testing.T) {
	s := mustScenario(t, starYAML(16, 32, 400, 10_000_000, 200, ""))
	e := mustEnv(t, Config{Scenario: s, Seed: 1, Reward: DECCReward(), Global: true})
	ep, err := e.Episode(0, Constant(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("transitions %d end %v decisions %d", ep.T.Len(), ep.End, ep.Decisions)
	for i := 0; i < 3; i++ {
		t.Logf("%v flow %d obs %.3f act %v rew %v", ep.T.At[i], ep.T.Flow[i], ep.T.Obs[i*e.obsDim:(i+1)*e.obsDim], ep.T.Act[i], ep.T.Rew[i])
	}
}
