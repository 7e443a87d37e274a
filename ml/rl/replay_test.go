package rl

import (
	"math"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// tr makes a transition whose observation encodes (stream, episode, step):
// obs = [stream, episode, step], next = [stream, episode, step+1],
// act = [step], rew = [10·step].
func tr(stream, ep, step int, done, end bool) Transition {
	s, e, k := float64(stream), float64(ep), float64(step)
	return Transition{Obs: []float64{s, e, k}, NextObs: []float64{s, e, k + 1},
		Act: []float64{k}, Rew: []float64{10 * k}, Done: done, End: end, Stream: stream}
}

func newTestReplay(t *testing.T, capacity int) *Replay {
	t.Helper()
	b, err := NewReplay(ReplayConfig{Capacity: capacity, ObsDim: 3, ActDim: 1, RewDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReplayRingAndUniformSample(t *testing.T) {
	b := newTestReplay(t, 5)
	for k := range 7 {
		if err := b.Add(tr(0, 0, k, false, false)); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != 5 || b.Added() != 7 {
		t.Fatalf("Len %d Added %d, want 5 and 7", b.Len(), b.Added())
	}
	batch, err := b.NewBatch(1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Sample(nn.NewRand(3), batch); err != nil {
		t.Fatal(err)
	}
	var count [7]int
	for k := range batch.N {
		step := int(batch.Obs[3*k+2])
		count[step]++
		if batch.Next[3*k+2] != float64(step+1) || batch.Act[k] != float64(step) || batch.Rew[k] != float64(10*step) {
			t.Fatalf("sample %d: fields of different transitions: obs %v next %v act %v rew %v",
				k, batch.Obs[3*k:3*k+3], batch.Next[3*k:3*k+3], batch.Act[k], batch.Rew[k])
		}
	}
	if count[0] != 0 || count[1] != 0 {
		t.Fatalf("overwritten transitions 0 and 1 were sampled: %v", count)
	}
	// uniform over the 5 held: each count ~ Binomial(1000, 0.2), sd 12.6;
	// a 5-sd band can fail only by a bug (or one seed in ~10⁶)
	for s := 2; s < 7; s++ {
		if math.Abs(float64(count[s])-200) > 63 {
			t.Fatalf("counts %v not uniform over steps 2..6", count)
		}
	}
	// same seed, same draws
	b2 := newTestReplay(t, 5)
	for k := range 7 {
		b2.Add(tr(0, 0, k, false, false))
	}
	batch2, _ := b2.NewBatch(1000)
	b2.Sample(nn.NewRand(3), batch2)
	for i := range batch.Obs {
		if batch.Obs[i] != batch2.Obs[i] {
			t.Fatal("two buffers with the same content and seed sampled differently")
		}
	}
}

// fillStreams adds two interleaved streams (agents 0 and 1): stream s has
// episodes of lengths lens[s], each ended by Done (even episodes) or End.
func fillStreams(t *testing.T, b *Replay, lens [2][]int) {
	t.Helper()
	pos := [2][2]int{} // episode, step
	for {
		any := false
		for s := range 2 {
			e, k := pos[s][0], pos[s][1]
			if e >= len(lens[s]) {
				continue
			}
			any = true
			last := k == lens[s][e]-1
			if err := b.Add(tr(s, e, k, last && e%2 == 0, last && e%2 == 1)); err != nil {
				t.Fatal(err)
			}
			if last {
				pos[s] = [2]int{e + 1, 0}
			} else {
				pos[s][1]++
			}
		}
		if !any {
			return
		}
	}
}

func TestReplaySequenceWindows(t *testing.T) {
	const h = 3
	for _, pad := range []bool{false, true} {
		b := newTestReplay(t, 1000)
		fillStreams(t, b, [2][]int{{5, 2, 7}, {4, 6, 1}})
		sb, err := b.NewSeqBatch(2000, h, pad)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.SampleSeq(nn.NewRand(7), sb); err != nil {
			t.Fatal(err)
		}
		ends := map[[3]int]int{}
		for k := range sb.N {
			w := sb.Obs[k*h*3 : (k+1)*h*3]
			nx := sb.Next[k*h*3 : (k+1)*h*3]
			last := [3]int{int(w[6]), int(w[7]), int(w[8])}
			ends[last]++
			for s := range h {
				if w[3*s] != w[6] || w[3*s+1] != w[7] {
					t.Fatalf("pad %v: window %v crosses a stream or episode", pad, w)
				}
				want := w[8] - float64(h-1-s) // consecutive steps
				if pad {
					want = max(want, 0) // padded by the episode's first step
				}
				if w[3*s+2] != want {
					t.Fatalf("pad %v: window %v: step %d is %v, want %v", pad, w, s, w[3*s+2], want)
				}
				// Next = window shifted by one, then the last step's NextObs
				wantNext := w[8] + 1
				if s < h-1 {
					wantNext = w[3*(s+1)+2]
				}
				if nx[3*s+2] != wantNext || nx[3*s] != w[6] {
					t.Fatalf("pad %v: next window %v for window %v", pad, nx, w)
				}
			}
			if sb.Act[k] != w[8] || sb.Rew[k] != 10*w[8] {
				t.Fatalf("act %v rew %v for window ending at step %v", sb.Act[k], sb.Rew[k], w[8])
			}
			ep, step := int(w[7]), int(w[8])
			lens := [2][]int{{5, 2, 7}, {4, 6, 1}}[int(w[6])]
			wantDone := step == lens[ep]-1 && ep%2 == 0
			if sb.Done[k] != wantDone {
				t.Fatalf("window ending at %v: done %v, want %v", last, sb.Done[k], wantDone)
			}
		}
		// valid window ends: steps ≥ h−1 of each episode (every step if pad)
		valid := 0
		for s, ls := range [2][]int{{5, 2, 7}, {4, 6, 1}} {
			for e, l := range ls {
				for k := range l {
					n := ends[[3]int{s, e, k}]
					ok := pad || k >= h-1
					if ok {
						valid++
					}
					if !ok && n > 0 {
						t.Fatalf("pad %v: a window ended at stream %d episode %d step %d", pad, s, e, k)
					}
					if ok && n == 0 {
						t.Fatalf("pad %v: no window ended at stream %d episode %d step %d in 2000 draws", pad, s, e, k)
					}
				}
			}
		}
		if len(ends) != valid {
			t.Fatalf("pad %v: %d distinct window ends, want %d", pad, len(ends), valid)
		}
	}
}

func TestReplaySequenceOverwrittenPredecessor(t *testing.T) {
	// capacity 4, one stream of 6 steps: slots hold steps 2..5; a window of 3
	// may end at 4 or 5 only (step 3's predecessor 1 is gone)
	b := newTestReplay(t, 4)
	for k := range 6 {
		b.Add(tr(0, 0, k, false, false))
	}
	sb, _ := b.NewSeqBatch(400, 3, false)
	if err := b.SampleSeq(nn.NewRand(1), sb); err != nil {
		t.Fatal(err)
	}
	for k := range sb.N {
		if last := sb.Obs[k*9+8]; last != 4 && last != 5 {
			t.Fatalf("window ending at step %v, want 4 or 5", last)
		}
	}
	// a window of 5 cannot exist: an error naming the cause
	sb5, _ := b.NewSeqBatch(1, 5, false)
	err := b.SampleSeq(nn.NewRand(1), sb5)
	if err == nil || !strings.Contains(err.Error(), "no window of 5 steps") {
		t.Fatalf("err = %v, want no window of 5 steps", err)
	}
	// EndStream cuts the link
	b.EndStream(0)
	b.Add(tr(0, 1, 0, false, false))
	sb1, _ := b.NewSeqBatch(200, 2, false)
	b.SampleSeq(nn.NewRand(2), sb1)
	for k := range sb1.N {
		if sb1.Obs[k*6+1] != sb1.Obs[k*6+4] {
			t.Fatalf("window %v crosses EndStream", sb1.Obs[k*6:k*6+6])
		}
	}
}

func TestReplayNoAllocation(t *testing.T) {
	b := newTestReplay(t, 100)
	fillStreams(t, b, [2][]int{{30, 20}, {25, 25}})
	r := nn.NewRand(1)
	batch, _ := b.NewBatch(64)
	sb, _ := b.NewSeqBatch(64, 5, false)
	if a := testing.AllocsPerRun(20, func() { b.Sample(r, batch) }); a != 0 {
		t.Fatalf("Sample allocates %v times", a)
	}
	if a := testing.AllocsPerRun(20, func() { b.SampleSeq(r, sb) }); a != 0 {
		t.Fatalf("SampleSeq allocates %v times", a)
	}
}

func TestReplayErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  ReplayConfig
		want string
	}{
		{ReplayConfig{Capacity: 0, ObsDim: 1, ActDim: 1, RewDim: 1}, "capacity = 0"},
		{ReplayConfig{Capacity: 10, ObsDim: 0, ActDim: 1, RewDim: 1}, "obs_dim = 0"},
		{ReplayConfig{Capacity: 10, ObsDim: 1, ActDim: -1, RewDim: 1}, "act_dim = -1"},
		{ReplayConfig{Capacity: 10, ObsDim: 1, ActDim: 1, RewDim: 0}, "rew_dim = 0"},
	} {
		if _, err := NewReplay(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.cfg, err, c.want)
		}
	}
	b := newTestReplay(t, 10)
	batch, _ := b.NewBatch(2)
	if err := b.Sample(nn.NewRand(1), batch); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("sample of empty buffer: err = %v", err)
	}
	bad := tr(0, 0, 0, false, false)
	bad.Obs = bad.Obs[:2]
	if err := b.Add(bad); err == nil || !strings.Contains(err.Error(), "len(obs) = 2, want 3") {
		t.Errorf("short obs: err = %v", err)
	}
	bad = tr(0, 0, 0, false, false)
	bad.Rew[0] = math.NaN()
	if err := b.Add(bad); err == nil || !strings.Contains(err.Error(), "rew[0] = NaN") {
		t.Errorf("NaN reward: err = %v", err)
	}
	b.Add(tr(0, 0, 0, false, false))
	other := newTestReplay(t, 10)
	ob, _ := NewReplay(ReplayConfig{Capacity: 10, ObsDim: 2, ActDim: 1, RewDim: 1})
	wrong, _ := ob.NewBatch(2)
	if err := b.Sample(nn.NewRand(1), wrong); err == nil {
		t.Error("a batch of another shape was accepted")
	}
	_ = other
	if _, err := b.NewSeqBatch(4, 0, false); err == nil || !strings.Contains(err.Error(), "h = 0") {
		t.Errorf("h = 0: err = %v", err)
	}
}

func TestHistoryMatchesPaddedWindows(t *testing.T) {
	const h = 4
	hs, err := NewHistory(h, 3)
	if err != nil {
		t.Fatal(err)
	}
	b := newTestReplay(t, 100)
	hs.Reset()
	var windows [][]float64
	for k := range 6 {
		x := tr(0, 0, k, false, false)
		hs.Push(x.Obs)
		windows = append(windows, append([]float64(nil), hs.Window()...))
		b.Add(x)
	}
	sb, _ := b.NewSeqBatch(300, h, true)
	b.SampleSeq(nn.NewRand(5), sb)
	for k := range sb.N {
		w := sb.Obs[k*h*3 : (k+1)*h*3]
		want := windows[int(w[len(w)-1])]
		for i := range w {
			if w[i] != want[i] {
				t.Fatalf("replay window %v, acting window %v", w, want)
			}
		}
	}
	if err := hs.Push([]float64{1}); err == nil {
		t.Error("short observation accepted")
	}
	hs.Reset()
	for _, v := range hs.Window() {
		if v != 0 {
			t.Fatal("window not zero after Reset")
		}
	}
}

func TestReplayForgetsEndedStreams(t *testing.T) {
	// a simulation adds many short-lived flows: the buffer keeps no state for
	// a stream whose episode ended
	b := newTestReplay(t, 50)
	for s := range 1000 {
		b.Add(tr(s, 0, 0, false, false))
		b.Add(tr(s, 0, 1, s%2 == 0, s%2 == 1))
	}
	b.Add(tr(5000, 0, 0, false, false))
	if len(b.last) != 1 {
		t.Fatalf("%d streams remembered, want 1 (the running one)", len(b.last))
	}
	b.EndStream(5000)
	if len(b.last) != 0 {
		t.Fatal("EndStream did not forget the stream")
	}
}

func TestReplayRejectsForeignBatches(t *testing.T) {
	b := newTestReplay(t, 10)
	b.Add(tr(0, 0, 0, false, false))
	r := nn.NewRand(1)
	if err := b.Sample(r, &Batch{N: 1, Obs: make([]float64, 3), Next: make([]float64, 3), Act: make([]float64, 1), Rew: make([]float64, 1)}); err == nil {
		t.Error("a batch without Done and Index accepted")
	}
	if err := b.SampleSeq(r, &SeqBatch{N: 1, H: 1, Obs: make([]float64, 3), Next: make([]float64, 3), Act: make([]float64, 1), Rew: make([]float64, 1), Done: make([]bool, 1), Index: make([]int, 1)}); err == nil {
		t.Error("a sequence batch not made by NewSeqBatch accepted")
	}
	if err := b.Sample(nil, nil); err == nil {
		t.Error("nil arguments accepted")
	}
}
