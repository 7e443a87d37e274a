package decc

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

var heldout = flag.String("heldout", "", "write the held-out evaluation's scenarios and the untrained actor into this directory (docs/algorithms/decc.md §10.4)")

// `go test ./train/decc -run TestWriteHeldOut -heldout DIR` writes the
// held-out scenarios of docs/algorithms/decc.md §10.4 (NAME.yaml: decc-nn
// with the shipped teacher, hpcc, and agent in decc mode with a = 0;
// NAME-untrained.yaml: decc-nn with DIR/untrained.bin) and the untrained
// actor (the default run's initial one), for `ccsim run`.
func TestWriteHeldOut(t *testing.T) {
	if *heldout == "" {
		t.Skip("writes files: run with -heldout DIR")
	}
	cfg := DefaultConfig()
	cfg.EpisodeUs = 1000
	untrained := filepath.Join(*heldout, "untrained.bin")
	for _, c := range []struct {
		s    Scenario
		seed uint64
	}{{Scenario{N: 24}, 101}, {Scenario{ManyToMany: true, N: 3}, 102}, {Scenario{N: 64}, 103}} {
		y := strings.Replace(cfg.YAML(c.s, c.seed), "name: decc-train-", "name: heldout-", 1)
		for _, v := range []struct{ suffix, cc, params string }{
			{"", "[decc-nn, hpcc, agent]", "  agent: {mode: decc, alpha: 0.85, action: 0}\n"},
			{"-untrained", "[decc-nn]", "  decc-nn: {model: " + untrained + "}\n"},
		} {
			z := strings.Replace(y, "cc: [agent]", "cc: "+v.cc, 1)
			z = strings.Replace(z, "  agent: {mode: decc, alpha: 0.85}\n", v.params, 1)
			if v.suffix != "" {
				z = strings.Replace(z, "name: heldout-", "name: heldout-untrained-", 1)
			}
			if err := os.WriteFile(filepath.Join(*heldout, c.s.String()+v.suffix+".yaml"), []byte(z), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	l, err := NewLearner(&cfg, nn.NewRand(cfg.Seed))
	if err != nil {
		t.Fatal(err)
	}
	if err := nn.SaveFile(untrained, l.Actor, "DECC teacher actor, untrained (the default run's initial actor)"); err != nil {
		t.Fatal(err)
	}
}
