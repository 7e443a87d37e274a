package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ccsim/ccsim/report"
)

// plotCmd implements `ccsim plot DIR... [--out DIR]`.
func plotCmd() *cobra.Command {
	var out string
	var noTables bool
	c := &cobra.Command{
		Use:   "plot DIR... [--out DIR]",
		Short: "plot and tabulate run results (slowdown by size, FCT CDF, queue-length CDF)",
		Long: `plot loads run results and writes comparison plots, each as PNG and SVG:
  slowdown_vs_size  p50 and p99 FCT slowdown per size bin (20 bins of 5% of flows), log x
  fct_cdf           CDF of flow completion times, log x
  queue_cdf         CDF of sampled queue lengths (only for runs with queue.csv)
and per run the slowdown table slowdown_<cc>.txt in the reference analysis
fctbuckets format (diffable against it) with p50/p95/p99 slowdown rows for
< 100 KB, 100 KB-1 MB and > 1 MB, plus queue_cdf_<cc>.csv and
queue_stats_<cc>.csv (p50/p80/p99/max) when the run sampled queues.

Each DIR is a run directory (it holds summary.json, flows.csv and optionally
queue.csv, e.g. results/<scenario>/<cc>) or a scenario results directory
whose subdirectories are runs (e.g. results/<scenario>). Runs are labelled
by their algorithm (summary.json "cc"). Files go to --out, by default the
first DIR; the list of files written is printed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := report.LoadRuns(args...)
			if err != nil {
				return err
			}
			if out == "" {
				out = args[0]
			}
			files, err := report.PlotRuns(runs, out)
			if err != nil {
				return err
			}
			if !noTables {
				tabs, err := report.WriteTables(runs, out, nil)
				files = append(files, tabs...)
				if err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			labels := report.Labels(runs)
			for i, r := range runs {
				done := 0
				for _, f := range r.Flows {
					if f.Done {
						done++
					}
				}
				fmt.Fprintf(w, "run %s: %s (%d flows, %d finished)\n", labels[i], r.Dir, len(r.Flows), done)
			}
			if len(files) == 0 {
				fmt.Fprintln(w, "nothing to plot: no finished flows and no queue samples")
				return nil
			}
			for _, f := range files {
				fmt.Fprintln(w, f)
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "output directory (default: the first DIR)")
	c.Flags().BoolVar(&noTables, "no-tables", false, "write only the plots, not the slowdown and queue tables")
	return c
}
