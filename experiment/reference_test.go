package experiment

import (
	"math"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

// TestIncastFidelity runs the two reference incasts with dcqcn and checks
// the fidelity bar: mean FCT and finish time (max FCT) within 5 % of
// the reference simulator's outputs on the same inputs; also conservation
// and no drops.
func TestIncastFidelity(t *testing.T) { checkIncasts(t, "dcqcn", "dcqcn") }

// TestIncastFidelityHPCC: hpcc (hp95ai50) on the same incasts.
func TestIncastFidelityHPCC(t *testing.T) { checkIncasts(t, "hpcc", "hp95ai50") }

func checkIncasts(t *testing.T, cc, refName string) {
	for _, size := range []string{"1MB", "10MB"} {
		s, err := scenario.Load("../scenarios/reference/incast20-" + size + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		b, err := assemble.Build(s, cc, assemble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := b.Run()
		cmp, err := CompareWithRef(r, "../scenarios/reference/expected/fct_incast20_"+size+"_"+refName+".txt")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s: %v", s.Name, cc, cmp)
		if cmp.Unfinished != 0 || cmp.Flows != len(r.Flows) {
			t.Fatalf("%s: %d unfinished, %d reference flows vs %d", s.Name, cmp.Unfinished, cmp.Flows, len(r.Flows))
		}
		if math.Abs(cmp.MeanErr) > 0.05 || math.Abs(cmp.MaxErr) > 0.05 {
			t.Errorf("%s: outside 5%%: %v", s.Name, cmp)
		}
		if r.Bytes.Sent != r.Bytes.Delivered+r.Bytes.InFlight+r.Bytes.Dropped {
			t.Errorf("byte conservation: %+v", r.Bytes)
		}
		if r.Drops != 0 {
			t.Errorf("%d drops in a lossless fabric", r.Drops)
		}
	}
}

// TestFatTreeFidelityHPCC runs the reference fat-tree (320 hosts, WebSearch
// 30 %, 6677 flows) with hpcc and checks the bar against the
// reference simulator's per-flow output: p50 slowdown of each size range
// within 5 %, p99 within 10 %. It takes about 20–30 s; -short skips it.
func TestFatTreeFidelityHPCC(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	s, err := scenario.Load("../scenarios/reference/fat320-websearch30.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, "hpcc", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	rows, err := CompareRanges(r, "../scenarios/reference/expected/fct_fat_websearch_l30_10ms_hp95ai50.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		t.Log(row)
		if math.Abs(row.P50Err) > 0.05 || math.Abs(row.P99Err) > 0.10 {
			t.Errorf("%s outside the bar (p50 ±5 %%, p99 ±10 %%)", row.Range)
		}
	}
	if r.Summary.Unfinished != 0 {
		t.Errorf("%d flows unfinished", r.Summary.Unfinished)
	}
}

// BenchmarkFat320HPCC2ms is the multi-switch counterpart of the fabric's
// incast benchmarks: the reference fat-tree run (hpcc, reference ECMP)
// stopped 2 ms after the first flow starts (about 1300 flows started, 14 M
// events). go test ./experiment -run X -bench Fat320 -benchmem
func BenchmarkFat320HPCC2ms(b *testing.B) {
	s, err := scenario.Load("../scenarios/reference/fat320-websearch30.yaml")
	if err != nil {
		b.Fatal(err)
	}
	s.StopMs = 2
	var events int64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		built, err := assemble.Build(s, "hpcc", assemble.Options{})
		if err != nil {
			b.Fatal(err)
		}
		events = built.Run().Events
	}
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
