package deccmodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/ml/compress"
	"github.com/ccsim/ccsim/ml/nn"
)

// TestBinaryDecode: the embedded compressed actor decodes once (the same
// values on every call) with the teacher's shape, its dequantised network
// gives the packed inference's outputs bit for bit, at most 15 levels per
// matrix (4 bits); a teacher file, a packed network of another shape, a
// truncated file and a missing file are refused, naming the shape or path.
func TestBinaryDecode(t *testing.T) {
	pm, m, err := ShippedBinary()
	if err != nil {
		t.Fatal(err)
	}
	if pm2, m2, _ := ShippedBinary(); pm2 != pm || m2 != m {
		t.Error("ShippedBinary decoded twice")
	}
	if pm.Bits != 4 || m.NumParams() != 20139 {
		t.Errorf("bits %d, %d parameters", pm.Bits, m.NumParams())
	}
	ws, pws := m.NewWorkspace(History), pm.NewWorkspace(History)
	r := nn.NewRand(3)
	for range 20 {
		x := make([]float64, History*Features)
		for i := range x {
			x[i] = 2 * r.Float64()
		}
		y, _ := m.Forward(ws, x, History)
		z, _ := pm.Forward(pws, x, History)
		for k := range y {
			if y[k] != z[k] {
				t.Fatalf("logit %d: dequantised %v, packed %v", k, y[k], z[k])
			}
		}
	}
	teacher := NewActor()
	teacher.Init(nn.NewRand(1))
	tb, _ := nn.Encode(teacher, "")
	if _, _, err := DecodeBinary(tb); err == nil || !strings.Contains(err.Error(), "DECC compressed actor") {
		t.Errorf("a teacher file as a packed network: err = %v", err)
	}
	// a 4-bit network of another shape
	d, _ := nn.NewDense(5, 11, nn.XavierUniform)
	other, _ := nn.NewSequential(d)
	other.Init(nn.NewRand(2))
	c, _, err := compress.Compress(other, compress.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	opm, _ := compress.Pack(c)
	ob, _ := compress.EncodePacked(opm)
	if _, _, err := DecodeBinary(ob); err == nil || !strings.Contains(err.Error(), "want dense(5 → 128)") {
		t.Errorf("a packed dense 5 → 11: err = %v", err)
	}
	bin, _, _ := ShippedStudentBytes()
	if _, _, err := DecodeBinary(bin[:len(bin)-9]); err == nil {
		t.Error("truncated file accepted")
	}
	if _, _, err := LoadBinaryFile(filepath.Join(t.TempDir(), "none.bin")); err == nil || !strings.Contains(err.Error(), "none.bin") {
		t.Errorf("missing file: err = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.bin")
	os.WriteFile(bad, ob, 0o644)
	if _, _, err := LoadBinaryFile(bad); err == nil || !strings.Contains(err.Error(), "bad.bin") {
		t.Errorf("wrong file: err = %v, want the path named", err)
	}
}
