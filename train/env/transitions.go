package env

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/ccsim/ccsim/ml/rl"
	"github.com/ccsim/ccsim/sim"
)

// ActDim is the length of an action: one value per flow per decision
// (cc.AgentParams.Mode gives its meaning).
const ActDim = 1

// Transitions is a stream of per-flow transitions stored flat, in the
// order they happened (boundary time, then the fabric's event order; K
// environments merged in environment order). Transition i is (Obs[i],
// Act[i], Rew[i], Next[i]): the observation of flow Flow[i] at one
// boundary, the action chosen there, the reward and observation of its
// next boundary, at time At[i].
type Transitions struct {
	ObsDim int
	Obs    []float64 // Len × ObsDim
	Next   []float64 // Len × ObsDim
	Act    []float64 // Len × ActDim
	Rew    []float64
	Flow   []int32
	Env    []int32    // the environment (Run's index k)
	At     []sim.Time // time of the next observation
	// Done: the flow completed at At (terminal); End: the episode was cut
	// after this transition (the flow's last one before the stop time).
	Done, End []bool
	// Skipped: no decision was taken at the observation (decision cores
	// busy, Latency.Queue = "skip"); Act holds the no-op action.
	Skipped []bool
}

// Len is the number of transitions.
func (t *Transitions) Len() int { return len(t.Rew) }

// add appends one transition.
func (t *Transitions) add(env int32, flow int32, obs []float64, act float64, rew float64, next []float64, at sim.Time, done, skipped bool) {
	t.Obs = append(t.Obs, obs...)
	t.Next = append(t.Next, next...)
	t.Act = append(t.Act, act)
	t.Rew = append(t.Rew, rew)
	t.Flow = append(t.Flow, flow)
	t.Env = append(t.Env, env)
	t.At = append(t.At, at)
	t.Done = append(t.Done, done)
	t.End = append(t.End, false)
	t.Skipped = append(t.Skipped, skipped)
}

// Append appends every transition of o (same ObsDim).
func (t *Transitions) Append(o *Transitions) error {
	if t.ObsDim == 0 {
		t.ObsDim = o.ObsDim
	}
	if o.ObsDim != t.ObsDim && o.Len() > 0 {
		return fmt.Errorf("env: append: obs dim %d, want %d", o.ObsDim, t.ObsDim)
	}
	t.Obs = append(t.Obs, o.Obs...)
	t.Next = append(t.Next, o.Next...)
	t.Act = append(t.Act, o.Act...)
	t.Rew = append(t.Rew, o.Rew...)
	t.Flow = append(t.Flow, o.Flow...)
	t.Env = append(t.Env, o.Env...)
	t.At = append(t.At, o.At...)
	t.Done = append(t.Done, o.Done...)
	t.End = append(t.End, o.End...)
	t.Skipped = append(t.Skipped, o.Skipped...)
	return nil
}

// AddTo adds every transition to buf (RewDim 1, ObsDim and ActDim as
// here) with Stream = Env × flowsPerEnv + Flow, so that the sequence
// windows of rl.Replay follow one flow of one environment.
func (t *Transitions) AddTo(buf *rl.Replay, flowsPerEnv int) error {
	if buf == nil {
		return errors.New("env: add to replay: nil buffer")
	}
	o := t.ObsDim
	for i := range t.Len() {
		err := buf.Add(rl.Transition{Obs: t.Obs[i*o : (i+1)*o], Act: t.Act[i : i+1], Rew: t.Rew[i : i+1],
			NextObs: t.Next[i*o : (i+1)*o], Done: t.Done[i], End: t.End[i],
			Stream: int(t.Env[i])*flowsPerEnv + int(t.Flow[i])})
		if err != nil {
			return err
		}
	}
	return nil
}

// Policy chooses a flow's action from its window of the last History
// observations (oldest first, History × ObsDim values, padded as
// rl.History). An environment calls one Policy from one goroutine.
type Policy interface {
	Act(flow int, window []float64, out []float64) error
}

// Recorder is implemented by a policy that wants each transition as it
// is recorded: the environment calls Recorded(t, i) after appending
// transition i of the episode's t (at a boundary before asking for the
// flow's next action; at a flow's completion without asking). t is the
// live episode's store: read it during the call or by index later.
type Recorder interface {
	Recorded(t *Transitions, i int)
}

// PolicyFunc adapts a function to Policy.
type PolicyFunc func(flow int, window []float64, out []float64) error

// Act implements Policy.
func (f PolicyFunc) Act(flow int, window []float64, out []float64) error { return f(flow, window, out) }

// Constant is the policy that always answers the same action.
type Constant float64

// Act implements Policy.
func (c Constant) Act(_ int, _ []float64, out []float64) error { out[0] = float64(c); return nil }

// ActorPolicy runs an ml/rl actor (MADDPG, TD3, PPO) as agent Agent (0 for
// a shared actor) for every flow, with exploration noise from Noise (nil:
// greedy).
type ActorPolicy struct {
	Actor rl.Actor
	Agent int
	Noise *rand.Rand
}

// Act implements Policy.
func (p ActorPolicy) Act(_ int, window []float64, out []float64) error {
	return p.Actor.Act(p.Agent, window, p.Noise, out)
}
