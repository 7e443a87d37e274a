package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	spinetrain "github.com/ccsim/ccsim/train/spine"
)

// trainSpineCmd is `ccsim train spine`: SPINE's agent trained in process
// over incasts on the 16-host star (docs/algorithms/spine.md §5).
func trainSpineCmd() *cobra.Command {
	cfg := spinetrain.DefaultConfig()
	var out string
	var quick bool
	c := &cobra.Command{
		Use:   "spine [--out DIR] [--seed N] [--quick] [--workers N] [--rounds N] [--envs N] [--steps N] [--k N] [--trigger=false]",
		Short: "train SPINE's agent (TD3 over incasts on the 16-host star at 400 Gb/s)",
		Long: "train spine: run rounds of incast episodes (1, 2, 4, 8, 15 long flows into one host of the 16-host star at\n" +
			"400 Gb/s) with the frozen exploring actor, add their transitions to a replay buffer in environment order and\n" +
			"take TD3 gradient steps after each round; write actor.bin and train.json (docs/algorithms/spine.md §5).\n" +
			"With the default seed the files equal the shipped ones in cc/spinemodel, for any --workers.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkWorkers(cfg.Workers); err != nil {
				return err
			}
			if quick {
				q := spinetrain.QuickConfig()
				q.Seed, q.Workers = cfg.Seed, cfg.Workers
				cfg = q
			}
			bar := newTrainBar("train spine", "rounds", cfg.Rounds)
			cfg.Progress = bar.Step
			w := cmd.OutOrStdout()
			t0 := time.Now()
			res, err := spinetrain.Run(cfg, w)
			if err != nil {
				return err
			}
			if err := res.WriteDir(out); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s/{actor.bin,train.json} in %s\n", out, time.Since(t0).Round(time.Second))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&out, "out", "spine-model", "output directory")
	f.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (initialisation, exploration, batches, simulations)")
	f.BoolVar(&quick, "quick", false, "a short run (the tests' set-up, seconds); other knobs are ignored except --seed and --workers")
	f.IntVar(&cfg.Workers, "workers", 1, "goroutines running the round's environments (the result does not depend on it)")
	f.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "collection rounds")
	f.IntVar(&cfg.Envs, "envs", cfg.Envs, "environments (episodes) per round")
	f.IntVar(&cfg.StepsPerRound, "steps", cfg.StepsPerRound, "TD3 gradient steps after each round")
	f.IntVar(&cfg.K, "k", cfg.K, "the agent decides every k monitoring intervals (params.spine.k)")
	f.BoolVar(&cfg.Trigger, "trigger", cfg.Trigger, "train with the trigger gate (params.spine.trigger)")
	return c
}
