package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccsim/ccsim/cc"
)

// maxWorkers bounds --workers: more parallel runs than this only multiply
// memory.
const maxWorkers = 4096

// checkWorkers checks a --workers flag (issue 19 §3.9: -5 was accepted).
func checkWorkers(n int) error {
	if n < 0 || n > maxWorkers {
		return fmt.Errorf("--workers = %d out of range [0, %d] (0 = one per core)", n, maxWorkers)
	}
	return nil
}

// checkRunOut checks, before anything is simulated, that `ccsim run` can
// write its results under out (issue 19 §3.2: an unwritable or foreign
// --out was found only after the runs, and their results were lost). The
// directory is created if missing; it must accept a file; and if it
// already holds entries, one of them must be a result of ccsim (named
// after an algorithm, or a directory holding a summary.json), so that
// a mistyped --out (a home directory, /etc) is refused rather than filled.
func checkRunOut(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out %s: cannot create the results directory: %v", out, err)
	}
	f, err := os.CreateTemp(out, ".ccsim-write-check-*")
	if err != nil {
		return fmt.Errorf("--out %s: cannot write there: %v", out, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	if len(ents) == 0 {
		return nil
	}
	var names []string
	for _, e := range ents {
		if _, err := cc.Lookup(e.Name()); err == nil {
			return nil // an algorithm's slot (a failed write shows as that run's error)
		}
		if _, err := os.Stat(filepath.Join(out, e.Name(), "summary.json")); err == nil {
			return nil
		}
		names = append(names, e.Name())
	}
	slices.Sort(names)
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return fmt.Errorf("--out %s: not empty and holds no ccsim results (%s): choose a new directory, or one of earlier results", out, strings.Join(names, ", "))
}
