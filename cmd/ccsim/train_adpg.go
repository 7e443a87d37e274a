package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/ccsim/ccsim/cc/adpgmodel"
	adpgtrain "github.com/ccsim/ccsim/train/adpg"
)

// trainADPGCmd is `ccsim train adpg`: the RL-CC policy of the `adpg`
// controller (docs/algorithms/adpg.md §5).
func trainADPGCmd() *cobra.Command {
	cfg := adpgtrain.DefaultConfig()
	var out string
	var quick bool
	var workers int
	c := &cobra.Command{
		Use:   "adpg [--out DIR] [--seed N] [--quick] [--workers N] [--updates N] [--rollout N] [--lr X]",
		Short: "train the RL-CC (ADPG) policy of the adpg controller",
		Long: "train adpg: every flow of the training scenarios on the 16-host star at 400 Gb/s (many-to-one 4, 8, 15 and\n" +
			"all-to-all 4×2) is an agent of one shared policy; rounds of rollouts (15 rewards per agent) with the frozen\n" +
			"policy, then one Adam step on the ADPG loss (docs/algorithms/adpg.md §5). Writes adpg.bin and train.json.\n" +
			"With the default seed and settings the files equal the shipped ones in cc/adpgmodel.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			run := cfg
			if quick {
				q := adpgtrain.QuickConfig()
				q.Seed = cfg.Seed
				if cmd.Flags().Changed("updates") {
					q.Updates = cfg.Updates
				}
				if cmd.Flags().Changed("rollout") {
					q.RolloutLength = cfg.RolloutLength
				}
				if cmd.Flags().Changed("lr") {
					q.LR = cfg.LR
				}
				run = q
			}
			// fewer updates than warm-up rounds: all of them warm up
			run.WarmupUpdates = min(run.WarmupUpdates, run.Updates)
			if err := checkWorkers(workers); err != nil {
				return err
			}
			run.Workers = workers
			if run.Workers == 0 {
				run.Workers = min(2, runtime.GOMAXPROCS(0))
			}
			bar := newTrainBar("train adpg", "updates", run.Updates)
			run.Progress = bar.Step
			w := cmd.OutOrStdout()
			res, err := adpgtrain.Run(run, w)
			if err != nil {
				return err
			}
			if err := res.WriteDir(out); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s/{%s,%s}\n", out, adpgmodel.ModelFile, adpgmodel.LogFile)
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "adpg-model", "output directory")
	c.Flags().Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (initialisation, simulations)")
	c.Flags().BoolVar(&quick, "quick", false, "a short run (2 scenarios, 60 updates; for tests)")
	c.Flags().IntVar(&workers, "workers", 0, "environments run on this many goroutines (0 = up to 2); the result does not depend on it")
	c.Flags().IntVar(&cfg.Updates, "updates", cfg.Updates, "policy updates (the authors' max_num_updates); the first min(50, N) are warm-up rounds (10 with --quick)")
	c.Flags().IntVar(&cfg.RolloutLength, "rollout", cfg.RolloutLength, "rewards per agent per round (the authors' rollout_length)")
	c.Flags().Float64Var(&cfg.LR, "lr", cfg.LR, "Adam learning rate (the authors' learning_rate)")
	return c
}
