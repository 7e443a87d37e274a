package cc

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// The executor's per-ACK law against tcp_vanilla.c's integer arithmetic.
func TestSpineWindowLaw(t *testing.T) {
	e := SpineExec{Alpha: 50, Beta: 200, Gamma: 200, Delta: 717}
	// inflation 1024 ≤ 1024 + γ: +α per ACK; the 21st ACK moves one packet
	// (21·50 = 1050 → cwnd + 1, cnt 26)
	cwnd, cnt := int64(100), int64(0)
	for i := range 21 {
		cwnd, cnt = spineWindow(e, 10000, 10000, cwnd, cnt, 10, 1000)
		if i < 20 && (cwnd != 100 || cnt != int64(50*(i+1))) {
			t.Fatalf("ACK %d: cwnd %d cnt %d, want 100 and %d", i+1, cwnd, cnt, 50*(i+1))
		}
	}
	if cwnd != 101 || cnt != 26 {
		t.Errorf("after 21 ACKs: cwnd %d cnt %d, want 101 and 26", cwnd, cnt)
	}
	// srtt/min_rtt = 1.2: 12000·1024/10000 = 1228 > 1224: −β per ACK; the
	// 6th ACK reaches −1200: −1200/1024 truncates to −1 (C and Go), cnt −176
	cwnd, cnt = 100, 0
	for range 6 {
		cwnd, cnt = spineWindow(e, 12000, 10000, cwnd, cnt, 10, 1000)
	}
	if cwnd != 99 || cnt != -176 {
		t.Errorf("decrease: cwnd %d cnt %d, want 99 and −176", cwnd, cnt)
	}
	// exactly at the threshold (1224 is not > 1224): increase
	if _, c := spineWindow(e, 11953, 10000, 100, 0, 10, 1000); c != 50 {
		t.Errorf("at 11953/10000 (inflation 1223): cnt %d, want +50", c)
	}
	// change clamped to [−512, 1024]
	if _, c := spineWindow(SpineExec{Alpha: 50, Beta: 1000, Gamma: 0}, 20000, 10000, 100, 0, 10, 1000); c != -512 {
		t.Errorf("β 1000: cnt %d, want −512 (clamped)", c)
	}
	// floor and cap
	if w, _ := spineWindow(e, 20000, 10000, 10, -1000, 10, 1000); w != 10 {
		t.Errorf("floor: cwnd %d, want 10", w)
	}
	if w, _ := spineWindow(e, 10000, 10000, 1000, 1000, 10, 1000); w != 1000 {
		t.Errorf("cap: cwnd %d, want 1000", w)
	}
	// loss: max(δ·cwnd/1024, 2): 717·100/1024 = 70.02 → 70; 717·2/1024 → 2
	if w := spineCut(e, 100, 1000); w != 70 {
		t.Errorf("cut of 100: %d, want 70", w)
	}
	if w := spineCut(e, 2, 1000); w != 2 {
		t.Errorf("cut of 2: %d, want 2", w)
	}
	_ = sim.Time(0)
}
