package mcp

import (
	"strings"
	"testing"
)

// TestTailWriterIsTermSafe checks that a server's stderr lines, which covey
// mcp list, headless and the TUI show, carry no escape sequences (a server
// could hide the cursor or set the title), finished lines and the
// unfinished last one alike.
func TestTailWriterIsTermSafe(t *testing.T) {
	w := newTailWriter(5)
	_, _ = w.Write([]byte("boom \x1b[?25l\x1b]0;PWN\x07 end\r\nstill \x1b[2J"))
	got := w.lines()
	if want := []string{"boom  end", "still"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q, want %q", got, want)
	}
}
