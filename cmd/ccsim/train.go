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
		Long: "train pidnn: simulate paper 001's 20:1 incast with TIMELY (RTT collection) and with the untrained PID alone,\n" +
			"each flow training its own gains online; build the balanced dataset from both runs' RTT samples, train the\n" +
			"LSTM RTT predictor (MAPE per epoch beside the paper's Table 1) and write predictor.bin, gains.bin (the long\n" +
			"flow's gains) and train.json (docs/algorithms/pidnn.md §9).\n" +
			"With the default seed the files equal the shipped ones in cc/pidnnmodel.",
	}
	c.AddCommand(trainPIDNNCmd())
	c.AddCommand(trainspineCmd())
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
	c.Flags().IntVar(&cfg.GainRuns, "gain-runs", cfg.GainRuns, "at most this many online gain-training runs, each flow continuing its own gains (fewer when the gains settle)")
	c.Flags().IntVar(&cfg.Workers, "workers", 0, "1: the TIMELY collection and the gain training one after the other; otherwise in parallel (0 = up to 2)")
	return c
}
