package experiment

// The results store of a reproduction: OUT/PAPER/runs/<hash>/, one
// directory per fully resolved run, named by the content hash of its
// inputs. A directory is written under a temporary name and renamed into
// place when complete, so an interrupted reproduction loses no finished
// run and never leaves a half-written one; result trees made on different
// machines merge by copying their runs/ directories.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenarios"
	"github.com/ccsim/ccsim/version"
)

// Store file names.
const (
	RunsDir      = "runs"
	InputsDir    = "inputs"
	RunRecord    = "run.json"
	ScenarioFile = "scenario.yaml"
)

// InputFile is a file a run read, with its content hash.
type InputFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Record is run.json: everything a result depends on, so that a number
// can always be traced to its inputs. The resolved scenario (defaults
// applied, the algorithm's parameters written out) is scenario.yaml beside
// it.
type Record struct {
	Hash        string      `json:"hash"`
	Key         string      `json:"key,omitempty"` // the key of the experiment run that made it (others may share the result)
	Version     string      `json:"ccsim_version"`
	Paper       string      `json:"paper"`
	Base        string      `json:"base_scenario"`
	CC          string      `json:"cc"`
	Seed        uint64      `json:"seed"`
	Inputs      []InputFile `json:"inputs,omitempty"`
	WallSeconds float64     `json:"wall_seconds"`
	Finished    string      `json:"finished"`
	GoVersion   string      `json:"go_version"`
}

// Resolved is a run ready to execute: its scenario after the patch and
// defaults, and the hash of everything it depends on.
type Resolved struct {
	Spec     RunSpec
	Paper    string
	Scenario *scenario.Scenario
	YAML     []byte // resolved scenario (scenario.yaml)
	Inputs   []InputFile
	Hash     string // 16 bytes of SHA-256, hex
}

// Store is the result tree of one paper: OUT/PAPER.
type Store struct {
	Dir   string // OUT/PAPER
	Paper *Paper
	files fs.FS // the paper's scenario folder
}

// OpenStore prepares OUT/PAPER and copies the paper's checked-in scenario
// folder (embedded in the binary) to OUT/PAPER/inputs, where relative
// paths inside the scenarios resolve.
func OpenStore(out string, p *Paper) (*Store, error) {
	sub := p.Files
	if sub == nil {
		var err error
		if sub, err = fs.Sub(scenarios.Papers, path.Join("papers", p.ID)); err != nil {
			return nil, err
		}
	}
	st := &Store{Dir: filepath.Join(out, p.ID), Paper: p, files: sub}
	if err := os.MkdirAll(filepath.Join(st.Dir, RunsDir), 0o755); err != nil {
		return nil, err
	}
	in := filepath.Join(st.Dir, InputsDir)
	err := fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(in, filepath.FromSlash(name))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(sub, name)
		if err != nil {
			return err
		}
		return report.WriteFileAtomic(dst, b)
	})
	if err != nil {
		return nil, fmt.Errorf("copying the paper's scenarios to %s: %w", in, err)
	}
	return st, nil
}

// Resolve applies a run's patch to its base scenario, validates it and
// computes its hash: SHA-256 over the ccsim version, the resolved scenario
// and the contents of every input file it reads.
func (st *Store) Resolve(spec RunSpec) (*Resolved, error) {
	raw, err := fs.ReadFile(st.files, spec.Base)
	if err != nil {
		return nil, fmt.Errorf("%s: base scenario %s: %w", spec.Key, spec.Base, err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", spec.Key, spec.Base, err)
	}
	doc = Merge(doc, spec.Patch)
	doc["cc"] = []string{spec.CC}
	if spec.Seed != 0 {
		doc["seed"] = spec.Seed
	}
	patched, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Key, err)
	}
	s, err := scenario.ParseIn(patched, filepath.Join(st.Dir, InputsDir))
	if err != nil {
		return nil, fmt.Errorf("%s: scenario %s with its patch:\n%w", spec.Key, spec.Base, err)
	}
	res, err := s.Resolved(spec.CC)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Key, err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "ccsim %s\n", version.Version)
	h.Write(res)
	r := &Resolved{Spec: spec, Paper: st.Paper.ID, Scenario: s, YAML: res}
	names, paths := s.InputFiles()
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: input %s: %w", spec.Key, names[i], err)
		}
		sum := sha256.Sum256(b)
		in := InputFile{Name: names[i], SHA256: hex.EncodeToString(sum[:])}
		r.Inputs = append(r.Inputs, in)
		fmt.Fprintf(h, "input %s %s\n", in.Name, in.SHA256)
	}
	r.Hash = hex.EncodeToString(h.Sum(nil)[:16])
	return r, nil
}

// RunDir is the directory of a run's results.
func (st *Store) RunDir(hash string) string { return filepath.Join(st.Dir, RunsDir, hash) }

// Done reports whether a run's results are complete (its record exists:
// it is written last, and the directory only appears by rename).
func (st *Store) Done(hash string) bool {
	_, err := os.Stat(filepath.Join(st.RunDir(hash), RunRecord))
	return err == nil
}

// Execute simulates a resolved run and stores its results atomically. A
// panic inside the simulation is returned as an error.
func (st *Store) Execute(r *Resolved) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: internal error: %v", r.Spec.Key, p)
		}
	}()
	b, err := assemble.Build(r.Scenario, r.Spec.CC, assemble.Options{})
	if err != nil {
		return fmt.Errorf("%s: %w", r.Spec.Key, err)
	}
	res := b.Run()
	runs := filepath.Join(st.Dir, RunsDir)
	tmp, err := os.MkdirTemp(runs, ".tmp-"+r.Hash+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	if err := res.Write(tmp); err != nil {
		return fmt.Errorf("%s: writing results: %w", r.Spec.Key, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ScenarioFile), r.YAML, 0o644); err != nil {
		return err
	}
	rec := Record{Hash: r.Hash, Key: r.Spec.Key, Version: version.Version, Paper: r.Paper, Base: r.Spec.Base, CC: r.Spec.CC,
		Seed: r.Scenario.Seed, Inputs: r.Inputs, WallSeconds: res.WallSeconds,
		Finished: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version()}
	js, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, RunRecord), append(js, '\n'), 0o644); err != nil {
		return err
	}
	final := st.RunDir(r.Hash)
	if err := os.Rename(tmp, final); err != nil {
		if st.Done(r.Hash) {
			return nil // another process finished the same run first
		}
		// an incomplete directory of that name (not made by us): replace it
		if err2 := os.RemoveAll(final); err2 == nil {
			err = os.Rename(tmp, final)
		}
		if err != nil {
			return fmt.Errorf("%s: storing results: %w", r.Spec.Key, err)
		}
	}
	return nil
}

// ReadRecord reads a finished run's record.
func ReadRecord(dir string) (*Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, RunRecord))
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RunRecord), err)
	}
	return &r, nil
}

// cleanTemps removes temporary run directories left by an interrupted
// reproduction (they are never results).
func (st *Store) cleanTemps(olderThan time.Duration) {
	ents, err := os.ReadDir(filepath.Join(st.Dir, RunsDir))
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".tmp-") || st.lockHeld(tempHash(e.Name())) {
			continue // not a temporary, or one a live process is writing
		}
		info, err := e.Info()
		if err == nil && time.Since(info.ModTime()) > olderThan {
			os.RemoveAll(filepath.Join(st.Dir, RunsDir, e.Name()))
		}
	}
}
