package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ccsim/ccsim/experiment"
)

// Shards partition the runs (issue 19 §1): each of 3 shards runs its share
// and writes no report; together they run every run once; the report
// built from their tree afterwards equals a single process's byte for
// byte; a shard run again redoes nothing.
func TestShardsPartitionRuns(t *testing.T) {
	local := t.TempDir()
	reproduce(t, tinyPaper(nil), local, false)
	want, err := os.ReadFile(filepath.Join(local, "tiny", "claims.csv"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	total := 0
	for i := range 3 {
		sum, err := experiment.Reproduce(tinyPaper(nil), experiment.Options{Scale: experiment.ScaleQuick, Out: out, Workers: 1, Shard: i, Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Ran != sum.Shard || len(sum.Failed) != 0 {
			t.Errorf("shard %d: %+v", i, sum)
		}
		total += sum.Ran
	}
	if total != 4 {
		t.Errorf("the shards ran %d runs, want the 4 once each", total)
	}
	if _, err := os.Stat(filepath.Join(out, "tiny", "claims.csv")); err == nil {
		t.Error("a shard wrote claims.csv")
	}
	if sum, _ := experiment.Reproduce(tinyPaper(nil), experiment.Options{Scale: experiment.ScaleQuick, Out: out, Shard: 1, Shards: 3}); sum == nil || sum.Ran != 0 {
		t.Errorf("shard 1 again: %+v, want nothing run", sum)
	}
	reproduce(t, tinyPaper(nil), out, true)
	got, err := os.ReadFile(filepath.Join(out, "tiny", "claims.csv"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("claims.csv from the shards differs from a local run's (%v):\n%s\nwant\n%s", err, got, want)
	}
	if _, err := experiment.Reproduce(tinyPaper(nil), experiment.Options{Scale: experiment.ScaleQuick, Out: out, Shard: 3, Shards: 3}); err == nil {
		t.Error("shard 3/3 accepted")
	}
}

// Two processes reproducing into one tree never run a run twice (issue 19
// §1: both ran all of them): each run is run by one of them, the other
// waits for it, and both write the full report.
func TestConcurrentReproductionsRunEachRunOnce(t *testing.T) {
	out := t.TempDir()
	var wg sync.WaitGroup
	sums := make([]*experiment.Summary, 2)
	errs := make([]error, 2)
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[k], errs[k] = experiment.Reproduce(tinyPaper(nil), experiment.Options{Scale: experiment.ScaleQuick, Out: out, Workers: 1})
		}()
	}
	wg.Wait()
	ran := 0
	for k, s := range sums {
		if errs[k] != nil {
			t.Fatal(errs[k])
		}
		if s.Ran+s.Elsewhere+s.Skipped != 4 || len(s.Failed) != 0 {
			t.Errorf("process %d: %+v", k, s)
		}
		ran += s.Ran
	}
	if ran != 4 {
		t.Errorf("the two processes ran %d runs between them, want 4", ran)
	}
	ents, _ := os.ReadDir(filepath.Join(out, "tiny", "runs"))
	if len(ents) != 4 {
		t.Errorf("%d entries in runs/ (locks or temporaries left?), want 4", len(ents))
	}
}
