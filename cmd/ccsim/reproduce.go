package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ccsim/ccsim/experiment"
	_ "github.com/ccsim/ccsim/experiment/papers" // registers the papers
)

func reproduceCmd() *cobra.Command {
	var scale, out string
	var workers int
	var reportOnly bool
	var readings []string
	var shard, emit string
	emitCfg := emitConfig{shards: 4, cpus: 2, image: "ccsim:latest", pvc: "ccsim-results"}
	c := &cobra.Command{
		Use:   "reproduce (list | PAPER [EXPERIMENT...])",
		Short: "reproduce a paper's experiments: runs, claims.csv, tables, plots and report.html",
		Long: `reproduce runs the experiments of a source paper and writes, under OUT/PAPER:
  claims.csv   every published claim beside ccsim's value and whether it holds
  report.html  one self-contained page: setup, tables, plots, claims, exact inputs
  tables/      each table as CSV;  plots/  each figure as PNG and SVG
  runs/HASH/   one directory per run, named by the hash of its resolved inputs
               (scenario.yaml, run.json, summary.json, flows.csv, time series)
Finished runs are never run again: re-running resumes, and result trees made
on different machines merge by copying their runs/ directories. The primary
readings' runs go first, so a reproduction stopped half-way can already be
reported (--report-only) for the paper's own setup.

Papers: decc (000), pidnn (001), wrcc (002), dcon (003), dcqcn-p (004). 'ccsim reproduce list' prints every paper, its
experiments and its claims.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "list" {
				if len(args) > 1 {
					return fmt.Errorf("reproduce list takes no arguments")
				}
				return listPapers(cmd.OutOrStdout())
			}
			if err := checkWorkers(workers); err != nil {
				return err
			}
			p, err := experiment.Lookup(args[0])
			if err != nil {
				return err
			}
			sc, err := experiment.ParseScale(scale)
			if err != nil {
				return err
			}
			if emit != "" && len(readings) > 0 {
				return fmt.Errorf("--readings with --emit: not supported (the shards run every reading); run the emitted script, or shard a reading by hand with --readings and --shard")
			}
			if emit != "" {
				return emitCluster(cmd.OutOrStdout(), emit, emitCfg, p.ID, args[1:], string(sc), out)
			}
			opt := experiment.Options{Scale: sc, Out: out, Experiments: args[1:], Workers: workers,
				Progress: os.Stderr, Terminal: term.IsTerminal(int(os.Stderr.Fd())), ReportOnly: reportOnly, Readings: readings}
			if shard != "" {
				if opt.Shard, opt.Shards, err = parseShard(shard); err != nil {
					return err
				}
			}
			sum, err := experiment.Reproduce(p, opt)
			if err != nil {
				return err
			}
			if opt.Shards > 1 {
				return printShard(cmd.OutOrStdout(), sum, opt, p.ID)
			}
			return printReproduction(cmd.OutOrStdout(), sum)
		},
	}
	c.Flags().StringVar(&scale, "scale", "paper", "quick (scaled down, seconds) or paper (the paper's size)")
	c.Flags().StringVar(&out, "out", "results", "result root (the paper's results go to OUT/PAPER)")
	c.Flags().IntVar(&workers, "workers", 0, "parallel runs (0 = number of cores)")
	c.Flags().BoolVar(&reportOnly, "report-only", false, "only re-analyse the results in OUT and rewrite the report")
	c.Flags().StringSliceVar(&readings, "readings", nil, "run only the runs of these readings (ids as 'reproduce list' shows them, or primary); the report still covers every reading")
	c.Flags().StringVar(&shard, "shard", "", "i/n: run only the i-th of n shares of the runs (stable by run hash; no report: build it with --report-only)")
	c.Flags().StringVar(&emit, "emit", "", "slurm or k8s: print a script (a Slurm array + report job) or manifest (an Indexed Job + report Job) that runs this reproduction in --shards shards")
	c.Flags().IntVar(&emitCfg.shards, "shards", emitCfg.shards, "with --emit: the number of shards (array tasks, pods)")
	c.Flags().IntVar(&emitCfg.cpus, "cpus", emitCfg.cpus, "with --emit: CPUs per shard (its --workers)")
	c.Flags().StringVar(&emitCfg.ccsim, "ccsim", "", "with --emit: the ccsim binary the tasks run (default: this one; in k8s the image's ccsim)")
	c.Flags().StringVar(&emitCfg.image, "image", emitCfg.image, "with --emit k8s: the container image holding ccsim")
	c.Flags().StringVar(&emitCfg.pvc, "pvc", emitCfg.pvc, "with --emit k8s: the ReadWriteMany claim mounted at /results")
	return c
}

// emitCluster prints the Slurm script or Kubernetes manifest of a
// reproduction (emit.go).
func emitCluster(w io.Writer, kind string, c emitConfig, paper string, exps []string, scale, out string) error {
	if c.shards < 1 || c.shards > 1<<20 {
		return fmt.Errorf("--shards = %d out of range [1, 1048576]", c.shards)
	}
	if c.cpus < 1 || c.cpus > maxWorkers {
		return fmt.Errorf("--cpus = %d out of range [1, %d]", c.cpus, maxWorkers)
	}
	c.paper, c.experiments, c.scale, c.out = paper, exps, scale, out
	switch kind {
	case "slurm":
		if c.ccsim == "" {
			c.ccsim = ccsimPath()
		}
		abs, err := filepath.Abs(out)
		if err != nil {
			return err
		}
		c.out = abs // the tasks start in another directory
		return c.writeSlurm(w)
	case "k8s":
		if c.ccsim == "" {
			c.ccsim = "ccsim"
		}
		return c.writeK8s(w)
	}
	return fmt.Errorf("--emit = %q: want slurm or k8s", kind)
}

// printShard reports a shard's runs and how to build the report.
func printShard(w io.Writer, s *experiment.Summary, opt experiment.Options, paper string) error {
	fmt.Fprintf(w, "shard %d/%d: %s of this shard to do: %d ran, %d run by another process, %d failed (%.1fs); %s of the paper's %s were already done\n",
		opt.Shard, opt.Shards, plural(s.Shard, "run"), s.Ran, s.Elsewhere, len(s.Failed), s.Wall.Seconds(), plural(s.Skipped, "run"), plural(s.Runs, "run"))
	fmt.Fprintf(w, "when every shard is done: ccsim reproduce %s --scale %s --out %s --report-only\n", paper, opt.Scale, opt.Out)
	if len(s.Failed) > 0 {
		for _, e := range s.Failed {
			fmt.Fprintf(w, "  failed: %v\n", e)
		}
		return fmt.Errorf("%s failed (results of the others are kept)", plural(len(s.Failed), "run"))
	}
	return nil
}

func listPapers(w io.Writer) error {
	for _, p := range experiment.Papers() {
		fmt.Fprintf(w, "%s  paper %s: %s\n    %s\n", p.ID, p.Number, p.Title, p.Citation)
		for _, e := range p.Experiments {
			fmt.Fprintf(w, "  %s  %s (%s at paper scale: readings × seeds)\n", e.ID, e.Title, plural(e.RunCount(experiment.ScalePaper), "run"))
			listReadings(w, e)
			for _, c := range e.Claims {
				v := c.PaperValue
				if c.Unit != "" {
					v += " " + c.Unit
				}
				fmt.Fprintf(w, "      %-20s %s [paper: %s; %s]\n", c.ID, c.Description, strings.TrimSpace(v), claimKind(&c))
			}
		}
	}
	var planned []string
	for id, what := range experiment.Planned {
		planned = append(planned, fmt.Sprintf("%s (%s)", id, what))
	}
	if len(planned) > 0 {
		fmt.Fprintf(w, "not yet reproducible: %s\n", strings.Join(sortedStrings(planned), ", "))
	}
	return nil
}

// listReadings prints an experiment's readings and consistency checks.
func listReadings(w io.Writer, e *experiment.Experiment) {
	for _, r := range e.Readings {
		primary := ""
		if r.Primary {
			primary = " (primary)"
		}
		fmt.Fprintf(w, "    reading %s%s: %s\n", r.ID, primary, r.Title)
	}
	for _, c := range e.Checks {
		fmt.Fprintf(w, "    check %s: %s %s %s (the paper's printed constant against each reading's setup)\n", c.ID, c.Description, checkRel(&c), c.Unit)
	}
}

// checkRel is a check's printed constant ("= 4654") or bounds ("≥ 94.5").
func checkRel(c *experiment.Check) string {
	if c.Bounds {
		return c.PaperText()
	}
	return "= " + c.PaperText()
}

// claimKind describes how a claim is decided.
func claimKind(c *experiment.Claim) string {
	switch c.Kind {
	case experiment.Number:
		return "number, no verdict"
	}
	k := c.Kind.String()
	if c.Mag != experiment.MagNone {
		if c.Kind == experiment.Magnitude {
			k = "magnitude " + c.Mag.String()
		} else {
			k += " + magnitude " + c.Mag.String()
		}
	}
	return k
}

func printReproduction(w io.Writer, s *experiment.Summary) error {
	shared := ""
	if s.Listed != s.Runs {
		shared = fmt.Sprintf(" (%d as the experiments list them: a run they share counts once)", s.Listed)
	}
	elsewhere := ""
	if s.Elsewhere > 0 {
		elsewhere = fmt.Sprintf(", %d run by another process", s.Elsewhere)
	}
	fmt.Fprintf(w, "%s%s: %d ran, %d already done%s, %d failed (%.1fs)\n", plural(s.Runs, "run"), shared, s.Ran, s.Skipped, elsewhere, len(s.Failed), s.Wall.Seconds())
	counts := map[string]int{}
	others := 0
	fmt.Fprintf(w, "%-4s %-22s %-14s %-26s %-6s\n", "exp", "claim", "paper", "ccsim", "holds")
	for _, c := range s.Claims {
		if !c.Primary && c.Reading != "" {
			others++
			continue
		}
		counts[c.Holds]++
		fmt.Fprintf(w, "%-4s %-22s %-14s %-26s %-6s\n", c.Experiment, c.ID, clip(c.PaperValue, 14), clip(c.CCSimValue, 26), c.Holds)
	}
	fmt.Fprintf(w, "claims (primary readings): %d hold, %d do not, %d inconclusive, %d without a verdict", counts["yes"], counts["no"], counts["inconclusive"], counts["n/a"])
	if others > 0 {
		fmt.Fprintf(w, "; %d more rows under other readings (claims.csv, report)", others)
	}
	fmt.Fprintln(w)
	for _, id := range s.NotRun {
		fmt.Fprintf(w, "experiment %s has not been run at this scale (its claims are n/a)\n", id)
	}
	for _, pr := range s.Partial {
		primary := ""
		if pr.Primary {
			primary = ", the primary reading among them"
		}
		noun := "reading"
		if len(pr.Readings) > 1 {
			noun = "readings"
		}
		fmt.Fprintf(w, "experiment %s has not been run at this scale under %s %s%s (their claims are n/a)\n",
			pr.Experiment, noun, strings.Join(pr.Readings, ", "), primary)
	}
	fmt.Fprintf(w, "claims: %s\nreport: %s\n", s.ClaimsCSV, s.Report)
	for _, err := range s.AnalysisErrors {
		fmt.Fprintf(os.Stderr, "ccsim: %v\n", err)
	}
	for _, err := range s.Failed {
		fmt.Fprintf(os.Stderr, "ccsim: run failed: %v\n", err)
	}
	if len(s.Failed) > 0 || len(s.AnalysisErrors) > 0 {
		return fmt.Errorf("%s failed, %s failed (results of the others are kept)", plural(len(s.Failed), "run"), plural(len(s.AnalysisErrors), "analysis"))
	}
	return nil
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func sortedStrings(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// plural is "1 run", "2 runs" ("analysis": "analyses").
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "is") {
		return fmt.Sprintf("%d %ses", n, strings.TrimSuffix(noun, "is"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
