package compress

import (
	"errors"
	"fmt"

	"github.com/ccsim/ccsim/ml/nn"
)

// PackedWorkspace is the scratch memory of PackedModel.Forward: one output
// buffer per layer and an LSTM's state. One model can serve many
// workspaces at once.
type PackedWorkspace struct {
	model *PackedModel
	bufs  []packedBuf
	// w holds one layer's dequantised weights when the layer runs over
	// more than one step: unpacked once, then read at every step.
	w []float64
}

type packedBuf struct {
	y     []float64 // the layer's output
	h, c  []float64 // LSTM: (steps+1)×H hidden and cell states
	gates []float64 // LSTM: 4H pre-activations of one step
	hx    []float64 // LSTM: [h_{t−1}, x_t]
}

func (pm *PackedModel) sizeBufs(ws *PackedWorkspace, steps int) {
	for i := range pm.Layers {
		l, b := &pm.Layers[i], &ws.bufs[i]
		n := steps * l.Out
		if steps > 1 && len(ws.w) < l.N {
			ws.w = make([]float64, l.N)
		}
		if l.Kind == nn.KindLSTM {
			H := l.Out
			if len(b.h) < (steps+1)*H {
				b.h, b.c = make([]float64, (steps+1)*H), make([]float64, (steps+1)*H)
				b.gates, b.hx = make([]float64, 4*H), make([]float64, H+l.In)
			}
			if !l.Sequences {
				n = 0 // the output is a slice of h
			}
		}
		if len(b.y) < n {
			b.y = make([]float64, n)
		}
		if l.Kind == nn.KindLSTM && !l.Sequences {
			steps = 1
		}
	}
}

// NewWorkspace returns a workspace for inputs of up to maxSteps steps
// (longer ones grow it once).
func (pm *PackedModel) NewWorkspace(maxSteps int) *PackedWorkspace {
	ws := &PackedWorkspace{model: pm, bufs: make([]packedBuf, len(pm.Layers))}
	pm.sizeBufs(ws, max(maxSteps, 1))
	return ws
}

// InSize is the width of one input step.
func (pm *PackedModel) InSize() int { return pm.Layers[0].In }

// Forward computes the model's output on x (steps steps, step-major) from
// the packed codes: each weight is read as lut[code] = Δ·q (decoded at every
// use for a one-step layer, into the workspace once for a layer run over
// several steps), and the sums run
// in the order of nn's kernels (four partial sums, products not fused), so
// the output equals the Dequantize model's Forward bit for bit. The LSTM's
// initial state is zero. The output is owned by ws until its next Forward;
// nothing is allocated once ws has seen steps.
func (pm *PackedModel) Forward(ws *PackedWorkspace, x []float64, steps int) ([]float64, error) {
	if ws == nil || ws.model != pm {
		return nil, errors.New("compress: forward: workspace was not made by this model's NewWorkspace")
	}
	if steps < 1 {
		return nil, fmt.Errorf("compress: forward: steps = %d, want ≥ 1", steps)
	}
	if len(x) != steps*pm.InSize() {
		return nil, fmt.Errorf("compress: forward: len(x) = %d, want steps·in = %d·%d", len(x), steps, pm.InSize())
	}
	pm.sizeBufs(ws, steps)
	for i := range pm.Layers {
		l, b := &pm.Layers[i], &ws.bufs[i]
		switch l.Kind {
		case nn.KindDense:
			x = l.dense(pm.Bits, b, ws.unpack(l, pm.Bits, steps), x, steps)
		case nn.KindLSTM:
			x = l.lstm(pm.Bits, b, ws.unpack(l, pm.Bits, steps), x, steps)
			if !l.Sequences {
				steps = 1
			}
		default:
			y := b.y[:len(x)]
			for k, v := range x {
				y[k] = l.Act.Apply(v)
			}
			x = y
		}
	}
	return x, nil
}

// unpack returns the layer's dequantised weights in the workspace's
// scratch when the layer runs over more than one step (decoding once is
// cheaper than decoding at every step), or nil: a single step reads the
// codes directly.
func (ws *PackedWorkspace) unpack(l *PackedLayer, bits, steps int) []float64 {
	if steps == 1 {
		return nil
	}
	w := ws.w[:l.N]
	if !nibbles(bits) {
		for i, c := range l.Codes {
			w[i] = l.lut[c]
		}
		return w
	}
	for i, c := range l.Codes[:l.N/2] {
		p := &l.pair[c]
		w[2*i], w[2*i+1] = p[0], p[1]
	}
	if l.N%2 == 1 {
		w[l.N-1] = l.lut[l.Codes[l.N/2]&15]
	}
	return w
}

// rowDot is W[start : start+len(x)]·x from the unpacked weights w (nn.Dot,
// the same bits as the float model) or, if w is nil, from the codes.
func (l *PackedLayer) rowDot(bits int, w []float64, start int, x []float64) float64 {
	if w != nil {
		return nn.Dot(w[start:start+len(x)], x)
	}
	return l.dot(bits, start, x)
}

// dense computes y_t = b + W·x_t for every step (nn.Dense's forward).
func (l *PackedLayer) dense(bits int, b *packedBuf, w, x []float64, steps int) []float64 {
	in, out := l.In, l.Out
	y := b.y[:steps*out]
	for t := range steps {
		xt := x[t*in : (t+1)*in]
		yt := y[t*out : (t+1)*out]
		for o := range yt {
			yt[o] = l.Bias[o] + l.rowDot(bits, w, o*in, xt)
		}
	}
	return y
}

// lstm is nn.LSTM's forward (decc.md §1.7; docs/ml.md §2.2) with zero
// initial state.
func (l *PackedLayer) lstm(bits int, b *packedBuf, w, x []float64, steps int) []float64 {
	H, In := l.Out, l.In
	K := H + In
	clear(b.h[:H])
	clear(b.c[:H])
	g, hx := b.gates, b.hx
	for t := range steps {
		copy(hx, b.h[t*H:(t+1)*H])
		copy(hx[H:], x[t*In:(t+1)*In])
		for r := range g {
			g[r] = l.Bias[r] + l.rowDot(bits, w, r*K, hx)
		}
		cp := b.c[t*H : (t+1)*H]
		ct := b.c[(t+1)*H : (t+2)*H]
		ht := b.h[(t+1)*H : (t+2)*H]
		for j := range H {
			f := nn.Sigmoid.Apply(g[j])
			i := nn.Sigmoid.Apply(g[H+j])
			cc := nn.DetTanh(g[2*H+j])
			o := nn.Sigmoid.Apply(g[3*H+j])
			c := float64(f*cp[j]) + float64(i*cc)
			ct[j], ht[j] = c, o*nn.DetTanh(c)
		}
	}
	if l.Sequences {
		y := b.y[:steps*H]
		copy(y, b.h[H:(steps+1)*H])
		return y
	}
	return b.h[steps*H : (steps+1)*H]
}

// dot returns Σ_i w[start+i]·x[i] over len(x) weights decoded from the
// codes, summed exactly as nn.Dot: four partial sums over i mod 4 (the tail
// into the first), combined as (s0+s1)+(s2+s3), each product rounded
// before its addition.
func (l *PackedLayer) dot(bits, start int, x []float64) float64 {
	if !nibbles(bits) {
		return dotBytes(l.Codes[start:start+len(x)], l.lut, x)
	}
	lut := l.lut[:16]
	var s0, s1, s2, s3 float64
	n, i := len(x), 0
	if start&1 == 0 {
		p := l.Codes[start>>1 : (start+n)>>1]
		pair := l.pair
		for ; i+4 <= n; i += 4 {
			w0, w1 := &pair[p[i>>1]], &pair[p[i>>1+1]]
			s0 += float64(w0[0] * x[i])
			s1 += float64(w0[1] * x[i+1])
			s2 += float64(w1[0] * x[i+2])
			s3 += float64(w1[1] * x[i+3])
		}
	} else { // odd start: element i is a high nibble when i is even
		for ; i+4 <= n; i += 4 {
			k := start + i
			s0 += float64(lut[l.Codes[k>>1]>>4] * x[i])
			s1 += float64(lut[l.Codes[(k+1)>>1]&15] * x[i+1])
			s2 += float64(lut[l.Codes[(k+2)>>1]>>4] * x[i+2])
			s3 += float64(lut[l.Codes[(k+3)>>1]&15] * x[i+3])
		}
	}
	for ; i < n; i++ {
		k := start + i
		s0 += float64(lut[l.Codes[k>>1]>>(uint(k&1)<<2)&15] * x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// dotBytes is dot for one code per byte.
func dotBytes(codes []byte, lut, x []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(lut[codes[i]] * x[i])
		s1 += float64(lut[codes[i+1]] * x[i+1])
		s2 += float64(lut[codes[i+2]] * x[i+2])
		s3 += float64(lut[codes[i+3]] * x[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(lut[codes[i]] * x[i])
	}
	return (s0 + s1) + (s2 + s3)
}
