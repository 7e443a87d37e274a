package rl

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// SeqBatch holds N windows of H consecutive steps of one stream's episode,
// ending at a sampled transition (docs/rl.md §2). Obs is N×H×ObsDim, oldest
// step first, so Obs[k*H*ObsDim:(k+1)*H*ObsDim] is sample k's window in the
// step-major layout of ml/nn (an LSTM actor reads it as H steps, an MLP as
// one flattened vector). Next is the window one step later: Obs's window
// shifted by one with the last step's NextObs appended. Act, Rew and Done are
// those of the last step of each window (the transition being learned from).
type SeqBatch struct {
	N, H      int
	Obs, Next []float64
	Act, Rew  []float64
	Done      []bool
	Index     []int // ring slot of each window's last step
	// Pad selects what happens at an episode's first H−1 steps: false, they
	// are never the end of a window (only full windows are returned); true,
	// every step can end a window and the missing older steps repeat the
	// episode's first observation (what History does when acting).
	Pad bool

	chain []int // scratch: the window's ring slots, oldest first
}

// NewSeqBatch returns a batch of n windows of h steps sized for this buffer.
func (b *Replay) NewSeqBatch(n, h int, pad bool) (*SeqBatch, error) {
	if n < 1 || n > 1<<20 {
		return nil, fmt.Errorf("rl: replay: batch size = %d, want 1..%d", n, 1<<20)
	}
	if h < 1 || h > 1024 {
		return nil, fmt.Errorf("rl: replay: window length h = %d, want 1..1024", h)
	}
	c := b.cfg
	return &SeqBatch{N: n, H: h, Pad: pad,
		Obs: make([]float64, n*h*c.ObsDim), Next: make([]float64, n*h*c.ObsDim),
		Act: make([]float64, n*c.ActDim), Rew: make([]float64, n*c.RewDim),
		Done: make([]bool, n), Index: make([]int, n), chain: make([]int, h)}, nil
}

// window walks back from slot i along its stream's links and fills chain
// (oldest first) with up to H slots; it returns how many steps were found.
func (b *Replay) window(i int, chain []int) int {
	h := len(chain)
	chain[h-1] = i
	n := 1
	capU := uint64(b.cfg.Capacity)
	for n < h {
		p := b.prev[i]
		if p == noPrev {
			break
		}
		j := int(p % capU)
		if b.seq[j] != p { // the previous step was overwritten
			break
		}
		i = j
		chain[h-1-n] = i
		n++
	}
	return n
}

// SampleSeq fills out with out.N windows whose last steps are drawn
// uniformly (with replacement) among the transitions that can end a window:
// every transition if out.Pad, else those with H−1 predecessors in their
// episode still in the buffer (drawn by rejection: uniform over the valid
// ones). It allocates nothing and fails if no valid window is found in
// 1000 draws in a row.
func (b *Replay) SampleSeq(r *rand.Rand, out *SeqBatch) error {
	if r == nil || out == nil {
		return errors.New("rl: replay: nil random source or batch")
	}
	n := b.Len()
	if n == 0 {
		return errEmpty
	}
	if err := b.checkBatch(out.Obs, out.Act, out.Rew, out.Next, out.N, out.H,
		out.H >= 1 && len(out.chain) == out.H && len(out.Done) == out.N && len(out.Index) == out.N); err != nil {
		return err
	}
	c, h := b.cfg, out.H
	od := c.ObsDim
	for k := range out.N {
		var i, got int
		for try := 0; ; try++ {
			if try == b.maxSeqRejects {
				return fmt.Errorf("rl: replay: no window of %d steps within one episode found in %d draws (%d transitions held; use padding or shorter windows)", h, try, n)
			}
			i = r.IntN(n)
			got = b.window(i, out.chain)
			if got == h || out.Pad {
				break
			}
		}
		// pad: the first got slots are valid at chain[h-got:]; repeat the oldest
		first := out.chain[h-got]
		for s := range h - got {
			out.chain[s] = first
		}
		ob := out.Obs[k*h*od : (k+1)*h*od]
		nx := out.Next[k*h*od : (k+1)*h*od]
		for s, j := range out.chain {
			copy(ob[s*od:(s+1)*od], b.obs[j*od:])
		}
		copy(nx, ob[od:])
		copy(nx[(h-1)*od:], b.next[i*od:(i+1)*od])
		out.Index[k] = i
		copy(out.Act[k*c.ActDim:(k+1)*c.ActDim], b.act[i*c.ActDim:])
		copy(out.Rew[k*c.RewDim:(k+1)*c.RewDim], b.rew[i*c.RewDim:])
		out.Done[k] = b.done[i]
	}
	return nil
}

// History keeps the last H observations of one agent for acting, with the
// padding rule of SampleSeq (the missing older steps of a young episode
// repeat its first observation), so that the windows an actor sees when
// acting are those it is trained on.
type History struct {
	h, dim int
	buf    []float64 // h×dim, oldest first
	n      int       // observations pushed since Reset
}

// NewHistory returns an empty history of h steps of dim values.
func NewHistory(h, dim int) (*History, error) {
	if h < 1 || h > 1024 {
		return nil, fmt.Errorf("rl: history: h = %d, want 1..1024", h)
	}
	if dim < 1 || dim > 1<<16 {
		return nil, fmt.Errorf("rl: history: dim = %d, want 1..%d", dim, 1<<16)
	}
	return &History{h: h, dim: dim, buf: make([]float64, h*dim)}, nil
}

// Reset starts a new episode (and zeroes the window).
func (hs *History) Reset() { hs.n = 0; clear(hs.buf) }

// Push appends one observation (len dim), dropping the oldest.
func (hs *History) Push(obs []float64) error {
	if len(obs) != hs.dim {
		return fmt.Errorf("rl: history: len(obs) = %d, want %d", len(obs), hs.dim)
	}
	d := hs.dim
	if hs.n == 0 {
		for s := range hs.h {
			copy(hs.buf[s*d:(s+1)*d], obs)
		}
	} else {
		copy(hs.buf, hs.buf[d:])
		copy(hs.buf[(hs.h-1)*d:], obs)
	}
	hs.n++
	return nil
}

// Window returns the h×dim window, oldest first (owned by hs; valid until
// the next Push). Before the first Push of an episode it is all zeros.
func (hs *History) Window() []float64 { return hs.buf }
