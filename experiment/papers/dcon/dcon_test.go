package dcon

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report/htmlcheck"
	"github.com/ccsim/ccsim/topo"
)

// The arrival window gives the flow count asked for: E3's 240-host
// leaf-spine at core load 0.8 needs ~49 ms of web search for 10,500 flows
// (mean 1.71 MB; per-host load 0.2951 of 40 Gb/s).
func TestDurationForFlows(t *testing.T) {
	p := topo.LeafSpineParams{Spines: 8, Leaves: 10, HostsPerLeaf: 24, HostBps: 40e9, FabricBps: 40e9}
	d := durationMs(p, "websearch", 0.8, 10_000)
	if d < 45 || d > 55 {
		t.Errorf("web search at 0.8: %v ms, want about 49", d)
	}
	if d2 := durationMs(p, "websearch", 0.4, 10_000); d2 < 1.99*d || d2 > 2.01*d {
		t.Errorf("half the load should double the window: %v vs %v ms", d2, d)
	}
}

// Every experiment of the paper at quick scale: all runs succeed, every
// claim has a row with a value, the report renders.
func TestQuickReproduction(t *testing.T) {
	p, err := experiment.Lookup("dcon")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	sum, err := experiment.Reproduce(p, experiment.Options{Scale: experiment.ScaleQuick, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failed) > 0 || len(sum.AnalysisErrors) > 0 || len(sum.NotRun) > 0 {
		t.Fatalf("failed %v, analysis errors %v, not run %v", sum.Failed, sum.AnalysisErrors, sum.NotRun)
	}
	declared := 0
	for _, e := range p.Experiments {
		declared += len(e.Claims)
	}
	f, err := os.Open(filepath.Join(out, "dcon", "claims.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != declared+1 {
		t.Fatalf("claims.csv has %d rows, want %d", len(rows)-1, declared)
	}
	for _, r := range rows[1:] {
		if r[5] == "" || r[7] == "" {
			t.Errorf("claim %s/%s without a value or verdict: %v", r[1], r[2], r)
		}
	}
	for _, f := range []string{"tables/e0_burst.csv", "tables/e2_interval.csv", "tables/e3_websearch-avg.csv", "tables/e4_q_cnm.csv",
		"plots/e1_dcon-queues.svg", "plots/e0_dcqcn-pause.png", "plots/e3_datamining-p99.svg", "plots/e4_window_rtts.png"} {
		if st, err := os.Stat(filepath.Join(out, "dcon", f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	htmlcheck.Check(t, filepath.Join(out, "dcon", "report.html"), []string{"e3: Large-scale leaf-spine", "Fig. 7 — average FCT by interval"})
}
