// Package arch_test checks the shape of the code base: the import layers,
// the size of files and functions, and that the fabric names no algorithm.
// Its tables are the architecture README.md describes; a new package takes
// its place in layers below.
package arch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ccsim/ccsim"

// layers ranks every package of the module: a package may import only
// packages of a strictly lower rank, so no package imports one above it.
var layers = map[string]int{
	// the kernel and plain data: no ccsim imports
	"sim":               0,
	"version":           0,
	"internal/decimal":  0,
	"internal/lineio":   0,
	"internal/prefetch": 0,
	"ml/nn":             0,
	"ml/gbdt":           0,
	"scenarios":         0,
	"report/htmlcheck":  0, // a test helper: runs headless Chromium
	"internal/arch":     0,
	// topologies, workloads and statistics over them
	"topo":           1,
	"workload":       1,
	"metrics":        1,
	"cc/pidnnmodel":  1,
	"cc/adpgmodel":   1,
	"cc/spinemodel":  1,
	"cc/auroramodel": 1, // Aurora's shipped policy over ml/nn (docs/algorithms/aurora.md)
	"cc/deccmodel":   2, // DECC's network shapes and model files over ml/nn, ml/compress, ml/gbdt (docs/algorithms/decc.md)
	"ml/rl":          1, // reinforcement learning over ml/nn (docs/rl.md)
	"ml/compress":    1, // pruning, quantisation, packed inference over ml/nn (docs/compress.md)
	// the fabric: hosts, switches, links
	"fabric": 2,
	// algorithms on the fabric; results as data
	"cc":              3,
	"scenario/result": 3,
	// scenario schema and validation; reports from results
	"scenario": 4,
	"report":   4,
	// building and running a scenario
	"scenario/assemble": 5,
	// training and reproductions over runs
	"train/pidnn": 6,
	"train/env":   6,
	"experiment":  6,

	"train/deccpost": 6, // DECC's compression and distillation (docs/algorithms/decc.md §11)
	// paper reproductions
	"experiment/exptest":       7,
	"train/adpg":               7,
	"train/spine":              7, // SPINE's trainer (docs/algorithms/spine.md §5)
	"experiment/papers/dcqcnp": 7,
	"experiment/papers/dcon":   7,
	"experiment/papers/decc":   7,
	"experiment/papers/wrcc":   7,
	"experiment/papers/pidnn":  7,
	"train/aurora":             7, // Aurora's trainer (docs/algorithms/aurora.md)
	"train/decc":               7, // DECC's teacher trainer (docs/algorithms/decc.md §10)
	"experiment/papers":        8,
	// the command
	"cmd/ccsim": 9,
}

// apart lists imports that the layers would allow but the architecture
// forbids: results are data that report, experiment and training read
// without the simulator.
var apart = map[string][]string{
	"scenario/result": {"fabric"},
}

// Size limits for non-test code (issue 15): a function a reader takes in
// at once, a file a reader can navigate.
const (
	maxFuncLines = 120
	maxFileLines = 700
)

// root is the module's root directory.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("go.mod not found")
		}
		dir = up
	}
}

// sources maps each package directory (relative to the root, slash
// separated) to its non-test Go files.
func sources(t *testing.T) map[string][]string {
	t.Helper()
	r := root(t)
	pkgs := map[string][]string{}
	err := filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != r && (strings.HasPrefix(name, ".") || name == "testdata" || name == "results") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(r, filepath.Dir(p))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		pkgs[rel] = append(pkgs[rel], p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under %s", len(pkgs), r)
	}
	return pkgs
}

func TestLayers(t *testing.T) {
	fset := token.NewFileSet()
	pkgs := sources(t)
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		rank, ok := layers[dir]
		if !ok {
			t.Errorf("package %s has no layer: add it to layers in internal/arch", dir)
			continue
		}
		for _, file := range pkgs[dir] {
			f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				dep, ok := strings.CutPrefix(path, module+"/")
				if !ok {
					continue
				}
				dr, known := layers[dep]
				switch {
				case !known:
					t.Errorf("%s imports %s, which has no layer", dir, dep)
				case dr >= rank:
					t.Errorf("%s (layer %d) imports %s (layer %d): a package may import only lower layers", dir, rank, dep, dr)
				case slices.Contains(apart[dir], dep):
					t.Errorf("%s imports %s: it must not depend on it (see apart)", dir, dep)
				}
			}
		}
	}
}

func TestSizes(t *testing.T) {
	fset := token.NewFileSet()
	r := root(t)
	for _, files := range sources(t) {
		for _, file := range files {
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(r, file)
			if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
				t.Errorf("%s: %d lines (at most %d): split it by job", rel, n, maxFileLines)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				if n > maxFuncLines {
					t.Errorf("%s:%d: %s is %d lines (at most %d): split it into named steps", rel, fset.Position(fd.Pos()).Line, fd.Name.Name, n, maxFuncLines)
				}
			}
		}
	}
}
