package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns a PCG random stream named name, derived from the scenario
// seed. Streams with different names are independent; the same (seed, name)
// always yields the same sequence, on any machine, regardless of how many
// other streams exist or in which order they were created.
func Stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	k := h.Sum64()
	return rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, k))
}
