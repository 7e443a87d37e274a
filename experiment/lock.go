package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Run locks: several processes may reproduce into one result tree (two
// shells, or the tasks of a Slurm array on a shared file system, issue 19
// §1). A process runs a run only while it holds the run's lock, a file
// runs/.lock-HASH created exclusively (O_EXCL, atomic on local and NFS v3+
// file systems) and kept fresh by touching it every lockBeat; a lock not
// touched for lockStale is taken to belong to a process that died (on any
// host, so no process ids are compared) and is broken. Without locks two
// processes ran every run twice.

// Lock timing: a holder touches its lock every lockBeat; a lock untouched
// for lockStale is broken.
var (
	lockBeat  = 20 * time.Second
	lockStale = 2 * time.Minute
)

// lockPath is the lock file of run hash.
func (st *Store) lockPath(hash string) string {
	return filepath.Join(st.Dir, RunsDir, ".lock-"+hash)
}

// runLock is a held lock: release removes it and stops its heartbeat.
type runLock struct {
	path string
	stop chan struct{}
	once sync.Once
	done chan struct{}
}

// tryLock takes the lock of run hash if no live process holds it; ok is
// false when another one does.
func (st *Store) tryLock(hash string) (l *runLock, ok bool, err error) {
	path := st.lockPath(hash)
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			host, _ := os.Hostname()
			fmt.Fprintf(f, "%s %d %s\n", host, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
			f.Close()
			l := &runLock{path: path, stop: make(chan struct{}), done: make(chan struct{})}
			go l.beat()
			return l, true, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, false, err
		}
		if !lockIsStale(path) {
			return nil, false, nil
		}
		os.Remove(path) // a dead holder's: break it, and try once more
	}
	return nil, false, nil
}

// lockIsStale reports whether the lock at path was not touched for
// lockStale (or vanished).
func lockIsStale(path string) bool {
	info, err := os.Stat(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return time.Since(info.ModTime()) > lockStale
}

// lockHeld reports whether a live process holds run hash's lock.
func (st *Store) lockHeld(hash string) bool {
	_, err := os.Stat(st.lockPath(hash))
	return err == nil && !lockIsStale(st.lockPath(hash))
}

// beat touches the lock every lockBeat until release.
func (l *runLock) beat() {
	defer close(l.done)
	t := time.NewTicker(lockBeat)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			os.Chtimes(l.path, now, now)
		}
	}
}

// release stops the heartbeat and removes the lock.
func (l *runLock) release() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		os.Remove(l.path)
	})
}

// tempHash is HASH of a temporary run directory ".tmp-HASH-...".
func tempHash(name string) string {
	rest, ok := strings.CutPrefix(name, ".tmp-")
	if !ok {
		return ""
	}
	h, _, _ := strings.Cut(rest, "-")
	return h
}

// shardOf is the shard (0 ≤ shard < n) of run hash: its first 16 hex
// digits modulo n, a stable assignment that needs no coordination.
func shardOf(hash string, n int) int {
	v, err := strconv.ParseUint(hash[:min(16, len(hash))], 16, 64)
	if err != nil || n <= 1 {
		return 0
	}
	return int(v % uint64(n))
}
