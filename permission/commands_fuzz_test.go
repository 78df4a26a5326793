package permission

import (
	"strings"
	"testing"
	"unicode/utf8"

	"covey/tools/toolname"

	"covey/permission/shell"
)

// FuzzShellParse checks that the parser never panics, that quoting any
// text as one argument round-trips, and the property the gate rests on: a
// line made only of allowed commands joined by && is allowed, and
// appending && rm -rf / makes it not allowed.
func FuzzShellParse(f *testing.F) {
	for _, s := range []string{
		"go test ./...", "a && b || c; d | e & f\ng", "echo $(a `b` <(c))", `echo "a && b" 'x; y' a\;b`,
		"A=$(x) go test", "cat <<EOF\n$(x)\nEOF", "cat <<'E'\nbody\nE", "{ a; b; } > out", "(a) 2>&1",
		"if a; then b; fi", "for x in 1; do y; done", "echo ${x:-y}", "echo $'a\\tb'", "echo $((1))",
		"go test # && rm", "echo 'open", `echo "\"`, "f() { x; }", "a\\\nb", "\x00\xff", "case x in a) b;; esac",
	} {
		f.Add(s)
	}
	rs, err := ParseRules([]string{"bash(echo:*)"}, []string{"bash(rm:*)"})
	if err != nil {
		f.Fatal(err)
	}
	p := NewPolicy(ModeDefault, rs, nil)
	allow, _ := ParseRules([]string{"bash(echo:*)"}, nil)
	onlyAllow := NewPolicy(ModeDefault, allow, nil)
	f.Fuzz(func(t *testing.T, s string) {
		_ = shell.Analyse(s) // must not panic
		_ = SessionGrantRules(Request{Tool: toolname.Bash, Command: s})
		_ = p.AllowedWithoutAsking(Request{Tool: toolname.Bash, Command: s})

		// Every piece of s becomes one quoted argument of an allowed echo
		// (bash words hold no NUL byte, the parser reads UTF-8, and a
		// carriage return makes a line unanalysable on purpose).
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\r") {
			return
		}
		var parts []string
		for _, piece := range strings.SplitN(s, "|", 4) {
			parts = append(parts, "echo "+quoteWord(piece))
		}
		line := strings.Join(parts, " && ")
		l := shell.Analyse(line)
		if l.Err != nil || len(l.Unknown) > 0 {
			t.Fatalf("shell.Analyse(%q): %v %q", line, l.Err, l.Unknown)
		}
		cmds := l.Cmds
		if len(cmds) != len(parts) {
			t.Fatalf("shell.Analyse(%q) found %d commands, want %d", line, len(cmds), len(parts))
		}
		for i, piece := range strings.SplitN(s, "|", 4) {
			if got := cmds[i].Args; len(got) != 2 || got[1] != piece {
				t.Fatalf("argument %d of %q = %q, want %q", i, line, got, piece)
			}
		}
		req := Request{Tool: toolname.Bash, Command: line}
		if !p.AllowedWithoutAsking(req) {
			t.Fatalf("%q should be allowed by bash(echo:*)", line)
		}
		bad := Request{Tool: toolname.Bash, Command: line + " && rm -rf /"}
		if p.AllowedWithoutAsking(bad) {
			t.Fatalf("%q must not be allowed", bad.Command)
		}
		if v := p.Check(t.Context(), bad); v.Allowed || !strings.Contains(v.Reason, "bash(rm:*)") {
			t.Fatalf("%q: %+v, want denied by bash(rm:*)", bad.Command, v)
		}
		if onlyAllow.AllowedWithoutAsking(bad) {
			t.Fatalf("%q must not be allowed without a deny rule either", bad.Command)
		}
	})
}
