package workload

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/sim"
)

// LoadBasis selects what CrossDCParams.Load is a fraction of.
type LoadBasis uint8

const (
	// BasisLongHaul: Load is the utilisation of the long-haul link in each
	// direction (the default; docs/workloads.md §2.2).
	BasisLongHaul LoadBasis = iota
	// BasisHost: Load is the fraction of the aggregate host capacity that
	// all the traffic offers (the literal reading of paper 002; it
	// overloads the long haul).
	BasisHost
)

// CrossDCParams configures CrossDC, the cross-datacenter traffic mix W7 of
// paper 002 (docs/workloads.md §2).
type CrossDCParams struct {
	// DomainA and DomainB are the hosts of the two datacenters (distinct,
	// disjoint, at least 2 each).
	DomainA, DomainB []int
	// CDF is the flow-size distribution of the all-to-all flows.
	CDF *CDF
	// Load is ρ in (0, 1], a fraction of the long haul's capacity per
	// direction (BasisLongHaul) or of the aggregate host capacity
	// (BasisHost).
	Load  float64
	Basis LoadBasis
	// LongHaulBps is the long haul's capacity per direction, bits per
	// second (BasisLongHaul).
	LongHaulBps int64
	// HostsBps is the sum of the link rates of the hosts of both domains,
	// bits per second (BasisHost).
	HostsBps int64
	// CrossToIntra is the ratio of cross-domain to intra-domain all-to-all
	// flow arrivals (paper: 5), > 0.
	CrossToIntra float64
	// IncastShare is the share of the load that incast traffic carries, in
	// [0, 1] (paper: 50 %).
	IncastShare float64
	// IncastFanin is the number of senders per incast event (distinct
	// hosts of one domain), and IncastSize the bytes each sends (paper:
	// the long haul's bandwidth-delay product, 100 MB).
	IncastFanin int
	IncastSize  int64
	// IncastEvents, if positive, places exactly that many incast events in
	// each direction at independent uniform times in the window instead of
	// a Poisson process of incast events (whose expected count over a
	// 20-ms window is below one per direction at the paper's settings).
	IncastEvents int

	Start    sim.Time // start of the arrival window
	Duration sim.Time // flows arrive in [Start, Start+Duration)
	Prio     int      // priority class of every flow, 0..7
	Seed     uint64   // scenario seed
	Stream   string   // random stream name after "workload/"; "" = "crossdc"
}

// CrossDCRates are the arrival rates of the cross-DC mix, per second.
type CrossDCRates struct {
	CrossPerDir  float64 // cross-domain all-to-all flows per direction
	Intra        float64 // intra-domain flows, both domains together
	IncastPerDir float64 // incast events per direction (of IncastFanin flows each)
}

// Rates returns the arrival rates the parameters imply (docs/workloads.md
// §2.2). With S̄ the CDF's mean size, s = IncastShare, r = CrossToIntra:
//
//   - BasisLongHaul, C = LongHaulBps: per direction the cross-domain flows
//     offer ρ(1−s)C and the incast flows ρsC, so CrossPerDir =
//     ρ(1−s)C/(8S̄) and IncastPerDir = ρsC/(8·fanin·size).
//   - BasisHost, H = HostsBps: all traffic offers ρH; incast ρsH, the
//     all-to-all the rest, of which the cross-domain flows carry r/(r+1)
//     (the same size distribution, r times the arrivals); each direction
//     half of the cross-domain and of the incast traffic.
//
// Intra = 2·CrossPerDir / r in both bases: cross : intra = r : 1 by count.
func (p CrossDCParams) Rates() CrossDCRates {
	var cross, incast float64 // bits per second per direction
	s, r := p.IncastShare, p.CrossToIntra
	switch p.Basis {
	case BasisHost:
		total := p.Load * float64(p.HostsBps)
		incast = total * s / 2
		cross = total * (1 - s) * r / (r + 1) / 2
	default:
		c := p.Load * float64(p.LongHaulBps)
		incast = c * s
		cross = c * (1 - s)
	}
	var out CrossDCRates
	if cross > 0 && p.CDF != nil {
		out.CrossPerDir = cross / (8 * p.CDF.Mean())
		out.Intra = 2 * out.CrossPerDir / r
	}
	if incast > 0 && p.IncastFanin > 0 && p.IncastSize > 0 {
		out.IncastPerDir = incast / (8 * float64(p.IncastFanin) * float64(p.IncastSize))
	}
	return out
}

// CrossDC generates the cross-datacenter mix (W7; docs/workloads.md §2):
//
//   - all-to-all flows with sizes from CDF: a Poisson process of
//     cross-domain flows in each direction (source uniform over the hosts
//     of one domain, destination uniform over the other's) and one of
//     intra-domain flows (source uniform over the hosts of both domains,
//     destination uniform over the other hosts of the source's domain),
//     at the rates of Rates;
//   - incast events: IncastFanin distinct senders drawn uniformly from one
//     domain each send IncastSize bytes to one receiver drawn uniformly
//     from the other, all starting together; a Poisson process per
//     direction (or IncastEvents uniform times per direction).
//
// Flows are tagged GroupCross, GroupIntra and GroupIncast. Random draws
// come from one stream: first the all-to-all flows, as one merged Poisson
// process (per arrival: class, source, destination, size, next gap), then
// the incast events of direction A→B, then B→A (per event: time or gap,
// receiver, senders). The result is sorted by start time (ties: all-to-all
// before incast, then generation order).
func CrossDC(p CrossDCParams) ([]Flow, error) {
	const name = "cross-DC"
	if err := p.check(); err != nil {
		return nil, err
	}
	rt := p.Rates()
	durNs := float64(p.Duration) / float64(sim.Nanosecond)
	lambda := (2*rt.CrossPerDir + rt.Intra) / 1e9 // all-to-all arrivals per ns
	incastFlows := 2 * rt.IncastPerDir * p.Duration.Seconds() * float64(p.IncastFanin)
	if p.IncastEvents > 0 {
		incastFlows = float64(2 * p.IncastEvents * p.IncastFanin)
	}
	if expected := lambda*durNs + incastFlows; !(expected <= maxGenFlows) {
		return nil, fmt.Errorf("workload: %s: %.3g flows expected, more than the %d a generator may produce", name, expected, maxGenFlows)
	}
	r := stream(p.Seed, p.Stream, "crossdc")
	a, b := p.DomainA, p.DomainB
	all := slices.Concat(a, b)
	var flows []Flow
	if lambda > 0 {
		flows = make([]Flow, 0, int(lambda*durNs*1.01)+16)
		pAB := rt.CrossPerDir / 1e9 / lambda
		pCross := 2 * pAB
		for t := r.ExpFloat64() / lambda; t < durNs; t += r.ExpFloat64() / lambda {
			if len(flows) == maxGenFlows {
				return nil, fmt.Errorf("workload: %s: more than %d flows", name, maxGenFlows)
			}
			f := Flow{Prio: p.Prio, Start: p.Start + nsFloor(t)}
			switch u := r.Float64(); {
			case u < pAB:
				f.Group, f.Src, f.Dst = GroupCross, a[r.IntN(len(a))], b[r.IntN(len(b))]
			case u < pCross:
				f.Group, f.Src, f.Dst = GroupCross, b[r.IntN(len(b))], a[r.IntN(len(a))]
			default:
				f.Group = GroupIntra
				i := r.IntN(len(all))
				dom, k := a, i
				if i >= len(a) {
					dom, k = b, i-len(a)
				}
				j := r.IntN(len(dom) - 1)
				if j >= k {
					j++
				}
				f.Src, f.Dst = dom[k], dom[j]
			}
			f.SizeBytes = p.CDF.Sample(r)
			flows = append(flows, f)
		}
	}
	if rt.IncastPerDir > 0 {
		n := len(flows)
		for _, dir := range [2][2][]int{{a, b}, {b, a}} {
			snd, rcv := dir[0], dir[1]
			var times []float64 // ns after Start
			if p.IncastEvents > 0 {
				times = make([]float64, p.IncastEvents)
				for k := range times {
					times[k] = r.Float64() * durNs
				}
				slices.Sort(times)
			} else {
				gapNs := 1e9 / rt.IncastPerDir
				for t := r.ExpFloat64() * gapNs; t < durNs; t += r.ExpFloat64() * gapNs {
					times = append(times, t)
				}
			}
			pool := slices.Clone(snd)
			for _, t := range times {
				dst := rcv[r.IntN(len(rcv))]
				for k := range p.IncastFanin { // partial Fisher–Yates
					j := k + r.IntN(len(pool)-k)
					pool[k], pool[j] = pool[j], pool[k]
				}
				for _, s := range pool[:p.IncastFanin] {
					flows = append(flows, Flow{Src: s, Dst: dst, Prio: p.Prio, SizeBytes: p.IncastSize, Start: p.Start + nsFloor(t), Group: GroupIncast})
				}
			}
		}
		if len(flows)-n > maxGenFlows {
			return nil, fmt.Errorf("workload: %s: more than %d flows", name, maxGenFlows)
		}
	}
	slices.SortStableFunc(flows, func(x, y Flow) int { return cmpTime(x.Start, y.Start) })
	finishFlows(flows)
	return flows, nil
}

// check validates the parameters.
func (p *CrossDCParams) check() error {
	const name = "cross-DC"
	s := p.IncastShare
	switch {
	case !(p.Load > 0 && p.Load <= 1):
		return fmt.Errorf("workload: %s: load %v not in (0, 1]", name, p.Load)
	case p.Basis != BasisLongHaul && p.Basis != BasisHost:
		return fmt.Errorf("workload: %s: load basis %d unknown", name, p.Basis)
	case p.Basis == BasisLongHaul && p.LongHaulBps <= 0:
		return fmt.Errorf("workload: %s: long-haul rate %d b/s is not positive (load basis longhaul)", name, p.LongHaulBps)
	case p.Basis == BasisHost && p.HostsBps <= 0:
		return fmt.Errorf("workload: %s: host capacity %d b/s is not positive (load basis host)", name, p.HostsBps)
	case !(p.CrossToIntra > 0 && p.CrossToIntra < math.Inf(1)):
		return fmt.Errorf("workload: %s: cross-to-intra ratio %v is not positive and finite", name, p.CrossToIntra)
	case !(s >= 0 && s <= 1):
		return fmt.Errorf("workload: %s: incast share %v not in [0, 1]", name, s)
	case s < 1 && p.CDF == nil:
		return fmt.Errorf("workload: %s: %w", name, errNoCDF)
	case s > 0 && p.IncastSize <= 0:
		return fmt.Errorf("workload: %s: incast size %d is not positive", name, p.IncastSize)
	case s > 0 && (p.IncastFanin < 1 || p.IncastFanin > min(len(p.DomainA), len(p.DomainB))):
		return fmt.Errorf("workload: %s: incast fan-in %d not in [1, %d] (the hosts of the smaller domain)", name, p.IncastFanin, min(len(p.DomainA), len(p.DomainB)))
	case p.IncastEvents < 0:
		return fmt.Errorf("workload: %s: %d incast events is negative", name, p.IncastEvents)
	}
	if err := checkHosts(name, "domain A hosts", p.DomainA, 2); err != nil {
		return err
	}
	if err := checkHosts(name, "domain B hosts", p.DomainB, 2); err != nil {
		return err
	}
	inA := make(map[int]bool, len(p.DomainA))
	for _, h := range p.DomainA {
		inA[h] = true
	}
	for _, h := range p.DomainB {
		if inA[h] {
			return fmt.Errorf("workload: %s: host %d is in both domains", name, h)
		}
	}
	return checkWindow(name, p.Start, p.Duration, p.Prio)
}
