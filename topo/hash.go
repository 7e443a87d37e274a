package topo

import (
	"encoding/binary"
	"math/bits"
)

// Murmur3x86_32 is the standard MurmurHash3_x86_32 of key with seed: the
// hash the reference switches use for ECMP (docs/reference-simulator.md §7.1), with seed = switch
// node id, over the 12-byte key of RefECMPKey; the next hop is
// Murmur3x86_32(key, id) % len(list).
func Murmur3x86_32(key []byte, seed uint32) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	h := seed
	n := len(key)
	for len(key) >= 4 {
		k := binary.LittleEndian.Uint32(key)
		key = key[4:]
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch len(key) {
	case 3:
		k ^= uint32(key[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(key[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(key[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// RefECMPKey builds the reference switch's ECMP hash key (docs/reference-simulator.md §7.1): three
// little-endian 32-bit words sip, dip and sport | dport<<16. For ACK/NACK
// packets the reference passes the swapped IPs and ports of the data flow.
func RefECMPKey(sip, dip uint32, sport, dport uint16) [12]byte {
	var b [12]byte
	binary.LittleEndian.PutUint32(b[0:], sip)
	binary.LittleEndian.PutUint32(b[4:], dip)
	binary.LittleEndian.PutUint32(b[8:], uint32(sport)|uint32(dport)<<16)
	return b
}

// RefECMPHash returns Murmur3x86_32(RefECMPKey(sip, dip, sport, dport),
// switchID): the value the reference switch switchID reduces modulo the
// length of its next-hop list. It does not allocate.
func RefECMPHash(sip, dip uint32, sport, dport uint16, switchID int) uint32 {
	k := RefECMPKey(sip, dip, sport, dport)
	return Murmur3x86_32(k[:], uint32(switchID))
}

// mix64 is the splitmix64 finalizer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// FlowHash is a cheap, well-mixed per-flow hash for ECMP outside reference
// compatibility mode: a splitmix64 mix of (src, dst, sport, dport, seed),
// where seed is typically the switch id (so consecutive switches make
// independent choices). Any bit of the result may be used.
func FlowHash(src, dst int, sport, dport uint16, seed uint32) uint32 {
	x := uint64(uint32(src)) | uint64(uint32(dst))<<32
	y := uint64(sport) | uint64(dport)<<16 | uint64(seed)<<32
	h := mix64(mix64(x+0x9e3779b97f4a7c15) ^ y)
	return uint32(h >> 32)
}

// RefIP returns the reference simulator's IPv4 address of node
// (node_id_to_ip): 0x0B000001 + (node/256)·0x10000 + (node%256)·0x100,
// e.g. node 1 = 11.0.1.1.
func RefIP(node int) uint32 {
	return 0x0B000001 + uint32(node/256)*0x10000 + uint32(node%256)*0x100
}

// RefNodeOfIP inverts RefIP as the reference does (ip_to_node_id):
// (ip >> 8) & 0xffff.
func RefNodeOfIP(ip uint32) int { return int(ip>>8) & 0xffff }
