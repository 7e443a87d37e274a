package scenario_test

import (
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
