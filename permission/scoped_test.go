package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/toolname"
)

// TestScoped checks that a scoped policy only ever restricts: calls of a
// tool restricted by patterns pass only when they match, in every mode,
// and matching calls are still decided by the session's own rules.
func TestScoped(t *testing.T) {
	scopeAllow := []string{"Bash(git diff:*)", "Bash(go test:*)", "Edit(docs/**)", "Read(src/**)", "Grep", "Glob", "mcp__gh__get_issue", "web_fetch(domain:go.dev)"}
	scopeDeny := []string{"bash(git push:*)"}
	tests := []struct {
		name  string
		mode  Mode
		allow []string // the session's allow rules
		deny  []string // the session's deny rules
		req   Request
		want  string // allow, ask or refuse (headless: ask shows as a refusal naming the scope)
	}{
		{"matching bash, session allows", ModeDefault, []string{"bash(git diff:*)"}, nil, Request{Tool: toolname.Bash, Command: "git diff HEAD"}, "allow"},
		{"matching bash, session asks", ModeDefault, nil, nil, Request{Tool: toolname.Bash, Command: "git diff HEAD"}, "ask"},
		{"matching bash in bypass", ModeBypass, nil, nil, Request{Tool: toolname.Bash, Command: "go test ./..."}, "allow"},
		{"other bash in bypass", ModeBypass, nil, nil, Request{Tool: toolname.Bash, Command: "rm -rf build"}, "scope"},
		{"other bash with a session rule", ModeDefault, []string{toolname.Bash}, nil, Request{Tool: toolname.Bash, Command: "git status"}, "scope"},
		{"pipeline half outside", ModeBypass, nil, nil, Request{Tool: toolname.Bash, Command: "git diff | wc -l"}, "scope"},
		{"scope deny", ModeBypass, nil, nil, Request{Tool: toolname.Bash, Command: "git push origin main"}, "refuse"},
		{"session deny beats scope", ModeBypass, nil, []string{"bash(go test:*)"}, Request{Tool: toolname.Bash, Command: "go test"}, "refuse"},
		{"edit inside pattern, acceptEdits", ModeAcceptEdits, nil, nil, Request{Tool: toolname.EditFile, Path: "docs/a.md"}, "allow"},
		{"edit outside pattern, acceptEdits", ModeAcceptEdits, nil, nil, Request{Tool: toolname.EditFile, Path: "src/a.go"}, "scope"},
		{"write follows edit patterns", ModeAcceptEdits, nil, nil, Request{Tool: toolname.WriteFile, Path: "main.go"}, "scope"},
		{"write inside edit patterns", ModeBypass, nil, nil, Request{Tool: toolname.WriteFile, Path: "docs/new.md"}, "allow"},
		{"mcp tool named", ModeBypass, nil, nil, Request{Tool: "mcp__gh__get_issue"}, "allow"},
		{"other mcp tool is not restricted", ModeBypass, nil, nil, Request{Tool: "mcp__gh__delete_repo"}, "allow"},
		{"fetch in domain", ModeBypass, nil, nil, Request{Tool: toolname.WebFetch, URL: "https://go.dev/doc"}, "allow"},
		{"fetch outside domain", ModeBypass, nil, nil, Request{Tool: toolname.WebFetch, URL: "https://evil.example/x"}, "scope"},
		{"redirect inside edit patterns", ModeBypass, nil, nil, Request{Tool: toolname.Bash, Command: "git diff > docs/diff.txt"}, "allow"},
		{"redirect outside edit patterns", ModeBypass, nil, nil, Request{Tool: toolname.Bash, Command: "git diff > src/x.go"}, "scope"},
		{"redirect to a computed path", ModeBypass, nil, nil, Request{Tool: toolname.Bash, Command: "git diff > \"$OUT\""}, "scope"},
		{"plan mode still refuses", ModePlan, nil, nil, Request{Tool: toolname.Bash, Command: "git diff"}, "refuse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := NewPolicy(tt.mode, mustRules(t, tt.allow, tt.deny), nil)
			base.SetWorkspace(t.TempDir())
			p, err := base.Scoped(scopeAllow, scopeDeny)
			if err != nil {
				t.Fatal(err)
			}
			v := p.Check(t.Context(), tt.req)
			asker := &fakeAsker{verdict: Verdict{Allowed: true}}
			withAsker := NewPolicy(tt.mode, mustRules(t, tt.allow, tt.deny), asker)
			withAsker.SetWorkspace(t.TempDir())
			sp, _ := withAsker.Scoped(scopeAllow, scopeDeny)
			sv := sp.Check(t.Context(), tt.req)
			switch tt.want {
			case "allow":
				if !v.Allowed || asker.asked.Load() != 0 {
					t.Errorf("headless %+v, asked %d; want allowed without asking", v, asker.asked.Load())
				}
			case "ask":
				if v.Allowed || !sv.Allowed || asker.asked.Load() != 1 {
					t.Errorf("headless %+v, with asker %+v asked %d; want asked", v, sv, asker.asked.Load())
				}
			case "scope":
				if v.Allowed || !strings.Contains(v.Reason, "agent's definition limits") {
					t.Errorf("headless %+v; want a refusal naming the agent's limits", v)
				}
				if asker.asked.Load() != 1 {
					t.Errorf("with an asker: asked %d times, want once", asker.asked.Load())
				}
			case "refuse":
				if v.Allowed || sv.Allowed || asker.asked.Load() != 0 {
					t.Errorf("headless %+v, with asker %+v asked %d; want refused without asking", v, sv, asker.asked.Load())
				}
			}
		})
	}
}

func TestScopedSharesSession(t *testing.T) {
	base := NewPolicy(ModeDefault, nil, nil)
	p, err := base.Scoped([]string{"Bash(git diff:*)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.SetMode(ModeBypass)
	if base.Mode() != ModeBypass {
		t.Error("a scoped policy's mode change should reach the session")
	}
	req := Request{Tool: toolname.Bash, Command: "make build"}
	if p.AllowedWithoutAsking(req) {
		t.Fatal("make is outside the scope")
	}
	base.Grant(req)
	if !p.AllowedWithoutAsking(req) {
		t.Error("a session grant should satisfy the scope too")
	}
	pp, err := p.Scoped([]string{"Bash(git:*)"}, []string{"bash(make:*)"})
	if err != nil {
		t.Fatal(err)
	}
	if pp.AllowedWithoutAsking(req) {
		t.Error("a nested scope's deny rule should hold")
	}
	if !base.AllowedWithoutAsking(req) {
		t.Error("scoping must not change the session's own policy")
	}
}

func TestScopedBadRules(t *testing.T) {
	base := NewPolicy(ModeDefault, nil, nil)
	if _, err := base.Scoped([]string{"Bash(go * x)"}, nil); err == nil || !strings.Contains(err.Error(), "wildcard") {
		t.Errorf("err = %v, want the bad pattern named", err)
	}
	if _, err := base.Scoped([]string{"Grep(x)"}, nil); err == nil {
		t.Error("a pattern on a tool rules do not know should be an error")
	}
	if _, err := base.Scoped([]string{"Grep", "Glob", "LS", "Bash"}, nil); err != nil {
		t.Errorf("bare tool names are accepted: %v", err)
	}
}

func TestScopedReads(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"src", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "other"), filepath.Join(root, "src", "link")); err != nil {
		t.Fatal(err)
	}
	base := NewPolicy(ModeBypass, nil, nil)
	base.SetWorkspace(root)
	p, err := base.Scoped([]string{"Read(src/**)"}, []string{"Read(src/secret/**)"})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]bool{
		"src/a.go":          true,
		"other/a.go":        false,
		"src/link/a.go":     false, // resolves into other/
		"src/secret/key":    false,
		"/etc/hostname":     false,
		"src/../other/x.go": false,
	}
	for rel, want := range tests {
		abs := filepath.Join(root, rel)
		if filepath.IsAbs(rel) {
			abs = rel
		}
		if got := p.AllowRead(abs); got != want {
			t.Errorf("AllowRead(%s) = %v, want %v", rel, got, want)
		}
	}
	if !base.AllowRead(filepath.Join(root, "other/a.go")) {
		t.Error("the session's own policy is not restricted by a scope")
	}
}

// TestOtherTools: rules for tools the gate does not know statically (MCP
// tools, web_fetch by domain).
func TestOtherTools(t *testing.T) {
	tests := []struct {
		name        string
		allow, deny []string
		req         Request
		want        string
	}{
		{"mcp server bare", []string{"mcp__gh"}, nil, Request{Tool: "mcp__gh__list"}, "allow"},
		{"mcp server star", []string{"mcp__gh__*"}, nil, Request{Tool: "mcp__gh__list"}, "allow"},
		{"mcp exact", []string{"mcp__gh__list"}, nil, Request{Tool: "mcp__gh__list"}, "allow"},
		{"mcp exact other tool", []string{"mcp__gh__list"}, nil, Request{Tool: "mcp__gh__delete"}, "ask"},
		{"mcp server prefix is not a name prefix", []string{"mcp__gh"}, nil, Request{Tool: "mcp__ghx__list"}, "ask"},
		{"mcp deny server", []string{"mcp__gh"}, []string{"mcp__gh__delete"}, Request{Tool: "mcp__gh__delete"}, "refuse"},
		{"fetch domain", []string{"WebFetch(domain:go.dev)"}, nil, Request{Tool: toolname.WebFetch, URL: "https://go.dev/x"}, "allow"},
		{"fetch domain case and port", []string{"web_fetch(domain:go.dev)"}, nil, Request{Tool: toolname.WebFetch, URL: "https://GO.dev.:443/x"}, "allow"},
		{"fetch subdomain needs star", []string{"web_fetch(domain:go.dev)"}, nil, Request{Tool: toolname.WebFetch, URL: "https://pkg.go.dev/x"}, "ask"},
		{"fetch star subdomain", []string{"web_fetch(domain:*.go.dev)"}, nil, Request{Tool: toolname.WebFetch, URL: "https://pkg.go.dev/x"}, "allow"},
		{"fetch lookalike", []string{"web_fetch(domain:*.go.dev)"}, nil, Request{Tool: toolname.WebFetch, URL: "https://evilgo.dev/x"}, "ask"},
		{"fetch userinfo trick", []string{"web_fetch(domain:go.dev)"}, nil, Request{Tool: toolname.WebFetch, URL: "https://go.dev@evil.example/x"}, "ask"},
		{"fetch deny", []string{toolname.WebFetch}, []string{"web_fetch(domain:evil.example)"}, Request{Tool: toolname.WebFetch, URL: "http://evil.example/"}, "refuse"},
		{"fetch bad url under deny", []string{toolname.WebFetch}, []string{"web_fetch(domain:evil.example)"}, Request{Tool: toolname.WebFetch, URL: "::nope"}, "refuse"},
		{"task bare", []string{toolname.Task}, nil, Request{Tool: toolname.Task}, "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(ModeDefault, mustRules(t, tt.allow, tt.deny), nil)
			k, _ := p.decide(tt.req)
			got := map[verdictKind]string{kindAllow: "allow", kindAsk: "ask", kindRefuse: "refuse"}[k]
			if got != tt.want {
				t.Errorf("decide = %s, want %s", got, tt.want)
			}
		})
	}
	grants := map[string]Request{
		"web_fetch(domain:go.dev)": {Tool: toolname.WebFetch, URL: "https://go.dev/doc"},
		"mcp__gh__list":            {Tool: "mcp__gh__list"},
	}
	for want, req := range grants {
		if got := SessionGrantRules(req); len(got) != 1 || got[0] != want {
			t.Errorf("SessionGrantRules(%+v) = %q, want %q", req, got, want)
		}
		p := NewPolicy(ModeDefault, nil, nil)
		p.Grant(req)
		if !p.AllowedWithoutAsking(req) {
			t.Errorf("%+v not allowed after its grant", req)
		}
	}
}

// TestWorktreeChildRedirects: a child working in a git worktree under
// .git/ may redirect into its own files, not into .git or .covey.
func TestWorktreeChildRedirects(t *testing.T) {
	root := t.TempDir()
	wt := filepath.Join(root, ".git", "covey-worktrees", "child-1")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(ModeDefault, mustRules(t, []string{"bash(go test:*)"}, nil), nil)
	p.SetWorkspace(root)
	for cmd, want := range map[string]bool{
		"go test ./... > out.txt":      true,
		"go test > sub/out.txt":        true,
		"go test > .covey/config.yaml": false,
		"go test > ../../hooks/x":      false,
		"go test > ../../../.covey/x":  false,
		"go test > ../../../src/x.go":  true,
	} {
		if got := p.AllowedWithoutAsking(Request{Tool: toolname.Bash, Command: cmd, Dir: wt}); got != want {
			t.Errorf("%q from a worktree: allowed %v, want %v", cmd, got, want)
		}
	}
}

// TestMapReads: a child's worktree is judged as the workspace it copies.
func TestMapReads(t *testing.T) {
	root, wt, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(wt, "escape")); err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(ModeDefault, mustRules(t, nil, []string{"Read(.env)"}), nil)
	p.SetWorkspace(root)
	read := MapReads(wt, root, p.AllowRead)
	for path, want := range map[string]bool{
		filepath.Join(wt, "src/a.go"):      true,
		filepath.Join(wt, ".env"):          false,
		filepath.Join(wt, "escape/x"):      false,
		filepath.Join(root, "src/a.go"):    true,
		filepath.Join(outside, "anything"): false,
	} {
		if got := read(path); got != want {
			t.Errorf("read %s = %v, want %v", path, got, want)
		}
	}
	if p.AllowRead(filepath.Join(wt, "src/a.go")) {
		t.Error("without mapping, the worktree is outside the workspace")
	}
}
