package experiment

// Paper reproductions: a paper is a list of experiments; an experiment is
// a set of runs (scenarios from scenarios/papers/PAPER/ with a sweep of
// patches × algorithms × seeds), an analysis that turns the finished runs'
// result files into tables, figures and claim verdicts, and the claims the
// paper makes. The machinery (store.go, runner.go, reproduce.go) expands,
// hashes, runs, resumes and reports; a paper package only supplies data
// and analysis functions.

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ccsim/ccsim/report"
)

// Scale selects the size of a reproduction.
type Scale string

const (
	// ScalePaper is the paper's size (the default).
	ScalePaper Scale = "paper"
	// ScaleQuick scales every experiment down so that the test suite runs each
	// one end to end in seconds. Its numbers are not comparable with the
	// paper's.
	ScaleQuick Scale = "quick"
)

// ParseScale checks a --scale value.
func ParseScale(s string) (Scale, error) {
	switch Scale(s) {
	case ScalePaper, ScaleQuick:
		return Scale(s), nil
	}
	return "", fmt.Errorf("--scale = %q: allowed values quick, paper", s)
}

// Paper is one source paper and its experiments.
type Paper struct {
	ID       string // ccsim's id: dcqcn-p, dcon, wrcc, pidnn, decc
	Number   string // the source paper's number: 000 … 004
	Title    string
	Citation string // authors, venue, year
	// Summary is one paragraph on the mechanism and what the paper
	// compares.
	Summary     string
	Experiments []*Experiment
	// Files holds the paper's scenario folder; nil = the checked-in
	// scenarios/papers/ID embedded in the binary.
	Files fs.FS
	// Tolerance is how far a measured magnitude may be from the paper's
	// number (zero: DefaultTolerance, ±25 %), declared once for the
	// paper; a claim may state its own band (Claim.Tol).
	Tolerance Tolerance
}

// tolerance is the paper's tolerance.
func (p *Paper) tolerance() Tolerance {
	if p.Tolerance == (Tolerance{}) {
		return DefaultTolerance
	}
	return p.Tolerance
}

// Experiment is one experiment of a paper.
type Experiment struct {
	ID    string // e1, e2, ...
	Title string
	// Setup describes topology, workload, algorithms and metrics, with
	// every interpretation made (plain text, paragraphs separated by blank
	// lines).
	Setup string
	// SetupAt, if set, gives the setup text at a scale (the quick run's
	// sizes at quick scale), replacing Setup.
	SetupAt func(Scale) string
	// Claims are the paper's published numbers and statements this
	// experiment checks.
	Claims []Claim
	// Runs lists the simulation runs at a scale (nil or empty: the
	// experiment needs none, e.g. a behavioural model).
	Runs func(Scale) []RunSpec
	// Readings are the readings of a setup the paper leaves open (none:
	// one implicit reading); every one runs, and the analysis runs once
	// per reading (Context.Reading).
	Readings []Reading
	// Checks are constants the paper prints that follow from its setup;
	// each reading's setup is checked against them.
	Checks []Check
	// Analyze builds the experiment's section of the report from its
	// finished runs (read from their result files through the context):
	// tables, figures and notes, and, through Context.Measure, what it
	// measured for each claim. The machinery decides the verdicts.
	Analyze func(*Context) (*report.Section, error)
}

// setup is the experiment's setup text at scale sc.
func (e *Experiment) setup(sc Scale) string {
	if e.SetupAt != nil {
		return e.SetupAt(sc)
	}
	return e.Setup
}

// RunSpec is one simulation run of an experiment before resolution.
type RunSpec struct {
	// Key names the run within its experiment, e.g.
	// "pmtu=1024 cc=dcqcnp seed=1"; the analysis looks runs up by key.
	Key string
	// Base is a scenario file under scenarios/papers/PAPER/.
	Base string
	// Patch is deep-merged over the base document (maps merge key by key,
	// any other value replaces), then cc is set to [CC] and, if Seed is
	// not 0, seed to Seed.
	Patch map[string]any
	CC    string
	Seed  uint64
}

// Value is one point of a sweep axis.
type Value struct {
	Label string
	Patch map[string]any
}

// Axis is one swept parameter.
type Axis struct {
	Name   string
	Values []Value
}

// Sweep is a parameter grid × algorithms × seeds over one base scenario.
type Sweep struct {
	Base  string
	Patch map[string]any // applied to every run, before the axes
	Axes  []Axis
	CC    []string
	// CCPatch adds an algorithm-specific patch (e.g. the CNP interval of
	// a DCQCN baseline) after the axes.
	CCPatch map[string]map[string]any
	Seeds   []uint64 // empty = the scenario's seed
}

// Expand lists the sweep's runs: axes in order (the last varies fastest),
// then algorithms, then seeds. Keys are "axis=label … cc=NAME seed=N".
func (s Sweep) Expand() []RunSpec {
	type point struct {
		key   []string
		patch []map[string]any
	}
	pts := []point{{}}
	for _, ax := range s.Axes {
		var next []point
		for _, p := range pts {
			for _, v := range ax.Values {
				next = append(next, point{
					key:   append(slices.Clone(p.key), ax.Name+"="+v.Label),
					patch: append(slices.Clone(p.patch), v.Patch),
				})
			}
		}
		pts = next
	}
	seeds := s.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{0}
	}
	var out []RunSpec
	for _, p := range pts {
		for _, cc := range s.CC {
			for _, seed := range seeds {
				key := append(slices.Clone(p.key), "cc="+cc)
				if seed != 0 {
					key = append(key, fmt.Sprintf("seed=%d", seed))
				}
				patch := Merge(nil, s.Patch)
				for _, q := range p.patch {
					patch = Merge(patch, q)
				}
				patch = Merge(patch, s.CCPatch[cc])
				out = append(out, RunSpec{Key: strings.Join(key, " "), Base: s.Base, Patch: patch, CC: cc, Seed: seed})
			}
		}
	}
	return out
}

// Merge deep-merges b over a into a new map: maps merge key by key, any
// other value of b replaces a's. Neither input is modified.
func Merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := asMap(v); ok {
			if am, ok := asMap(out[k]); ok {
				out[k] = Merge(am, bm)
				continue
			}
			out[k] = Merge(nil, bm)
			continue
		}
		out[k] = v
	}
	return out
}

func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[fmt.Sprint(k)] = x
		}
		return out, true
	}
	return nil, false
}

var papers = map[string]*Paper{}

// Register adds a paper; a duplicate id or experiment id, a claim id used
// twice in one experiment or a claim without a kind panics (a programming
// error at init).
func Register(p *Paper) {
	if _, dup := papers[p.ID]; dup {
		panic("experiment: duplicate paper " + p.ID)
	}
	seen := map[string]bool{}
	for _, e := range p.Experiments {
		if seen[e.ID] {
			panic("experiment: duplicate experiment " + p.ID + "/" + e.ID)
		}
		seen[e.ID] = true
		claims := map[string]bool{}
		for _, c := range e.Claims {
			if claims[c.ID] {
				panic("experiment: duplicate claim " + p.ID + "/" + e.ID + "/" + c.ID)
			}
			claims[c.ID] = true
			if c.Kind == Untyped {
				panic("experiment: claim " + p.ID + "/" + e.ID + "/" + c.ID + " has no kind")
			}
		}
		if err := e.validateReadings(); err != nil {
			panic("experiment: " + p.ID + "/" + e.ID + ": " + err.Error())
		}
	}
	papers[p.ID] = p
}

// Planned are the papers whose reproduction is not built yet, with the
// issue that builds it; `reproduce list` shows them and `reproduce ID`
// explains instead of running nothing.
var Planned = map[string]string{}

// Papers lists the registered papers by id.
func Papers() []*Paper {
	ids := slices.Sorted(maps.Keys(papers))
	out := make([]*Paper, len(ids))
	for i, id := range ids {
		out[i] = papers[id]
	}
	return out
}

// Lookup returns a registered paper.
func Lookup(id string) (*Paper, error) {
	if p, ok := papers[id]; ok {
		return p, nil
	}
	if what, ok := Planned[id]; ok {
		return nil, fmt.Errorf("paper %q (%s) has no reproduction yet", id, what)
	}
	var ids []string
	for id := range papers {
		ids = append(ids, id)
	}
	for id := range Planned {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return nil, fmt.Errorf("unknown paper %q (known: %s)", id, strings.Join(ids, ", "))
}

// Select returns the paper's experiments named in ids (all when empty).
func (p *Paper) Select(ids []string) ([]*Experiment, error) {
	if len(ids) == 0 {
		return p.Experiments, nil
	}
	var out []*Experiment
	for _, id := range ids {
		found := false
		for _, e := range p.Experiments {
			if e.ID == id {
				out = append(out, e)
				found = true
			}
		}
		if !found {
			var have []string
			for _, e := range p.Experiments {
				have = append(have, e.ID)
			}
			return nil, fmt.Errorf("paper %s has no experiment %q (experiments: %s)", p.ID, id, strings.Join(have, ", "))
		}
	}
	return out, nil
}
