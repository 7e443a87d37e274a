package nn

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// Model file format, version 1 (docs/ml.md §5). All integers little-endian.
//
//	header   magic "CCSIMNN\x00" (8 B) · version u32 · body length u64
//	body     meta length u32 · meta (UTF-8) · layer count u32 ·
//	         layer records (12 B each: kind u8 · opt u8 · reserved u16 · a u32 · b u32) ·
//	         weight count u64 · weights (float64, IEEE 754 binary64)
//	trailer  CRC-32 (IEEE) u32 of header and body
const (
	// FormatVersion is the version Encode writes and Decode reads.
	FormatVersion = 1
	headerLen     = 20
	recordLen     = 12
	// MaxFileBytes bounds what Decode and LoadFile accept.
	MaxFileBytes = 1 << 30
	maxMetaBytes = 1 << 20
	maxLayers    = 1 << 10
)

// Magic is the first 8 bytes of a model file.
const Magic = "CCSIMNN\x00"

// Encode returns the model file of m with the free-text description meta
// (UTF-8, at most 1 MiB: e.g. provenance, training data, seed).
func Encode(m *Sequential, meta string) ([]byte, error) {
	if len(meta) > maxMetaBytes || !utf8.ValidString(meta) {
		return nil, fmt.Errorf("nn: encode: meta must be valid UTF-8 of at most %d bytes (has %d)", maxMetaBytes, len(meta))
	}
	if len(m.layers) > maxLayers {
		return nil, fmt.Errorf("nn: encode: %d layers, the format holds at most %d", len(m.layers), maxLayers)
	}
	if err := checkFinite(m); err != nil {
		return nil, fmt.Errorf("nn: encode: %w", err)
	}
	nw := m.NumParams()
	body := 4 + len(meta) + 4 + recordLen*len(m.layers) + 8 + 8*nw
	b := make([]byte, 0, headerLen+body+4)
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint32(b, FormatVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(body))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(meta)))
	b = append(b, meta...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.layers)))
	for _, l := range m.layers {
		s := l.spec()
		b = append(b, byte(s.kind), s.opt, 0, 0)
		b = binary.LittleEndian.AppendUint32(b, uint32(s.a))
		b = binary.LittleEndian.AppendUint32(b, uint32(s.b))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(nw))
	for _, p := range m.params {
		for _, w := range p.W {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(w))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// Save writes the model file of m to w.
func Save(w io.Writer, m *Sequential, meta string) error {
	b, err := Encode(m, meta)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// SaveFile writes the model file of m to path atomically (a temporary file
// in the same directory, then a rename).
func SaveFile(path string, m *Sequential, meta string) error {
	b, err := Encode(m, meta)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("nn: save %s: %w", path, werr)
	}
	return nil
}

// checkFinite names the first NaN or infinite weight of m.
func checkFinite(m *Sequential) error {
	for li, l := range m.layers {
		for _, p := range l.Params() {
			for i, w := range p.W {
				if math.IsNaN(w) || math.IsInf(w, 0) {
					return fmt.Errorf("layer %d (%v) %s[%d] is %v", li, l, p.Name, i, w)
				}
			}
		}
	}
	return nil
}

// reader walks the body of a model file with bounds checks.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = fmt.Errorf("malformed body: %s needs %d bytes at offset %d, %d left", what, n, r.off, len(r.b)-r.off)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u32(what string) uint32 {
	if s := r.take(4, what); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (r *reader) u64(what string) uint64 {
	if s := r.take(8, what); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// parsed is the content of a verified model file.
type parsed struct {
	meta    string
	specs   []layerSpec
	weights []byte // weight count × 8 bytes
}

// parse checks a whole model file (size, magic, version, length, checksum,
// architecture) and returns its content.
func parse(b []byte) (*parsed, error) {
	if len(b) < headerLen {
		return nil, fmt.Errorf("truncated: %d bytes, the header alone is %d", len(b), headerLen)
	}
	if string(b[:8]) != Magic {
		return nil, fmt.Errorf("not a ccsim model file: magic %q, want %q", b[:8], Magic)
	}
	if v := binary.LittleEndian.Uint32(b[8:12]); v != FormatVersion {
		return nil, fmt.Errorf("unsupported format version %d (this build reads version %d)", v, FormatVersion)
	}
	body := binary.LittleEndian.Uint64(b[12:20])
	if body > MaxFileBytes {
		return nil, fmt.Errorf("header declares a body of %d bytes, more than the limit %d", body, MaxFileBytes)
	}
	want := headerLen + int(body) + 4
	if len(b) < want {
		return nil, fmt.Errorf("truncated: %d bytes, the header declares %d", len(b), want)
	}
	if len(b) > want {
		return nil, fmt.Errorf("%d trailing bytes after the checksum (the header declares %d bytes)", len(b)-want, want)
	}
	stored := binary.LittleEndian.Uint32(b[want-4:])
	if sum := crc32.ChecksumIEEE(b[:want-4]); sum != stored {
		return nil, fmt.Errorf("checksum mismatch: stored CRC-32 %08x, computed %08x (the file is corrupt)", stored, sum)
	}
	r := &reader{b: b[:want-4], off: headerLen}
	p := &parsed{}
	nm := r.u32("meta length")
	if nm > maxMetaBytes {
		return nil, fmt.Errorf("meta length %d exceeds %d", nm, maxMetaBytes)
	}
	p.meta = string(r.take(int(nm), "meta"))
	nl := r.u32("layer count")
	if r.err == nil && (nl < 1 || nl > maxLayers) {
		return nil, fmt.Errorf("layer count %d, want 1..%d", nl, maxLayers)
	}
	nw := 0
	for i := 0; i < int(nl) && r.err == nil; i++ {
		rec := r.take(recordLen, fmt.Sprintf("layer %d record", i))
		if rec == nil {
			break
		}
		s := layerSpec{kind: Kind(rec[0]), opt: rec[1],
			a: int(binary.LittleEndian.Uint32(rec[4:])), b: int(binary.LittleEndian.Uint32(rec[8:]))}
		n, err := checkSpec(s, rec[2:4])
		if err != nil {
			return nil, fmt.Errorf("layer %d: %w", i, err)
		}
		if i > 0 && p.specs[i-1].out() != s.in() {
			return nil, fmt.Errorf("layer %d (%v) takes %d values per step but layer %d (%v) outputs %d", i, s, s.in(), i-1, p.specs[i-1], p.specs[i-1].out())
		}
		nw += n
		p.specs = append(p.specs, s)
	}
	cnt := r.u64("weight count")
	if r.err == nil && cnt != uint64(nw) {
		return nil, fmt.Errorf("weight count %d does not match the architecture, which has %d weights", cnt, nw)
	}
	p.weights = r.take(8*nw, "weights")
	if r.err != nil {
		return nil, r.err
	}
	if rest := len(r.b) - r.off; rest != 0 {
		return nil, fmt.Errorf("malformed body: %d unread bytes after the weights", rest)
	}
	return p, nil
}

func (s layerSpec) in() int { return s.a }

func (s layerSpec) out() int { return s.b }

// checkSpec validates a stored layer record and returns its weight count.
func checkSpec(s layerSpec, reserved []byte) (int, error) {
	if reserved[0] != 0 || reserved[1] != 0 {
		return 0, fmt.Errorf("reserved bytes %x, want 0000", reserved)
	}
	if s.kind < KindDense || s.kind > KindActivation {
		return 0, fmt.Errorf("unknown layer kind %d", uint8(s.kind))
	}
	for _, n := range []int{s.a, s.b} {
		if n < 1 || n > MaxSize {
			return 0, fmt.Errorf("%v: size %d, want 1..%d", s.kind, n, MaxSize)
		}
	}
	switch s.kind {
	case KindDense:
		if s.opt != 0 {
			return 0, fmt.Errorf("dense: option byte %d, want 0", s.opt)
		}
		return s.a*s.b + s.b, nil
	case KindLSTM:
		if s.opt > 1 {
			return 0, fmt.Errorf("lstm: sequences flag %d, want 0 or 1", s.opt)
		}
		return 4*s.b*(s.b+s.a) + 4*s.b, nil
	case KindActivation:
		if !Act(s.opt).valid() {
			return 0, fmt.Errorf("activation: function %d, want 1..4", s.opt)
		}
		if s.a != s.b {
			return 0, fmt.Errorf("activation: sizes %d and %d differ", s.a, s.b)
		}
		return 0, nil
	}
	return 0, fmt.Errorf("unknown layer kind %d", uint8(s.kind))
}

// build makes an empty layer from a verified spec. Dense layers get the
// XavierUniform scheme (it only matters if the model is re-initialised).
func build(s layerSpec) Layer {
	switch s.kind {
	case KindDense:
		l, _ := NewDense(s.a, s.b, XavierUniform)
		return l
	case KindLSTM:
		l, _ := NewLSTM(s.a, s.b, s.opt == 1)
		return l
	}
	l, _ := NewActivation(Act(s.opt), s.a)
	return l
}

func (p *parsed) fill(m *Sequential) {
	off := 0
	for _, q := range m.params {
		for i := range q.W {
			q.W[i] = math.Float64frombits(binary.LittleEndian.Uint64(p.weights[off:]))
			off += 8
		}
		clear(q.G)
	}
}

// Decode returns the model stored in the model file b and its meta text.
func Decode(b []byte) (*Sequential, string, error) {
	p, err := parse(b)
	if err != nil {
		return nil, "", fmt.Errorf("nn: decode: %w", err)
	}
	ls := make([]Layer, len(p.specs))
	for i, s := range p.specs {
		ls[i] = build(s)
	}
	m, err := NewSequential(ls...)
	if err != nil {
		return nil, "", fmt.Errorf("nn: decode: %w", err)
	}
	p.fill(m)
	if err := checkFinite(m); err != nil {
		return nil, "", fmt.Errorf("nn: decode: non-finite weight: %w", err)
	}
	return m, p.meta, nil
}

// DecodeInto loads the weights of the model file b into m, whose
// architecture must equal the file's, and returns the meta text. On error m
// is unchanged.
func DecodeInto(b []byte, m *Sequential) (string, error) {
	p, err := parse(b)
	if err != nil {
		return "", fmt.Errorf("nn: decode: %w", err)
	}
	if err := sameArch(m.specs(), p.specs); err != nil {
		return "", fmt.Errorf("nn: decode: file and model differ: %w", err)
	}
	// decode into a copy first so that a bad file leaves m unchanged
	tmp := m.Clone()
	p.fill(tmp)
	if err := checkFinite(tmp); err != nil {
		return "", fmt.Errorf("nn: decode: non-finite weight: %w", err)
	}
	for i, q := range m.params {
		copy(q.W, tmp.params[i].W)
		clear(q.G)
	}
	return p.meta, nil
}

func readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("nn: model file larger than %d bytes", MaxFileBytes)
	}
	return b, nil
}

// Load reads a model file from r (see Decode).
func Load(r io.Reader) (*Sequential, string, error) {
	b, err := readAll(r)
	if err != nil {
		return nil, "", err
	}
	return Decode(b)
}

// LoadInto reads a model file from r into m (see DecodeInto).
func LoadInto(r io.Reader, m *Sequential) (string, error) {
	b, err := readAll(r)
	if err != nil {
		return "", err
	}
	return DecodeInto(b, m)
}

// LoadFile reads the model file at path (see Decode); errors name the path.
func LoadFile(path string) (*Sequential, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	m, meta, err := Load(f)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}
