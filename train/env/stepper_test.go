package env

import (
	"errors"
	"testing"
)

// Stepping by hand with the policy's actions gives the policy's episode,
// bit for bit; each decision names the transition its boundary recorded;
// closing early ends the episode with ErrClosed.
func TestStepperMatchesEpisode(t *testing.T) {
	s := mustScenario(t, starYAML(4, 8, 100, 1_000_000, 60, ""))
	e := mustEnv(t, Config{Scenario: s, Seed: 2, History: 2, Reward: DECCReward()})
	pol := func(flow int, w []float64) float64 { return 0.1*float64(flow%3) - 0.1 + 0.01*w[FRate] }
	want, err := e.Episode(0, PolicyFunc(func(flow int, w, out []float64) error {
		out[0] = pol(flow, w)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	st := e.Stepper(0)
	if _, err := st.Episode(); err == nil {
		t.Error("Episode before the end: no error")
	}
	n, prevs := 0, 0
	for {
		d, ok := st.Next()
		if !ok {
			break
		}
		if d.Prev >= 0 {
			prevs++
			if int(st.T().Flow[d.Prev]) != d.Flow {
				t.Fatalf("decision of flow %d names transition %d of flow %d", d.Flow, d.Prev, st.T().Flow[d.Prev])
			}
		}
		st.Act(pol(d.Flow, d.Window))
		n++
	}
	got, err := st.Episode()
	if err != nil {
		t.Fatal(err)
	}
	sameTransitions(t, &got.T, &want.T)
	if n != int(got.Decisions) || prevs == 0 {
		t.Errorf("%d decisions stepped, %d taken, %d with a previous transition", n, got.Decisions, prevs)
	}
	early := e.Stepper(0)
	for range 10 {
		early.Next()
	}
	early.Close()
	if _, err := early.Episode(); !errors.Is(err, ErrClosed) {
		t.Errorf("closed early: %v", err)
	}
}
