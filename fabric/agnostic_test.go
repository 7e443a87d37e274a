package fabric

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// algorithmNames are the congestion-control algorithms (and papers' names
// for them) that the fabric must not know: their per-packet fields go
// through the header extension, their switch parts through SwitchView.
// HPCC and DCQCN are not listed: comments cite the reference simulator's
// HPCC INT record and dcqcn preset.
var algorithmNames = []string{"wrcc", "dcon", "bicc", "bolt", "pcn", "pidnn", "decc", "swift", "timely", "dctcp", "dcqcnp"}

// identifier is a word of source text: identifiers and comment words.
var identifier = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*`)

// nameParts splits an identifier into its words: at underscores (by the
// regexp), at lower-to-upper changes (sendWRCC → send, WRCC) and before
// the last capital of a run followed by a lower-case letter (WRCCExt →
// WRCC, Ext), lower-cased.
func nameParts(id string) []string {
	var parts []string
	r := []rune(id)
	start := 0
	for i := 1; i < len(r); i++ {
		lowUp := unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i])
		acronymEnd := unicode.IsUpper(r[i-1]) && unicode.IsUpper(r[i]) && i+1 < len(r) && unicode.IsLower(r[i+1])
		digit := unicode.IsDigit(r[i]) != unicode.IsDigit(r[i-1])
		if lowUp || acronymEnd || digit {
			parts = append(parts, strings.ToLower(string(r[start:i])))
			start = i
		}
	}
	return append(parts, strings.ToLower(string(r[start:])))
}

// mentions lists the algorithm names that text mentions as a whole word, an
// identifier or a word of an identifier, case-insensitively ("dcqcn-p"
// counts as dcqcnp).
func mentions(text string) []string {
	text = regexp.MustCompile(`(?i)dcqcn-p\b`).ReplaceAllString(text, "dcqcnp")
	var found []string
	for _, id := range identifier.FindAllString(text, -1) {
		if slices.ContainsFunc(append(nameParts(id), strings.ToLower(id)), func(p string) bool {
			return slices.Contains(algorithmNames, p)
		}) {
			found = append(found, id)
		}
	}
	return found
}

func TestMentions(t *testing.T) {
	for text, want := range map[string]int{
		"WRCCExt":                  1,
		"q.WRCC.Domain":            1,
		"newDCONSwitch":            1,
		"// Bolt's SRC":            1,
		"wrcc_ext":                 1,
		"the DCQCN-p preset":       1,
		"timely":                   1,
		"cc.PIDNN":                 1,
		"DCQCN and HPCC":           0,
		"pcnt boltzmann swiftness": 0,
		"SwitchView.SetExt":        0,
	} {
		if got := mentions(text); len(got) != want {
			t.Errorf("mentions(%q) = %v, want %d", text, got, want)
		}
	}
}

// The fabric is paper-agnostic: no non-test source file names an
// algorithm (docs/fabric.md). Algorithms declare what they need
// (Requirements, ExtSpec) and act through SwitchView.
func TestFabricIsAlgorithmAgnostic(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if m := mentions(line); len(m) > 0 {
				t.Errorf("%s:%d names algorithm(s) %v: %s", f, i+1, m, strings.TrimSpace(line))
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files: run from the fabric directory", checked)
	}
}
