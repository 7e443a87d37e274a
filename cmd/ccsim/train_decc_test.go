package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	decctrain "github.com/ccsim/ccsim/train/decc"
)

// runTrainDECC runs `ccsim train decc` with args and returns its output.
func runTrainDECC(t *testing.T, args ...string) (string, error) {
	t.Helper()
	c := trainDECCCmd()
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), err
}

// `ccsim train decc --quick` writes the trainer's teacher and log, the
// same bytes with 1 and 2 workers; --config overrides fields and a bad
// value or an unknown field is refused with its name.
func TestTrainDECCQuick(t *testing.T) {
	var teachers [2][]byte
	for w := range 2 {
		dir := t.TempDir()
		out, err := runTrainDECC(t, "--quick", "--workers", []string{"1", "2"}[w], "--out", dir)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "wrote "+dir) {
			t.Fatalf("output %q does not name the files", out)
		}
		if teachers[w], err = os.ReadFile(filepath.Join(dir, deccTeacherFile)); err != nil {
			t.Fatal(err)
		}
		if w == 0 {
			res, err := decctrain.Run(decctrain.QuickConfig(), nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := res.Teacher()
			log, _ := os.ReadFile(filepath.Join(dir, deccTeacherLog))
			if !bytes.Equal(teachers[0], want) || !bytes.Equal(log, res.LogCSV()) {
				t.Errorf("the command's files differ from the trainer's")
			}
		}
	}
	if !bytes.Equal(teachers[0], teachers[1]) {
		t.Errorf("--workers 1 and 2 wrote different teachers")
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "c.yaml")
	for _, c := range []struct{ yaml, want string }{
		{"rounds: 2\nbatch: 0\n", "batch = 0 out of range"},
		{"roundz: 2\n", "roundz"},
		{"many_to_one: [5000]\n", "many_to_one[0] = 5000 out of range"},
	} {
		if err := os.WriteFile(cfgPath, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := runTrainDECC(t, "--config", cfgPath, "--out", dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %q: error %v, want one naming %q", c.yaml, err, c.want)
		}
	}
}
