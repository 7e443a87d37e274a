package topo

import "testing"

func TestMurmur3x86_32(t *testing.T) {
	tests := []struct {
		key  string
		seed uint32
		want uint32
	}{
		{"", 0, 0},
		{"", 1, 0x514E28B7},
		{"", 0xffffffff, 0x81F16F39},
		{"\x00\x00\x00\x00", 0, 0x2362F9DE},
		{"\x21\x43\x65\x87", 0, 0xF55B516B},
		{"\x21\x43\x65\x87", 0x5082EDEE, 0x2362F9DE},
		{"\x21\x43\x65", 0, 0x7E4A8634},
		{"\x21\x43", 0, 0xA0F7B07A},
		{"\x21", 0, 0x72661CF4},
		{"\xff\xff\xff\xff", 0, 0x76293B50},
		{"\x00\x00\x00", 0, 0x85F0B427},
		{"\x00\x00", 0, 0x30F4C306},
		{"\x00", 0, 0x514E28B7},
		{"hello", 0, 0x248BFA47},
		{"The quick brown fox jumps over the lazy dog", 0, 0x2E4FF723},
		{"aaaa", 0x9747b28c, 0x5A97808A},
		{"aaa", 0x9747b28c, 0x283E0130},
		{"aa", 0x9747b28c, 0x5D211726},
		{"a", 0x9747b28c, 0x7FA09EA6},
		{"abcd", 0x9747b28c, 0xF0478627},
		{"abc", 0x9747b28c, 0xC84A62DD},
		{"ab", 0x9747b28c, 0x74875592},
		{"Hello, world!", 0x9747b28c, 0x24884CBA},
		{"The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2FA826CD},
	}
	for _, tc := range tests {
		if got := Murmur3x86_32([]byte(tc.key), tc.seed); got != tc.want {
			t.Errorf("Murmur3x86_32(%q, %#x) = %#08x, want %#08x", tc.key, tc.seed, got, tc.want)
		}
	}
}

func TestRefECMPKey(t *testing.T) {
	k := RefECMPKey(0x0B000101, 0x0B001401, 10000, 100)
	want := [12]byte{0x01, 0x01, 0x00, 0x0B, 0x01, 0x14, 0x00, 0x0B, 0x10, 0x27, 0x64, 0x00}
	if k != want {
		t.Fatalf("RefECMPKey = % x, want % x", k, want)
	}
	if h := RefECMPHash(0x0B000101, 0x0B001401, 10000, 100, 21); h != Murmur3x86_32(k[:], 21) {
		t.Fatalf("RefECMPHash = %#x", h)
	}
	if n := testing.AllocsPerRun(100, func() { RefECMPHash(1, 2, 3, 4, 5) }); n != 0 {
		t.Fatalf("RefECMPHash allocates %v times", n)
	}
}

func TestFlowHash(t *testing.T) {
	// Pinned values (a change here changes every non-compat ECMP choice).
	tests := []struct {
		src, dst     int
		sport, dport uint16
		seed         uint32
		want         uint32
	}{
		{0, 1, 10000, 100, 320, 0x92512e12},
		{1, 0, 100, 10000, 320, 0xb486819b},
		{0, 1, 10001, 100, 320, 0x9f331f7a},
		{0, 1, 10000, 100, 321, 0x2eac47d2},
	}
	seen := map[uint32]bool{}
	for _, tc := range tests {
		got := FlowHash(tc.src, tc.dst, tc.sport, tc.dport, tc.seed)
		if got != tc.want {
			t.Errorf("FlowHash(%d, %d, %d, %d, %d) = %#08x, want %#08x", tc.src, tc.dst, tc.sport, tc.dport, tc.seed, got, tc.want)
		}
		seen[got] = true
	}
	if len(seen) != len(tests) {
		t.Errorf("collisions among %d inputs", len(tests))
	}
	// Balance over 4 next hops for 320x320 host pairs.
	var bins [4]int
	for s := range 320 {
		for d := range 320 {
			bins[FlowHash(s, d, 10000, 100, 340)%4]++
		}
	}
	for i, n := range bins {
		if n < 25600-800 || n > 25600+800 {
			t.Errorf("bin %d holds %d of 102400", i, n)
		}
	}
}

func TestRefIP(t *testing.T) {
	tests := []struct {
		node int
		ip   uint32
	}{
		{0, 0x0B000001}, {1, 0x0B000101}, {20, 0x0B001401}, {255, 0x0B00FF01},
		{256, 0x0B010001}, {297, 0x0B012901}, {375, 0x0B017701},
	}
	for _, tc := range tests {
		if got := RefIP(tc.node); got != tc.ip {
			t.Errorf("RefIP(%d) = %#08x, want %#08x", tc.node, got, tc.ip)
		}
		if got := RefNodeOfIP(tc.ip); got != tc.node {
			t.Errorf("RefNodeOfIP(%#08x) = %d, want %d", tc.ip, got, tc.node)
		}
	}
}
