package experiment_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// moduleRoot finds the repository root (the directory holding go.mod).
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = up
	}
}

// Users get the repository, not the workplace's shared specifications:
// code, scenarios and docs cite the repository's own docs/ (and the
// papers), and every docs/ file cited exists.
func TestDocsCitationsResolve(t *testing.T) {
	root := moduleRoot(t)
	cite := regexp.MustCompile(`docs/[A-Za-z0-9_/.-]+\.md`)
	// the workplace's folder, spelt in pieces so that this line does not
	// match itself
	shared := "sha" + "red/"
	external := regexp.MustCompile(`\.\./` + shared + `|` + shared + `(spec|anchors|seeds|design)|spec (README|dcqcn-p|dcon|wrcc|pidnn|decc|reference-simulator)(\.md)?\b`)
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "results" || name == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".go" && ext != ".yaml" && ext != ".md" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for i, line := range strings.Split(string(b), "\n") {
			if m := external.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, which users of the repository do not have; cite docs/ instead", rel, i+1, m)
			}
			for _, c := range cite.FindAllString(line, -1) {
				n++
				if _, err := os.Stat(filepath.Join(root, c)); err != nil {
					t.Errorf("%s:%d cites %s, which does not exist", rel, i+1, c)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("only %d citations of docs/ found: the walk missed the tree?", n)
	}
}
