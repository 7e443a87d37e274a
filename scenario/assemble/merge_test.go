package assemble_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/workload"
)

// Every workload section given is part of the workload: background traffic
// plus an incast plus explicit flows plus a flow file are one merged list
// (workload.Merge: start-time order, reference source ports reassigned).
func TestWorkloadSectionsMerge(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("1\n2 0 3 100 7000 0.000002\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const topo = "topology: {kind: star, hosts: 4}\n"
	sections := []string{
		"  flows: [{src: 0, dst: 3, size_bytes: 100000, start_ns: 500}]\n",
		"  file: f.txt\n",
		"  incast: {senders: [1, 2], receiver: 3, sizes_bytes: [50000], start_ns: 1000}\n",
		"  poisson: {cdf: websearch, load: 0.2, duration_ms: 0.05}\n",
		"  all_to_all: {size_bytes: 3000, hosts: [0, 1]}\n",
	}
	flowsOf := func(src string) []workload.Flow {
		t.Helper()
		p := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := assemble.Check(p, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		g, err := assemble.Graph(s)
		if err != nil {
			t.Fatal(err)
		}
		fl, err := assemble.Flows(s, g)
		if err != nil {
			t.Fatal(err)
		}
		return fl
	}
	var lists [][]workload.Flow
	for _, sec := range sections {
		lists = append(lists, flowsOf(topo+"workload:\n"+sec))
	}
	want := workload.Merge(lists...)
	got := flowsOf(topo + "workload:\n" + strings.Join(sections, ""))
	if len(got) != len(want) || !reflect.DeepEqual(got, want) {
		t.Errorf("merged workload has %d flows, want %d (the merge of every section)", len(got), len(want))
	}
	// kind: mixed says so explicitly
	if got := flowsOf(topo + "workload:\n  kind: mixed\n" + strings.Join(sections, "")); !reflect.DeepEqual(got, want) {
		t.Errorf("kind mixed: %d flows, want %d", len(got), len(want))
	}
}

// A kind that contradicts the sections given is an error naming both.
func TestWorkloadKindContradiction(t *testing.T) {
	const topo = "topology: {kind: star, hosts: 4}\n"
	for _, c := range []struct{ workload, want1, want2 string }{
		{"{kind: incast, incast: {senders: [0], receiver: 3, sizes_bytes: [5]}, poisson: {cdf: websearch, load: 0.1, duration_ms: 1}}", "workload.kind = incast", "workload.poisson"},
		{"{kind: flows, flows: [{src: 0, dst: 1, size_bytes: 1}], incast: {senders: [0], receiver: 3, sizes_bytes: [5]}}", "workload.kind = flows", "workload.incast"},
		{"{kind: generated, flows: [{src: 0, dst: 1, size_bytes: 1}], all_to_all: {size_bytes: 5}}", "workload.kind = generated", "workload.flows"},
		{"{kind: ns3, file: x.txt, flows: [{src: 0, dst: 1, size_bytes: 1}]}", "workload.kind = ns3", "workload.flows"},
		{"{kind: mixed}", "workload", "at least one"},
	} {
		_, err := scenario.Parse([]byte(topo + "workload: " + c.workload + "\n"))
		if err == nil || !strings.Contains(err.Error(), c.want1) || !strings.Contains(err.Error(), c.want2) {
			t.Errorf("%s: error %v, want one naming %s and %s", c.workload, err, c.want1, c.want2)
		}
	}
}
