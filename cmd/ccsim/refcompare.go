package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
)

// refCompareCmd compares a run's flows with the reference simulator's
// per-flow output (fct.txt format): p50 and p99 slowdown per size range.
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
			rows, err := experiment.CompareRangesOf(metrics.SummarizeFlows(recs), args[1])
			if err != nil {
				return err
			}
			for _, r := range rows {
				fmt.Fprintln(cmd.OutOrStdout(), r)
			}
			return nil
		},
	}
}
