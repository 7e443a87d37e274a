package dcqcnp

import (
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/experiment/exptest"
	"github.com/ccsim/ccsim/report/htmlcheck"
)

// The whole paper at quick scale: every experiment runs, every claim has a
// row under every reading, every claim can fail (the flip check), the
// report and its files exist.
func TestQuickReproduction(t *testing.T) {
	dir, rows := exptest.QuickReproduce(t, "dcqcn-p")
	holds := map[string]string{}
	for _, r := range rows[1:] {
		holds[r[1]+"/"+r[2]+"/"+r[3]] = r[11]
	}
	for _, id := range []string{"e1/strict/first-cut", "e1/strict/fast-recovery-4", "e1/strict/fast-recovery-5", "e1/strict/full-speed", "e1/strict/consecutive-dcqcnp-2", "e1/strict/consecutive-dcqcnp-3",
		"e2/mix/max-rtt-1024", "e2/mix/max-bdp-1024", "e2/mix1/max-rtt-1024"} {
		if holds[id] != "yes" {
			t.Errorf("claim %s: holds %q, want yes", id, holds[id])
		}
	}
	for _, id := range []string{"e2/rx25/max-rtt-1024", "e2/qp4000/max-rtt-1024", "e1/ge/full-speed"} {
		if holds[id] != "no" {
			t.Errorf("claim %s: holds %q, want no", id, holds[id])
		}
	}
	exptest.Files(t, dir, "report.html", "tables/e3_table4.csv", "tables/e3_fairness.csv", "tables/e2_pmtu.csv", "tables/e1_recovery.csv", "tables/e1_incdec.csv",
		"tables/e3floor_floor.csv", "plots/e1_single.png", "plots/e1_single.svg", "plots/e2_fct.svg", "plots/e3_queue.png")
	htmlcheck.Check(t, filepath.Join(dir, "report.html"), []string{"Table 4 — paper | ccsim", "e1: Single-QP behavioural model"})
}
