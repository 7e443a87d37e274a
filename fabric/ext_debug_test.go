//go:build ccsimdebug

package fabric

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/workload"
)

// mustPanic runs f and checks that it panics with a message containing want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Fatalf("recovered %v, want a panic containing %q", r, want)
		}
	}()
	f()
}

// The debug build checks what switch features do with the extension: a
// write only to a value declared switch-writable, and only to packets of
// the pool.
func TestExtDebugChecks(t *testing.T) {
	n := buildNet(t, extLine(), DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1000}}, noCCCtor)
	n.SetRequirements(Requirements{Ext: ExtSpec{Words: 3, Echo: 7, SwitchWrites: 0b010}})
	v := n.SwitchView(2)
	p := n.Packet(n.alloc())
	v.SetExt(p, 1, 5)
	if n.ext[0][1] != 5 {
		t.Fatalf("write to a writable value lost: %v", n.ext[0])
	}
	mustPanic(t, "writes extension value 0", func() { v.SetExt(p, 0, 1) })
	mustPanic(t, "writes extension value 3", func() { v.SetExt(p, 3, 1) })
	mustPanic(t, "outside the pool", func() { v.Ext(&Packet{}) })
	// a run without an extension: any write is a mistake
	n2 := buildNet(t, extLine(), DefaultConfig(), nil, noCCCtor)
	mustPanic(t, "declares 0 words", func() { n2.SwitchView(2).SetExt(n2.Packet(n2.alloc()), 0, 1) })
}
