package decc

import (
	"bytes"
	"testing"
)

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
