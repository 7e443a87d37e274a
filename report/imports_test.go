package report

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// report reads results (scenario/result) and never builds or runs a
// scenario: it imports neither scenario nor scenario/assemble.
func TestReportImportsNoScenario(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			switch path := strings.Trim(imp.Path.Value, `"`); path {
			case "github.com/ccsim/ccsim/scenario", "github.com/ccsim/ccsim/scenario/assemble":
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
