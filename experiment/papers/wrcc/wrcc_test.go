package wrcc

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/experiment/exptest"
	"github.com/ccsim/ccsim/report/htmlcheck"
)

func TestAbove(t *testing.T) {
	q := []float64{0, 0, 5e5, 1e6, 1e6, 2e6, 3e6, 4e6, 5e6, 6e6}
	if got := above(q, 1e6); got != 0.5 {
		t.Errorf("above 1 MB = %v, want 0.5 (samples equal to 1 MB are not above)", got)
	}
	if got := above(q, 0); got != 0.8 {
		t.Errorf("above 0 = %v, want 0.8", got)
	}
	if !math.IsNaN(above(nil, 1)) {
		t.Error("no samples must give NaN")
	}
}

// Every experiment of the paper at quick scale: all runs succeed, every
// claim has a row with a value, the report renders.
func TestQuickReproduction(t *testing.T) {
	dir, _ := exptest.QuickReproduce(t, "wrcc")
	exptest.Files(t, dir, "tables/e0_queue.csv", "tables/e0_c1.csv", "tables/e0_convergence.csv", "plots/e0_c1-hpcc-rates.svg", "tables/e1_fct.csv", "tables/e1_bins-websearch.csv", "tables/e2_table3.csv", "tables/e3_table4.csv",
		"tables/e4_long-msg.csv", "tables/e4_short-flows.csv", "tables/e4_short-dur.csv", "tables/e5_climb.csv", "tables/e5_climb_i21.csv", "plots/e0_queue-cdf.svg", "plots/e0_hpcc-rates.png", "plots/e2_p99.svg", "plots/e4_long-dur-gbps.svg")
	htmlcheck.Check(t, filepath.Join(dir, "report.html"), []string{"e2: Load robustness", "Table 3 — FCT slowdown by load"})
}

// queueStats merges the classes of queue_cdf.csv by their sample counts:
// fabric 100 samples (60 empty, then 20 at 1 KB, 20 at 4 KB), host 300
// samples (all but 30 empty, those at 2 KB). Merged over 400 samples:
// 330 empty (0.825 ≥ 0.8, so p80 = 0 B); 350 at
// ≤ 1 KB, 380 at ≤ 2 KB, 400 at ≤ 4 KB → p99 = 4 KB. Busy samples: 70 (20
// at 1 KB, 30 at 2 KB, 20 at 4 KB): 20/70, 50/70 = 0.714, 70/70 → busy
// p80 = 4 KB.
func TestQueueStats(t *testing.T) {
	dir := t.TempDir()
	sum := `{"queue_stats":[{"class":"fabric","n":100},{"class":"host","n":300}]}`
	cdf := "class,bytes,fraction\nfabric,0,0.6\nfabric,1000,0.8\nfabric,4000,1\nhost,0,0.9\nhost,2000,1\n"
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(sum), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "queue_cdf.csv"), []byte(cdf), 0o644); err != nil {
		t.Fatal(err)
	}
	p80, p99, busy, err := queueStats(&experiment.RunRef{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if p80 != 0 || p99 != 4000 || busy != 4000 {
		t.Errorf("p80, p99, busy p80 = %v, %v, %v; want 0, 4000, 4000", p80, p99, busy)
	}
	// without the 4-KB samples' weight: host only → busy p80 = 2 KB
	sum = `{"queue_stats":[{"class":"host","n":300}]}`
	cdf = "class,bytes,fraction\nhost,0,0.9\nhost,2000,1\n"
	os.WriteFile(filepath.Join(dir, "summary.json"), []byte(sum), 0o644)
	os.WriteFile(filepath.Join(dir, "queue_cdf.csv"), []byte(cdf), 0o644)
	if p80, _, busy, _ = queueStats(&experiment.RunRef{Dir: dir}); p80 != 0 || busy != 2000 {
		t.Errorf("host only: p80 %v busy %v, want 0, 2000", p80, busy)
	}
}
