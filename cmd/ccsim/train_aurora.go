package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	auroratrain "github.com/ccsim/ccsim/train/aurora"
)

// trainAuroraCmd is `ccsim train aurora`: PPO training of Aurora's policy
// over the simulator (docs/algorithms/aurora.md §5).
func trainAuroraCmd() *cobra.Command {
	var out string
	var quick bool
	var seed uint64
	var iters, envs, mis, workers int
	var lr float64
	def := auroratrain.DefaultConfig()
	c := &cobra.Command{
		Use:   "aurora [--out DIR] [--seed N] [--quick] [--workers N] [--iterations N] [--envs N] [--episode-mis N] [--lr X]",
		Short: "train Aurora's PPO policy (PCC-RL) on randomised 100-400 Gb/s stars",
		Long: "train aurora: PPO (stable-baselines PPO1's settings) of Aurora's 32-16 tanh policy over 10 intervals of\n" +
			"(latency inflation, latency ratio, send ratio), its reward renormalised to the link (docs/algorithms/aurora.md);\n" +
			"each iteration runs --envs episodes of randomised stars (1-4 long flows into one receiver) in parallel.\n" +
			"Writes policy.bin and train.json; with the default seed they equal the shipped ones in cc/auroramodel.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := auroratrain.DefaultConfig()
			if quick {
				cfg = auroratrain.QuickConfig()
			}
			cfg.Seed = seed
			fl := cmd.Flags()
			if fl.Changed("iterations") {
				cfg.Iterations = iters
			}
			if fl.Changed("envs") {
				cfg.Envs = envs
			}
			if fl.Changed("episode-mis") {
				cfg.EpisodeMIs = mis
			}
			if fl.Changed("lr") {
				cfg.LR = lr
			}
			if err := checkWorkers(workers); err != nil {
				return err
			}
			cfg.Workers = workers
			if cfg.Workers == 0 {
				cfg.Workers = min(2, runtime.GOMAXPROCS(0))
			}
			bar := newTrainBar("aurora", "iterations", cfg.Iterations)
			cfg.Progress = bar.Step
			w := cmd.OutOrStdout()
			res, err := auroratrain.Run(cfg, w)
			if err != nil {
				return err
			}
			if err := res.WriteDir(out); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s/{policy.bin,train.json}\n", out)
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "aurora-model", "output directory")
	c.Flags().Uint64Var(&seed, "seed", def.Seed, "random seed (initialisation, scenarios, exploration noise, shuffles)")
	c.Flags().BoolVar(&quick, "quick", false, "a short run (the tests' configuration)")
	c.Flags().IntVar(&workers, "workers", 0, "goroutines running the episodes of an iteration (0 = up to 2); the model does not depend on it")
	c.Flags().IntVar(&iters, "iterations", def.Iterations, "PPO iterations (rollout + update)")
	c.Flags().IntVar(&envs, "envs", def.Envs, "episodes per iteration")
	c.Flags().IntVar(&mis, "episode-mis", def.EpisodeMIs, "episode length in monitoring intervals")
	c.Flags().Float64Var(&lr, "lr", def.LR, "Adam learning rate")
	return c
}
