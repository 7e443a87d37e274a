package dcon

import (
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/experiment/exptest"
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
	dir, _ := exptest.QuickReproduce(t, "dcon")
	exptest.Files(t, dir, "tables/e0_burst.csv", "tables/e2_interval.csv", "tables/e3_websearch-avg.csv", "tables/e4_q_cnm.csv",
		"plots/e1_dcon-queues.svg", "plots/e0_dcqcn-queues.png", "plots/e3_datamining-p99.svg", "plots/e4_window_rtts.png")
	htmlcheck.Check(t, filepath.Join(dir, "report.html"), []string{"e3: Large-scale leaf-spine", "Fig. 7 — average FCT by interval"})
}
