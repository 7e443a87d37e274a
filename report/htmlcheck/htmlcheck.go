// Package htmlcheck renders a report page in headless Chromium for tests:
// the page must show its tables, inline SVG figures and given texts, and a
// screenshot must not be blank. Without Chromium (Debian package chromium)
// the test is skipped with a message; .ci/run installs it.
package htmlcheck

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium returns the headless browser's path, or "" when none is
// installed.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Check renders the report in headless Chromium and checks that
// the rendered page shows its tables and inline images, and that a
// screenshot is not blank.
// Check renders page and checks it (see the package comment).
func Check(t testing.TB, page string, texts []string) {
	t.Helper()
	bin := chromium()
	if bin == "" {
		t.Skip("headless Chromium not installed (Debian package chromium); the report was not rendered. .ci/run installs it.")
	}
	abs, _ := filepath.Abs(page)
	ud := t.TempDir()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + ud}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// A browser start can fail on a loaded machine: try up to 3 times.
	var dom []byte
	var err error
	for try := 0; try < 3; try++ {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, append(args, "--dump-dom", "file://"+abs)...)
		cmd.Stderr = &stderr
		if dom, err = cmd.Output(); err == nil && len(dom) > 0 {
			break
		}
		t.Logf("chromium --dump-dom, try %d: %v\n%s", try+1, err, stderr.Bytes())
	}
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	html, _ := os.ReadFile(abs)
	count := func(b []byte, re string) int { return len(regexp.MustCompile(re).FindAll(b, -1)) }
	for _, el := range []string{`<table`, `<svg`, `<figure`} {
		if n, m := count(dom, el), count(html, el); n == 0 || n != m {
			t.Errorf("rendered page has %d %s elements, the file %d", n, el, m)
		}
	}
	for _, text := range append([]string{"Claims"}, texts...) {
		if !bytes.Contains(dom, []byte(text)) {
			t.Errorf("rendered page lacks %q", text)
		}
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	for try := 0; try < 3; try++ {
		cmd := exec.CommandContext(ctx, bin, append(args, "--window-size=1280,2000", "--screenshot="+shot, "file://"+abs)...)
		var out []byte
		if out, err = cmd.CombinedOutput(); err == nil {
			break
		}
		t.Logf("chromium --screenshot, try %d: %v\n%s", try+1, err, out)
	}
	if err != nil {
		t.Fatalf("chromium --screenshot: %v", err)
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	// A blank 1280×2000 page compresses to a few KB; one with tables and
	// plots to far more.
	if len(b) < 50_000 || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("screenshot is %d bytes: the page looks blank", len(b))
	}
	t.Logf("rendered %s in Chromium: %d bytes of DOM, screenshot %d bytes", page, len(dom), len(b))
}
