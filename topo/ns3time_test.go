package topo

import "testing"

// TestNS3TxTimeNs checks every cell of the table in docs/reference-simulator.md §0.1.
func TestNS3TxTimeNs(t *testing.T) {
	rates := []int64{25e9, 40e9, 50e9, 100e9, 200e9, 400e9}
	table := []struct {
		bytes int
		ns    [6]int64
	}{
		{43, [6]int64{13, 8, 6, 3, 1, 0}},
		{60, [6]int64{19, 11, 9, 4, 2, 1}},
		{88, [6]int64{28, 17, 14, 7, 3, 1}},
		{1000, [6]int64{319, 199, 159, 79, 39, 19}},
		{1048, [6]int64{335, 209, 167, 83, 41, 20}},
		{1056, [6]int64{337, 211, 168, 84, 42, 21}},
		{1090, [6]int64{348, 217, 174, 87, 43, 21}},
		{1100, [6]int64{351, 219, 175, 87, 43, 21}},
	}
	for _, row := range table {
		for i, bps := range rates {
			if got := NS3TxTimeNs(row.bytes, bps); got != row.ns[i] {
				t.Errorf("NS3TxTimeNs(%d B, %d Gb/s) = %d, want %d", row.bytes, bps/1e9, got, row.ns[i])
			}
		}
	}
	if NS3TxTimeNs(0, 100e9) != 0 || NS3TxTimeNs(100, 0) != 0 {
		t.Error("NS3TxTimeNs of non-positive input is not 0")
	}
}

func TestNS3Seconds(t *testing.T) {
	tests := []struct {
		x    float64
		want int64
	}{
		{2.000000223, 2000000222},
		{2.000016704, 2000016704},
		{2.001, 2000999999},
		{2, 2000000000},
		{0, 0},
		{0.5, 500000000},
		{87.2e-9, 87},
		{80e-9, 79},
		{3.01, 3009999999},
		{1e-9, 0},
	}
	for _, tc := range tests {
		if got := NS3Seconds(tc.x); got != tc.want {
			t.Errorf("NS3Seconds(%v) = %d, want %d", tc.x, got, tc.want)
		}
	}
}
