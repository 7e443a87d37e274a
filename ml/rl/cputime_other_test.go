//go:build !unix

package rl

func processCPU() int64 { return 0 }
