package workload

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/ccsim/ccsim/sim"
)

// Generators. Every generator is deterministic: its random numbers come
// from one stream sim.Stream(Seed, "workload/"+Stream), Stream defaulting to
// the generator's name ("poisson", "incast", "manytomany", "longshort"), so
// two generators of one scenario draw independent numbers when their Stream
// names differ. Generated start times are Start plus a whole number of
// nanoseconds (the reference flow files' resolution; WriteNS3Flows then
// prints 9 decimals), the flows are sorted by start time (ties in a
// documented, deterministic order), DPort is RefDPort, RefStart is
// RefStartTime(Start) and SPort is assigned by AssignRefSPorts.

// maxGenFlows bounds the flows one generator call may produce (and the
// expected count it accepts), to fail fast on absurd parameters: 16.7 M
// flows, about 1 GB (e.g. 1 s of FB Hadoop on 320 hosts at 100 Gb/s and
// load 0.3 is 10 M flows).
const maxGenFlows = 1 << 24

// PoissonParams configures Poisson.
type PoissonParams struct {
	Hosts    []int    // participating hosts (distinct node ids, at least 2); each is a sender and a possible receiver
	HostBps  int64    // host link rate, bits per second
	Load     float64  // offered load per host as a fraction of HostBps, in (0, 1]
	CDF      *CDF     // flow-size distribution
	Start    sim.Time // start of the arrival window
	Duration sim.Time // length of the arrival window; flows start in [Start, Start+Duration)
	Prio     int      // priority class of every flow, 0..7
	Seed     uint64   // scenario seed
	Stream   string   // random stream name after "workload/"; "" = "poisson"
}

// MeanInterArrival is the mean time between two flow arrivals at one host,
// in seconds: CDF.Mean()·8 / (HostBps·Load), the reference traffic_gen's
// avg_inter_arrival.
func (p PoissonParams) MeanInterArrival() float64 {
	return p.CDF.Mean() * 8 / (float64(p.HostBps) * p.Load)
}

// Poisson generates background traffic as the HPCC reference traffic
// generator (simulation/traffic_gen/traffic_gen.py) does.
//
// Load definition: every host of Hosts is the source of an independent
// Poisson process of flow arrivals with rate HostBps·Load / (8·CDF.Mean())
// flows per second (mean inter-arrival MeanInterArrival), each flow with a
// size drawn from CDF (CDF.Sample) and a destination drawn uniformly from
// the other hosts. The expected offered bytes per host and second are then
// Load·HostBps/8: Load is the fraction of each host's link capacity, and of
// the aggregate host capacity len(Hosts)·HostBps, that the flows offer
// (OfferedLoad measures it). It is not a core or bisection load: with
// uniformly random pairs on an oversubscribed fabric the core carries a
// higher fraction (see docs/papers.md §5.3 for the conversion).
//
// Like the reference, all hosts draw from one random stream, host arrivals
// are processed in time order (ties: earlier position in Hosts first), and
// per arrival the draws are: destination, size, next inter-arrival time.
// Two deliberate differences from the reference script, both negligible for
// the load: the reference truncates every inter-arrival time to whole ns
// (this generator keeps them exact and floors the absolute start offset to
// whole ns, so the arrival rate is unbiased), and the reference drops each
// host's last arrival in the window (it emits a flow only when the next
// arrival is also inside the window); here every arrival in [Start,
// Start+Duration) is a flow.
//
// Flows are sorted by start time, ties by arrival order.
func Poisson(p PoissonParams) ([]Flow, error) {
	switch {
	case p.CDF == nil:
		return nil, fmt.Errorf("workload: poisson: %w", errNoCDF)
	case p.HostBps <= 0:
		return nil, fmt.Errorf("workload: poisson: host rate %d b/s is not positive", p.HostBps)
	case !(p.Load > 0 && p.Load <= 1):
		return nil, fmt.Errorf("workload: poisson: load %v not in (0, 1]", p.Load)
	}
	if err := checkHosts("poisson", "hosts", p.Hosts, 2); err != nil {
		return nil, err
	}
	if err := checkWindow("poisson", p.Start, p.Duration, p.Prio); err != nil {
		return nil, err
	}
	n := len(p.Hosts)
	gapNs := p.MeanInterArrival() * 1e9
	durNs := float64(p.Duration) / float64(sim.Nanosecond)
	if expected := durNs / gapNs * float64(n); !(expected <= maxGenFlows) {
		return nil, fmt.Errorf("workload: poisson: %.3g flows expected, more than the %d a generator may produce", expected, maxGenFlows)
	}
	r := stream(p.Seed, p.Stream, "poisson")
	h := make(arrivalHeap, 0, n)
	for i := range n {
		if t := r.ExpFloat64() * gapNs; t < durNs {
			h = append(h, arrival{t, i})
		}
	}
	heap.Init(&h)
	flows := make([]Flow, 0, min(int(durNs/gapNs*float64(n)*1.01)+16, maxGenFlows))
	for len(h) > 0 {
		a := h[0]
		j := r.IntN(n - 1)
		if j >= a.host {
			j++
		}
		size := p.CDF.Sample(r)
		if len(flows) == maxGenFlows {
			return nil, fmt.Errorf("workload: poisson: more than %d flows", maxGenFlows)
		}
		flows = append(flows, Flow{Src: p.Hosts[a.host], Dst: p.Hosts[j], Prio: p.Prio, SizeBytes: size, Start: p.Start + nsFloor(a.t)})
		a.t += r.ExpFloat64() * gapNs
		if a.t < durNs {
			h[0] = a
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	finishFlows(flows)
	return flows, nil
}

// arrival is a host's next arrival, t in ns after the window start.
type arrival struct {
	t    float64
	host int // index into the host list
}

// arrivalHeap orders arrivals by (t, host).
type arrivalHeap []arrival

func (h arrivalHeap) Len() int { return len(h) }
func (h arrivalHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].host < h[j].host
}
func (h arrivalHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *arrivalHeap) Push(x any)   { *h = append(*h, x.(arrival)) }
func (h *arrivalHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// IncastBurstParams configures IncastBursts. Set exactly one of Load,
// BurstRate and Count.
type IncastBurstParams struct {
	Hosts     []int // hosts that may send or receive (distinct, at least Senders+1)
	Senders   int   // senders per burst
	SizeBytes int64 // bytes each sender sends in a burst

	// Load is the share of the aggregate host capacity len(Hosts)·HostBps
	// that the bursts carry, in (0, 1]: bursts arrive at the rate
	// Load·len(Hosts)·HostBps / (8·Senders·SizeBytes) per second. This is
	// W3 of docs/papers.md §7.2 / paper 001's E2, §3.3 ("incast traffic =
	// 2 % of total network throughput": T = 320 × 100 Gb/s × 0.02 × 10 ms / (60 × 500 KB) = 26.67
	// expected bursts). Needs HostBps.
	Load    float64
	HostBps int64 // host link rate, bits per second (with Load)
	// BurstRate is an explicit burst rate, bursts per second.
	BurstRate float64
	// Count, if positive, places exactly Count bursts at independent uniform
	// times in the window (a Poisson process conditioned on its count).
	Count int

	Start    sim.Time // start of the window
	Duration sim.Time // length of the window; bursts start in [Start, Start+Duration)
	Prio     int      // priority class, 0..7
	Seed     uint64   // scenario seed
	Stream   string   // random stream name after "workload/"; "" = "incast"
}

// BurstsPerSecond is the burst arrival rate implied by Load or BurstRate
// (0 with Count).
func (p IncastBurstParams) BurstsPerSecond() float64 {
	if p.BurstRate > 0 {
		return p.BurstRate
	}
	if p.Load > 0 && p.Senders > 0 && p.SizeBytes > 0 {
		return p.Load * float64(len(p.Hosts)) * float64(p.HostBps) / (8 * float64(p.Senders) * float64(p.SizeBytes))
	}
	return 0
}

// ExpectedBursts is the expected number of bursts: Count, or
// BurstsPerSecond × Duration.
func (p IncastBurstParams) ExpectedBursts() float64 {
	if p.Count > 0 {
		return float64(p.Count)
	}
	return p.BurstsPerSecond() * p.Duration.Seconds()
}

// IncastBursts generates random incast events: at each burst time (a
// Poisson process, or Count uniform times), a receiver drawn uniformly from
// Hosts and Senders distinct senders drawn uniformly from the other hosts
// each start one flow of SizeBytes to it. Draws per burst, in time order:
// the receiver, then the senders (partial Fisher–Yates shuffle of the other
// hosts in Hosts order); the burst's flows are in the drawn sender order.
// Every flow is tagged GroupIncast, so that analyses (and flows.csv's group
// column) can tell burst flows from background flows.
func IncastBursts(p IncastBurstParams) ([]Flow, error) {
	set := 0
	for _, b := range []bool{p.Load != 0, p.BurstRate != 0, p.Count != 0} {
		if b {
			set++
		}
	}
	switch {
	case set != 1:
		return nil, errors.New("workload: incast bursts: set exactly one of Load, BurstRate and Count")
	case p.Load != 0 && !(p.Load > 0 && p.Load <= 1):
		return nil, fmt.Errorf("workload: incast bursts: load %v not in (0, 1]", p.Load)
	case p.Load != 0 && p.HostBps <= 0:
		return nil, fmt.Errorf("workload: incast bursts: host rate %d b/s is not positive", p.HostBps)
	case p.BurstRate != 0 && !(p.BurstRate > 0 && p.BurstRate < math.Inf(1)):
		return nil, fmt.Errorf("workload: incast bursts: burst rate %v is not positive", p.BurstRate)
	case p.Count < 0:
		return nil, fmt.Errorf("workload: incast bursts: count %d is negative", p.Count)
	case p.Senders < 1 || p.Senders > len(p.Hosts)-1:
		return nil, fmt.Errorf("workload: incast bursts: %d senders per burst needs at least %d hosts, have %d", p.Senders, p.Senders+1, len(p.Hosts))
	case p.SizeBytes <= 0:
		return nil, fmt.Errorf("workload: incast bursts: size %d is not positive", p.SizeBytes)
	}
	if err := checkHosts("incast bursts", "hosts", p.Hosts, 2); err != nil {
		return nil, err
	}
	if err := checkWindow("incast bursts", p.Start, p.Duration, p.Prio); err != nil {
		return nil, err
	}
	if e := p.ExpectedBursts() * float64(p.Senders); !(e <= maxGenFlows) {
		return nil, fmt.Errorf("workload: incast bursts: %.3g flows expected, more than the %d a generator may produce", e, maxGenFlows)
	}
	r := stream(p.Seed, p.Stream, "incast")
	durNs := float64(p.Duration) / float64(sim.Nanosecond)
	var times []float64 // ns after Start
	if p.Count > 0 {
		times = make([]float64, p.Count)
		for k := range times {
			times[k] = r.Float64() * durNs
		}
		sort.Float64s(times)
	} else {
		gapNs := 1e9 / p.BurstsPerSecond()
		for t := r.ExpFloat64() * gapNs; t < durNs; t += r.ExpFloat64() * gapNs {
			if (len(times)+1)*p.Senders > maxGenFlows {
				return nil, fmt.Errorf("workload: incast bursts: more than %d flows", maxGenFlows)
			}
			times = append(times, t)
		}
	}
	n := len(p.Hosts)
	others := make([]int, n-1)
	flows := make([]Flow, 0, len(times)*p.Senders)
	for _, t := range times {
		recv := r.IntN(n)
		k := 0
		for i, h := range p.Hosts {
			if i != recv {
				others[k] = h
				k++
			}
		}
		for k := range p.Senders {
			j := k + r.IntN(n-1-k)
			others[k], others[j] = others[j], others[k]
		}
		start := p.Start + nsFloor(t)
		for _, s := range others[:p.Senders] {
			flows = append(flows, Flow{Src: s, Dst: p.Hosts[recv], Prio: p.Prio, SizeBytes: p.SizeBytes, Start: start, Group: GroupIncast})
		}
	}
	finishFlows(flows)
	return flows, nil
}

// AllToAll returns one flow of size bytes for every ordered pair of
// distinct hosts, all starting at start with priority prio, ordered by
// source then destination in hosts order. Pairs of equal ids are skipped.
func AllToAll(hosts []int, size int64, start sim.Time, prio int) []Flow {
	flows := make([]Flow, 0, len(hosts)*max(len(hosts)-1, 0))
	for _, s := range hosts {
		for _, d := range hosts {
			if s != d {
				flows = append(flows, Flow{Src: s, Dst: d, Prio: prio, SizeBytes: size, Start: start})
			}
		}
	}
	finishFlows(flows)
	return flows
}

// ManyToManyParams configures ManyToMany.
type ManyToManyParams struct {
	Senders   []int // sending hosts (distinct)
	Receivers []int // receiving hosts (distinct; may overlap Senders: a host never sends to itself)
	SizeBytes int64 // size of every message (flow)
	PerSender int   // message streams ("processes") per sender; 0 means 1
	Count     int   // messages per stream, at least 1
	// Interval is the time between the starts of successive messages of a
	// stream; 0 starts them all at Start.
	Interval sim.Time
	Start    sim.Time
	// RandomDst draws every message's receiver uniformly from Receivers
	// other than the sender, instead of round robin.
	RandomDst bool
	Prio      int    // priority class, 0..7
	Seed      uint64 // scenario seed (with RandomDst)
	Stream    string // random stream name after "workload/"; "" = "manytomany"
}

// ManyToMany generates streams of equal-size messages, one flow per message
// (W9 of docs/papers.md §7.2; paper 000's E4–E5, §2.3): each sender runs
// PerSender streams; message m (0-based) of every stream starts at Start + m·Interval. With
// R_s = Receivers without the sender s (in Receivers order) and i the
// sender's position in Senders, message m of stream j goes to
// R_s[(i+j+m) mod |R_s|] (round robin: successive messages visit every
// receiver, streams start at different ones), or to a uniformly random
// member of R_s with RandomDst. Flows are ordered by message index, sender,
// then stream. Many-to-one is a single receiver.
func ManyToMany(p ManyToManyParams) ([]Flow, error) {
	per := max(p.PerSender, 1)
	switch {
	case p.PerSender < 0:
		return nil, fmt.Errorf("workload: many-to-many: %d streams per sender is negative", p.PerSender)
	case p.Count < 1:
		return nil, fmt.Errorf("workload: many-to-many: %d messages per stream, want at least 1", p.Count)
	case p.SizeBytes <= 0:
		return nil, fmt.Errorf("workload: many-to-many: size %d is not positive", p.SizeBytes)
	case p.Interval < 0:
		return nil, fmt.Errorf("workload: many-to-many: negative interval %v", p.Interval)
	case float64(len(p.Senders))*float64(per)*float64(p.Count) > maxGenFlows:
		return nil, fmt.Errorf("workload: many-to-many: more than %d flows", maxGenFlows)
	}
	if err := checkHosts("many-to-many", "senders", p.Senders, 1); err != nil {
		return nil, err
	}
	if err := checkHosts("many-to-many", "receivers", p.Receivers, 1); err != nil {
		return nil, err
	}
	if err := checkWindow("many-to-many", p.Start, 1, p.Prio); err != nil {
		return nil, err
	}
	if p.Interval > 0 && sim.Time(p.Count-1) > (sim.Never-p.Start)/p.Interval {
		return nil, fmt.Errorf("workload: many-to-many: %d messages every %v overflow the time range", p.Count, p.Interval)
	}
	dsts := make([][]int, len(p.Senders))
	for i, s := range p.Senders {
		for _, d := range p.Receivers {
			if d != s {
				dsts[i] = append(dsts[i], d)
			}
		}
		if len(dsts[i]) == 0 {
			return nil, fmt.Errorf("workload: many-to-many: sender %d has no receiver other than itself", s)
		}
	}
	var r *rand.Rand
	if p.RandomDst {
		r = stream(p.Seed, p.Stream, "manytomany")
	}
	flows := make([]Flow, 0, len(p.Senders)*per*p.Count)
	for m := range p.Count {
		start := p.Start + sim.Time(m)*p.Interval
		for i, s := range p.Senders {
			rs := dsts[i]
			for j := range per {
				var d int
				if r != nil {
					d = rs[r.IntN(len(rs))]
				} else {
					d = rs[(i+j+m)%len(rs)]
				}
				flows = append(flows, Flow{Src: s, Dst: d, Prio: p.Prio, SizeBytes: p.SizeBytes, Start: start})
			}
		}
	}
	finishFlows(flows)
	return flows, nil
}

// LongShortParams configures LongShort (W8 of docs/papers.md §7.2: long
// flows plus bursts of short flows to one receiver, paper 003's E0–E2,
// §5.3; paper 000's E7, §2.3).
type LongShortParams struct {
	// LongSenders has one entry per long flow (repeat a host for several).
	LongSenders []int
	// LongReceivers gives the receiver of each long flow (one entry per long
	// flow) or of all of them (one entry); empty: Receiver.
	LongReceivers []int
	LongSize      int64    // bytes per long flow
	LongStart     sim.Time // start of every long flow

	ShortSenders []int // senders of short flows (distinct, not Receiver)
	Receiver     int   // receiver of every short flow
	// ShortCount is the number of short flows per short sender, or the
	// total number with RandomSenders.
	ShortCount int
	// RandomSenders: one sequence of ShortCount short flows, each from a
	// sender drawn uniformly from ShortSenders, instead of one sequence per
	// sender.
	RandomSenders bool
	// Short flow sizes: from ShortCDF if set, else uniform on the integers
	// [ShortMin, ShortMax] (ShortMin = ShortMax: fixed size).
	ShortMin, ShortMax int64
	ShortCDF           *CDF
	ShortStart         sim.Time // start of the first short flow(s)
	// Interval is the time between the starts of successive short flows of
	// a sequence: flow k starts at ShortStart + k·Interval; with Poisson the
	// gaps are exponential with mean Interval (a Poisson process from
	// ShortStart, so the first flow starts after one gap).
	Interval sim.Time
	Poisson  bool

	// LongPinned pins every long flow's data path through switch LongVia
	// (Flow.Via; short flows are not pinned).
	LongVia    int
	LongPinned bool

	Prio   int    // priority class of every flow, 0..7
	Seed   uint64 // scenario seed
	Stream string // random stream name after "workload/"; "" = "longshort"
}

// LongShort generates long flows plus sequences of short flows to one
// receiver. The W8 default burst (docs/papers.md §5.3, E2) is LongSenders {H0, H1},
// LongReceivers {R0, R1}, LongSize 200 MB, ShortSenders H2…H15, Receiver
// R1, ShortCount 30, ShortMin = ShortMax = 64 KB, Interval 15 µs: 422
// flows. Draw order: per sequence (senders in order, or the single random
// sequence), per flow: [sender], size, [gap]. The result is sorted by start
// time; ties keep the order long flows, then short flows by sequence.
func LongShort(p LongShortParams) ([]Flow, error) {
	const name = "long/short"
	switch {
	case len(p.LongSenders) > 0 && p.LongSize <= 0:
		return nil, fmt.Errorf("workload: %s: long flow size %d is not positive", name, p.LongSize)
	case len(p.LongReceivers) > 1 && len(p.LongReceivers) != len(p.LongSenders):
		return nil, fmt.Errorf("workload: %s: %d long receivers for %d long flows, want 0, 1 or one each", name, len(p.LongReceivers), len(p.LongSenders))
	case p.ShortCount < 0:
		return nil, fmt.Errorf("workload: %s: short count %d is negative", name, p.ShortCount)
	case p.ShortCount > 0 && len(p.ShortSenders) == 0:
		return nil, fmt.Errorf("workload: %s: short flows without short senders", name)
	case p.ShortCount > 0 && p.ShortCDF != nil && (p.ShortMin != 0 || p.ShortMax != 0):
		return nil, fmt.Errorf("workload: %s: set either ShortCDF or ShortMin/ShortMax", name)
	case p.ShortCount > 0 && p.ShortCDF == nil && !(p.ShortMin > 0 && p.ShortMin <= p.ShortMax):
		return nil, fmt.Errorf("workload: %s: short size range [%d, %d] invalid, want 0 < min <= max", name, p.ShortMin, p.ShortMax)
	case p.Interval < 0 || p.Poisson && p.Interval == 0:
		return nil, fmt.Errorf("workload: %s: interval %v must be positive (non-negative without Poisson)", name, p.Interval)
	case float64(len(p.LongSenders))+float64(p.ShortCount)*float64(max(len(p.ShortSenders), 1)) > maxGenFlows:
		return nil, fmt.Errorf("workload: %s: more than %d flows", name, maxGenFlows)
	}
	if err := checkWindow(name, p.LongStart, 1, p.Prio); err != nil {
		return nil, err
	}
	if err := checkWindow(name, p.ShortStart, 1, p.Prio); err != nil {
		return nil, err
	}
	if p.ShortCount > 0 {
		if err := checkHosts(name, "short senders", p.ShortSenders, 1); err != nil {
			return nil, err
		}
		if slices.Contains(p.ShortSenders, p.Receiver) {
			return nil, fmt.Errorf("workload: %s: receiver %d is also a short sender", name, p.Receiver)
		}
		if !p.Poisson && p.Interval > 0 && sim.Time(p.ShortCount-1) > (sim.Never-p.ShortStart)/p.Interval {
			return nil, fmt.Errorf("workload: %s: %d short flows every %v overflow the time range", name, p.ShortCount, p.Interval)
		}
	}
	if p.Receiver < 0 || p.Receiver > maxNodeID {
		return nil, fmt.Errorf("workload: %s: receiver %d not in [0, %d]", name, p.Receiver, maxNodeID)
	}
	var flows []Flow
	for i, s := range p.LongSenders {
		d := p.Receiver
		switch len(p.LongReceivers) {
		case 1:
			d = p.LongReceivers[0]
		case len(p.LongSenders):
			d = p.LongReceivers[i]
		}
		if s < 0 || d < 0 || s > maxNodeID || d > maxNodeID || s == d {
			return nil, fmt.Errorf("workload: %s: invalid long flow %d → %d", name, s, d)
		}
		flows = append(flows, Flow{Src: s, Dst: d, Prio: p.Prio, SizeBytes: p.LongSize, Start: p.LongStart, Via: p.LongVia, HasVia: p.LongPinned})
	}
	if p.ShortCount > 0 {
		r := stream(p.Seed, p.Stream, "longshort")
		size := func() int64 {
			if p.ShortCDF != nil {
				return p.ShortCDF.Sample(r)
			}
			return p.ShortMin + r.Int64N(p.ShortMax-p.ShortMin+1)
		}
		gapNs := float64(p.Interval) / float64(sim.Nanosecond)
		sequence := func(sender int) error {
			t := 0.0 // ns after ShortStart (Poisson)
			for k := range p.ShortCount {
				s := sender
				if s < 0 {
					s = p.ShortSenders[r.IntN(len(p.ShortSenders))]
				}
				sz := size()
				var start sim.Time
				if p.Poisson {
					t += r.ExpFloat64() * gapNs
					if t >= float64(sim.Never-p.ShortStart)/float64(sim.Nanosecond) {
						return fmt.Errorf("workload: %s: short flow start overflows the time range", name)
					}
					start = p.ShortStart + nsFloor(t)
				} else {
					start = p.ShortStart + sim.Time(k)*p.Interval // checked not to overflow
				}
				flows = append(flows, Flow{Src: s, Dst: p.Receiver, Prio: p.Prio, SizeBytes: sz, Start: start})
			}
			return nil
		}
		if p.RandomSenders {
			if err := sequence(-1); err != nil {
				return nil, err
			}
		} else {
			for _, s := range p.ShortSenders {
				if err := sequence(s); err != nil {
					return nil, err
				}
			}
		}
	}
	slices.SortStableFunc(flows, func(a, b Flow) int { return cmpTime(a.Start, b.Start) })
	finishFlows(flows)
	return flows, nil
}

// Merge returns the flows of all lists in one new slice, stably sorted by
// start time (ties keep list order, then order within a list), with SPort
// reassigned by AssignRefSPorts over the merged order, as the reference
// assigns ports over its whole flow file. A chained flow's After and
// AlsoAfter and a ring member's Next (indices into their own list) are renumbered to the same
// flows' positions in the result. The inputs are not modified.
func Merge(lists ...[]Flow) []Flow {
	n := 0
	chained := false
	for _, l := range lists {
		n += len(l)
		for i := range l {
			chained = chained || l[i].HasAfter || l[i].HasNext
		}
	}
	out := make([]Flow, 0, n)
	for _, l := range lists {
		base := len(out)
		out = append(out, l...)
		for i := base; i < len(out); i++ {
			if out[i].HasAfter {
				out[i].After += base
			}
			if out[i].HasAlsoAfter {
				out[i].AlsoAfter += base
			}
			if out[i].HasNext {
				out[i].Next += base
			}
		}
	}
	if !chained {
		slices.SortStableFunc(out, func(a, b Flow) int { return cmpTime(a.Start, b.Start) })
		AssignRefSPorts(out)
		return out
	}
	// sort a permutation, then renumber the predecessors
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return cmpTime(out[a].Start, out[b].Start) })
	pos := make([]int32, n) // old index → new index
	for k, i := range perm {
		pos[i] = int32(k)
	}
	sorted := make([]Flow, n)
	for k, i := range perm {
		sorted[k] = out[i]
		if f := &sorted[k]; f.HasAfter && f.After >= 0 && f.After < n {
			f.After = int(pos[f.After])
		}
		if f := &sorted[k]; f.HasAlsoAfter && f.AlsoAfter >= 0 && f.AlsoAfter < n {
			f.AlsoAfter = int(pos[f.AlsoAfter])
		}
		if f := &sorted[k]; f.HasNext && f.Next >= 0 && f.Next < n {
			f.Next = int(pos[f.Next])
		}
	}
	AssignRefSPorts(sorted)
	return sorted
}

// OfferedLoad is the load the flows offer relative to the aggregate host
// capacity: Σ SizeBytes·8 / (hosts · hostBps · duration), the quantity
// PoissonParams.Load and IncastBurstParams.Load set (payload bytes only).
// It returns 0 unless hostBps, hosts and duration are positive.
func OfferedLoad(flows []Flow, hostBps int64, hosts int, duration sim.Time) float64 {
	if hostBps <= 0 || hosts <= 0 || duration <= 0 {
		return 0
	}
	var bytes float64
	for _, f := range flows {
		bytes += float64(f.SizeBytes)
	}
	return bytes * 8 / (float64(hosts) * float64(hostBps) * duration.Seconds())
}

// stream returns the generator's random stream "workload/<name>".
func stream(seed uint64, name, def string) *rand.Rand {
	if name == "" {
		name = def
	}
	return sim.Stream(seed, "workload/"+name)
}

// nsFloor converts a non-negative offset in ns to a sim.Time of whole ns.
func nsFloor(ns float64) sim.Time { return sim.Time(ns) * sim.Nanosecond }

func cmpTime(a, b sim.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// finishFlows sets DPort, RefStart and SPort of generated flows.
func finishFlows(flows []Flow) {
	var last, ref sim.Time = -1, 0
	for i := range flows {
		if flows[i].Start != last {
			last, ref = flows[i].Start, RefStartTime(flows[i].Start)
		}
		flows[i].DPort = RefDPort
		flows[i].RefStart = ref
	}
	AssignRefSPorts(flows)
}

// checkHosts validates a host list: at least minN distinct ids in [0,
// maxNodeID].
func checkHosts(gen, what string, hosts []int, minN int) error {
	if len(hosts) < minN {
		return fmt.Errorf("workload: %s: %d %s, want at least %d", gen, len(hosts), what, minN)
	}
	seen := make(map[int]bool, len(hosts))
	for _, h := range hosts {
		if h < 0 || h > maxNodeID {
			return fmt.Errorf("workload: %s: %s: id %d not in [0, %d]", gen, what, h, maxNodeID)
		}
		if seen[h] {
			return fmt.Errorf("workload: %s: %s: id %d repeated", gen, what, h)
		}
		seen[h] = true
	}
	return nil
}

// checkWindow validates a start time, a positive window length that does
// not overflow, and a priority class.
func checkWindow(gen string, start, dur sim.Time, prio int) error {
	switch {
	case start < 0:
		return fmt.Errorf("workload: %s: negative start %v", gen, start)
	case dur <= 0:
		return fmt.Errorf("workload: %s: duration %v is not positive", gen, dur)
	case dur > sim.Never-start:
		return fmt.Errorf("workload: %s: window [%v, +%v) overflows the time range", gen, start, dur)
	case prio < 0 || prio > 7:
		return fmt.Errorf("workload: %s: priority %d not in [0, 7]", gen, prio)
	}
	return nil
}
