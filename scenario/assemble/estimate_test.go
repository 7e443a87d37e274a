package assemble

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Scenarios within every range but too big for the machine are refused
// before they are built, naming the field, the estimate and the memory
// (issue 19 §3.1: an all-to-all ran validate out of memory; a long run
// sampling queues every 10 ns ran out of memory with nothing written).
func TestCheckRefusesTooBig(t *testing.T) {
	lim := Limits{MemoryBytes: 1 << 30} // a 1 GiB machine
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"all-to-all", "topology: {kind: fat_tree, k: 24}\nworkload: {all_to_all: {size_bytes: 1000}}\n",
			"workload.all_to_all over 3456 hosts: needs about 11.4 GiB (about 1.19e+07 flows), more than the 1.0 GiB of memory available"},
		{"queue samples", "stop_ms: 1000000\ntopology: {kind: star, hosts: 3}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1000}]}\noutputs: {queue_sample_us: 0.01, queue_ports: [{node: 3, port: 1}]}\n",
			"outputs.queue_sample_us = 0.01 (stop_ms = 1e+06, 1 queue_ports): needs about 2.2 TiB (1e+11 queue samples)"},
		{"fat-tree routes", "topology: {kind: fat_tree, k: 32, hosts_per_edge: 64}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1000}]}\n",
			"needs about 2.7 GiB (routing tables of 1280 switches and multi-link hosts × 32768 destination hosts)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "s.yaml")
			os.WriteFile(p, []byte("name: big\n"+tc.yaml), 0o644)
			_, err := CheckWith(p, nil, lim)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--allow-large") {
				t.Fatalf("error %v\nwant %q", err, tc.want)
			}
		})
	}
}

// Without a limit (--allow-large) the estimate refuses nothing, and a
// scenario within the limit passes.
func TestCheckWithinLimits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(p, []byte("name: ok\nstop_ms: 1\ntopology: {kind: star, hosts: 40}\nworkload: {all_to_all: {size_bytes: 1000}}\noutputs: {queue_sample_us: 1, queue_ports: [{node: 40, port: 1}]}\n"), 0o644)
	for _, lim := range []Limits{{}, {MemoryBytes: 64 << 20}} {
		if _, err := CheckWith(p, nil, lim); err != nil {
			t.Errorf("limit %d: %v", lim.MemoryBytes, err)
		}
	}
	if _, err := CheckWith(p, nil, Limits{MemoryBytes: 1 << 20}); err == nil || !strings.Contains(err.Error(), "workload.all_to_all over 40 hosts: needs about 1.5 MiB (about 1.56e+03 flows), more than the 1.0 MiB") {
		t.Errorf("1 MiB limit: %v", err)
	}
}
