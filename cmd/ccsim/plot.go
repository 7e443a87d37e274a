package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
by their algorithm (summary.json "cc"), runs of a reproduction's store
(runs/<hash>, with a run.json) by their key. Files go to --out, by default
the first DIR, or ./plots for a reproduction's runs (never into the store);
the list of files written is printed. Runs that kept only the queue
distributions (queue_cdf.csv) are drawn from them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := report.LoadRuns(args...)
			if err != nil {
				return err
			}
			stored := slices.ContainsFunc(runs, func(r *report.Run) bool { return r.Stored })
			switch {
			case out == "" && stored:
				// a reproduction's runs are content-addressed: never write
				// into them (issue 19 §3.8)
				out = "plots"
			case out == "":
				out = args[0]
			case stored && insideStoredRun(out, runs):
				return fmt.Errorf("--out %s is inside a reproduction's stored run: choose a directory outside runs/", out)
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

// insideStoredRun reports whether dir is (or is under) the directory of a
// stored run, or the runs/ directory holding them.
func insideStoredRun(dir string, runs []*report.Run) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for _, r := range runs {
		if !r.Stored {
			continue
		}
		rd, err := filepath.Abs(r.Dir)
		if err != nil {
			continue
		}
		for _, d := range []string{rd, filepath.Dir(rd)} {
			if rel, err := filepath.Rel(d, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return true
			}
		}
	}
	return false
}
