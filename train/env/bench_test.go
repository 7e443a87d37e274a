package env

import (
	"testing"
	"time"
)

// benchEpisode runs episodes of 32 long flows on the 16-host star at 400
// Gb/s (issue 17's speed target: ≥ 50,000 transitions/s/core) for stopUs
// µs of simulated time with pol, extra YAML appended to the scenario, and
// reports transitions per second of wall time and of process CPU time
// (the benchmark runs on one goroutine: CPU time is one core's), and the
// fabric's events per transition.
func benchEpisode(b *testing.B, stopUs float64, extra string, cfg Config, pol Policy) {
	cfg.Scenario = mustScenario(b, starYAML(16, 32, 400, 1_000_000_000, stopUs, "")+extra)
	cfg.Seed = 1
	e := mustEnv(b, cfg)
	b.ReportAllocs()
	n, events := 0, int64(0)
	t0, c0 := time.Now(), processCPU()
	for b.Loop() {
		ep, err := e.Episode(0, pol)
		if err != nil {
			b.Fatal(err)
		}
		n += ep.T.Len()
		events += ep.Net.Stats.Events
	}
	sec, cpu := time.Since(t0).Seconds(), float64(processCPU()-c0)/1e9
	b.ReportMetric(float64(n)/sec, "transitions/s")
	if cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "transitions/cpu-s")
	}
	b.ReportMetric(float64(events)/float64(n), "events/transition")
}

// BenchmarkStar16x32 is 200 µs (≈ 48 intervals per flow) with a constant
// policy (every host sends two flows and receives two: each flow at half
// the line rate, no queue) and the simple reward.
func BenchmarkStar16x32(b *testing.B) { benchEpisode(b, 200, "", Config{}, Constant(0)) }

// BenchmarkStar16x32DECC adds DECC's global state and reward (O(flows) per
// boundary) and a history of 5.
func BenchmarkStar16x32DECC(b *testing.B) {
	benchEpisode(b, 200, "", Config{Global: true, Reward: DECCReward(), History: 5}, Constant(0))
}

// BenchmarkStar16x32MTU4K is BenchmarkStar16x32 with 4000-byte payloads
// (RoCE's 4096-byte MTU): a quarter of the packets per interval.
func BenchmarkStar16x32MTU4K(b *testing.B) {
	benchEpisode(b, 200, "host: {payload_bytes: 4000}\n", Config{}, Constant(0))
}

// BenchmarkStar16x32HalfRTT is BenchmarkStar16x32 with intervals of half a
// base RTT (params.agent.interval_rtts 0.5): half the packets per
// transition.
func BenchmarkStar16x32HalfRTT(b *testing.B) {
	benchEpisode(b, 200, "params:\n  agent: {interval_rtts: 0.5}\n", Config{}, Constant(0))
}

// BenchmarkStar16x32Stepper is BenchmarkStar16x32 driven through a
// Stepper (a coroutine switch per decision).
func BenchmarkStar16x32Stepper(b *testing.B) {
	e := mustEnv(b, Config{Scenario: mustScenario(b, starYAML(16, 32, 400, 1_000_000_000, 200, "")), Seed: 1})
	b.ReportAllocs()
	n := 0
	t0, c0 := time.Now(), processCPU()
	for b.Loop() {
		st := e.Stepper(0)
		for {
			if _, ok := st.Next(); !ok {
				break
			}
			st.Act(0)
		}
		ep, err := st.Episode()
		if err != nil {
			b.Fatal(err)
		}
		n += ep.T.Len()
	}
	b.ReportMetric(float64(n)/time.Since(t0).Seconds(), "transitions/s")
	if cpu := float64(processCPU()-c0) / 1e9; cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "transitions/cpu-s")
	}
}
