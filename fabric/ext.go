package fabric

import (
	"fmt"
	"unsafe"
)

// Header extensions (docs/fabric.md §2). An algorithm that carries fields
// of its own in every data packet and ACK declares them in
// Requirements.Ext: how many 32-bit values, the wire bytes they add, which
// values the receiver echoes, which one it sets to its own topology domain
// and which ones switch features may rewrite. The fabric keeps the values
// in a side array parallel to the packet pool, allocated only when an
// algorithm declares an extension, so that packets stay 64 bytes and runs
// without one pay nothing. What the values mean is the algorithm's
// business: the fabric only copies, echoes and masks them.

// MaxExtWords is the number of 32-bit values a header extension can hold.
const MaxExtWords = 4

// Ext is the values of one packet's header extension. Values at or beyond
// the declared ExtSpec.Words are not carried (zero in ACKs).
type Ext [MaxExtWords]uint32

// ExtSpec declares an algorithm's per-packet header extension. The zero
// value declares none.
type ExtSpec struct {
	// Words is the number of values the extension carries, in
	// [0, MaxExtWords]; 0 = no extension.
	Words int
	// DataBytes and AckBytes are the wire bytes the extension adds to
	// every data packet and to every ACK/NACK (an ACK is then still padded
	// to the AckBytes minimum frame).
	DataBytes, AckBytes int32
	// Echo has bit k set when the receiver copies value k of a data packet
	// into its ACK; the values not echoed are zero in the ACK.
	Echo uint8
	// RecvDomain has bit k set when the receiver writes its own topology
	// domain (topo.Graph.Domain) into value k of the ACK, in place of the
	// data packet's value.
	RecvDomain uint8
	// SwitchWrites has bit k set when switch features may rewrite value k
	// of a packet (SwitchView.SetExt; the ccsimdebug build checks it).
	SwitchWrites uint8
}

// maxExtBytes bounds the wire bytes an extension may add (a jumbo frame).
const maxExtBytes = 9000

// Validate checks that the masks name only carried values and that the
// byte counts are in range.
func (s *ExtSpec) Validate() error {
	if s.Words < 0 || s.Words > MaxExtWords {
		return fmt.Errorf("header extension: %d words out of range [0, %d]", s.Words, MaxExtWords)
	}
	all := uint8(1)<<s.Words - 1
	switch {
	case s.DataBytes < 0 || s.DataBytes > maxExtBytes || s.AckBytes < 0 || s.AckBytes > maxExtBytes:
		return fmt.Errorf("header extension: %d data / %d ACK bytes out of range [0, %d]", s.DataBytes, s.AckBytes, maxExtBytes)
	case s.Echo&^all != 0 || s.RecvDomain&^all != 0 || s.SwitchWrites&^all != 0:
		return fmt.Errorf("header extension: masks echo %#x, receiver domain %#x, switch writes %#x name values beyond its %d words",
			s.Echo, s.RecvDomain, s.SwitchWrites, s.Words)
	}
	return nil
}

// setExt installs the extension declared by s: the side array (grown to
// the pool) and the receiver's masks.
func (n *Network) setExt(s ExtSpec) {
	if err := s.Validate(); err != nil {
		// an algorithm's declaration is code, not input
		panic("fabric: " + err.Error())
	}
	n.extOn = s.Words > 0
	n.extEcho, n.extDom = Ext{}, Ext{}
	for k := range s.Words {
		switch {
		case s.RecvDomain&(1<<k) != 0:
			n.extDom[k] = ^uint32(0)
		case s.Echo&(1<<k) != 0:
			n.extEcho[k] = ^uint32(0)
		}
	}
	if n.extOn && len(n.ext) < len(n.pkts) {
		n.ext = append(n.ext, make([]Ext, len(n.pkts)-len(n.ext))...)
	}
}

// echoExt turns the extension of the data packet in slot pi into its
// ACK's, sent by host: the echoed values stay, the receiver's domain goes
// into its values, the others are cleared.
func (n *Network) echoExt(pi int32, host int32) {
	x := &n.ext[pi]
	d := uint32(n.g.Domain(int(host)))
	for k := range x {
		x[k] = x[k]&n.extEcho[k] | d&n.extDom[k]
	}
}

// extIndex is the pool slot of packet p, from its address (no per-packet
// index field: the Packet stays 64 bytes). p must point into the pool, as
// the packets switch-feature hooks receive do.
func (n *Network) extIndex(p *Packet) uintptr {
	if debugChecks {
		n.checkPoolPacket(p)
	}
	return (uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(&n.pkts[0]))) / unsafe.Sizeof(Packet{})
}
