package fabric

import (
	"fmt"

	"github.com/ccsim/ccsim/workload"
)

// Route pinning (workload.Flow.Via): the data packets of a pinned flow
// cross a chosen switch, e.g. paper 003's testbed routes f0 and f1 through
// spine S1. At a switch sw that the via switch v still lies ahead of — v is
// on a shortest path from sw to the destination, dist(sw, v) + dist(v,
// dst) = dist(sw, dst), and sw ≠ v — the packet chooses by its ECMP hash
// among only those equal-cost next hops h with dist(h, v) = dist(sw, v) − 1;
// at v and after it (where v is no longer ahead) it uses ordinary ECMP. The
// rule is stateless, so it needs nothing in the packet, and since the
// choice is made on a route-cache miss like any other, a pinned flow costs
// nothing more per packet. The ACKs, NACKs and CNPs of a pinned flow (and
// switch notices to its sender) are not pinned: they take ordinary ECMP
// paths back. Distances are hop counts over paths whose inner nodes are
// switches, as the routing counts them (topo.Graph.DistFrom).

// setPins validates the flows' via switches and prepares their distance
// tables (one BFS per distinct via switch).
func (n *Network) setPins(flows []workload.Flow) error {
	n.pin, n.viaDist = nil, nil
	index := map[int]int32{}
	for i, f := range flows {
		if !f.HasVia {
			continue
		}
		v := f.Via
		if v < 0 || v >= len(n.Nodes) || !n.Nodes[v].Switch {
			return fmt.Errorf("flow %d: via %d is not a switch", i, v)
		}
		k, ok := index[v]
		if !ok {
			k = int32(len(n.viaDist))
			index[v] = k
			n.viaDist = append(n.viaDist, n.g.DistFrom(v))
		}
		d := n.viaDist[k]
		direct := n.routes.Dist(f.Src, f.Dst)
		if d[f.Src] < 0 || d[f.Dst] < 0 || int(d[f.Src]+d[f.Dst]) != direct {
			return fmt.Errorf("flow %d: via %d: the switch is not on a shortest path from %d to %d", i, v, f.Src, f.Dst)
		}
		if n.pin == nil {
			n.pin = make([]int32, len(flows))
			for j := range n.pin {
				n.pin[j] = -1
			}
		}
		n.pin[i] = k
	}
	return nil
}

// pinnedHop returns the next-hop port (index at switch sw) of a data packet
// of a pinned QP among the equal-cost ports hops towards its destination.
func (n *Network) pinnedHop(sw int32, pk *Packet, hops []int32) int32 {
	d := n.viaDist[n.pin[pk.QP]]
	dv := d[sw]
	ahead := dv > 0 && int(dv+d[pk.Dst]) == n.routes.Dist(int(sw), int(pk.Dst))
	first := n.Nodes[sw].FirstPort
	count := len(hops)
	if ahead {
		count = 0
		for _, h := range hops {
			if d[n.Ports[n.Ports[first+h].Peer].Node] == dv-1 {
				count++
			}
		}
	}
	k := 0
	if count > 1 {
		k = int(n.ecmp(sw, pk) % uint32(count))
	}
	if !ahead {
		return hops[k]
	}
	for _, h := range hops {
		if d[n.Ports[n.Ports[first+h].Peer].Node] == dv-1 {
			if k == 0 {
				return h
			}
			k--
		}
	}
	return hops[0] // not reached: a neighbour one hop closer to the via switch is a next hop
}
