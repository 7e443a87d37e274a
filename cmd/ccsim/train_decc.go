package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	decctrain "github.com/ccsim/ccsim/train/decc"
)

// DECC's model directory (what `ccsim train decc` writes; cc/deccmodel
// ships the teacher).
const (
	deccTeacherFile = "teacher.bin"       // the teacher actor (ml/nn model file)
	deccTeacherLog  = "teacher-train.csv" // its training log, one row per round
)

// trainDECCCmd is `ccsim train decc`: DECC's teacher trained in process
// (docs/algorithms/decc.md §10). It is a chain of stages; the teacher is
// the first (deccTeacherStage), the compression and distillation stages
// follow it.
func trainDECCCmd() *cobra.Command {
	cfg := decctrain.DefaultConfig()
	var out, config string
	var quick bool
	c := &cobra.Command{
		Use:   "decc [--config FILE] [--out DIR] [--seed N] [--quick] [--workers N] [--rounds N]",
		Short: "train DECC's teacher actor (multi-agent actor-critic over lossy many-to-one and many-to-many runs)",
		Long: "train decc: rounds of episodes on a 16-host star at 400 Gb/s (PFC off, 1-MB buffer, go-back-N), many-to-one\n" +
			"(4–32 flows) and many-to-many (1–2 flows per host), every flow an agent that applies decc-nn's window rules;\n" +
			"the shared categorical actor samples its actions, a centralised critic over Table 1's global state learns\n" +
			"Q, and the actor follows eq. 10's policy gradient (docs/algorithms/decc.md §10). Writes teacher.bin and\n" +
			"teacher-train.csv; with the default configuration and seed the teacher equals the shipped\n" +
			"cc/deccmodel/teacher.bin for any --workers. --config reads a YAML file of the configuration's fields\n" +
			"(train/decc.Config's yaml names) over the defaults.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			if err := checkWorkers(cfg.Workers); err != nil {
				return err
			}
			if config != "" || quick {
				base := decctrain.QuickConfig()
				if config != "" {
					var err error
					if base, err = decctrain.LoadConfig(config); err != nil {
						return err
					}
				}
				if f.Changed("seed") {
					base.Seed = cfg.Seed
				}
				if f.Changed("rounds") {
					base.Rounds = cfg.Rounds
				}
				base.Workers = cfg.Workers
				cfg = base
			}
			w := cmd.OutOrStdout()
			t0 := time.Now()
			if _, err := deccTeacherStage(cfg, out, w); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s/{%s,%s} in %s\n", out, deccTeacherFile, deccTeacherLog, time.Since(t0).Round(time.Second))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&config, "config", "", "YAML configuration file (train/decc.Config fields over the defaults)")
	f.StringVar(&out, "out", "decc-model", "output directory")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (initialisation, sampling, batches, simulations)")
	f.BoolVar(&quick, "quick", false, "a short run (the tests' set-up, seconds); --seed, --rounds and --workers still apply")
	f.IntVar(&cfg.Workers, "workers", 1, "goroutines running a round's episodes (the result does not depend on it)")
	f.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "collection rounds")
	return c
}

// deccTeacherStage trains the teacher with cfg (a progress bar on
// standard error, progress lines on w) and writes teacher.bin and its log
// into dir (created if needed). It returns the trained result, which the
// next stage (compression and distillation) starts from.
func deccTeacherStage(cfg decctrain.Config, dir string, w io.Writer) (*decctrain.Result, error) {
	bar := newTrainBar("train decc: teacher", "rounds", cfg.Rounds)
	cfg.Progress = bar.Step
	res, err := decctrain.Run(cfg, w)
	if err != nil {
		return nil, err
	}
	teacher, err := res.Teacher()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, deccTeacherFile), teacher, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, deccTeacherLog), res.LogCSV(), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}
