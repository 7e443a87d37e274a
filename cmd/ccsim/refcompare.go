package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
)

// refCompareCmd compares a run's flows with the reference simulator's
// per-flow output (fct.txt format): p50 and p99 slowdown per size range
// (of finished flows), ccsim against the reference, and their relative
// difference.
func refCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "refcompare RUN_DIR REF_FCT.txt",
		Short: "compare a run's slowdowns per flow-size range with a reference simulator fct file",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(filepath.Join(args[0], "flows.csv"))
			if err != nil {
				return err
			}
			defer f.Close()
			recs, err := metrics.ReadFlowsCSV(f)
			if err != nil {
				return err
			}
			refN, unmatched, err := experiment.RefInputs(recs, args[1])
			if err != nil {
				return err
			}
			if unmatched > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "ccsim: warning: %d of the reference's %d flows have no flow of the same size and start time in %s (%d flows): the two simulated different inputs, so the differences below compare different workloads\n",
					unmatched, refN, args[0], len(recs))
			}
			rows, err := experiment.CompareRangesOf(metrics.SummarizeFlows(recs, metrics.NoCensoring), args[1])
			if err != nil {
				return err
			}
			printRangeComparison(cmd.OutOrStdout(), rows)
			return nil
		},
	}
}

// printRangeComparison prints the comparison as a table with a header; a
// side without flows in a range shows "-" (as does a difference that needs
// both sides).
func printRangeComparison(w io.Writer, rows []experiment.RangeComparison) {
	const row = "%-10s %16s %10s %10s %9s %10s %10s %9s\n"
	fmt.Fprintf(w, row, "range", "flows ccsim/ref", "p50 ccsim", "ref", "diff", "p99 ccsim", "ref", "diff")
	val := func(n int, v float64) string {
		if n == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return "-"
		}
		return fmt.Sprintf("%.4f", v)
	}
	diff := func(r experiment.RangeComparison, sim, ref float64) string {
		d := (sim - ref) / ref
		if r.N == 0 || r.RefN == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
			return "-"
		}
		return fmt.Sprintf("%+.2f%%", 100*d)
	}
	for _, r := range rows {
		fmt.Fprintf(w, row, r.Range, fmt.Sprintf("%d/%d", r.N, r.RefN),
			val(r.N, r.P50), val(r.RefN, r.RefP50), diff(r, r.P50, r.RefP50),
			val(r.N, r.P99), val(r.RefN, r.RefP99), diff(r, r.P99, r.RefP99))
	}
}
