package scenario_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
)

// yamlCrash made gopkg.in/yaml.v3 panic ("hash of unhashable type") in a
// merge of a flow mapping with a mapping key; it is in the fuzz corpus too
// (testdata/fuzz/FuzzParse/merge-unhashable-key).
const yamlCrash = "0:\ntopology: {<<, {00000000}}\n"

func TestParserPanicIsAnError(t *testing.T) {
	if _, err := scenario.Parse([]byte(yamlCrash)); err == nil || !strings.Contains(err.Error(), "yaml") {
		t.Errorf("Parse error = %v, want a YAML error", err)
	}
	p := filepath.Join(t.TempDir(), "crash.yaml")
	if err := os.WriteFile(p, []byte(yamlCrash), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scenario.Load(p); err == nil {
		t.Error("Load accepted the input")
	}
}
