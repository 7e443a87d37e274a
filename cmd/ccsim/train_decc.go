package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
	decctrain "github.com/ccsim/ccsim/train/decc"
	"github.com/ccsim/ccsim/train/deccpost"
)

// DECC's model directory (what `ccsim train decc` writes; cc/deccmodel
// ships the teacher).
const (
	deccTeacherFile = "teacher.bin"       // the teacher actor (ml/nn model file)
	deccTeacherLog  = "teacher-train.csv" // its training log, one row per round
)

// trainDECCCmd is `ccsim train decc`: DECC's teacher trained in process
// (docs/algorithms/decc.md §10), then its students: the compressed network
// and the distilled trees (deccStudentsStage, §11). --teacher starts from a
// teacher file and runs the students' stage alone.
func trainDECCCmd() *cobra.Command {
	cfg := decctrain.DefaultConfig()
	var out, config, teacherFile string
	var quick bool
	c := &cobra.Command{
		Use:   "decc [--config FILE] [--out DIR] [--seed N] [--quick] [--workers N] [--rounds N] [--actor categorical|continuous]",
		Short: "train DECC's teacher actor (multi-agent actor-critic over lossy many-to-one and many-to-many runs)",
		Long: "train decc: rounds of episodes on a 16-host star at 400 Gb/s (PFC off, 1-MB buffer, go-back-N), many-to-one\n" +
			"(4–32 flows) and many-to-many (1–2 flows per host), every flow an agent that applies decc-nn's window rules;\n" +
			"the shared categorical actor samples its actions, a centralised critic over Table 1's global state learns\n" +
			"Q, and the actor follows eq. 10's policy gradient (docs/algorithms/decc.md §10). Writes teacher.bin and\n" +
			"teacher-train.csv; then compresses the teacher (65 % pruned, 4 bits, fine-tuned) and distils it into\n" +
			"oblivious trees, writing binary.bin, trees.json and students.json (§11). With the default\n" +
			"configuration and seed the four model files equal the shipped cc/deccmodel files for any --workers.\n" +
			"--config reads a YAML file of the teacher configuration's fields (train/decc.Config's yaml names) over\n" +
			"the defaults; --teacher FILE skips the teacher's training and makes the students of FILE.\n" +
			"--actor continuous trains the option of issue 18 §1 instead: one 0.5·tanh output, twin critics over\n" +
			"(global state, local state, action), the deterministic policy gradient with TD3's target smoothing and\n" +
			"delayed updates (§10.5); its students regress its actions, and `decc` runs such trees with tree_output: value.",
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
				if f.Changed("actor") {
					base.Actor = cfg.Actor
				}
				base.Workers = cfg.Workers
				cfg = base
			}
			w := cmd.OutOrStdout()
			t0 := time.Now()
			post := deccpost.DefaultConfig()
			if quick {
				post = deccpost.QuickConfig()
			}
			if f.Changed("seed") {
				post.Seed = cfg.Seed
			}
			var teacher *nn.Sequential
			if teacherFile != "" {
				m, _, err := deccmodel.LoadActorFile(teacherFile)
				if err != nil {
					return fmt.Errorf("--teacher: %w", err)
				}
				teacher = m
			} else {
				res, err := deccTeacherStage(cfg, out, w)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "wrote %s/{%s,%s} in %s\n", out, deccTeacherFile, deccTeacherLog, time.Since(t0).Round(time.Second))
				teacher = res.Actor
			}
			t1 := time.Now()
			rep, err := deccStudentsStage(teacher, post, out, w)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s/{%s,%s,%s} in %s: compressed network %.2f %% sparse, output discrepancy %.2f %%, agreement %.2f %%; %d trees agree with it on %.2f %%\n",
				out, deccmodel.BinaryFile, deccmodel.TreesFile, deccmodel.ReportFile, time.Since(t1).Round(time.Second),
				100*rep.Compression.Sparsity, 100*rep.Compression.Discrepancy, 100*rep.Compression.Agreement, rep.Trees.Trees, 100*rep.Trees.Agreement)
			if deccmodel.IsContinuous(teacher) {
				fmt.Fprintf(w, "the teacher is continuous: agreement counts actions at the nearest of the 11 levels; run decc-nn and decc-binary with model: FILE, and decc with model: FILE and tree_output: value\n")
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&config, "config", "", "YAML configuration file (train/decc.Config fields over the defaults)")
	f.StringVar(&teacherFile, "teacher", "", "a teacher model file: skip the teacher's training, make its students")
	f.StringVar(&out, "out", "decc-model", "output directory")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (initialisation, sampling, batches, simulations)")
	f.BoolVar(&quick, "quick", false, "a short run (the tests' set-up, seconds); --seed, --rounds and --workers still apply")
	f.IntVar(&cfg.Workers, "workers", 1, "goroutines running a round's episodes (the result does not depend on it)")
	f.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "collection rounds")
	f.StringVar(&cfg.Actor, "actor", cfg.Actor, "the teacher's head: categorical (11 logits, eq. 10) or continuous (0.5·tanh, TD3-style)")
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

// deccStudentsStage compresses and distils teacher with cfg (train/deccpost;
// docs/algorithms/decc.md §11), a line on w per phase, and writes
// binary.bin, trees.json and students.json into dir.
func deccStudentsStage(teacher *nn.Sequential, cfg deccpost.Config, dir string, w io.Writer) (*deccpost.Report, error) {
	last := ""
	cfg.Progress = func(phase string, done, total int) {
		if phase != last {
			fmt.Fprintf(w, "train decc: students: %s\n", phase)
			last = phase
		}
	}
	return deccpost.Run(teacher, cfg, dir)
}
