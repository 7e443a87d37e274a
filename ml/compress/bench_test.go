package compress

import (
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

// benchModels returns a DECC-size model (randomly initialised), its
// compressed form and packed form.
func benchModels(b *testing.B, build func(testing.TB) *nn.Sequential) (*nn.Sequential, *Model, *PackedModel) {
	m := build(b)
	m.Init(nn.NewRand(1))
	c, _, err := Compress(m, DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	pm, err := Pack(c)
	if err != nil {
		b.Fatal(err)
	}
	return m, c, pm
}

func benchPacked(b *testing.B, build func(testing.TB) *nn.Sequential, steps int) {
	_, _, pm := benchModels(b, build)
	ws := pm.NewWorkspace(steps)
	x := inputs(nn.NewRand(1), 1, steps, 5)[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pm.Forward(ws, x, steps); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFloat(b *testing.B, build func(testing.TB) *nn.Sequential, steps int) {
	_, c, _ := benchModels(b, build)
	ws := c.Quant.NewWorkspace(steps)
	x := inputs(nn.NewRand(1), 1, steps, 5)[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Quant.Forward(ws, x, steps); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackedMLP: one inference of the DECC-size MLP
// 5→128→64→32→32→16→11 from the int4 packed codes.
func BenchmarkPackedMLP(b *testing.B) { benchPacked(b, deccMLP, 1) }

// BenchmarkFloatMLP: the same network's dequantised float model through
// ml/nn (the reference the packed path equals bit for bit).
func BenchmarkFloatMLP(b *testing.B) { benchFloat(b, deccMLP, 1) }

// BenchmarkPackedActor: one decision of the DECC actor (LSTM) over its
// 5-step window from the packed codes.
func BenchmarkPackedActor(b *testing.B) { benchPacked(b, deccActor, 5) }

// BenchmarkFloatActor: the same through ml/nn.
func BenchmarkFloatActor(b *testing.B) { benchFloat(b, deccActor, 5) }

// BenchmarkCompressActor: Compress on the actor (fits, thresholds, steps).
func BenchmarkCompressActor(b *testing.B) {
	m := deccActor(b)
	m.Init(nn.NewRand(1))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Compress(m, DefaultConfig()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodePackedActor: parsing the actor's packed file.
func BenchmarkDecodePackedActor(b *testing.B) {
	_, _, pm := benchModels(b, deccActor)
	data, _ := EncodePacked(pm)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodePacked(data); err != nil {
			b.Fatal(err)
		}
	}
}
