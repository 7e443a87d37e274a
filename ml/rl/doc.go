// Package rl holds ccsim's reinforcement-learning algorithms in pure Go:
// an experience-replay buffer (uniform, seeded, with a sequence-aware mode
// that returns windows of consecutive steps of one agent's episode, for LSTM
// actors and state histories), Polyak target updates, policy heads
// (categorical, tanh-squashed deterministic and tanh-squashed Gaussian) with
// their analytic gradients, TD3, MADDPG with TD3's tricks and a centralised
// critic, PPO with generalised advantage estimation, and ADPG's analytic
// policy-gradient loss.
//
// It builds on ml/nn: every network is an *nn.Sequential chosen by the
// caller; the learners only assume its input and output widths. It knows
// nothing about networks or congestion control either: environments are the
// small interfaces Env and MultiEnv over []float64 observations and actions,
// implemented by the simulator (issue 17 §1) or by the toy tasks of the tests.
//
// Every random draw comes from a *rand.Rand the caller seeds (nn.NewRand), so
// a run is repeatable for a seed. docs/rl.md describes each algorithm, its
// defaults with their sources and every interpretation.
package rl
