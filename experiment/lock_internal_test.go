package experiment

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A lock is exclusive while its holder touches it, and broken once it has
// not been touched for lockStale (its holder died, on any host).
func TestRunLockStaleness(t *testing.T) {
	st := &Store{Dir: t.TempDir()}
	os.MkdirAll(filepath.Join(st.Dir, RunsDir), 0o755)
	l, ok, err := st.tryLock("00ff")
	if err != nil || !ok {
		t.Fatalf("first lock: %v %v", ok, err)
	}
	if _, ok, _ := st.tryLock("00ff"); ok {
		t.Fatal("a held lock was taken again")
	}
	if !st.lockHeld("00ff") {
		t.Error("lockHeld = false for a fresh lock")
	}
	old := time.Now().Add(-lockStale - time.Second)
	os.Chtimes(st.lockPath("00ff"), old, old) // its holder stopped touching it
	if st.lockHeld("00ff") {
		t.Error("lockHeld = true for a stale lock")
	}
	l2, ok, err := st.tryLock("00ff")
	if err != nil || !ok {
		t.Fatalf("a stale lock was not broken: %v %v", ok, err)
	}
	l2.release()
	l.release()
	if _, err := os.Stat(st.lockPath("00ff")); err == nil {
		t.Error("lock left after release")
	}
}

// shardOf is stable and spreads hashes over the shards.
func TestShardOf(t *testing.T) {
	if shardOf("0000000000000005ab", 3) != 2 || shardOf("ffffffffffffffff", 1) != 0 {
		t.Errorf("shardOf: %d %d", shardOf("0000000000000005ab", 3), shardOf("ffffffffffffffff", 1))
	}
	if tempHash(".tmp-00ff-123") != "00ff" || tempHash("00ff") != "" {
		t.Error("tempHash")
	}
}
