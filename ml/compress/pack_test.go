package compress

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// handModel is a dense 3→1 layer (3 weights: an odd count) then a dense
// 1→3 layer, hand-quantised at step 0.5 with negative and positive levels.
func handModel(t *testing.T, bits int) *Model {
	d1, d2 := dense(t, 3, 1).(*nn.Dense), dense(t, 1, 3).(*nn.Dense)
	copy(d1.W.W, []float64{-3.5, 0, 2})
	copy(d1.B.W, []float64{0.25})
	copy(d2.W.W, []float64{-0.5, 3.5, -1})
	copy(d2.B.W, []float64{1, -2, 0.5})
	m := seq(t, d1, act(t, nn.Tanh, 1), d2)
	return &Model{Bits: bits, Quant: m, Shadow: m.Clone(), Matrices: []Matrix{
		{Layer: 0, Name: "layer 0", Mask: []bool{true, false, true}, Step: 0.5},
		{Layer: 2, Name: "layer 2", Mask: []bool{true, true, true}, Step: 0.5}}}
}

// TestPackHandCodes: the codes c = q + 8 of levels q = w/Δ packed two per
// byte, low nibble first: layer 0 levels (−7, 0, 4) → codes (1, 8, 12) →
// bytes 0x81, 0x0c (the odd count's padding nibble 0); layer 2 levels
// (−1, 7, −2) → codes (7, 15, 6) → 0xf7, 0x06. Decode(Encode) restores the
// codes, steps and biases, and the dequantised model equals the input.
func TestPackHandCodes(t *testing.T) {
	c := handModel(t, 4)
	pm, err := Pack(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := pm.Layers[0].Codes; !bytes.Equal(got, []byte{0x81, 0x0c}) {
		t.Errorf("layer 0 codes % x, want 81 0c", got)
	}
	if got := pm.Layers[2].Codes; !bytes.Equal(got, []byte{0xf7, 0x06}) {
		t.Errorf("layer 2 codes % x, want f7 06", got)
	}
	b, err := EncodePacked(pm)
	if err != nil {
		t.Fatal(err)
	}
	// header 20 + bits 4 + count 4 + layer 0 (record 12 + step 4 + n 4 +
	// codes 2 + nb 4 + bias 4) + activation 12 + layer 2 (12 + 4 + 4 + 2 +
	// 4 + 12) + crc 4
	if want := 20 + 8 + 30 + 12 + 38 + 4; len(b) != want {
		t.Errorf("encoded %d bytes, want %d", len(b), want)
	}
	pm2, err := DecodePacked(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pm.Layers {
		a, z := pm.Layers[i], pm2.Layers[i]
		if !bytes.Equal(a.Codes, z.Codes) || a.Step != z.Step || a.N != z.N || a.Kind != z.Kind || a.Act != z.Act || len(a.Bias) != len(z.Bias) {
			t.Errorf("layer %d differs after the round trip: %+v vs %+v", i, a, z)
		}
	}
	dq, err := pm2.Dequantize()
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range dq.Params() {
		for j, w := range p.W {
			if want := c.Quant.Params()[i].W[j]; w != want {
				t.Errorf("param %d[%d] = %v after the round trip, want %v", i, j, w, want)
			}
		}
	}
}

// TestPackAllBitsOddLengths: for every bit width and several odd and even
// matrix sizes, random levels in −L..L survive Pack, Encode, Decode and
// Dequantize exactly, and the packed forward pass equals the dequantised
// model's over one step (codes read directly) and three (unpacked once).
func TestPackAllBitsOddLengths(t *testing.T) {
	r := nn.NewRand(3)
	for bits := MinBits; bits <= MaxBits; bits++ {
		L := MaxLevel(bits)
		for _, sh := range [][2]int{{1, 1}, {3, 1}, {5, 3}, {7, 5}, {4, 2}} {
			d := dense(t, sh[0], sh[1]).(*nn.Dense)
			step := float64(float32(0.37))
			for i := range d.W.W {
				d.W.W[i] = step * float64(r.IntN(2*L+1)-L)
			}
			d.W.W[0] = -step * float64(L) // the extreme levels occur
			d.W.W[len(d.W.W)-1] = step * float64(L)
			for i := range d.B.W {
				d.B.W[i] = float64(float32(r.NormFloat64()))
			}
			m := seq(t, d)
			c := &Model{Bits: bits, Quant: m, Shadow: m, Matrices: []Matrix{{Layer: 0, Mask: make([]bool, len(d.W.W)), Step: step}}}
			pm, err := Pack(c)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := EncodePacked(pm)
			pm2, err := DecodePacked(b)
			if err != nil {
				t.Fatalf("bits %d shape %v: %v", bits, sh, err)
			}
			dq, _ := pm2.Dequantize()
			for i, w := range matrixParam(dq.Layers()[0]).W {
				if w != d.W.W[i] {
					t.Fatalf("bits %d shape %v: weight %d = %v, want %v", bits, sh, i, w, d.W.W[i])
				}
			}
			for _, steps := range []int{1, 3} { // codes read directly; unpacked once
				x := inputs(r, 1, steps, sh[0])[0]
				want, _ := m.Forward(m.NewWorkspace(steps), x, steps)
				got, _ := pm2.Forward(pm2.NewWorkspace(steps), x, steps)
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("bits %d shape %v steps %d: output %d = %v, want %v", bits, sh, steps, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestPackedForwardEqualsDequantized: the DECC actor (with its LSTM) and
// the DECC-sized MLP, compressed at 2, 3, 4 and 8 bits: the packed forward
// pass from the decoded file equals the dequantised float model's output
// bit for bit on 50 inputs of 5 steps, and Quant equals Dequantize.
func TestPackedForwardEqualsDequantized(t *testing.T) {
	r := nn.NewRand(8)
	for _, build := range []func(testing.TB) *nn.Sequential{deccActor, deccMLP} {
		m := build(t)
		m.Init(nn.NewRand(1))
		for _, bits := range []int{2, 3, 4, 8} {
			cfg := DefaultConfig()
			cfg.Bits = bits
			c, _, err := Compress(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			pm, err := Pack(c)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := EncodePacked(pm)
			pm, err = DecodePacked(b)
			if err != nil {
				t.Fatal(err)
			}
			pws, qws := pm.NewWorkspace(5), c.Quant.NewWorkspace(5)
			for _, x := range inputs(r, 50, 5, 5) {
				got, err := pm.Forward(pws, x, 5)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := c.Quant.Forward(qws, x, 5)
				if len(got) != len(want) {
					t.Fatalf("%d outputs, want %d", len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%v bits %d: output %d = %v, dequantised model %v", m, bits, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestPackedForwardSequences: an LSTM returning every step.
func TestPackedForwardSequences(t *testing.T) {
	m := seq(t, dense(t, 3, 6), act(t, nn.Sigmoid, 6), must[*nn.LSTM](t)(nn.NewLSTM(6, 5, true)), dense(t, 5, 2))
	m.Init(nn.NewRand(2))
	c, _, err := Compress(m, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pm, _ := Pack(c)
	x := inputs(nn.NewRand(1), 1, 4, 3)[0]
	got, _ := pm.Forward(pm.NewWorkspace(1), x, 4) // grows the workspace
	want, _ := c.Quant.Forward(c.Quant.NewWorkspace(4), x, 4)
	if len(got) != 8 {
		t.Fatalf("%d outputs, want 4 steps × 2", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("output %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestPackedForwardNoAlloc(t *testing.T) {
	m := deccActor(t)
	m.Init(nn.NewRand(1))
	c, _, _ := Compress(m, DefaultConfig())
	pm, _ := Pack(c)
	ws := pm.NewWorkspace(5)
	x := inputs(nn.NewRand(1), 1, 5, 5)[0]
	if a := testing.AllocsPerRun(20, func() { pm.Forward(ws, x, 5) }); a != 0 {
		t.Errorf("%v allocations per forward, want 0", a)
	}
	_, err := pm.Forward(ws, x[:4], 5)
	wantErr(t, err, "len(x) = 4")
	_, err = pm.Forward(pm.NewWorkspace(1), x, 0)
	wantErr(t, err, "steps = 0", "≥ 1")
	_, err = (&PackedModel{Layers: pm.Layers}).Forward(ws, x, 5)
	wantErr(t, err, "workspace")
}

// reseal fixes the length field and checksum of an edited file so that the
// field checks, not the checksum, must catch the edit.
func reseal(b []byte) []byte {
	binary.LittleEndian.PutUint64(b[12:20], uint64(len(b)-24))
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// TestDecodePackedCorrupt: every truncation and every single-byte change of
// a valid file is refused with an error (never a panic), and resealed
// edits of individual fields name the field.
func TestDecodePackedCorrupt(t *testing.T) {
	good, _ := EncodePacked(must[*PackedModel](t)(Pack(handModel(t, 4))))
	for n := range len(good) {
		if _, err := DecodePacked(good[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	for i := range good {
		b := bytes.Clone(good)
		b[i] ^= 0x5a
		if _, err := DecodePacked(b); err == nil {
			t.Fatalf("byte %d changed: no error", i)
		}
	}
	edit := func(off int, v byte) []byte {
		b := bytes.Clone(good)
		b[off] = v
		return reseal(b)
	}
	for _, c := range []struct {
		b     []byte
		parts []string
	}{
		{func() []byte { b := bytes.Clone(good); b[0] = 'X'; return b }(), []string{"magic"}},
		{func() []byte { b := bytes.Clone(good); b[8] = 2; return reseal(b) }(), []string{"version 2"}},
		{edit(20, 9), []string{"bits = 9", "2..8"}},
		{edit(20, 1), []string{"bits = 1", "2..8"}},
		{edit(21, 1), []string{"reserved"}},
		{edit(28, 7), []string{"layer 0", "kind 7"}},
		{edit(32, 4), []string{"layer 0", "weight count 3, want 1·4 = 4"}},
		{edit(48, 0x80), []string{"layer 0", "weight 0 has code 0"}},
		{edit(49, 0x1c), []string{"layer 0", "padding nibble"}},
		{edit(43, 0xff), []string{"layer 0", "step -1.7", "want > 0 and finite"}},
		{edit(59, 9), []string{"layer 1", "activation 9"}},
		{append(bytes.Clone(good[:len(good)-4]), 0, 0, 0, 0, 0), []string{"bytes after the last layer"}},
	} {
		b := c.b
		if len(b) == len(good)+1 {
			b = reseal(b)
		}
		_, err := DecodePacked(b)
		wantErr(t, err, c.parts...)
	}
	if _, err := DecodePacked(good); err != nil {
		t.Fatal(err)
	}
}

// TestPackErrors: a weight off the grid and a bad bit width.
func TestPackErrors(t *testing.T) {
	c := handModel(t, 4)
	matrixParam(c.Quant.Layers()[0]).W[0] = 0.3
	_, err := Pack(c)
	wantErr(t, err, "layer 0", "weight 0 = 0.3", "not a level")
	c = handModel(t, 4)
	matrixParam(c.Quant.Layers()[0]).W[0] = -4 // level −8: outside ±7
	_, err = Pack(c)
	wantErr(t, err, "not a level")
	c.Bits = 9
	_, err = Pack(c)
	wantErr(t, err, "bits = 9", "2..8")
	if _, err := Pack(nil); err == nil {
		t.Error("Pack(nil): no error")
	}
}

// TestModelCheck: hand-built models that Pack and FineTune refuse.
func TestModelCheck(t *testing.T) {
	for _, c := range []struct {
		edit  func(*Model)
		parts []string
	}{
		{func(c *Model) { c.Quant = nil }, []string{"nil"}},
		{func(c *Model) { c.Matrices = c.Matrices[:1] }, []string{"layer 2", "no Matrices entry"}},
		{func(c *Model) { c.Matrices = append(c.Matrices, Matrix{Layer: 5}) }, []string{"3 Matrices entries for 2"}},
		{func(c *Model) { c.Matrices[0].Mask = c.Matrices[0].Mask[:2] }, []string{"layer 0 mask has 2 entries, want 3"}},
		{func(c *Model) { c.Matrices[1].Step = 0.1 }, []string{"layer 2 step = 0.1", "float32"}},
		{func(c *Model) { c.Matrices[1].Step = -1 }, []string{"layer 2 step = -1"}},
		{func(c *Model) { c.Bits = 1 }, []string{"bits = 1", "2..8"}},
		{func(c *Model) { c.Shadow = seq(t, dense(t, 3, 1)) }, []string{"differ in shape"}},
	} {
		m := handModel(t, 4)
		c.edit(m)
		_, err := Pack(m)
		wantErr(t, err, c.parts...)
		_, err = FineTune(m, m.Shadow, [][]float64{{1, 2, 3}}, 1, DefaultFineTune())
		wantErr(t, err, c.parts...)
	}
	if err := handModel(t, 4).Check(); err != nil {
		t.Error(err)
	}
}
