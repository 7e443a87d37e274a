package assemble_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario/assemble"
)

// PFC headroom that does not fit in the buffer (10 ms links) is rejected
// by Check and Build, naming the fields to change, instead of running with
// a pause threshold of 0.
func TestHeadroomLargerThanBuffer(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.yaml")
	src := "topology: {kind: star, hosts: 3, link_delay_ns: 10000000}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1000}]}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := assemble.Check(p, nil)
	for _, want := range []string{"switch.buffer_mib = 32", "switch.headroom_rtts = 3", "topology.link_delay_ns", "10ms", "switch 3"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %v lacks %q", err, want)
		}
	}
	if _, err := assemble.Build(s, "dcqcn", assemble.Options{}); err == nil || !strings.Contains(err.Error(), "switch.buffer_mib") {
		t.Errorf("Build error %v", err)
	}
	// lossy: no headroom, accepted
	if err := os.WriteFile(p, []byte(src+"switch: {pfc: \"off\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := assemble.Check(p, nil); err != nil {
		t.Errorf("pfc off: %v", err)
	}
}
