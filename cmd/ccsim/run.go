package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

func runCmd() *cobra.Command {
	var ccList, out, profile string
	var seed uint64
	var workers int
	var allowLarge bool
	c := &cobra.Command{
		Use:   "run FILE.yaml",
		Short: "run a scenario (each algorithm in parallel) and print a comparison table",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			if ccList != "" {
				names = splitList(ccList)
			}
			// the checks of validate: a file validate accepts is one run accepts
			s, err := assemble.CheckWith(args[0], names, limits(allowLarge))
			if err != nil {
				return errors.New(invalid(args[0], err))
			}
			for _, w := range s.Warnings() {
				fmt.Fprintf(cmd.ErrOrStderr(), "ccsim: warning: %s: %s\n", args[0], w)
			}
			if out == "" {
				name := s.Name
				if name == "" {
					name = strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
					if err := scenario.CheckName("the scenario file's name (no name: given)", name); err != nil {
						return fmt.Errorf("%s: %v; set name: or --out", args[0], err)
					}
				}
				out = filepath.Join("results", name)
			}
			if profile != "" {
				f, err := os.Create(profile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			opt := assemble.Options{Seed: seed, SeedSet: cmd.Flags().Changed("seed")}
			return runAndReport(cmd.OutOrStdout(), s, opt, out, workers)
		},
	}
	c.Flags().StringVar(&ccList, "cc", "", "comma-separated algorithms (overrides the scenario's cc list)")
	c.Flags().StringVar(&out, "out", "", "output directory (default results/<scenario name>)")
	c.Flags().Uint64Var(&seed, "seed", 0, "random seed (overrides the scenario's seed)")
	c.Flags().StringVar(&profile, "profile", "", "write a pprof CPU profile to this file")
	c.Flags().IntVar(&workers, "workers", 0, "parallel runs (0 = number of cores)")
	c.Flags().BoolVar(&allowLarge, "allow-large", false, "run even when the estimated memory exceeds what the machine has available")
	return c
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func runDefault(w io.Writer) error {
	s, err := scenario.Default()
	if err != nil {
		return err
	}
	if err := assemble.CheckScenario(s); err != nil {
		return err
	}
	return runAndReport(w, s, assemble.Options{}, filepath.Join("results", s.Name), 0)
}

// progressLine shows the runs' progress: on a terminal a live status line
// (runs done, the share of stop_ms simulated, elapsed time, ETA, and each
// running run's share), elsewhere a plain line at most every 10 s (issue
// 19 §3.6: run showed no percentage and no ETA). The ETA assumes the rest
// runs at the speed so far; a run whose flows all finish before stop_ms
// ends early, so it is an upper estimate.
type progressLine struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	total    int
	done     int
	stop     sim.Time            // the runs' stop time (their 100 %)
	running  map[string]sim.Time // running runs and their simulated time
	start    time.Time
	last     time.Time     // of the last plain line
	every    time.Duration // between plain lines
	printed  bool          // a plain line was printed
}

func newProgress(total int, stop sim.Time) *progressLine {
	return newProgressOn(os.Stderr, term.IsTerminal(int(os.Stderr.Fd())), total, stop)
}

func newProgressOn(w io.Writer, terminal bool, total int, stop sim.Time) *progressLine {
	now := time.Now()
	return &progressLine{w: w, terminal: terminal, total: total, stop: max(stop, 1), running: map[string]sim.Time{},
		start: now, last: now, every: 10 * time.Second}
}

func (p *progressLine) update(name string, finished bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if finished {
		delete(p.running, name)
		p.done++
	} else {
		p.running[name] = 0
	}
	p.draw(finished)
}

// simTime records a run's simulated time (called from the run goroutines).
func (p *progressLine) simTime(name string, t sim.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.running[name]; ok {
		p.running[name] = t
		p.draw(false)
	}
}

// line formats the status: [done/total] share, elapsed, ETA, running runs.
func (p *progressLine) line() string {
	frac := float64(p.done)
	var parts []string
	for n, t := range p.running {
		f := min(float64(t)/float64(p.stop), 1)
		frac += f
		parts = append(parts, fmt.Sprintf("%s %.0f%%", n, 100*f))
	}
	sort.Strings(parts)
	frac /= float64(max(p.total, 1))
	el := time.Since(p.start)
	eta := "?"
	if frac > 0 {
		eta = time.Duration(float64(el) * (1 - frac) / frac).Round(time.Second).String()
	}
	s := fmt.Sprintf("[%d/%d] %.0f%% of stop_ms simulated, %s elapsed, ETA %s", p.done, p.total, 100*frac, el.Round(100*time.Millisecond), eta)
	if len(parts) > 0 {
		s += "; running: " + strings.Join(parts, ", ")
	}
	return s
}

func (p *progressLine) draw(finished bool) {
	if p.w == nil {
		return
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", p.line())
		if p.done == p.total {
			fmt.Fprint(p.w, "\r\033[K")
		}
		return
	}
	// the closing line only after periodic ones (a short run prints none)
	if now := time.Now(); now.Sub(p.last) >= p.every || finished && p.done == p.total && p.printed {
		p.last, p.printed = now, true
		fmt.Fprintf(p.w, "ccsim run: %s\n", p.line())
	}
}

func runAndReport(w io.Writer, s *scenario.Scenario, opt assemble.Options, out string, workers int) error {
	if err := checkWorkers(workers); err != nil {
		return err
	}
	if err := checkRunOut(out); err != nil {
		return err
	}
	prog := newProgress(len(s.CC), sim.Time(s.StopMs*float64(sim.Millisecond)))
	opt.Progress = prog.simTime
	res, errs := assemble.RunAll(s, s.CC, opt, workers, prog.update)
	var written, failed []string
	for i, r := range res {
		if errs[i] != nil {
			failed = append(failed, errs[i].Error()) // "cc: ..."
			res[i] = nil
			continue
		}
		dir := filepath.Join(out, r.CC)
		err := scenario.CheckName("cc", r.CC) // a directory name
		if err == nil {
			err = r.Write(dir)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: writing %s: %v", r.CC, dir, err))
			continue
		}
		written = append(written, dir)
	}
	printTable(w, s, res)
	if len(written) > 0 {
		fmt.Fprintln(w, "results (summary.json, flows.csv, ...):")
		for _, d := range written {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "failed (%d of %s):\n", len(failed), plural(len(res), "run"))
		for _, f := range failed {
			fmt.Fprintf(w, "  %s\n", f)
		}
		return fmt.Errorf("%d of %s failed", len(failed), plural(len(res), "run"))
	}
	return nil
}

// printTable prints one row per run that completed (nil entries are
// skipped), and a line naming the runs whose stop time came before every
// flow finished. Their unfinished flows are censored at the run's end
// (docs/metrics.md §5): fct_mean and finish (the largest FCT) are then
// lower bounds, marked ≥.
func printTable(w io.Writer, s *scenario.Scenario, res []*result.Result) {
	fmt.Fprintf(w, "scenario %s\n", s.Name)
	fmt.Fprintf(w, "%-12s %6s %6s %10s %10s %10s %10s %10s %12s %12s %7s %8s %6s %10s %8s\n",
		"cc", "flows", "done", "unfinished", "rtt_mean", "rtt_p99", "rtt_max", "rate_mean", "fct_mean", "finish", "jain", "pauses", "drops", "events", "wall")
	fmt.Fprintf(w, "%-12s %6s %6s %10s %10s %10s %10s %10s %12s %12s %7s %8s %6s %10s %8s\n",
		"", "", "", "", "us", "us", "us", "Gb/s", "us", "us", "", "", "", "", "s")
	var unfinished, awaiting []string
	for _, r := range res {
		if r == nil {
			continue
		}
		f := &r.Summary
		// a value that does not exist shows "-", not 0.00 (issue 19 §3.3):
		// RTTs without a sample, FCTs and the rate without a finished flow
		rtt := r.RTT.Samples > 0
		fct := f.All.N > 0
		fmt.Fprintf(w, "%-12s %6d %6d %10d %10s %10s %10s %10s %12s %12s %7s %8d %6d %10d %8.3f\n",
			r.CC, f.Flows, f.Finished, f.Unfinished, stat(r.RTT.MeanUs, rtt, 2), stat(r.RTT.P99Us, rtt, 2), stat(r.RTT.MaxUs, rtt, 2),
			stat(f.MeanSendingRateGbps, f.Finished > 0, 2), censoredStat(f.All.FCTUs.Mean, f.Censored, fct), censoredStat(f.All.FCTUs.Max, f.Censored, fct),
			stat(r.Jain, f.Flows > 0, 4), r.PFC.PauseFrames, r.Drops, r.Events, r.WallSeconds)
		if f.Unfinished > 0 {
			unfinished = append(unfinished, fmt.Sprintf("%s: %d of %d", r.CC, f.Unfinished, f.Flows))
		}
		if k := r.Losses.FlowsAwaitingAck; k > 0 {
			awaiting = append(awaiting, fmt.Sprintf("%s: %d", r.CC, k))
		}
	}
	if len(unfinished) > 0 {
		cause := fmt.Sprintf("stop_ms = %v came first", s.StopMs)
		if pt := s.Workload.Perftest; pt != nil {
			cause = fmt.Sprintf("the run ends with the perftest test, %v ms, or stop_ms = %v", pt.DurationMs, s.StopMs)
		}
		fmt.Fprintf(w, "unfinished flows (%s; FCT statistics count them censored at the run's end, ≥ marks a lower bound): %s\n",
			cause, strings.Join(unfinished, ", "))
	}
	if len(awaiting) > 0 {
		// docs/metrics.md §17: a dropped last ACK stalls a flow for good
		// (a lossless fabric has no timeout, and the duplicate a timeout
		// resends draws no ACK unless host.ack_duplicates)
		fmt.Fprintf(w, "of them, flows whose receiver holds every byte but whose last ACK never reached the sender (dropped, or on its way at the end; no timeout repairs a dropped last ACK unless host.ack_duplicates is set: docs/metrics.md §17): %s\n",
			strings.Join(awaiting, ", "))
	}
	for _, r := range res {
		if r == nil || r.Perftest == nil {
			continue
		}
		p := r.Perftest
		var per []string
		for _, f := range p.Bandwidth.Flows {
			per = append(per, fmt.Sprintf("%.2f", f.Gbps))
		}
		l := &p.Latency
		fmt.Fprintf(w, "perftest %s: bandwidth %.2f Gb/s over %v ms (per flow %s); probe latency %d messages, mean %.2f p50 %.2f p99 %.2f max %.2f us\n",
			r.CC, p.Bandwidth.TotalGbps, p.MeasuredMs, strings.Join(per, ", "), l.Count, l.MeanUs, l.P50Us, l.P99Us, l.MaxUs)
	}
}

// stat formats a value with prec decimals, or "-" when it does not exist
// (ok false, or not a finite number).
func stat(v float64, ok bool, prec int) string {
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// censoredStat formats an FCT statistic (µs, 2 decimals) that includes
// censored flows: a lower bound, "≥" in front, when censored > 0; "-"
// when no flow has an FCT (ok false).
func censoredStat(v float64, censored int, ok bool) string {
	if !ok || math.IsNaN(v) {
		return "-"
	}
	if censored > 0 {
		return fmt.Sprintf("≥%.2f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// invalid formats the errors of scenario file path, one per line.
func invalid(path string, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: invalid", path)
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(&b, "\n  - %s", line)
	}
	return b.String()
}

func validateCmd() *cobra.Command {
	var allowLarge bool
	c := &cobra.Command{
		Use:   "validate FILE.yaml...",
		Short: "check scenario files and report every error",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, a := range args {
				s, err := assemble.CheckWith(a, nil, limits(allowLarge))
				if err != nil {
					bad++
					fmt.Fprintln(cmd.OutOrStdout(), invalid(a, err))
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%s, cc %s)\n", a, s.Name, strings.Join(s.CC, ","))
				for _, w := range s.Warnings() {
					fmt.Fprintf(cmd.OutOrStdout(), "  warning: %s\n", w)
				}
			}
			if bad > 0 {
				return fmt.Errorf("%d of %d scenario files invalid", bad, len(args))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&allowLarge, "allow-large", false, "accept scenarios whose estimated memory exceeds what the machine has available")
	return c
}

func listCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list registered algorithms and their parameters with defaults",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			for _, name := range cc.Names() {
				spec, _ := cc.Lookup(name)
				tag := ""
				switch {
				case spec.Harness:
					tag = " [training harness: not in the default comparison]"
				case spec.Variant:
					tag = " [ablation variant: not in the default comparison]"
				}
				fmt.Fprintf(w, "%s — %s%s\n", name, spec.Summary, tag)
				for _, p := range cc.Describe(spec.Defaults()) {
					unit := ""
					if p.Unit != "" {
						unit = " [" + p.Unit + "]"
					}
					fmt.Fprintf(w, "    %-28s %-12v %s%s\n", p.Name, p.Default, p.Doc, unit)
				}
			}
			return nil
		},
	}
}

func defaultCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "default",
		Short: "print the built-in default scenario (YAML) with its cc list (every compared algorithm)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := cmd.OutOrStdout().Write(scenario.DefaultTemplate())
			return err
		},
	}
}

// limits are the size limits of a check: the machine's available memory,
// none with --allow-large (issue 19 §3.1).
func limits(allowLarge bool) assemble.Limits {
	if allowLarge {
		return assemble.Limits{}
	}
	return assemble.DefaultLimits()
}
