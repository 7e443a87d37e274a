package scenario

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

// Series selects binned time series of a run (outputs.series). Bins are
// [first flow start + k·bin_us, first flow start + (k+1)·bin_us); the last
// bin ends at the end of the run and may be shorter (its length is written).
// The definitions are in docs/metrics.md ("Time series").
type Series struct {
	// BinUs is the bin width in µs ([0.01, 1e6]); required when any series
	// is on.
	BinUs float64 `yaml:"bin_us,omitempty"`
	// FlowRate writes flow_rate.csv: the delivered (in-order payload) rate
	// per bin of every flow ("flow"), or summed over the flows of each
	// sender ("src") or receiver ("dst"). "" = off. A flow (group) has a row
	// for every bin that overlaps its active interval [start, finish].
	FlowRate string `yaml:"flow_rate,omitempty"`
	// FlowRateBinUs is the bin of flow_rate.csv when it should differ from
	// bin_us (a multiple of it is not required); absent = bin_us.
	FlowRateBinUs *float64 `yaml:"flow_rate_bin_us,omitempty"`
	// LinkPorts writes link_rate.csv: per bin, the bytes each listed port
	// started transmitting (wire bytes, all packets) and the data payload
	// among them, as rates. Empty with link_rate true = every switch port.
	LinkPorts []Port `yaml:"link_ports,omitempty"`
	LinkRate  bool   `yaml:"link_rate,omitempty"`
	// PFC writes pfc_bins.csv: PFC PAUSE frames per link direction per bin
	// (from = the port that sent the pause, to = the transmitter it paused).
	PFC bool `yaml:"pfc,omitempty"`
	// QueuePorts writes queue_series.csv: the egress queue length (bytes,
	// all classes) of each listed port, sampled every queue_sample_us
	// ([0.01, 1e6], default 1) and summarised per bin as min, mean and max.
	QueuePorts    []Port   `yaml:"queue_ports,omitempty"`
	QueueSampleUs *float64 `yaml:"queue_sample_us,omitempty"`
	// QueueBinUs is the bin of queue_series.csv when it should differ from
	// bin_us; absent = bin_us.
	QueueBinUs *float64 `yaml:"queue_bin_us,omitempty"`
	// IngressPorts adds to queue_series.csv the ingress queue of these
	// switch ports (bytes held that entered on the port, all classes: what
	// PFC watches), rows with dir = ingress; egress rows have dir = egress.
	IngressPorts []Port `yaml:"ingress_ports,omitempty"`
}

func (sr *Series) on() bool {
	return sr != nil && (sr.FlowRate != "" || sr.LinkRate || len(sr.LinkPorts) > 0 || sr.PFC || len(sr.QueuePorts) > 0 || len(sr.IngressPorts) > 0)
}

func (sr *Series) validate(errs *Errors) {
	if sr == nil {
		return
	}
	if sr.on() || sr.BinUs != 0 {
		rangef(errs, "outputs.series.bin_us", sr.BinUs, 0.01, 1e6)
	}
	switch sr.FlowRate {
	case "", "flow", "src", "dst":
	default:
		*errs = append(*errs, fmt.Errorf("outputs.series.flow_rate = %q: allowed values flow, src, dst (or absent)", sr.FlowRate))
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"flow_rate_bin_us", sr.FlowRateBinUs}, {"queue_bin_us", sr.QueueBinUs}, {"queue_sample_us", sr.QueueSampleUs}} {
		if f.v != nil {
			rangef(errs, "outputs.series."+f.name, *f.v, 0.01, 1e6)
		}
	}
	for i, p := range append(append(append([]Port{}, sr.LinkPorts...), sr.QueuePorts...), sr.IngressPorts...) {
		if p.Node < 0 && !p.Node.unresolved() || p.Port < 0 {
			*errs = append(*errs, fmt.Errorf("outputs.series ports[%d]: node %d port %d must not be negative", i, p.Node, p.Port))
		}
	}
}

// seriesRec collects the binned series while a run is simulated.
type seriesRec struct {
	cfg   *Series
	first sim.Time
	bin   sim.Time

	// flow rate
	fbin      sim.Time
	group     []int32 // flow -> group index
	groupID   []int   // group index -> flow id / node id
	lastDel   []int64 // per flow: delivered bytes at the previous boundary
	perBuf    []int64 // per group: bytes in the bin being closed
	activeBuf []bool
	flowRows  []flowRateRow

	// links
	links    []int32 // global port index
	linkPort []Port
	lastWire []int64
	lastPay  []int64
	linkRows []linkRateRow

	// queues: egress ports, then ingress ports (qIngress of them)
	qports   []int32
	qPort    []Port
	qIngress int
	qSum     []int64
	qMin     []int64
	qMax     []int64
	qN       int64
	qBin     sim.Time // start of the bin being accumulated
	qBinW    sim.Time // queue bin width
	queueRow []queueRow

	// PFC
	pfc map[pfcKey]int64
}

type flowRateRow struct {
	start, length sim.Time
	group         int
	bytes         int64
}

type linkRateRow struct {
	start, length sim.Time
	link          int
	wire, payload int64
}

type queueRow struct {
	start         sim.Time
	port          int
	min, max, sum int64
	n             int64
}

type pfcKey struct {
	bin                            int64
	fromNode, fromPort, toNode, to int32
}

// setupSeries registers the monitors of outputs.series on b's network.
func (b *Built) setupSeries() error {
	sr := b.Scenario.Outputs.Series
	if !sr.on() {
		return nil
	}
	n := b.Net
	rec := &seriesRec{cfg: sr, first: b.first, bin: usTime(sr.BinUs)}
	resolve := func(field string, ps []Port) ([]int32, error) {
		out := make([]int32, len(ps))
		for i, qp := range ps {
			if qp.Node.unresolved() {
				continue // reported by validation
			}
			if qp.Node < 0 || int(qp.Node) >= len(n.Nodes) || qp.Port < 0 || qp.Port >= int(n.Nodes[qp.Node].NumPorts) {
				return nil, fmt.Errorf("outputs.series.%s[%d]: node %d port %d does not exist", field, i, qp.Node, qp.Port)
			}
			out[i] = n.Nodes[qp.Node].FirstPort + int32(qp.Port)
		}
		return out, nil
	}
	var err error
	if rec.links, err = resolve("link_ports", sr.LinkPorts); err != nil {
		return err
	}
	rec.linkPort = sr.LinkPorts
	if sr.LinkRate && len(sr.LinkPorts) == 0 {
		for i := range n.Nodes {
			nd := &n.Nodes[i]
			if !nd.Switch {
				continue
			}
			for k := range nd.NumPorts {
				rec.links = append(rec.links, nd.FirstPort+k)
				rec.linkPort = append(rec.linkPort, Port{Node: NodeID(i), Port: int(k)})
			}
		}
	}
	if rec.qports, err = resolve("queue_ports", sr.QueuePorts); err != nil {
		return err
	}
	ing, err := resolve("ingress_ports", sr.IngressPorts)
	if err != nil {
		return err
	}
	for i, pt := range ing {
		if !n.Nodes[n.Ports[pt].Node].Switch {
			return fmt.Errorf("outputs.series.ingress_ports[%d]: node %d is not a switch", i, sr.IngressPorts[i].Node)
		}
	}
	rec.qports = append(rec.qports, ing...)
	rec.qPort = append(append([]Port{}, sr.QueuePorts...), sr.IngressPorts...)
	rec.qIngress = len(ing)
	if sr.FlowRate != "" {
		rec.fbin = rec.bin
		if sr.FlowRateBinUs != nil {
			rec.fbin = usTime(*sr.FlowRateBinUs)
		}
		rec.group = make([]int32, len(b.Flows))
		idx := map[int]int32{}
		for i, f := range b.Flows {
			key := i
			switch sr.FlowRate {
			case "src":
				key = f.Src
			case "dst":
				key = f.Dst
			}
			g, ok := idx[key]
			if !ok {
				g = int32(len(rec.groupID))
				idx[key] = g
				rec.groupID = append(rec.groupID, key)
			}
			rec.group[i] = g
		}
		rec.lastDel = make([]int64, len(b.Flows))
		rec.perBuf = make([]int64, len(rec.groupID))
		rec.activeBuf = make([]bool, len(rec.groupID))
		n.Monitor(rec.fbin, func(n *fabric.Network, now sim.Time) {
			if now <= b.first {
				return
			}
			rec.flowBin(b, now, now-rec.fbin)
		})
	}
	if len(rec.links) > 0 {
		rec.lastWire = make([]int64, len(rec.links))
		rec.lastPay = make([]int64, len(rec.links))
		n.Monitor(rec.bin, func(n *fabric.Network, now sim.Time) {
			if now <= b.first {
				return
			}
			rec.linkBin(n, now-rec.bin, rec.bin)
		})
	}
	if len(rec.qports) > 0 {
		every := 1.0
		if sr.QueueSampleUs != nil {
			every = *sr.QueueSampleUs
		}
		k := len(rec.qports)
		rec.qSum, rec.qMin, rec.qMax = make([]int64, k), make([]int64, k), make([]int64, k)
		rec.qBin = b.first
		rec.qBinW = rec.bin
		if sr.QueueBinUs != nil {
			rec.qBinW = usTime(*sr.QueueBinUs)
		}
		rec.resetQueue()
		n.Monitor(usTime(every), func(n *fabric.Network, now sim.Time) {
			if now < b.first {
				return
			}
			for now >= rec.qBin+rec.qBinW {
				rec.flushQueue()
				rec.qBin += rec.qBinW
			}
			eg := len(rec.qports) - rec.qIngress
			for i, pt := range rec.qports {
				q := n.Ports[pt].QueueBytes()
				if i >= eg {
					q = n.Ports[pt].IngressBytes()
				}
				rec.qSum[i] += q
				rec.qMin[i] = min(rec.qMin[i], q)
				rec.qMax[i] = max(rec.qMax[i], q)
			}
			rec.qN++
		})
	}
	if sr.PFC {
		rec.pfc = map[pfcKey]int64{}
		prev := n.PFCHook()
		n.OnPFC(func(ev fabric.PFCEvent) {
			if prev != nil {
				prev(ev)
			}
			if !ev.Pause || ev.At < b.first {
				return
			}
			pt := n.Nodes[ev.Node].FirstPort + ev.Port
			peer := &n.Ports[n.Ports[pt].Peer]
			from := n.Ports[pt].Peer - n.Nodes[peer.Node].FirstPort
			rec.pfc[pfcKey{int64((ev.At - b.first) / rec.bin), peer.Node, from, ev.Node, ev.Port}]++
		})
	}
	b.series = rec
	return nil
}

// flowBin closes the flow-rate bin [start, now).
func (rec *seriesRec) flowBin(b *Built, now, start sim.Time) {
	n := b.Net
	per, active := rec.perBuf, rec.activeBuf
	clear(per)
	clear(active)
	for i := range n.QPs {
		q := &n.QPs[i]
		f := &b.Flows[i]
		if f.HasAfter && (!q.Started() || q.Start >= now) || !f.HasAfter && f.Start >= now || q.Done && q.Finish < start {
			continue
		}
		d := q.Delivered()
		if q.Done {
			d = q.SizeBytes
		}
		g := rec.group[i]
		per[g] += d - rec.lastDel[i]
		active[g] = true
		rec.lastDel[i] = d
	}
	for g := range rec.groupID {
		if active[g] {
			rec.flowRows = append(rec.flowRows, flowRateRow{start: start, length: now - start, group: g, bytes: per[g]})
		}
	}
}

func (rec *seriesRec) linkBin(n *fabric.Network, start, length sim.Time) {
	for i, pt := range rec.links {
		st := &n.Ports[pt].Stats
		w, p := st.TxBytes-rec.lastWire[i], st.TxPayloadBytes-rec.lastPay[i]
		rec.lastWire[i], rec.lastPay[i] = st.TxBytes, st.TxPayloadBytes
		if w == 0 && rec.cfg.LinkRate && len(rec.cfg.LinkPorts) == 0 {
			continue // all switch ports: idle ones are left out
		}
		rec.linkRows = append(rec.linkRows, linkRateRow{start: start, length: length, link: i, wire: w, payload: p})
	}
}

func (rec *seriesRec) resetQueue() {
	for i := range rec.qSum {
		rec.qSum[i], rec.qMin[i], rec.qMax[i] = 0, 1<<62, 0
	}
	rec.qN = 0
}

func (rec *seriesRec) flushQueue() {
	if rec.qN > 0 {
		for i := range rec.qports {
			rec.queueRow = append(rec.queueRow, queueRow{start: rec.qBin, port: i, min: rec.qMin[i], max: rec.qMax[i], sum: rec.qSum[i], n: rec.qN})
		}
	}
	rec.resetQueue()
}

// finish closes the partial bins at the end of the run (time end).
func (rec *seriesRec) finish(b *Built, end sim.Time) {
	if rec.group != nil {
		last := b.first + (end-b.first)/rec.fbin*rec.fbin
		if end > last {
			rec.flowBin(b, end, last)
		}
	}
	if len(rec.links) > 0 {
		last := b.first + (end-b.first)/rec.bin*rec.bin
		if end > last {
			rec.linkBin(b.Net, last, end-last)
		}
	}
	if len(rec.qports) > 0 {
		rec.flushQueue()
	}
}

// write stores the series files in dir.
func (rec *seriesRec) write(dir string) error {
	ns := func(buf []byte, t sim.Time) []byte { return metrics.AppendNs(buf, t) }
	gbps := func(buf []byte, bytes int64, d sim.Time) []byte {
		if d <= 0 {
			return append(buf, '0')
		}
		return strconv.AppendFloat(buf, float64(bytes)*8/d.Seconds()/1e9, 'g', 8, 64)
	}
	csv := func(name, header string, rows int, row func(buf []byte, i int) []byte) error {
		return writeFile(filepath.Join(dir, name), func(f *os.File) error {
			w := bufio.NewWriterSize(f, 1<<16)
			w.WriteString(header + "\n")
			var buf []byte
			for i := range rows {
				buf = row(buf[:0], i)
				buf = append(buf, '\n')
				w.Write(buf)
			}
			return w.Flush()
		})
	}
	if rec.group != nil {
		col := map[string]string{"flow": "flow", "src": "src", "dst": "dst"}[rec.cfg.FlowRate]
		if err := csv("flow_rate.csv", "bin_start_ns,bin_ns,"+col+",bytes,gbps", len(rec.flowRows), func(buf []byte, i int) []byte {
			r := &rec.flowRows[i]
			buf = append(ns(buf, r.start-rec.first), ',')
			buf = append(ns(buf, r.length), ',')
			buf = strconv.AppendInt(buf, int64(rec.groupID[r.group]), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, r.bytes, 10)
			buf = append(buf, ',')
			return gbps(buf, r.bytes, r.length)
		}); err != nil {
			return err
		}
	}
	if len(rec.links) > 0 {
		if err := csv("link_rate.csv", "bin_start_ns,bin_ns,node,port,wire_bytes,payload_bytes,wire_gbps,payload_gbps", len(rec.linkRows), func(buf []byte, i int) []byte {
			r := &rec.linkRows[i]
			p := rec.linkPort[r.link]
			buf = append(ns(buf, r.start-rec.first), ',')
			buf = append(ns(buf, r.length), ',')
			buf = fmt.Appendf(buf, "%d,%d,%d,%d,", p.Node, p.Port, r.wire, r.payload)
			buf = append(gbps(buf, r.wire, r.length), ',')
			return gbps(buf, r.payload, r.length)
		}); err != nil {
			return err
		}
	}
	if len(rec.qports) > 0 {
		eg := len(rec.qports) - rec.qIngress
		if err := csv("queue_series.csv", "bin_start_ns,node,port,dir,samples,min_bytes,mean_bytes,max_bytes", len(rec.queueRow), func(buf []byte, i int) []byte {
			r := &rec.queueRow[i]
			p := rec.qPort[r.port]
			dir := "egress"
			if r.port >= eg {
				dir = "ingress"
			}
			buf = append(ns(buf, r.start-rec.first), ',')
			return fmt.Appendf(buf, "%d,%d,%s,%d,%d,%.1f,%d", p.Node, p.Port, dir, r.n, r.min, float64(r.sum)/float64(r.n), r.max)
		}); err != nil {
			return err
		}
	}
	if rec.pfc != nil {
		keys := make([]pfcKey, 0, len(rec.pfc))
		for k := range rec.pfc {
			keys = append(keys, k)
		}
		sortPFCKeys(keys)
		if err := csv("pfc_bins.csv", "bin_start_ns,bin_ns,from_node,from_port,to_node,to_port,pause_frames", len(keys), func(buf []byte, i int) []byte {
			k := keys[i]
			buf = append(ns(buf, sim.Time(k.bin)*rec.bin), ',')
			buf = append(ns(buf, rec.bin), ',')
			return fmt.Appendf(buf, "%d,%d,%d,%d,%d", k.fromNode, k.fromPort, k.toNode, k.to, rec.pfc[k])
		}); err != nil {
			return err
		}
	}
	return nil
}

func sortPFCKeys(keys []pfcKey) {
	less := func(a, b pfcKey) int {
		for _, d := range []int64{a.bin - b.bin, int64(a.fromNode - b.fromNode), int64(a.fromPort - b.fromPort), int64(a.toNode - b.toNode), int64(a.to - b.to)} {
			if d != 0 {
				if d < 0 {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	slices.SortFunc(keys, less)
}
