package scenario_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
)

// Errors in params: name the line in the file, and do not hide the others.
func TestParamsErrorsGiveFileLines(t *testing.T) {
	src := `name: t
cc: [dcqcn, hpcc]
topology: {hosts: 1}
workload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}
params:
  dcqcn:
    g: high
    nosuch: 1
  hpcc:
    <<: {eta: 7}
`
	_, err := scenario.Parse([]byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"params.dcqcn: line 7:", "high", "params.dcqcn: line 8:", "nosuch", "params.hpcc.eta = 7", "topology.hosts = 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// PFC headroom that does not fit in the buffer (10 ms links) is rejected
// by Check and Build, naming the fields to change, instead of running with
// a pause threshold of 0.
func TestHeadroomLargerThanBuffer(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.yaml")
	src := "topology: {kind: star, hosts: 3, link_delay_ns: 10000000}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1000}]}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Check(p, nil)
	for _, want := range []string{"switch.buffer_mib = 32", "switch.headroom_rtts = 3", "topology.link_delay_ns", "10ms", "switch 3"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %v lacks %q", err, want)
		}
	}
	if _, err := s.Build("dcqcn", scenario.RunOptions{}); err == nil || !strings.Contains(err.Error(), "switch.buffer_mib") {
		t.Errorf("Build error %v", err)
	}
	// lossy: no headroom, accepted
	if err := os.WriteFile(p, []byte(src+"switch: {pfc: \"off\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scenario.Check(p, nil); err != nil {
		t.Errorf("pfc off: %v", err)
	}
}
