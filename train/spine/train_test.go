package spine

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/spinemodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

var rebuild = flag.Bool("rebuild", false, "retrain with the defaults and compare with the shipped model (minutes)")

// The quick run gives the same files for 1 and 2 workers, and its greedy
// actor earns more training reward than the untrained one.
func TestQuickTraining(t *testing.T) {
	var files [2][2][]byte
	var res *Result
	for i, w := range []int{1, 2} {
		cfg := QuickConfig()
		cfg.Workers = w
		r, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if files[i][0], files[i][1], err = r.Files(); err != nil {
			t.Fatal(err)
		}
		res = r
	}
	if !bytes.Equal(files[0][0], files[1][0]) || !bytes.Equal(files[0][1], files[1][1]) {
		t.Fatal("workers 1 and 2 give different model files")
	}
	in, fin := res.Log.Initial.Overall, res.Log.Final.Overall
	t.Logf("training reward of the greedy actor: untrained %.5f, trained %.5f (per size %v → %v)", in, fin, res.Log.Initial.MeanReward, res.Log.Final.MeanReward)
	if !(fin > in) {
		t.Errorf("trained actor's reward %.5f not above the untrained %.5f", fin, in)
	}
	if len(res.Log.Rounds) != QuickConfig().Rounds {
		t.Errorf("%d rounds logged, want %d", len(res.Log.Rounds), QuickConfig().Rounds)
	}
}

// What was trained is what runs: a greedy training episode (the trainer's
// policy over cc.Spine's own window) and the deployed `spine` with the same
// actor loaded from a model file give every flow the same state, bit for
// bit, at the end of the same scenario.
func TestTrainedIsDeployed(t *testing.T) {
	cfg := QuickConfig()
	actor := spinemodel.NewActor()
	actor.Init(nn.NewRand(5))
	a := actor.Clone()
	const n, seed = 4, 11
	const gap = 10.0
	o, err := runEpisode(&cfg, 0, n, gap, seed, &policy{actor: a, ws: a.NewWorkspace(1)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), spinemodel.ActorFile)
	if err := nn.SaveFile(path, actor, "test"); err != nil {
		t.Fatal(err)
	}
	y := ScenarioYAML(cfg.Hosts, n, cfg.Gbps, cfg.EpisodeUs, gap, cfg.K, cfg.Trigger)
	y = replaceOnce(y, "trigger: true}", "trigger: true, model: "+path+"}")
	s, err := scenario.Parse([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, "spine", assemble.Options{Seed: seed, SeedSet: true})
	if err != nil {
		t.Fatal(err)
	}
	b.Net.Run()
	if len(o.Flows) != n || len(b.Net.QPs) != n {
		t.Fatalf("%d and %d flows, want %d", len(o.Flows), len(b.Net.QPs), n)
	}
	for i := range n {
		d, ok := b.Net.QPs[i].CC.(*cc.Spine)
		if !ok {
			t.Fatalf("flow %d: the deployed algorithm is %T", i, b.Net.QPs[i].CC)
		}
		tr := o.Flows[i]
		if d.Decisions == 0 || d.Fired == 0 {
			t.Errorf("flow %d: %d decisions, %d fired: the check is empty", i, d.Decisions, d.Fired)
		}
		if d.Cwnd != tr.Cwnd || d.Exec != tr.Exec || d.SRTT != tr.SRTT || d.Decisions != tr.Decisions || d.Fired != tr.Fired ||
			!equal(d.Window(), tr.Window()) {
			t.Errorf("flow %d: deployed (cwnd %d, %+v, %d/%d) differs from trained (cwnd %d, %+v, %d/%d)",
				i, d.Cwnd, d.Exec, d.Fired, d.Decisions, tr.Cwnd, tr.Exec, tr.Fired, tr.Decisions)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func replaceOnce(s, old, new string) string {
	i := bytes.Index([]byte(s), []byte(old))
	if i < 0 {
		return s
	}
	return s[:i] + new + s[i+len(old):]
}

// `go test ./train/spine -run TestShippedModel -rebuild` retrains with the
// defaults (minutes) and compares the files with cc/spinemodel's.
func TestShippedModel(t *testing.T) {
	if !*rebuild {
		t.Skip("the rebuild takes minutes: run with -rebuild")
	}
	cfg := DefaultConfig()
	cfg.Workers = 2
	r, err := Run(cfg, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	a, l, err := r.Files()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, spinemodel.ShippedActorBytes()) {
		t.Error("actor.bin differs from the shipped one")
	}
	if !bytes.Equal(l, spinemodel.ShippedLog()) {
		t.Error("train.json differs from the shipped one")
	}
}

var _ fabric.Algorithm = (*cc.Spine)(nil)
