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
		Short: "train a learned controller and write its model files (MODEL: pidnn)",
		Long: "train pidnn: simulate the RTT collection runs of paper 001's 20:1 incast (TIMELY and the untrained PID),\n" +
			"build the balanced dataset, train the LSTM RTT predictor (MAPE per epoch beside the paper's Table 1),\n" +
			"train the PID gains online and write predictor.bin, gains.bin and train.json (docs/algorithms/pidnn.md §9).\n" +
			"With the default seed the files equal the shipped ones in cc/pidnnmodel.",
	}
	c.AddCommand(trainPIDNNCmd())
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
	c.Flags().IntVar(&cfg.GainRuns, "gain-runs", cfg.GainRuns, "at most this many online gain-training runs (fewer when the gains settle)")
	c.Flags().IntVar(&cfg.Workers, "workers", 0, "parallel collection runs (0 = up to 2)")
	return c
}
