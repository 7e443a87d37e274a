package compress

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/ml/nn"
)

// PackedLayer is one layer of a packed model: its architecture and, for a
// dense or LSTM layer, the quantised weight matrix as B-bit codes plus the
// float32 biases.
type PackedLayer struct {
	Kind nn.Kind
	// Act is the function of an activation layer; Sequences the LSTM flag.
	Act       nn.Act
	Sequences bool
	// In and Out are the layer's step widths (Out = hidden size of an LSTM).
	In, Out int
	// Step is Δ (a float32 value); N the number of weights; Codes the codes
	// c = q + 2^{B−1} of the levels q ∈ [−L, L], two per byte (low nibble
	// first) when B ≤ 4, one per byte otherwise. Bias holds float32 values.
	Step  float64
	N     int
	Codes []byte
	Bias  []float64
	// lut[c] = Δ·(c − 2^{B−1}): the dequantised weight of code c; pair[b]
	// the two weights of byte b (low nibble, high nibble) when B ≤ 4.
	lut  []float64
	pair *[256][2]float64
}

// PackedModel is a compressed model in packed form (docs/compress.md
// "format"): what EncodePacked writes and the inference path reads.
type PackedModel struct {
	Bits   int
	Layers []PackedLayer
}

// matrixShape returns the rows and columns of a layer's weight matrix.
func matrixShape(kind nn.Kind, in, out int) (rows, cols int) {
	if kind == nn.KindLSTM {
		return 4 * out, out + in
	}
	return out, in
}

// nibbles reports whether codes of bits bits are packed two per byte.
func nibbles(bits int) bool { return bits <= 4 }

// codeBytes is the size of n packed codes.
func codeBytes(bits, n int) int {
	if nibbles(bits) {
		return (n + 1) / 2
	}
	return n
}

// code returns code i of the layer.
func (l *PackedLayer) code(bits, i int) int {
	if nibbles(bits) {
		return int(l.Codes[i>>1]>>(uint(i&1)<<2)) & 15
	}
	return int(l.Codes[i])
}

func (l *PackedLayer) buildLUT(bits int) {
	z := 1 << (bits - 1)
	// at least 16 entries so that a nibble indexes it without a check
	l.lut = make([]float64, max(16, 1<<bits))
	for c := range 1 << bits {
		l.lut[c] = l.Step * float64(c-z)
	}
	if nibbles(bits) {
		l.pair = new([256][2]float64)
		for b := range l.pair {
			l.pair[b] = [2]float64{l.lut[b&15], l.lut[b>>4]}
		}
	}
}

// Pack returns the packed form of c.Quant. Every quantised weight is
// Δ·q exactly (Δ has a 24-bit significand and |q| ≤ 127), so the codes are
// recovered without loss.
func Pack(c *Model) (*PackedModel, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	pm := &PackedModel{Bits: c.Bits}
	L, z := MaxLevel(c.Bits), 1<<(c.Bits-1)
	for li, l := range c.Quant.Layers() {
		pl := PackedLayer{Kind: l.Kind(), In: l.InSize(), Out: l.OutSize()}
		switch l := l.(type) {
		case *nn.Activation:
			pl.Act = l.Fn
			pm.Layers = append(pm.Layers, pl)
			continue
		case *nn.LSTM:
			pl.Sequences = l.Sequences
		}
		mt := c.matrixOf(li)
		p := matrixParam(l)
		pl.Step, pl.N = mt.Step, len(p.W)
		pl.Codes = make([]byte, codeBytes(c.Bits, pl.N))
		for i, w := range p.W {
			q := w / mt.Step
			if q != math.Trunc(q) || math.Abs(q) > float64(L) {
				return nil, fmt.Errorf("compress: pack: %s weight %d = %v is not a level of step %v (%d bits)", mt.Name, i, w, mt.Step, c.Bits)
			}
			cd := byte(int(q) + z)
			if nibbles(c.Bits) {
				pl.Codes[i>>1] |= cd << (uint(i&1) << 2)
			} else {
				pl.Codes[i] = cd
			}
		}
		for _, bp := range l.Params() {
			if bp != p {
				pl.Bias = append(pl.Bias, bp.W...)
			}
		}
		pl.buildLUT(c.Bits)
		pm.Layers = append(pm.Layers, pl)
	}
	return pm, nil
}

// Dequantize returns the float model of pm: every weight Δ·q, every bias
// as stored. Its outputs equal PackedModel.Forward's bit for bit.
func (pm *PackedModel) Dequantize() (*nn.Sequential, error) {
	ls := make([]nn.Layer, len(pm.Layers))
	for i := range pm.Layers {
		pl := &pm.Layers[i]
		var err error
		var w, b *nn.Param
		switch pl.Kind {
		case nn.KindActivation:
			ls[i], err = nn.NewActivation(pl.Act, pl.In)
		case nn.KindDense:
			var d *nn.Dense
			d, err = nn.NewDense(pl.In, pl.Out, nn.XavierUniform)
			ls[i], w, b = d, &d.W, &d.B
		case nn.KindLSTM:
			var l *nn.LSTM
			l, err = nn.NewLSTM(pl.In, pl.Out, pl.Sequences)
			ls[i], w, b = l, &l.W, &l.B
		default:
			err = fmt.Errorf("compress: layer %d: kind %v", i, pl.Kind)
		}
		if err != nil {
			return nil, err
		}
		if w != nil {
			for k := range w.W {
				w.W[k] = pl.lut[pl.code(pm.Bits, k)]
			}
			copy(b.W, pl.Bias)
		}
	}
	return nn.NewSequential(ls...)
}
