package compress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/ccsim/ccsim/ml/nn"
)

// Packed file format, version 1 (docs/compress.md "format"). Integers
// little-endian, floats IEEE 754 binary32.
//
//	header   magic "CCSIMQ4\x00" (8 B) · version u32 · body length u64
//	body     bits u8 · reserved u8[3] · layer count u32 · layers
//	layer    kind u8 · opt u8 · reserved u16 · in u32 · out u32, then for a
//	         dense or LSTM layer: step f32 · weight count u32 · codes ·
//	         bias count u32 · biases f32
//	codes    B ≤ 4: ⌈n/2⌉ bytes, code i in the low nibble of byte i/2 when i
//	         is even, the high nibble when odd, an odd count's last high
//	         nibble 0; B > 4: n bytes
//	trailer  CRC-32 (IEEE) u32 of header and body
//
// opt is the activation function of an activation layer, 1 for an LSTM
// returning all steps, else 0. A code c stands for the level c − 2^{B−1};
// code 0 (level −2^{B−1}) is never written.
const (
	// PackedVersion is the version EncodePacked writes and DecodePacked reads.
	PackedVersion = 1
	// PackedMagic is the first 8 bytes of a packed model.
	PackedMagic     = "CCSIMQ4\x00"
	packedHeaderLen = 20
	maxPackedLayers = 1 << 10
	// MaxPackedBytes bounds what DecodePacked accepts.
	MaxPackedBytes = 1 << 30
)

// EncodePacked returns the binary form of pm.
func EncodePacked(pm *PackedModel) ([]byte, error) {
	if pm == nil {
		return nil, errors.New("compress: encode: model is nil")
	}
	b := []byte(PackedMagic)
	b = binary.LittleEndian.AppendUint32(b, PackedVersion)
	b = binary.LittleEndian.AppendUint64(b, 0) // body length, set below
	b = append(b, byte(pm.Bits), 0, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(pm.Layers)))
	for _, l := range pm.Layers {
		var opt byte
		switch {
		case l.Kind == nn.KindActivation:
			opt = byte(l.Act)
		case l.Kind == nn.KindLSTM && l.Sequences:
			opt = 1
		}
		b = append(b, byte(l.Kind), opt, 0, 0)
		b = binary.LittleEndian.AppendUint32(b, uint32(l.In))
		b = binary.LittleEndian.AppendUint32(b, uint32(l.Out))
		if l.Kind == nn.KindActivation {
			continue
		}
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(l.Step)))
		b = binary.LittleEndian.AppendUint32(b, uint32(l.N))
		b = append(b, l.Codes...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(l.Bias)))
		for _, v := range l.Bias {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
		}
	}
	binary.LittleEndian.PutUint64(b[12:20], uint64(len(b)-packedHeaderLen))
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// preader walks a packed body with bounds checks; the first error sticks.
type preader struct {
	b   []byte
	off int
	err error
}

func (r *preader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.err = fmt.Errorf("truncated at byte %d reading %s (%d bytes wanted, %d left)", r.off, what, n, len(r.b)-r.off)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *preader) u32(what string) uint32 {
	if s := r.take(4, what); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

// DecodePacked parses a packed model, checking the magic, version, length,
// checksum and every field (docs/compress.md "format").
func DecodePacked(b []byte) (*PackedModel, error) {
	pm, err := decodePacked(b)
	if err != nil {
		return nil, fmt.Errorf("compress: decode: %w", err)
	}
	return pm, nil
}

func decodePacked(b []byte) (*PackedModel, error) {
	if len(b) > MaxPackedBytes {
		return nil, fmt.Errorf("%d bytes, at most %d accepted", len(b), MaxPackedBytes)
	}
	if len(b) < packedHeaderLen+4 {
		return nil, fmt.Errorf("%d bytes, shorter than a header and trailer (%d)", len(b), packedHeaderLen+4)
	}
	if string(b[:8]) != PackedMagic {
		return nil, fmt.Errorf("bad magic %q, want %q", b[:8], PackedMagic)
	}
	if v := binary.LittleEndian.Uint32(b[8:12]); v != PackedVersion {
		return nil, fmt.Errorf("version %d, this build reads version %d", v, PackedVersion)
	}
	if n := binary.LittleEndian.Uint64(b[12:20]); n != uint64(len(b)-packedHeaderLen-4) {
		return nil, fmt.Errorf("body length field %d, but the file holds %d body bytes", n, len(b)-packedHeaderLen-4)
	}
	end := len(b) - 4
	if got, want := crc32.ChecksumIEEE(b[:end]), binary.LittleEndian.Uint32(b[end:]); got != want {
		return nil, fmt.Errorf("checksum %08x, computed %08x: the file is corrupt", want, got)
	}
	r := &preader{b: b[:end], off: packedHeaderLen}
	head := r.take(4, "bits")
	nl := r.u32("layer count")
	if r.err != nil {
		return nil, r.err
	}
	pm := &PackedModel{Bits: int(head[0])}
	if err := checkBits(pm.Bits); err != nil {
		return nil, err
	}
	if head[1]|head[2]|head[3] != 0 {
		return nil, errors.New("reserved bytes after bits are not zero")
	}
	if nl < 1 || nl > maxPackedLayers {
		return nil, fmt.Errorf("layer count %d, want 1..%d", nl, maxPackedLayers)
	}
	for i := range int(nl) {
		l, err := r.layer(pm.Bits)
		if err != nil {
			return nil, fmt.Errorf("layer %d: %w", i, err)
		}
		if i > 0 && pm.Layers[i-1].Out != l.In {
			return nil, fmt.Errorf("layer %d takes %d values per step but layer %d outputs %d", i, l.In, i-1, pm.Layers[i-1].Out)
		}
		pm.Layers = append(pm.Layers, l)
	}
	if r.off != end {
		return nil, fmt.Errorf("%d bytes after the last layer", end-r.off)
	}
	return pm, nil
}

// layer reads one layer record and its tensors.
func (r *preader) layer(bits int) (PackedLayer, error) {
	rec := r.take(4, "layer record")
	in, out := int(r.u32("in")), int(r.u32("out"))
	if r.err != nil {
		return PackedLayer{}, r.err
	}
	l := PackedLayer{Kind: nn.Kind(rec[0]), In: in, Out: out}
	if rec[2]|rec[3] != 0 {
		return l, errors.New("reserved bytes are not zero")
	}
	for _, s := range [2]struct {
		name string
		v    int
	}{{"in", in}, {"out", out}} {
		if s.v < 1 || s.v > nn.MaxSize {
			return l, fmt.Errorf("%s = %d, want 1..%d", s.name, s.v, nn.MaxSize)
		}
	}
	switch {
	case l.Kind == nn.KindActivation:
		l.Act = nn.Act(rec[1])
		if l.Act < nn.Identity || l.Act > nn.ReLU {
			return l, fmt.Errorf("activation %d, want 1..4", rec[1])
		}
		if in != out {
			return l, fmt.Errorf("activation in %d ≠ out %d", in, out)
		}
		return l, nil
	case l.Kind == nn.KindDense && rec[1] == 0:
	case l.Kind == nn.KindLSTM && rec[1] <= 1:
		l.Sequences = rec[1] == 1
	default:
		return l, fmt.Errorf("kind %d with option %d, want dense (1, 0), lstm (2, 0 or 1) or activation (3, 1..4)", rec[0], rec[1])
	}
	return l, r.tensors(&l, bits)
}

// tensors reads the step, codes and biases of a dense or LSTM layer.
func (r *preader) tensors(l *PackedLayer, bits int) error {
	step := math.Float32frombits(r.u32("step"))
	n := int(r.u32("weight count"))
	rows, cols := matrixShape(l.Kind, l.In, l.Out)
	if r.err == nil && n != rows*cols {
		return fmt.Errorf("weight count %d, want %d·%d = %d", n, rows, cols, rows*cols)
	}
	codes := r.take(codeBytes(bits, n), "codes")
	nb := int(r.u32("bias count"))
	if r.err == nil && nb != rows {
		return fmt.Errorf("bias count %d, want %d", nb, rows)
	}
	raw := r.take(4*nb, "biases")
	if r.err != nil {
		return r.err
	}
	if !(step > 0) || math.IsInf(float64(step), 0) {
		return fmt.Errorf("step %v, want > 0 and finite", step)
	}
	l.Step, l.N, l.Codes = float64(step), n, append([]byte(nil), codes...)
	for i := range n {
		if c := l.code(bits, i); c == 0 || c >= 1<<bits {
			return fmt.Errorf("weight %d has code %d, want 1..%d", i, c, 1<<bits-1)
		}
	}
	if nibbles(bits) && n%2 == 1 && l.Codes[n/2]>>4 != 0 {
		return errors.New("the padding nibble after the last code is not zero")
	}
	l.Bias = make([]float64, nb)
	for i := range l.Bias {
		v := float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("bias %d is %v, want finite", i, v)
		}
		l.Bias[i] = v
	}
	l.buildLUT(bits)
	return nil
}
