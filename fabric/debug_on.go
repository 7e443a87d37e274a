//go:build ccsimdebug

package fabric

import "fmt"

const debugChecks = true

// checkOpen panics if the cached QP.open differs from its definition.
func (n *Network) checkOpen(q *QP) {
	if o := q.active && q.SndNxt < q.SizeBytes && !q.winBound(); o != q.open {
		panic(fmt.Sprintf("QP %d at %v: open %v, recomputed %v (SndNxt %d SndUna %d size %d window %d)", q.ID, n.now, q.open, o, q.SndNxt, q.SndUna, q.SizeBytes, q.Window()))
	}
}
