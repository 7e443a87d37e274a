package scenario_test

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
)

// name becomes a directory under results/: it must be one path component.
func TestNameIsOnePathComponent(t *testing.T) {
	const rest = "topology: {hosts: 3}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n"
	for _, name := range []string{`"../../x"`, `a/b`, `'a\b'`, `..`, `.`, `.hidden`, `"a\tb"`, `"x\u0007"`, `"a b"`, strings.Repeat("x", 201)} {
		_, err := scenario.Parse([]byte("name: " + name + "\n" + rest))
		if err == nil || !strings.Contains(err.Error(), "name = ") || !strings.Contains(err.Error(), "letters, digits") {
			t.Errorf("name: %s: error %v, want one naming the field and the allowed characters", name, err)
		}
	}
	for _, name := range []string{"default-incast20-paper001", "fat320_websearch.v2", "a+b", "Überlast"} {
		if _, err := scenario.Parse([]byte("name: " + name + "\n" + rest)); err != nil {
			t.Errorf("name: %s: %v", name, err)
		}
	}
}
