package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc/deccmodel"
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

// `ccsim train decc --quick` writes the trainer's teacher and log and the
// students of that teacher (deccpost's quick stage), the same bytes with 1
// and 2 workers; --teacher makes the same students from the teacher file
// alone; --config overrides fields and a bad value or an unknown field is
// refused with its name.
func TestTrainDECCQuick(t *testing.T) {
	var teachers, students [2][]byte
	var dirs [2]string
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
		for _, name := range []string{deccmodel.BinaryFile, deccmodel.TreesFile, deccmodel.ReportFile} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			students[w] = append(students[w], b...)
		}
		dirs[w] = dir
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
	if !bytes.Equal(teachers[0], teachers[1]) || !bytes.Equal(students[0], students[1]) {
		t.Errorf("--workers 1 and 2 wrote different teachers or students")
	}
	only := t.TempDir()
	if _, err := runTrainDECC(t, "--quick", "--teacher", filepath.Join(dirs[0], deccTeacherFile), "--out", only); err != nil {
		t.Fatal(err)
	}
	var again []byte
	for _, name := range []string{deccmodel.BinaryFile, deccmodel.TreesFile, deccmodel.ReportFile} {
		b, _ := os.ReadFile(filepath.Join(only, name))
		again = append(again, b...)
	}
	if _, err := os.Stat(filepath.Join(only, deccTeacherFile)); err == nil || !bytes.Equal(again, students[0]) {
		t.Errorf("--teacher: wrote a teacher (%v) or other students", err)
	}
	if _, err := runTrainDECC(t, "--teacher", filepath.Join(only, "none.bin"), "--out", only); err == nil || !strings.Contains(err.Error(), "--teacher") {
		t.Errorf("a missing --teacher file: %v", err)
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

// `ccsim train decc --quick --actor continuous` writes a continuous teacher
// (the trainer's bytes for that configuration) and its students, says how
// to run them, and a scenario runs all three senders on those files;
// --actor with another value is refused naming the allowed ones.
func TestTrainDECCContinuous(t *testing.T) {
	dir := t.TempDir()
	out, err := runTrainDECC(t, "--quick", "--actor", "continuous", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "tree_output: value") {
		t.Errorf("output %q does not say how to run the continuous students", out)
	}
	cfg := decctrain.QuickConfig()
	cfg.Actor = "continuous"
	res, err := decctrain.Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := res.Teacher()
	got, err := os.ReadFile(filepath.Join(dir, deccTeacherFile))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("teacher differs from the trainer's (%v)", err)
	}
	if m, _, err := deccmodel.DecodeActor(got); err != nil || !deccmodel.IsContinuous(m) {
		t.Fatalf("teacher is not the continuous shape (%v)", err)
	}
	sc := "name: cont\nseed: 1\nstop_ms: 0.05\ncc: [decc-nn, decc-binary, decc]\nparams:\n" +
		"  decc-nn: {model: " + filepath.Join(dir, deccTeacherFile) + "}\n" +
		"  decc-binary: {model: " + filepath.Join(dir, deccmodel.BinaryFile) + "}\n" +
		"  decc: {model: " + filepath.Join(dir, deccmodel.TreesFile) + ", tree_output: value}\n" +
		"topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}\n" +
		"switch: {buffer_mb: 1, pfc: \"off\"}\n" +
		"workload:\n  kind: incast\n  incast: {senders: [1, 2, 3, 4], receiver: 0, sizes_bytes: [200000]}\n"
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	c := runCmd()
	var o bytes.Buffer
	c.SetOut(&o)
	c.SetErr(&o)
	c.SetArgs([]string{path, "--out", filepath.Join(dir, "run")})
	if err := c.Execute(); err != nil {
		t.Fatalf("run: %v\n%s", err, o.String())
	}
	for _, name := range []string{"decc-nn", "decc-binary", "decc"} {
		if _, err := os.Stat(filepath.Join(dir, "run", name, "summary.json")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := runTrainDECC(t, "--quick", "--actor", "gauss", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "allowed values categorical, continuous") {
		t.Errorf("--actor gauss: %v", err)
	}
}
