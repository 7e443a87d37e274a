package nn

import "testing"

// BenchmarkLSTMPredict is one inference of paper 001's predictor: an LSTM
// over 3 steps of 1 input with 16 hidden units, then the linear head 16 → 1.
func BenchmarkLSTMPredict(b *testing.B) {
	m := paper001Model(b)
	m.Init(NewRand(1))
	ws := m.NewWorkspace(3)
	x := []float64{0.01, -0.02, 0.03}
	b.ReportAllocs()
	s := 0.0
	for b.Loop() {
		y, err := m.Forward(ws, x, 3)
		if err != nil {
			b.Fatal(err)
		}
		s += y[0]
	}
	if s != s {
		b.Fatal("NaN")
	}
}

// BenchmarkLSTMTrainStep is one sample's forward and backward pass of the
// same model (the trainer's unit of work).
func BenchmarkLSTMTrainStep(b *testing.B) {
	m := paper001Model(b)
	m.Init(NewRand(1))
	ws := m.NewWorkspace(3)
	x := []float64{0.01, -0.02, 0.03}
	dy := []float64{1}
	b.ReportAllocs()
	for b.Loop() {
		m.Forward(ws, x, 3)
		m.Backward(ws, dy)
	}
}

// BenchmarkDECCActorStep is one inference of paper 000's actor shape over its
// history window of 5 steps: dense 5→128→64→32 (ReLU), LSTM 32→32, dense
// 32→16 (ReLU) → 11.
func BenchmarkDECCActorStep(b *testing.B) {
	m := deccActor(b)
	m.Init(NewRand(1))
	ws := m.NewWorkspace(5)
	x := make([]float64, 25)
	for i := range x {
		x[i] = float64(i) / 25
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Forward(ws, x, 5)
	}
}

func deccActor(t testing.TB) *Sequential {
	return mustSeq(t,
		must(NewDense(5, 128, KaimingUniform)), must(NewActivation(ReLU, 128)),
		must(NewDense(128, 64, KaimingUniform)), must(NewActivation(ReLU, 64)),
		must(NewDense(64, 32, KaimingUniform)), must(NewActivation(ReLU, 32)),
		must(NewLSTM(32, 32, false)),
		must(NewDense(32, 16, KaimingUniform)), must(NewActivation(ReLU, 16)),
		must(NewDense(16, 11, XavierUniform)))
}

// TestInferenceAllocatesNothing: Forward and Backward allocate nothing once
// the workspace exists (and nothing more for shorter sequences).
func TestInferenceAllocatesNothing(t *testing.T) {
	for _, m := range []*Sequential{paper001Model(t), deccActor(t)} {
		m.Init(NewRand(1))
		steps := 5
		ws := m.NewWorkspace(steps)
		x := make([]float64, steps*m.InSize())
		dy := make([]float64, m.OutSteps(steps)*m.OutSize())
		xs := x[:3*m.InSize()]
		if n := testing.AllocsPerRun(100, func() {
			m.Forward(ws, x, steps)
			m.Backward(ws, dy)
			m.Forward(ws, xs, 3)
		}); n != 0 {
			t.Errorf("%v: %v allocations per call", m, n)
		}
	}
}

// TestWorkspaceGrows: a sequence longer than the workspace's hint works
// (one reallocation) and gives the same result as a fresh workspace.
func TestWorkspaceGrows(t *testing.T) {
	m := mustSeq(t, must(NewLSTM(2, 3, true)), must(NewDense(3, 1, XavierUniform)))
	m.Init(NewRand(2))
	small, big := m.NewWorkspace(1), m.NewWorkspace(6)
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for i := range x {
		x[i] /= 10
	}
	a := append([]float64(nil), must(m.Forward(small, x, 6))...)
	b := must(m.Forward(big, x, 6))
	if !equal(a, b) {
		t.Fatalf("grown workspace %v, fresh %v", a, b)
	}
	if _, err := m.Forward(small, x, 5); err == nil {
		t.Error("len(x) = 12 with 5 steps accepted")
	}
	if _, err := m.Forward(m.Clone().NewWorkspace(1), x, 6); err == nil {
		t.Error("a workspace of another model accepted")
	}
	if _, err := m.Backward(m.NewWorkspace(1), []float64{1}); err == nil {
		t.Error("Backward before Forward accepted")
	}
}
