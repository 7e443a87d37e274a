package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A panic inside parsing is an error naming the file, not a crash.
func TestLoadRecoversParserPanic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(p, []byte("topology: {hosts: 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	parseHook = func() { panic("boom") }
	defer func() { parseHook = nil }()
	s, err := Load(p)
	if s != nil || err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Load = %v, %v; want an error naming %s and the panic", s, err, p)
	}
}
