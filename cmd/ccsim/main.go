// Command ccsim runs congestion-control simulations of RoCEv2 datacenter
// fabrics. With no arguments it runs the built-in default scenario (the
// 20-to-1 incast of paper 001) with every registered algorithm, prints a
// comparison table and writes results/.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ccsim/ccsim/version"
)

func main() {
	root := &cobra.Command{
		Use:           "ccsim",
		Short:         "packet-level RDMA (RoCEv2) congestion-control simulator",
		Long:          "ccsim simulates RoCEv2 datacenter fabrics (PFC, ECN, INT, ECMP) with pluggable congestion control.\nWith no arguments it runs the built-in default scenario with every algorithm.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Version,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDefault(cmd.OutOrStdout())
		},
	}
	root.AddCommand(runCmd(), validateCmd(), listCmd(), defaultCmd(), plotCmd(), refCompareCmd(), reproduceCmd(), trainCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "ccsim:", err)
		os.Exit(1)
	}
}
