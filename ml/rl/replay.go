package rl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ReplayConfig sizes a replay buffer.
type ReplayConfig struct {
	// Capacity is the number of transitions kept; the oldest is overwritten
	// first. 1..1<<26 (DECC's unspecified replay size is 10⁶, decc.md §1.7).
	Capacity int
	// ObsDim, ActDim and RewDim are the widths of one step's observation,
	// action and reward vectors (RewDim > 1 holds one reward per agent of a
	// joint multi-agent transition). Each 1..65536.
	ObsDim, ActDim, RewDim int
}

// MaxCapacity bounds ReplayConfig.Capacity.
const MaxCapacity = 1 << 26

func (c ReplayConfig) validate() error {
	if c.Capacity < 1 || c.Capacity > MaxCapacity {
		return fmt.Errorf("rl: replay: capacity = %d, want 1..%d", c.Capacity, MaxCapacity)
	}
	for _, f := range [...]struct {
		name string
		v    int
	}{{"obs_dim", c.ObsDim}, {"act_dim", c.ActDim}, {"rew_dim", c.RewDim}} {
		if f.v < 1 || f.v > 1<<16 {
			return fmt.Errorf("rl: replay: %s = %d, want 1..%d", f.name, f.v, 1<<16)
		}
	}
	return nil
}

// Transition is one step of one agent (or one joint step of all agents):
// it observed Obs, took Act, received Rew and then observed NextObs.
type Transition struct {
	Obs, Act, Rew, NextObs []float64
	// Done marks a terminal step: the learner does not bootstrap from
	// NextObs. It also ends the episode.
	Done bool
	// End marks the last step of an episode that was cut without reaching a
	// terminal state (a time limit): the learner still bootstraps, but no
	// sequence window runs past it.
	End bool
	// Stream names the agent (flow, environment copy) the step belongs to;
	// consecutive steps of one stream form its episodes. Any int.
	Stream int
}

const noPrev = math.MaxUint64

// Replay is a fixed-capacity ring of transitions with seeded uniform
// sampling. Besides single transitions it returns windows of H consecutive
// steps of one stream's episode (SampleSeq): each transition keeps a link to
// the previous step of its stream, so agents whose steps interleave in the
// ring are told apart and a window never crosses an episode boundary. It is
// not safe for concurrent use.
type Replay struct {
	cfg           ReplayConfig
	obs, next     []float64
	act, rew      []float64
	done          []bool
	seq, prev     []uint64       // global add number of the slot; that of its stream's previous step
	added         uint64         // transitions added so far
	last          map[int]uint64 // add number of each stream's last step, while its episode goes on
	maxSeqRejects int
}

// NewReplay returns an empty buffer; its memory is allocated at once.
func NewReplay(cfg ReplayConfig) (*Replay, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n := cfg.Capacity
	return &Replay{cfg: cfg,
		obs: make([]float64, n*cfg.ObsDim), next: make([]float64, n*cfg.ObsDim),
		act: make([]float64, n*cfg.ActDim), rew: make([]float64, n*cfg.RewDim),
		done: make([]bool, n), seq: make([]uint64, n), prev: make([]uint64, n),
		last: map[int]uint64{}, maxSeqRejects: 1000}, nil
}

// Config returns the buffer's configuration.
func (b *Replay) Config() ReplayConfig { return b.cfg }

// Len is the number of transitions held (≤ Capacity).
func (b *Replay) Len() int { return int(min(b.added, uint64(b.cfg.Capacity))) }

// Added is the number of transitions added since the buffer was made.
func (b *Replay) Added() uint64 { return b.added }

func checkVec(who, field string, v []float64, n int) error {
	if len(v) != n {
		return fmt.Errorf("rl: %s: len(%s) = %d, want %d", who, field, len(v), n)
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("rl: %s: %s[%d] = %v, want finite", who, field, i, x)
		}
	}
	return nil
}

// Add copies t into the buffer, overwriting the oldest transition when full.
func (b *Replay) Add(t Transition) error {
	c := b.cfg
	for _, f := range [...]struct {
		name string
		v    []float64
		n    int
	}{{"obs", t.Obs, c.ObsDim}, {"act", t.Act, c.ActDim}, {"rew", t.Rew, c.RewDim}, {"next_obs", t.NextObs, c.ObsDim}} {
		if err := checkVec("replay: add", f.name, f.v, f.n); err != nil {
			return err
		}
	}
	i := int(b.added % uint64(c.Capacity))
	copy(b.obs[i*c.ObsDim:], t.Obs)
	copy(b.next[i*c.ObsDim:], t.NextObs)
	copy(b.act[i*c.ActDim:], t.Act)
	copy(b.rew[i*c.RewDim:], t.Rew)
	b.done[i] = t.Done
	b.seq[i] = b.added
	b.prev[i] = noPrev
	if p, ok := b.last[t.Stream]; ok {
		b.prev[i] = p
	}
	if t.Done || t.End { // the stream's next step starts an episode; the map holds only running ones
		delete(b.last, t.Stream)
	} else {
		b.last[t.Stream] = b.added
	}
	b.added++
	return nil
}

// EndStream ends the current episode of stream s (as if its last step had
// End set): its next step starts a new episode.
func (b *Replay) EndStream(s int) { delete(b.last, s) }

// Batch holds N sampled transitions, flat: Obs[k*ObsDim:(k+1)*ObsDim] is
// sample k's observation, and so on. Made by Replay.NewBatch; reused by
// every Sample.
type Batch struct {
	N                   int
	Obs, Act, Rew, Next []float64
	Done                []bool
	Index               []int // ring slot of each sample
}

// NewBatch returns a batch of n samples sized for this buffer.
func (b *Replay) NewBatch(n int) (*Batch, error) {
	if n < 1 || n > 1<<20 {
		return nil, fmt.Errorf("rl: replay: batch size = %d, want 1..%d", n, 1<<20)
	}
	c := b.cfg
	return &Batch{N: n, Obs: make([]float64, n*c.ObsDim), Act: make([]float64, n*c.ActDim),
		Rew: make([]float64, n*c.RewDim), Next: make([]float64, n*c.ObsDim),
		Done: make([]bool, n), Index: make([]int, n)}, nil
}

var errEmpty = errors.New("rl: replay: the buffer is empty")

// Sample fills out with out.N transitions drawn uniformly with replacement
// with r (one r.IntN per sample). It allocates nothing.
func (b *Replay) Sample(r *rand.Rand, out *Batch) error {
	if r == nil || out == nil {
		return errors.New("rl: replay: nil random source or batch")
	}
	n := b.Len()
	if n == 0 {
		return errEmpty
	}
	if err := b.checkBatch(out.Obs, out.Act, out.Rew, out.Next, out.N, 1, len(out.Done) == out.N && len(out.Index) == out.N); err != nil {
		return err
	}
	c := b.cfg
	for k := range out.N {
		i := r.IntN(n)
		out.Index[k] = i
		copy(out.Obs[k*c.ObsDim:(k+1)*c.ObsDim], b.obs[i*c.ObsDim:])
		copy(out.Next[k*c.ObsDim:(k+1)*c.ObsDim], b.next[i*c.ObsDim:])
		copy(out.Act[k*c.ActDim:(k+1)*c.ActDim], b.act[i*c.ActDim:])
		copy(out.Rew[k*c.RewDim:(k+1)*c.RewDim], b.rew[i*c.RewDim:])
		out.Done[k] = b.done[i]
	}
	return nil
}

func (b *Replay) checkBatch(obs, act, rew, next []float64, n, h int, rest bool) error {
	c := b.cfg
	if !rest || n < 1 || len(obs) != n*h*c.ObsDim || len(next) != n*h*c.ObsDim || len(act) != n*c.ActDim || len(rew) != n*c.RewDim {
		return errors.New("rl: replay: the batch was not made by this buffer's NewBatch/NewSeqBatch")
	}
	return nil
}
