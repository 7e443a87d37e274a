package topo

import (
	"slices"
	"strings"
	"testing"
)

func TestGraphDomainsAndRoles(t *testing.T) {
	g := Star(2, 100e9, 1000)
	if g.Domain(0) != 0 || g.Role(2) != "" || g.NodesWithRole("tor") != nil {
		t.Fatal("a graph without domains or roles must report domain 0 and no role")
	}
	g.Domains = []uint16{1, 2, 1}
	g.Roles = []string{"host", "host", "tor"}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Domain(1) != 2 || g.Domain(2) != 1 || g.Role(2) != "tor" || !slices.Equal(g.NodesWithRole("host"), []int{0, 1}) {
		t.Fatalf("domains %v roles %v read back wrong", g.Domains, g.Roles)
	}
	g.Domains = []uint16{1}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "1 domains for 3 nodes") {
		t.Fatalf("short Domains: err = %v", err)
	}
	g.Domains = nil
	g.Roles = []string{"x"}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "1 roles for 3 nodes") {
		t.Fatalf("short Roles: err = %v", err)
	}
}
