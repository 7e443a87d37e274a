package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func runReproduce(t *testing.T, args ...string) (string, error) {
	t.Helper()
	c := reproduceCmd()
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	// never the default ./results: a test that ends up running a paper
	// must not write into the source tree
	if !slices.Contains(args, "--out") && (len(args) == 0 || args[0] != "list") {
		args = append(args, "--out", t.TempDir())
	}
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), err
}

func TestReproduceList(t *testing.T) {
	out, err := runReproduce(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dcqcn-p  paper 004", "e1  Single-QP", "e2  PMTU sweep", "e3  DCQCN-p vs DCQCN", "minrate-dcqcnp", "[paper: 13.28 Gb/s; magnitude value]", "dcon  paper 003", "e4  DCON's sensitivity", "decc  paper 000", "e6  OSU all-to-all"} {
		if !strings.Contains(out, want) {
			t.Errorf("reproduce list lacks %q:\n%s", want, out)
		}
	}
}

func TestReproduceErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown paper "nope" (known: dcon, dcqcn-p`},
		{[]string{"decc", "e10", "--scale", "quick"}, `paper decc has no experiment "e10" (experiments: e1, e2, e3, e4, e5, e6, e7, e8, e9)`},
		{[]string{"dcqcn-p", "e9", "--scale", "quick"}, `paper dcqcn-p has no experiment "e9" (experiments: e1, e2, e3, e3floor)`},
		{[]string{"dcqcn-p", "--scale", "huge"}, `--scale = "huge": allowed values quick, paper`},
		{[]string{"wrcc", "e1", "--scale", "quick", "--readings", "bogus"}, `--readings "bogus": no selected experiment has that reading; want primary or one of host-printed, host-i21`},
		{[]string{"wrcc", "--emit", "slurm", "--readings", "primary"}, `--readings with --emit: not supported`},
	} {
		_, err := runReproduce(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("reproduce %v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// One experiment at quick scale: the claims are printed beside the
// paper's values, the report exists, the other experiments are named as
// not run.
func TestReproduceOneExperiment(t *testing.T) {
	out := t.TempDir()
	got, err := runReproduce(t, "dcqcn-p", "e1", "--scale", "quick", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	for _, want := range []string{"e1   full-speed", "round 9", "yes", "experiment e2 has not been run", "report: " + filepath.Join(out, "dcqcn-p", "report.html")} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "dcqcn-p", "claims.csv")); err != nil {
		t.Error(err)
	}
}

// With --readings primary the summary names the readings not run, not the
// whole experiment (whose primary claims have verdicts).
func TestReproducePartialReadings(t *testing.T) {
	out := t.TempDir()
	got, err := runReproduce(t, "dcon", "e1", "--scale", "quick", "--readings", "primary", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if want := "experiment e1 has not been run at this scale under reading cnm-switch-gap (their claims are n/a)"; !strings.Contains(got, want) {
		t.Errorf("output lacks %q:\n%s", want, got)
	}
	if strings.Contains(got, "experiment e1 has not been run at this scale (") {
		t.Errorf("e1 named as not run although its primary reading ran:\n%s", got)
	}
}
