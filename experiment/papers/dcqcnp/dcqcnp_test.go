package dcqcnp

import (
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/experiment/exptest"
	"github.com/ccsim/ccsim/report/htmlcheck"
)

// E1 is a unit test of ccsim's DCQCN-p reaction point: the round series
// of the paper's Fig. 4 (exact values, spec of the model in e1.go).
func TestE1RoundSeries(t *testing.T) {
	p := cc.DCQCNPDefaults()
	for _, c := range []struct {
		marks      []int
		rc         map[int]float64 // round -> R_c
		full, recv int             // full-speed round, recovery rounds
	}{
		{[]int{3}, map[int]float64{2: 1, 3: 0.5, 4: 0.75, 5: 0.875, 6: 0.9375, 7: 0.96875, 8: 0.984375, 9: 1}, 9, 6},
		{[]int{3, 4}, map[int]float64{3: 0.5, 4: 0.25, 5: 0.375, 9: 0.4921875}, 13, 9},
		{[]int{3, 4, 5}, map[int]float64{5: 0.125}, 15, 10},
		{[]int{3, 5}, map[int]float64{4: 0.75}, 13, 8},
	} {
		st := dcqcnpRounds(p, toSet(c.marks), 40)
		for r, want := range c.rc {
			if st[r].Rc != want {
				t.Errorf("marks %v: R_c at round %d = %v, want %v", c.marks, r, st[r].Rc, want)
			}
		}
		full, n := recovery(st)
		if full != c.full || n != c.recv {
			t.Errorf("marks %v: full speed at round %d after %d rounds, want %d after %d", c.marks, full, n, c.full, c.recv)
		}
		if st[full].Rt != 0 || !st[full].Full || st[full-1].Full {
			t.Errorf("marks %v: at full speed R_t = %v, de-registered %v (round before: %v)", c.marks, st[full].Rt, st[full].Full, st[full-1].Full)
		}
	}
	// α: a decrease from α = 1 keeps 1 (g·1 + (1−g)·1); the piecewise
	// decay subtracts 1/40 above 0.5 (bounded by (1−g)α).
	st := dcqcnpRounds(p, toSet([]int{3}), 10)
	if st[3].Alpha != 1 || st[4].Alpha != 0.975 || st[5].Alpha != 0.95 {
		t.Errorf("α at rounds 3-5: %v %v %v, want 1 0.975 0.95", st[3].Alpha, st[4].Alpha, st[5].Alpha)
	}
	// DCQCN model: one decrease → full speed at round 11 (additive from
	// the 5th event, R_AI = 0.001).
	q := dcqcnInterp.rounds(toSet([]int{3}), 20)
	if full, _ := recovery(q); full != 11 {
		t.Errorf("DCQCN one decrease: full speed at round %d, want 11", full)
	}
	if q[8].Rt != 1.001 || q[7].Rt != 1 {
		t.Errorf("DCQCN R_t at rounds 7, 8: %v %v, want 1, 1.001 (additive from the F-th event)", q[7].Rt, q[8].Rt)
	}
}

// The whole paper at quick scale: every experiment runs, every claim has a
// row, the report and its files exist.
func TestQuickReproduction(t *testing.T) {
	dir, rows := exptest.QuickReproduce(t, "dcqcn-p")
	holds := map[string]string{}
	for _, r := range rows[1:] {
		holds[r[1]+"/"+r[3]] = r[11]
	}
	for _, id := range []string{"e1/first-cut", "e1/fast-recovery", "e1/full-speed", "e1/consecutive-dcqcnp", "e2/fct-size"} {
		if holds[id] != "yes" {
			t.Errorf("claim %s: holds %q, want yes", id, holds[id])
		}
	}
	exptest.Files(t, dir, "report.html", "tables/e3_table4.csv", "tables/e2_pmtu.csv", "tables/e1_recovery.csv", "plots/e1_single.png", "plots/e1_single.svg", "plots/e2_fct.svg", "plots/e3_queue.png")
	htmlcheck.Check(t, filepath.Join(dir, "report.html"), []string{"Table 4 — paper | ccsim", "e1: Single-QP behavioural model"})
}
