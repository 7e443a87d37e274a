package experiment

import (
	"math"
	"testing"

	"github.com/ccsim/ccsim/scenario"
)

// TestIncastFidelity runs the two reference incasts with dcqcn and checks
// the fidelity bar: mean FCT and finish time (max FCT) within 5 % of
// the reference simulator's outputs on the same inputs.
func TestIncastFidelity(t *testing.T) {
	for _, c := range []struct{ scen, ref string }{
		{"../scenarios/reference/incast20-1MB.yaml", "../scenarios/reference/expected/fct_incast20_1MB_dcqcn.txt"},
		{"../scenarios/reference/incast20-10MB.yaml", "../scenarios/reference/expected/fct_incast20_10MB_dcqcn.txt"},
	} {
		s, err := scenario.Load(c.scen)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Build("dcqcn", scenario.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := b.Run()
		cmp, err := CompareWithRef(r, c.ref)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v", s.Name, cmp)
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
