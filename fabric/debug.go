//go:build !ccsimdebug

package fabric

// debugChecks enables internal consistency checks on hot paths (build tag
// ccsimdebug: go test -tags ccsimdebug ./...).
const debugChecks = false

func (n *Network) checkBits(h int32) {}

func (n *Network) checkPoolPacket(p *Packet) {}

func (n *Network) checkExtWrite(k int) {}
