package deccmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc/auroramodel"
	"github.com/ccsim/ccsim/ml/nn"
)

// TestActorShape: the teacher actor of decc.md §1.7 (5 → 128 → 64 → 32
// → LSTM 32 → 16 → 11; 20,139 parameters: the paper's "tens of thousands"),
// its action values, and the model file's round trip and shape checks.
func TestActorShape(t *testing.T) {
	m := NewActor()
	if m.InSize() != 5 || m.OutSize() != 11 || m.OutSteps(5) != 1 {
		t.Errorf("actor %v: in %d out %d steps %d, want 5, 11, 1", m, m.InSize(), m.OutSize(), m.OutSteps(5))
	}
	// dense 5·128+128, 128·64+64, 64·32+32; LSTM 4·32·(32+32)+4·32; dense 32·16+16, 16·11+11
	if n := m.NumParams(); n != 768+8256+2080+8320+528+187 {
		t.Errorf("%d parameters, want 20139", n)
	}
	want := []float64{-0.5, -0.4, -0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4, 0.5}
	for k, w := range want {
		if g := ActionValue(k); g != w {
			t.Errorf("ActionValue(%d) = %v, want %v", k, g, w)
		}
	}
	m.Init(nn.NewRand(7))
	b, err := nn.Encode(m, "x")
	if err != nil {
		t.Fatal(err)
	}
	got, meta, err := DecodeActor(b)
	if err != nil || meta != "x" {
		t.Fatalf("round trip: %v, meta %q", err, meta)
	}
	x := []float64{0.5, 1.1, 0, 0.7, 0.5, 0.4, 1.2, 0.01, 0.9, 0.5}
	y1, _ := m.Forward(m.NewWorkspace(2), x, 2)
	y2, _ := got.Forward(got.NewWorkspace(2), x, 2)
	for i := range y1 {
		if y1[i] != y2[i] {
			t.Fatalf("decoded actor output %d: %v, want %v", i, y2[i], y1[i])
		}
	}
	// another network's file: an error naming the expected shape
	wrong, _ := nn.Encode(auroramodel.NewPolicy(), "")
	if _, _, err := DecodeActor(wrong); err == nil || !strings.Contains(err.Error(), "want dense(5 → 128)") {
		t.Errorf("Aurora's policy as a DECC actor: err = %v", err)
	}
	if _, _, err := DecodeActor(b[:len(b)/2]); err == nil {
		t.Error("truncated file accepted")
	}
	if _, _, err := LoadActorFile(filepath.Join(t.TempDir(), "none.bin")); err == nil || !strings.Contains(err.Error(), "none.bin") {
		t.Errorf("missing file: err = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.bin")
	os.WriteFile(bad, wrong, 0o644)
	if _, _, err := LoadActorFile(bad); err == nil || !strings.Contains(err.Error(), "bad.bin") {
		t.Errorf("wrong file: err = %v, want the path named", err)
	}
}

// TestShippedTeacher: the embedded teacher decodes into the actor's shape
// once (the same network on every call), its meta text names the trainer's
// version and the default seed, and ShippedTeacherBytes is a copy.
func TestShippedTeacher(t *testing.T) {
	m, meta, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if m.InSize() != Features || m.OutSize() != Actions || m.NumParams() != NewActor().NumParams() {
		t.Errorf("shipped teacher %v: not the actor's shape", m)
	}
	if m2, _, _ := Shipped(); m2 != m {
		t.Error("Shipped decoded twice")
	}
	for _, w := range []string{"DECC teacher actor", "decc-train/", "seed 1;"} {
		if !strings.Contains(meta, w) {
			t.Errorf("meta %q does not contain %q", meta, w)
		}
	}
	b := ShippedTeacherBytes()
	b[0] ^= 0xff
	if c := ShippedTeacherBytes(); c[0] == b[0] {
		t.Error("ShippedTeacherBytes returns the embedded slice itself")
	}
}
