package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/sandbox/sandboxtest"
)

// TestRedteamBypassSandbox: in bypassPermissions, where the gate lets
// every command through, programs that write or delete by their own
// arguments (cp, dd, tee, perl, a symlink in the workspace, a file
// descriptor, rm and mv of a file outside, a shell fed by process
// substitution) still change nothing outside the workspace: the OS
// sandbox stops them. Checked on disk.
func TestRedteamBypassSandbox(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	out := sandboxtest.OutsideTemp(t, ".covey-e2e-outside-")
	keep := filepath.Join(out, "keep.txt")
	if err := os.WriteFile(keep, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commands := []string{
		"cp README.md " + out + "/cp.txt",
		"dd if=README.md of=" + out + "/dd.txt",
		"echo x | tee " + out + "/tee.txt",
		"perl -e 'open(my $f, \">\", \"" + out + "/perl.txt\") or die $!; print $f \"x\"'",
		"ln -s " + out + "/link.txt link && echo x > link",
		"exec 3>" + out + "/fd.txt; echo x >&3",
		"bash <(echo 'echo x > " + out + "/procsubst.txt')",
		"rm -f " + keep,
		"mv " + keep + " moved.txt",
		"echo lost >> " + keep,
		"mkdir " + out + "/dir",
		"git -C " + out + " init -q",
		"echo inside > inside.txt",
	}
	var calls []scripted.Call
	for _, c := range commands {
		calls = append(calls, call("bash", map[string]any{"command": c}))
	}
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: calls},
		{Text: "RED DONE"},
	}})
	r := h.run(t, "", "-p", "try to write outside", "--permission-mode", "bypassPermissions")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "precious\n" {
		t.Errorf("the file outside was changed or removed: %q %v", b, err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "keep.txt" {
			t.Errorf("%s was made outside the workspace through the sandbox", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(h.ws, "inside.txt")); err != nil {
		t.Errorf("the write inside the workspace: %v", err)
	}
}

// TestRedteamDenyHeadless: with deny bash(rm:*), a few allow rules and
// nobody to ask (-p), the spellings that got past the gate before are
// refused and change nothing on disk, while plain commands still run.
func TestRedteamDenyHeadless(t *testing.T) {
	t.Parallel()
	files := sampleFiles()
	files["victim"] = "precious\n"
	files[".covey/config.yaml"] = "permissions:\n  deny: [\"bash(rm:*)\"]\n" +
		"  allow: [\"bash(echo:*)\", \"bash(git status:*)\", \"bash(go test:*)\", \"bash(printf:*)\", \"bash(make)\", \"bash(cp:*)\", \"bash(tee:*)\"]\n"
	h := headlessRun{srv: newHeadlessRun(t).srv, ws: workspace(t, files), box: newSandbox(t)}
	refused := []string{
		"env -iS 'rm victim'",
		"time -p -- rm victim",
		"git -c core.fsmonitor='rm victim' status",
		"printf 'all:\\n\\trm victim\\n' > Makefile && make",
		"cp /bin/rm ls; PATH=.:$PATH ls victim",
		"go test -exec 'rm victim' ./...",
		"printf -v 'a[$(touch pwned)]' y",
		"echo x > ~root/pwned",
		"cp victim .git/hooks/pre-commit",
		"echo 'permissions: {allow: [bash]}' | tee .covey/config.yaml",
	}
	var calls []scripted.Call
	for _, c := range refused {
		calls = append(calls, call("bash", map[string]any{"command": c}))
	}
	calls = append(calls, call("bash", map[string]any{"command": "git status --short && echo ok > ok.txt"}))
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: calls},
		{Text: "RED DONE"},
	}})
	r := h.run(t, "", "-p", "try the deny rule", "--trust-project") // the allow rules need trust
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "victim")); err != nil || string(b) != "precious\n" {
		t.Errorf("victim was changed: %q %v", b, err)
	}
	for _, p := range []string{"pwned", "Makefile", "ls", ".git/hooks/pre-commit"} {
		if _, err := os.Stat(filepath.Join(h.ws, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, ".covey/config.yaml")); strings.Contains(string(b), "allow: [bash]") {
		t.Error("the project config was rewritten")
	}
	if _, err := os.Stat(filepath.Join(h.ws, "ok.txt")); err != nil {
		t.Errorf("the plain command did not run: %v", err)
	}
	var results []string // the tool results of the last request, in call order
	for _, e := range h.srv.Journal() {
		var rs []string
		for _, m := range e.Messages {
			if m.Role == "tool" {
				rs = append(rs, m.Content)
			}
		}
		if len(rs) > 0 {
			results = rs
		}
	}
	if len(results) != len(calls) {
		t.Fatalf("%d tool results, want %d:\n%s", len(results), len(calls), strings.Join(results, "\n---\n"))
	}
	for i, res := range results {
		refusedRes := strings.Contains(res, "not run") || strings.Contains(res, "was not allowed")
		if refusedRes != (i < len(refused)) {
			t.Errorf("call %d (%s): refused=%v: %s", i, append(refused, "git status --short && echo ok > ok.txt")[i], refusedRes, res)
		}
	}
}

// TestRedteamGitConfigEscape: in bypassPermissions the sandbox lets a
// command write the workspace's .git/config; a core.fsmonitor or filter
// set there must not run when covey itself runs git outside the sandbox
// (listing the workspace for glob and grep).
func TestRedteamGitConfigEscape(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	out := sandboxtest.OutsideTemp(t, ".covey-e2e-outside-")
	marker := filepath.Join(out, "escaped")
	h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("bash", map[string]any{"command": "git config core.fsmonitor 'touch " + marker + "; true' && " +
			"git config filter.x.clean 'touch " + marker + "-filter; cat' && echo '* filter=x' > .gitattributes && touch -d 2001-01-01 main.go"})}},
		{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.go"}), call("grep", map[string]any{"pattern": "greeting"}),
			call("list_dir", map[string]any{"path": "."})}},
		{Text: "RED DONE"},
	}})
	r := h.run(t, "", "-p", "configure git", "--permission-mode", "bypassPermissions")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(h.ws, ".git", "config"))
	if !strings.Contains(string(b), "fsmonitor") {
		t.Fatalf("the command did not set core.fsmonitor (the test proves nothing):\n%s", b)
	}
	for _, m := range []string{marker, marker + "-filter"} {
		if _, err := os.Stat(m); err == nil {
			t.Errorf("covey ran the repository's %s outside the sandbox", filepath.Base(m))
		}
	}
}
