package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc/adpgmodel"
	adpgtrain "github.com/ccsim/ccsim/train/adpg"
)

// `ccsim train adpg --quick --updates 5` writes the files the trainer
// gives for QuickConfig with 5 updates (all warm-up rounds), and names
// them; a bad flag value is refused with its name.
func TestTrainADPGQuick(t *testing.T) {
	dir := t.TempDir()
	c := trainADPGCmd()
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs([]string{"--quick", "--updates", "5", "--workers", "1", "--out", dir})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "wrote "+dir) {
		t.Fatalf("output %q does not name the files", out.String())
	}
	cfg := adpgtrain.QuickConfig()
	cfg.Updates, cfg.WarmupUpdates = 5, 5
	res, err := adpgtrain.Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{adpgmodel.ModelFile: res.ModelBytes, adpgmodel.LogFile: res.LogBytes} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: differs from the trainer's (%v)", name, err)
		}
	}
	c = trainADPGCmd()
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs([]string{"--quick", "--lr", "0", "--out", dir})
	if err := c.Execute(); err == nil || !strings.Contains(err.Error(), "lr") {
		t.Fatalf("--lr 0: error %v, want one naming lr", err)
	}
}
