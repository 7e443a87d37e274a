package nn

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func trainedSmall(t *testing.T) *Sequential {
	m := mustSeq(t, must(NewDense(2, 3, KaimingUniform)), must(NewActivation(ReLU, 3)),
		must(NewLSTM(3, 4, true)), must(NewDense(4, 1, TorchDefault)))
	m.Init(NewRand(11))
	// values that need all 64 bits, and special ones
	m.Params()[0].W[0] = math.Pi
	m.Params()[0].W[1] = math.Copysign(0, -1)
	m.Params()[0].W[2] = 5e-324
	m.Params()[0].W[3] = math.MaxFloat64
	return m
}

func TestFormatRoundTrip(t *testing.T) {
	m := trainedSmall(t)
	b := must(Encode(m, "test model ✓"))
	// the layout of docs/ml.md §5: header 20, meta 4+14, count 4, 4 records
	// of 12, count 8, weights, CRC 4
	nw := m.NumParams()
	if want := 20 + 4 + len("test model ✓") + 4 + 4*12 + 8 + 8*nw + 4; len(b) != want {
		t.Fatalf("file has %d bytes, want %d", len(b), want)
	}
	if string(b[:8]) != "CCSIMNN\x00" || binary.LittleEndian.Uint32(b[8:]) != 1 ||
		binary.LittleEndian.Uint64(b[12:]) != uint64(len(b)-24) {
		t.Fatalf("header % x", b[:20])
	}
	if binary.LittleEndian.Uint32(b[len(b)-4:]) != crc32.ChecksumIEEE(b[:len(b)-4]) {
		t.Fatal("trailer is not the CRC-32 of the rest")
	}
	// the first weight, π, right after the weight count
	off := len(b) - 4 - 8*nw
	if math.Float64frombits(binary.LittleEndian.Uint64(b[off:])) != math.Pi {
		t.Fatal("first weight is not at the documented offset")
	}
	m2, meta, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if meta != "test model ✓" || m2.String() != m.String() {
		t.Fatalf("decoded %q %v", meta, m2)
	}
	if !equalBits(weightBits(m), weightBits(m2)) {
		t.Fatal("weights differ after the round trip")
	}
	if math.Signbit(m2.Params()[0].W[1]) != true {
		t.Fatal("−0 lost its sign")
	}
	if b2 := must(Encode(m2, meta)); !bytes.Equal(b, b2) {
		t.Fatal("re-encoding the decoded model gives other bytes")
	}
	// into an existing model of the same architecture
	m3 := trainedSmall(t)
	m3.Init(NewRand(99))
	if _, err := DecodeInto(b, m3); err != nil {
		t.Fatal(err)
	}
	if !equalBits(weightBits(m), weightBits(m3)) {
		t.Fatal("DecodeInto: weights differ")
	}
	// same outputs
	x := []float64{0.1, -0.2, 0.3, 0.4, -0.5, 0.6}
	y1 := append([]float64(nil), must(m.Forward(m.NewWorkspace(3), x, 3))...)
	y2 := must(m2.Forward(m2.NewWorkspace(3), x, 3))
	if !equal(y1, y2) {
		t.Fatalf("outputs differ: %v vs %v", y1, y2)
	}
	// files
	path := filepath.Join(t.TempDir(), "model.nn")
	if err := SaveFile(path, m, "file"); err != nil {
		t.Fatal(err)
	}
	m4, meta, err := LoadFile(path)
	if err != nil || meta != "file" || !equalBits(weightBits(m), weightBits(m4)) {
		t.Fatalf("LoadFile: %v %q", err, meta)
	}
	if _, err := LoadInto(bytes.NewReader(b), m4); err != nil {
		t.Fatal(err)
	}
	m4.Params()[1].W[0] = math.Inf(-1)
	if _, err := Encode(m4, ""); err == nil || !strings.Contains(err.Error(), "layer 0 (dense(2→3)) b[0] is -Inf") {
		t.Errorf("Encode of an infinite weight: %v", err)
	}
}

func equalBits(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// reseal rewrites the CRC so that a deliberately malformed body reaches the
// parser behind the checksum.
func reseal(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

func TestFormatErrors(t *testing.T) {
	m := trainedSmall(t)
	good := must(Encode(m, "meta"))
	cp := func() []byte { return append([]byte(nil), good...) }
	metaEnd := 20 + 4 + 4
	rec := metaEnd + 4 // first layer record
	wcount := rec + 4*12
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated: 0 bytes, the header alone is 20"},
		{"half header", good[:10], "truncated: 10 bytes"},
		{"truncated body", good[:len(good)-9], "truncated: " + strconv.Itoa(len(good)-9) + " bytes, the header declares " + strconv.Itoa(len(good))},
		{"trailing", append(cp(), 0), "1 trailing bytes"},
		{"magic", func() []byte { b := cp(); b[0] = 'X'; return b }(), `not a ccsim model file: magic "XCSIMNN\x00"`},
		{"version", func() []byte { b := cp(); b[8] = 2; return b }(), "unsupported format version 2 (this build reads version 1)"},
		{"weight flipped", func() []byte { b := cp(); b[len(b)-10] ^= 1; return b }(), "checksum mismatch"},
		{"crc flipped", func() []byte { b := cp(); b[len(b)-1] ^= 0x80; return b }(), "checksum mismatch"},
		{"unknown kind", func() []byte { b := cp(); b[rec] = 9; return reseal(b) }(), "layer 0: unknown layer kind 9"},
		{"zero size", func() []byte { b := cp(); binary.LittleEndian.PutUint32(b[rec+4:], 0); return reseal(b) }(), "layer 0: dense: size 0, want 1..65536"},
		{"bad activation", func() []byte { b := cp(); b[rec+12+1] = 7; return reseal(b) }(), "layer 1: activation: function 7"},
		{"bad lstm flag", func() []byte { b := cp(); b[rec+24+1] = 2; return reseal(b) }(), "layer 2: lstm: sequences flag 2"},
		{"reserved", func() []byte { b := cp(); b[rec+2] = 1; return reseal(b) }(), "layer 0: reserved bytes 0100"},
		{"chain", func() []byte { b := cp(); binary.LittleEndian.PutUint32(b[rec+8:], 5); return reseal(b) }(), "layer 1 (relu(3)) takes 3 values per step but layer 0 (dense(in 2, out 5)) outputs 5"},
		{"weight count", func() []byte { b := cp(); binary.LittleEndian.PutUint64(b[wcount:], 3); return reseal(b) }(), "weight count 3 does not match the architecture, which has " + strconv.Itoa(m.NumParams()) + " weights"},
		{"layer count", func() []byte { b := cp(); binary.LittleEndian.PutUint32(b[metaEnd:], 0); return reseal(b) }(), "layer count 0, want 1..1024"},
		{"too many layers", func() []byte { b := cp(); binary.LittleEndian.PutUint32(b[metaEnd:], 5); return reseal(b) }(), "layer 4: unknown layer kind"},
		{"huge meta", func() []byte { b := cp(); binary.LittleEndian.PutUint32(b[20:], 1<<30); return reseal(b) }(), "meta length 1073741824 exceeds 1048576"},
		{"NaN weight", func() []byte {
			b := cp()
			binary.LittleEndian.PutUint64(b[wcount+8+8*5:], math.Float64bits(math.NaN()))
			return reseal(b)
		}(), "non-finite weight: layer 0 (dense(2→3)) W[5] is NaN"},
		{"huge body", func() []byte { b := cp(); binary.LittleEndian.PutUint64(b[12:], 1<<40); return b }(), "header declares a body of 1099511627776 bytes"},
	}
	for _, c := range cases {
		_, _, err := Decode(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
		// DecodeInto fails the same way and leaves the model as it was
		into := trainedSmall(t)
		before := weightBits(into)
		if _, err := DecodeInto(c.b, into); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: DecodeInto error %v, want it to contain %q", c.name, err, c.want)
		}
		if !equalBits(before, weightBits(into)) {
			t.Errorf("%s: a failed DecodeInto changed the model", c.name)
		}
	}
}

// TestFormatArchMismatch: loading into a model of another shape names the
// first difference and leaves the model unchanged.
func TestFormatArchMismatch(t *testing.T) {
	b := must(Encode(paper001Model(t), ""))
	for _, c := range []struct {
		m    *Sequential
		want string
	}{
		{mustSeq(t, must(NewLSTM(1, 32, false)), must(NewDense(32, 1, TorchDefault))),
			"architecture mismatch at layer 0: source has lstm(in 1, hidden 16, last), model has lstm(in 1, hidden 32, last)"},
		{mustSeq(t, must(NewLSTM(1, 16, true)), must(NewDense(16, 1, TorchDefault))),
			"source has lstm(in 1, hidden 16, last), model has lstm(in 1, hidden 16, sequences)"},
		{mustSeq(t, must(NewLSTM(1, 16, false)), must(NewDense(16, 2, TorchDefault))),
			"at layer 1: source has dense(in 16, out 1), model has dense(in 16, out 2)"},
		{mustSeq(t, must(NewLSTM(1, 16, false))), "source has 2 layers, model has 1"},
		{mustSeq(t, must(NewDense(1, 16, TorchDefault)), must(NewDense(16, 1, TorchDefault))),
			"at layer 0: source has lstm(in 1, hidden 16, last), model has dense(in 1, out 16)"},
	} {
		c.m.Init(NewRand(1))
		before := weightBits(c.m)
		_, err := DecodeInto(b, c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to contain %q", c.m, err, c.want)
		}
		if !equalBits(before, weightBits(c.m)) {
			t.Errorf("%v: a failed load changed the model", c.m)
		}
	}
}

// TestFormatNeverPanics: every truncation and every single-bit flip of a
// valid file gives an error, never a panic or a silently different model.
func TestFormatNeverPanics(t *testing.T) {
	good := must(Encode(trainedSmall(t), "x"))
	for n := range len(good) {
		if _, _, err := Decode(good[:n]); err == nil {
			t.Fatalf("truncation to %d bytes accepted", n)
		}
	}
	b := append([]byte(nil), good...)
	for i := range b {
		for bit := range 8 {
			b[i] ^= 1 << bit
			if _, _, err := Decode(b); err == nil {
				t.Fatalf("flip of byte %d bit %d accepted", i, bit)
			}
			b[i] ^= 1 << bit
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(must(Encode(mustSeq(f, must(NewLSTM(1, 2, false)), must(NewDense(2, 1, TorchDefault))), "")))
	f.Add([]byte("CCSIMNN\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, _, err := Decode(b)
		if err == nil {
			if b2 := must(Encode(m, string(b[24:24+binary.LittleEndian.Uint32(b[20:])]))); !bytes.Equal(b, b2) {
				t.Fatal("a decoded file does not re-encode to itself")
			}
		}
	})
}

func TestLoadFileErrorNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.nn")
	if err := os.WriteFile(path, []byte("nonsense"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("error %v", err)
	}
}
