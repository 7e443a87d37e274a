package experiment_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/experiment"
	_ "github.com/ccsim/ccsim/experiment/papers"
	"github.com/ccsim/ccsim/scenario"
)

// A resolved scenario (scenario.yaml of every reproduction run) is a
// runnable file: it parses back, and resolves to the same bytes, for every
// checked-in scenario, every run of every paper at quick scale and the
// first run of each experiment at paper scale.
func TestResolvedScenariosRoundTrip(t *testing.T) {
	root := moduleRoot(t)
	check := func(name string, s *scenario.Scenario, dir string) {
		t.Helper()
		for _, cc := range s.CC {
			res, err := s.Resolved(cc)
			if err != nil {
				t.Errorf("%s %s: %v", name, cc, err)
				continue
			}
			s2, err := scenario.ParseIn(res, dir)
			if err != nil {
				t.Errorf("%s %s: the resolved scenario does not parse:\n%v", name, cc, err)
				continue
			}
			res2, err := s2.Resolved(cc)
			if err != nil || !bytes.Equal(res, res2) {
				t.Errorf("%s %s: resolving twice differs (%v)", name, cc, err)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "scenarios", "*", "*.yaml"))
	if len(files) < 8 {
		t.Fatalf("found %d checked-in scenarios", len(files))
	}
	for _, f := range files {
		s, err := scenario.Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		check(filepath.Base(f), s, filepath.Dir(f))
	}
	n := 0
	for _, p := range experiment.Papers() {
		st, err := experiment.OpenStore(t.TempDir(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range []experiment.Scale{experiment.ScaleQuick, experiment.ScalePaper} {
			for _, e := range p.Experiments {
				if e.Runs == nil {
					continue
				}
				specs := e.Runs(sc)
				if sc == experiment.ScalePaper && len(specs) > 1 {
					// paper scale: the first run of each experiment, its
					// smallest point as the sweeps are ordered (paper 000's
					// explicit message rings of 64,512 queue pairs take
					// seconds each to resolve and to resolve again; every run
					// is checked at quick scale, where the shapes are the same)
					specs = specs[:1]
				}
				for _, spec := range specs {
					r, err := st.Resolve(spec)
					if err != nil {
						t.Errorf("%s/%s %s: %v", p.ID, e.ID, spec.Key, err)
						continue
					}
					n++
					check(p.ID+"/"+e.ID+" "+spec.Key, r.Scenario, filepath.Join(st.Dir, experiment.InputsDir))
				}
			}
		}
	}
	if n == 0 {
		t.Error("no paper run resolved")
	}
}
