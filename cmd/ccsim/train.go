package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	pidnntrain "github.com/ccsim/ccsim/train/pidnn"
)

func trainCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "train MODEL",
		Short: "train a learned controller and write its model files (MODEL: pidnn, adpg, spine, aurora, decc)",
		Long: "Each MODEL trains in process over the simulator, seeded, and writes its model files and a train.json log;\n" +
			"with the default seed (and any --workers) the files equal the shipped ones embedded in the binary\n" +
			"(cc/<MODEL>model), which a test rebuilds byte for byte. `ccsim train MODEL --help` lists each one's knobs.\n" +
			"  pidnn  paper 001's LSTM RTT predictor and PID gains (docs/algorithms/pidnn.md §9)\n" +
			"  adpg   ADPG, the RL-CC of NVlabs/RLCC: a 12-12 policy trained with its analytic policy gradient (docs/algorithms/adpg.md)\n" +
			"  spine  SPINE (sys-netai/spine-open-source): its per-ACK window executor's four parameters set by a TD3 actor (docs/algorithms/spine.md)\n" +
			"  aurora Aurora (PCCproject/PCC-RL): a 32-16 tanh policy trained with PPO on single-bottleneck episodes (docs/algorithms/aurora.md)\n" +
			"  decc   DECC (paper 000): the teacher actor, a multi-agent actor-critic over lossy many-to-one/many-to-many runs (docs/algorithms/decc.md §10)",
	}
	c.AddCommand(trainPIDNNCmd())
	c.AddCommand(trainADPGCmd())
	c.AddCommand(trainAuroraCmd())
	c.AddCommand(trainSpineCmd())
	c.AddCommand(trainDECCCmd())
	return c
}

func trainPIDNNCmd() *cobra.Command {
	cfg := pidnntrain.DefaultConfig()
	var out string
	c := &cobra.Command{
		Use:   "pidnn [--out DIR] [--seed N] [--epochs N] [--batch N] [--gain-runs N] [--workers N]",
		Short: "train paper 001's LSTM RTT predictor and PID gains",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkWorkers(cfg.Workers); err != nil {
				return err
			}
			if cfg.Workers == 0 {
				cfg.Workers = min(2, runtime.GOMAXPROCS(0))
			}
			w := cmd.OutOrStdout()
			res, err := pidnntrain.Run(cfg, w)
			if err != nil {
				return err
			}
			if err := res.WriteDir(out); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s/{predictor.bin,gains.bin,train.json}\n", out)
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "pidnn-model", "output directory")
	c.Flags().Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (initialisation, dataset draws, shuffles, simulations)")
	c.Flags().IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "predictor training epochs")
	c.Flags().IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "Adam mini-batch size of the predictor training (the paper does not give it; docs/algorithms/pidnn.md I18)")
	c.Flags().IntVar(&cfg.GainRuns, "gain-runs", cfg.GainRuns, "at most this many online gain-training runs, each flow continuing its own gains (fewer when the gains settle)")
	c.Flags().IntVar(&cfg.Workers, "workers", 0, "1: the TIMELY collection and the gain training one after the other; otherwise in parallel (0 = up to 2)")
	return c
}
