package cc_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// boltIncast: 4 senders × 4 MB to one receiver on a 100 Gb/s switch, 1 µs
// links; the bottleneck queue (switch 5, port 4) sampled every µs.
const boltIncast = `
name: bolt-incast4
stop_ms: 50
cc: [bolt]
topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}
workload:
  kind: incast
  incast: {senders: [0, 1, 2, 3], receiver: 4, sizes_bytes: [4000000]}
outputs: {queue_sample_us: 1, queue_ports: [{node: 5, port: 4}]}
`

// boltSRCWatch records, for every SRC a sender receives, the time from
// sending the data packet that triggered it (rtt_src).
type boltSRCWatch struct {
	fabric.Algorithm
	rttSrc *[]sim.Time
}

func (w *boltSRCWatch) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {
	if n.Kind == fabric.KindNotice {
		*w.rttSrc = append(*w.rttSrc, now-cc.DecodeBoltSRC(n.Arg, now).TxTime)
	}
	w.Algorithm.OnNotice(q, n, now)
}

// Bolt's SRC reaches the sender within one hop's delay of the congestion
// point: every rtt_src is the forward hop to the switch (serialization +
// 1 µs) plus the way back (1 µs, a 60-byte notice, at most one packet
// ahead of it at the switch port), about half the ACK round trip. The
// sub-RTT reaction keeps the bottleneck queue at a few packets (the RTT at
// the base RTT) while the link stays busy and the flows share it equally.
func TestBoltScenarioSRCWithinOneHop(t *testing.T) {
	var rtts []sim.Time
	var algs []*cc.Bolt
	r := runWrappedScenario(t, boltIncast, "bolt", func(q *fabric.QP, a fabric.Algorithm) fabric.Algorithm {
		algs = append(algs, a.(*cc.Bolt))
		return &boltSRCWatch{Algorithm: a, rttSrc: &rtts}
	})
	const d = sim.Microsecond
	data, src := sim.TxTime(1048, 100e9), sim.TxTime(60, 100e9)
	hop := d + data // one hop of a data packet
	lo, hi := hop+d+src, hop+d+src+data
	if len(rtts) == 0 {
		t.Fatal("no SRC reached a sender")
	}
	minR, maxR, sum := rtts[0], rtts[0], sim.Time(0)
	for _, x := range rtts {
		minR, maxR, sum = min(minR, x), max(maxR, x), sum+x
	}
	var srcs, decs int64
	for _, a := range algs {
		srcs += a.SRCs
		decs += a.Decrements
	}
	var qsum, n float64
	var qmax int64
	for _, s := range r.Queue {
		if s.At > 50*sim.Microsecond && s.At < 1200*sim.Microsecond {
			qsum += float64(s.Bytes)
			n++
			qmax = max(qmax, s.Bytes)
		}
	}
	serial := 4 * 4e6 * 1048 / 1000 * 8 / 100e9 * 1e6
	t.Logf("%d SRCs (%d decrements): rtt_src min %v mean %v max %v (bounds %v .. %v); ACK RTT p50 %.2f µs p99 %.2f µs max %.2f µs",
		srcs, decs, minR, sum/sim.Time(len(rtts)), maxR, lo, hi, r.RTT.P50Us, r.RTT.P99Us, r.RTT.MaxUs)
	t.Logf("bottleneck queue after 50 µs: mean %.1f KB max %.1f KB; last FCT %.1f µs (serialization %.1f); Jain %.4f",
		qsum/n/1e3, float64(qmax)/1e3, r.Summary.FinishTimeUs, serial, r.Jain)
	if int64(len(rtts)) != srcs || decs == 0 {
		t.Errorf("%d SRCs observed, %d counted, %d decrements", len(rtts), srcs, decs)
	}
	if minR < lo || maxR > hi {
		t.Errorf("rtt_src in [%v, %v], want within [%v, %v]: one hop out, one hop back", minR, maxR, lo, hi)
	}
	if maxR-hop > hop+data {
		t.Errorf("an SRC took %v from the congestion point, more than one hop", maxR-hop)
	}
	if r.RTT.P50Us < 2*maxR.Microseconds() {
		t.Errorf("ACK RTT p50 %.2f µs is not about twice rtt_src (%v)", r.RTT.P50Us, maxR)
	}
	if qsum/n > 10e3 || qmax > 20e3 || r.RTT.P50Us > 5 {
		t.Errorf("queue mean %.0f B max %d B, RTT p50 %.2f µs; want ≤ 10 KB, ≤ 20 KB, ≤ 5 µs", qsum/n, qmax, r.RTT.P50Us)
	}
	if r.Summary.FinishTimeUs > 1.01*serial+10 || r.Jain < 0.99 {
		t.Errorf("last FCT %.1f µs (serialization %.1f), Jain %.4f", r.Summary.FinishTimeUs, serial, r.Jain)
	}
}

// boltMixed: an 8 MB flow to host 4 with three 300 KB flows starting with
// it and three more at 300 µs.
func boltMixed(params string) string {
	return `
name: bolt-mixed
stop_ms: 50
cc: [bolt]
topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}
params: {bolt: ` + params + `}
workload:
  kind: flows
  flows:
    - {src: 0, dst: 4, size_bytes: 8000000}
    - {src: 1, dst: 4, size_bytes: 300000}
    - {src: 2, dst: 4, size_bytes: 300000}
    - {src: 3, dst: 4, size_bytes: 300000}
    - {src: 1, dst: 4, size_bytes: 300000, start_ns: 300000}
    - {src: 2, dst: 4, size_bytes: 300000, start_ns: 300000}
    - {src: 3, dst: 4, size_bytes: 300000, start_ns: 300000}
`
}

// PRU and SM let the long flow take over the bandwidth the short flows
// release, instead of regaining it by one packet per RTT: with both the
// port stays busy (the last flow ends within 3 % of the serialization time
// of all bytes); each alone helps (both together are no worse than the
// better one, within 1 %); without them the transfer is ≥ 8 % longer.
func TestBoltScenarioPRUAndSM(t *testing.T) {
	serial := (8e6 + 6*300e3) * 1048 / 1000 * 8 / 100e9 * 1e6
	last := map[string]float64{}
	for _, p := range []string{"{}", "{pru: true, sm: false}", "{pru: false, sm: true}", "{pru: false, sm: false}"} {
		r := runAlgScenario(t, boltMixed(p), "bolt")
		last[p] = r.Summary.FinishTimeUs
		t.Logf("%s: long flow FCT %.1f µs, short flows %.1f %.1f %.1f µs, last FCT %.1f µs (serialization %.1f); RTT p50 %.2f p99 %.2f µs",
			p, r.Flows[0].FCT().Microseconds(), r.Flows[1].FCT().Microseconds(), r.Flows[2].FCT().Microseconds(), r.Flows[3].FCT().Microseconds(),
			r.Summary.FinishTimeUs, serial, r.RTT.P50Us, r.RTT.P99Us)
	}
	both, pru, sm, neither := last["{}"], last["{pru: true, sm: false}"], last["{pru: false, sm: true}"], last["{pru: false, sm: false}"]
	if both > 1.03*serial {
		t.Errorf("PRU+SM: last FCT %.1f µs > 1.03 × %.1f µs", both, serial)
	}
	if neither < 1.08*serial || pru >= neither || sm >= neither || both > 1.01*min(pru, sm) {
		t.Errorf("last FCTs: both %.1f, PRU %.1f, SM %.1f, neither %.1f µs; want both ≲ each alone < neither, neither ≥ 1.08 × %.1f",
			both, pru, sm, neither, serial)
	}
}
