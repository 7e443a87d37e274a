package result

import "github.com/ccsim/ccsim/metrics"

// PerftestSummary is summary.json's `perftest`: the bandwidth flows'
// average throughput over the test and the probe's message latencies
// (docs/outputs.md §2, docs/workloads.md §3).
type PerftestSummary struct {
	DurationMs float64 `json:"duration_ms"`
	// MeasuredMs is the part of the test the run covered: duration_ms,
	// unless stop_ms ended the run first.
	MeasuredMs float64                `json:"measured_ms"`
	Bandwidth  BandwidthSummary       `json:"bandwidth"`
	Latency    metrics.LatencySummary `json:"latency"`
}

// BandwidthSummary is the throughput of the bandwidth flows: per flow and
// in total, payload delivered in order to the receiver by the end of the
// test divided by the test time (acked: the bytes the sender saw
// acknowledged, as perftest counts completions).
type BandwidthSummary struct {
	Flows     []BandwidthFlow `json:"flows"`
	TotalGbps float64         `json:"total_gbps"`
	MeanGbps  float64         `json:"mean_gbps"`
	Jain      float64         `json:"jain"`
}

// BandwidthFlow is one bandwidth flow's outcome.
type BandwidthFlow struct {
	FlowID         int     `json:"flow_id"`
	Src            int     `json:"src"`
	Dst            int     `json:"dst"`
	DeliveredBytes int64   `json:"delivered_bytes"`
	AckedBytes     int64   `json:"acked_bytes"`
	Gbps           float64 `json:"gbps"`
	AckedGbps      float64 `json:"acked_gbps"`
}
