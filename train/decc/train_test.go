package decc

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/ccsim/ccsim/cc/deccmodel"
)

var rebuild = flag.Bool("rebuild", false, "retrain the teacher with the defaults and compare with the shipped one (12–15 minutes on 2 cores)")

// TestQuickDeterministic: the quick configuration trains in a few seconds
// and gives the same teacher bytes and log with 1 and 2 workers.
func TestQuickDeterministic(t *testing.T) {
	var files [2][]byte
	var logs [2][]byte
	for w := range 2 {
		cfg := QuickConfig()
		cfg.Workers = w + 1
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if files[w], err = res.Teacher(); err != nil {
			t.Fatal(err)
		}
		logs[w] = res.LogCSV()
		if w == 0 {
			t.Logf("%s", logs[w])
			t.Logf("initial %.6f final %.6f", res.Initial, res.Final)
		}
	}
	if !bytes.Equal(files[0], files[1]) || !bytes.Equal(logs[0], logs[1]) {
		t.Errorf("1 and 2 workers differ")
	}
}

// `go test ./train/decc -run TestShippedTeacher -rebuild -timeout 60m`
// retrains with the defaults (2 workers; the bytes do not depend on it)
// and compares with cc/deccmodel/teacher.bin byte for byte.
func TestShippedTeacher(t *testing.T) {
	if !*rebuild {
		t.Skip("the rebuild takes 12–15 minutes: run with -rebuild")
	}
	cfg := DefaultConfig()
	cfg.Workers = 2
	res, err := Run(cfg, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.Teacher()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, deccmodel.ShippedTeacherBytes()) {
		t.Error("the retrained teacher differs from the shipped cc/deccmodel/teacher.bin")
	}
}
