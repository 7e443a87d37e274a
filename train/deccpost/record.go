package deccpost

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

// Recording is what the teacher's runs as `decc-nn` produced: every
// decision's history window (deccmodel.History × Features values, oldest
// MTP first) and the action the sender took (its value), in episode order, then
// flow-event order.
type Recording struct {
	Windows [][]float64
	Actions []float64
	// Episodes, Flows: the runs and the flows they carried.
	Episodes, Flows int
}

// episodeYAML is episode e's scenario (docs/algorithms/decc.md §11.1): a
// star of cfg.Hosts hosts, lossy (PFC off, a buffer drawn from
// cfg.BuffersMB), 2..MaxFlows flows starting in the first third of the
// episode, 70 % long-lived, the others 1–32 messages of 64 KB; even
// episodes many-to-one into host 0, odd ones many-to-many into 2..⌈H/3⌉
// receivers. model is the teacher's file.
func episodeYAML(cfg *Config, e int, model string) string {
	r := rand.New(rand.NewPCG(cfg.Seed, uint64(e)+1))
	h := cfg.Hosts
	var b strings.Builder
	fmt.Fprintf(&b, "name: deccpost-%d\nseed: %d\nstop_ms: %g\ncc: [decc-nn]\n", e, r.Uint32()>>1+1, cfg.EpisodeUs/1000)
	fmt.Fprintf(&b, "topology: {kind: star, hosts: %d, link_gbps: %g, link_delay_ns: 1000}\n", h, cfg.Gbps)
	fmt.Fprintf(&b, "switch: {buffer_mb: %g, pfc: \"off\"}\nhost: {payload_bytes: 1024}\n", cfg.BuffersMB[r.IntN(len(cfg.BuffersMB))])
	fmt.Fprintf(&b, "params:\n  decc-nn: {model: %q}\nworkload:\n  flows:\n", model)
	n := 2 + r.IntN(cfg.MaxFlows-1)
	recv := 1
	if e%2 == 1 {
		recv = 2 + r.IntN(max(1, (h+2)/3-1))
	}
	for range n {
		dst := r.IntN(recv)
		src := recv + r.IntN(h-recv) // senders are the hosts that receive nothing
		size := int64(1e9)
		if r.Float64() >= 0.7 {
			size = 65536 * int64(1+r.IntN(32))
		}
		start := int64(r.Float64() * cfg.EpisodeUs / 3 * 1000)
		fmt.Fprintf(&b, "    - {src: %d, dst: %d, size_bytes: %d, start_ns: %d}\n", src, dst, size, start)
	}
	return b.String()
}

// Record runs the teacher as `decc-nn` (no decision latency) over the
// configured episodes and records every decision's window.
func Record(teacher *nn.Sequential, cfg *Config) (*Recording, error) {
	dir, err := os.MkdirTemp("", "deccpost")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	model := filepath.Join(dir, "teacher.bin")
	if err := nn.SaveFile(model, teacher, ""); err != nil {
		return nil, err
	}
	rec := &Recording{}
	record := func(_ int32, w []float64, a float64) {
		rec.Windows = append(rec.Windows, append([]float64(nil), w...))
		rec.Actions = append(rec.Actions, a)
	}
	for e := range cfg.Episodes {
		s, err := scenario.Parse([]byte(episodeYAML(cfg, e, model)))
		if err != nil {
			return nil, fmt.Errorf("episode %d: %w", e, err)
		}
		p := s.ParamsOf("decc-nn").(*cc.DECCParams)
		p.SetPolicy(teacher, "teacher") // the network in memory, loaded once
		p.SetRecorder(record)
		b, err := assemble.Build(s, "decc-nn", assemble.Options{})
		if err != nil {
			return nil, fmt.Errorf("episode %d: %w", e, err)
		}
		b.Net.Run()
		rec.Episodes++
		rec.Flows += len(b.Flows)
		if cfg.Progress != nil {
			cfg.Progress("record", e+1, cfg.Episodes)
		}
	}
	if len(rec.Windows) == 0 {
		return nil, fmt.Errorf("the %d episodes recorded no decision", cfg.Episodes)
	}
	if n := len(rec.Windows[0]); n != deccmodel.TreeFeatures {
		return nil, fmt.Errorf("internal error: windows of %d values, want %d", n, deccmodel.TreeFeatures)
	}
	return rec, nil
}
