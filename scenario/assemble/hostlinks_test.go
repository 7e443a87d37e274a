package assemble_test

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/topo"
)

// A 25 Gb/s receiver among 100 Gb/s senders (paper 004's mixed incast),
// and an incast split over several QPs per sender.
func TestHostLinksAndQPsPerSender(t *testing.T) {
	s, err := scenario.Parse([]byte(`
topology:
  kind: star
  hosts: 4
  host_links: [{hosts: [3], gbps: 25, delay_ns: 500}]
workload:
  incast: {senders: [0, 1, 2], receiver: 3, sizes_bytes: [10, 20, 7], qps_per_sender: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := assemble.Graph(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range g.Links {
		h := l.A
		if g.Kinds[h] != topo.Host {
			h = l.B
		}
		wantBps, wantDelay := int64(100e9), int64(1000_000)
		if h == 3 {
			wantBps, wantDelay = 25e9, 500_000
		}
		if l.Bps != wantBps || int64(l.Delay) != wantDelay {
			t.Errorf("link of host %d: %d b/s, %d ps; want %d b/s, %d ps", h, l.Bps, l.Delay, wantBps, wantDelay)
		}
	}
	flows, err := assemble.Flows(s, g)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, f := range flows {
		got = append(got, f.SizeBytes)
	}
	want := []int64{4, 3, 3, 7, 7, 6, 3, 2, 2}
	if len(got) != len(want) {
		t.Fatalf("sizes %v, want %v", got, want)
	}
	ports := map[[3]int]bool{}
	for i := range want {
		if got[i] != want[i] || flows[i].Src != i/3 || flows[i].Dst != 3 {
			t.Errorf("flow %d: src %d size %d, want src %d size %d", i, flows[i].Src, got[i], i/3, want[i])
		}
		k := [3]int{flows[i].Src, flows[i].Dst, flows[i].SPort}
		if ports[k] {
			t.Errorf("flow %d reuses source port %d", i, flows[i].SPort)
		}
		ports[k] = true
	}
}

func TestHostLinksErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"topology: {kind: star, hosts: 3, host_links: [{hosts: [1]}]}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}", "topology.host_links[0]: set gbps and/or delay_ns"},
		{"topology: {kind: star, hosts: 3, host_links: [{hosts: [1], gbps: -1}]}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}", "topology.host_links[0].gbps = -1 out of range"},
		{"topology: {kind: star, hosts: 3, host_links: [{gbps: 10}]}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}", "topology.host_links[0].hosts: at least one host"},
		{"topology: {kind: star, hosts: 3}\nworkload: {incast: {senders: [0], receiver: 1, sizes_bytes: [2], qps_per_sender: 3}}", "smaller than qps_per_sender = 3"},
		{"topology: {kind: star, hosts: 3}\nworkload: {incast: {senders: [0], receiver: 1, sizes_bytes: [2], qps_per_sender: 5000}}", "workload.incast.qps_per_sender = 5000 out of range [1, 4096]"},
	} {
		_, err := scenario.Parse([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.yaml, err, c.want)
		}
	}
	s, err := scenario.Parse([]byte("topology: {kind: star, hosts: 3, host_links: [{hosts: [3], gbps: 10}]}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assemble.Graph(s); err == nil || !strings.Contains(err.Error(), "topology.host_links[0].hosts[0] = 3 is not a host") {
		t.Errorf("switch as host: %v", err)
	}
}
