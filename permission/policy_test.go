package permission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"covey/tools/toolname"
)

// fakeAsker answers every question with verdict and counts the questions.
type fakeAsker struct {
	verdict Verdict
	asked   atomic.Int32
}

func (a *fakeAsker) Ask(_ context.Context, _ Request) Verdict {
	a.asked.Add(1)
	return a.verdict
}

func mustRules(t *testing.T, allow, deny []string) *Rules {
	t.Helper()
	rs, err := ParseRules(allow, deny)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestPolicyModes(t *testing.T) {
	reqs := map[string]Request{
		"edit":        {Tool: toolname.EditFile, Path: "a.go"},
		"write":       {Tool: toolname.WriteFile, Path: "b.go"},
		toolname.Bash: {Tool: toolname.Bash, Command: "go test ./..."},
		"read":        {Tool: toolname.ReadFile, Path: "a.go"},
	}
	tests := []struct {
		mode Mode
		want map[string]string // "allow", "ask" or "refuse"
	}{
		{ModeDefault, map[string]string{"edit": "ask", "write": "ask", toolname.Bash: "ask", "read": "allow"}},
		{ModeAcceptEdits, map[string]string{"edit": "allow", "write": "allow", toolname.Bash: "ask", "read": "allow"}},
		{ModePlan, map[string]string{"edit": "refuse", "write": "refuse", toolname.Bash: "refuse", "read": "allow"}},
		{ModeBypass, map[string]string{"edit": "allow", "write": "allow", toolname.Bash: "allow", "read": "allow"}},
		{Mode("bogus"), map[string]string{"edit": "ask", "write": "ask", toolname.Bash: "ask", "read": "allow"}},
	}
	for _, tt := range tests {
		for name, req := range reqs {
			t.Run(string(tt.mode)+"/"+name, func(t *testing.T) {
				asker := &fakeAsker{verdict: Verdict{Allowed: true}}
				p := NewPolicy(tt.mode, nil, asker)
				p.SetWorkspace(t.TempDir())
				v := p.Check(t.Context(), req)
				got := "refuse"
				switch {
				case v.Allowed && asker.asked.Load() == 1:
					got = "ask"
				case v.Allowed && asker.asked.Load() == 0:
					got = "allow"
				}
				if got != tt.want[name] {
					t.Errorf("%s in mode %s: %s (%+v), want %s", name, tt.mode, got, v, tt.want[name])
				}
				if got == "refuse" && !strings.Contains(v.Reason, "plan") {
					t.Errorf("plan refusal %q should say why", v.Reason)
				}
			})
		}
	}
}

func TestPolicyOrder(t *testing.T) {
	rs := mustRules(t, []string{"bash(go test:*)", "edit_file(docs/**)"}, []string{"bash(rm:*)", "edit_file(docs/secret.md)"})
	tests := []struct {
		name  string
		mode  Mode
		req   Request
		allow bool
		want  string // in the reason
	}{
		{"plan beats allow rule", ModePlan, Request{Tool: toolname.Bash, Command: "go test"}, false, "plan"},
		{"plan beats allow rule for edits", ModePlan, Request{Tool: toolname.EditFile, Path: "docs/a.md"}, false, "plan"},
		{"deny beats bypass", ModeBypass, Request{Tool: toolname.Bash, Command: "rm -rf /"}, false, "bash(rm:*)"},
		{"deny beats acceptEdits", ModeAcceptEdits, Request{Tool: toolname.WriteFile, Path: "docs/secret.md"}, false, "edit_file(docs/secret.md)"},
		{"deny beats allow glob", ModeDefault, Request{Tool: toolname.EditFile, Path: "docs/secret.md"}, false, "permissions.deny"},
		{"allow rule without asking", ModeDefault, Request{Tool: toolname.EditFile, Path: "docs/a.md"}, true, ""},
		{"allow rule for command", ModeDefault, Request{Tool: toolname.Bash, Command: "go test -run X"}, true, ""},
		{"headless refusal", ModeDefault, Request{Tool: toolname.Bash, Command: "go vet"}, false, "headless"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewPolicy(tt.mode, rs, nil).Check(t.Context(), tt.req)
			if v.Allowed != tt.allow || !strings.Contains(v.Reason, tt.want) {
				t.Errorf("Check = %+v, want allowed %v with reason containing %q", v, tt.allow, tt.want)
			}
		})
	}
}

func TestHeadlessReason(t *testing.T) {
	rs := mustRules(t, []string{"bash(go test:*)"}, nil)
	tests := []struct {
		name string
		mode Mode
		req  Request
		want []string
		not  []string
	}{
		{"command", ModeDefault, Request{Tool: toolname.Bash, Command: "npm install left-pad"},
			[]string{`bash "npm install left-pad"`, "headless", "permission mode default", "--permission-mode bypassPermissions", `"bash(npm install:*)"`, "permissions.allow", ".covey/config.yaml"}, nil},
		{"only the missing parts", ModeAcceptEdits, Request{Tool: toolname.Bash, Command: "go test ./... && curl -s x | jq ."},
			[]string{`"bash(curl:*)" and "bash(jq:*)"`, "permission mode acceptEdits"}, []string{"go test:*"}},
		{"unknown command", ModeDefault, Request{Tool: toolname.Bash, Command: "x=ls; $x"},
			[]string{"cannot tell what this line runs", "command name $x is computed", "bypassPermissions", "bare rule bash"}, nil},
		{"edit", ModeDefault, Request{Tool: toolname.EditFile, Path: "docs/guide.md"},
			[]string{"edit_file docs/guide.md", "--permission-mode acceptEdits", "edit_file(docs/guide.md)", "edit_file(docs/**)", "config.yaml"}, nil},
		{"write at the top", ModeDefault, Request{Tool: toolname.WriteFile, Path: "main.go"},
			[]string{"write_file(main.go)", "write_file(**)"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewPolicy(tt.mode, rs, nil).Check(t.Context(), tt.req)
			if v.Allowed {
				t.Fatal("a headless policy allowed a request it should ask about")
			}
			for _, w := range tt.want {
				if !strings.Contains(v.Reason, w) {
					t.Errorf("reason %q lacks %q", v.Reason, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(v.Reason, w) {
					t.Errorf("reason %q should not mention %q", v.Reason, w)
				}
			}
		})
	}
}

func TestHeadlessGateIsAPolicy(t *testing.T) {
	tests := []struct {
		mode  Mode
		req   Request
		allow bool
	}{
		{ModeAcceptEdits, Request{Tool: toolname.EditFile, Path: "a"}, true},
		{ModeAcceptEdits, Request{Tool: toolname.Bash, Command: "ls"}, false},
		{ModeBypass, Request{Tool: toolname.Bash, Command: "ls"}, true},
		{ModeDefault, Request{Tool: toolname.WriteFile, Path: "a"}, false},
		{ModePlan, Request{Tool: toolname.WriteFile, Path: "a"}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.mode, tt.req.Tool), func(t *testing.T) {
			v := HeadlessGate{Mode: tt.mode}.Check(t.Context(), tt.req)
			if v.Allowed != tt.allow || (!v.Allowed && v.Reason == "") {
				t.Errorf("HeadlessGate{%s}.Check(%+v) = %+v, want allowed %v with a reason when refused", tt.mode, tt.req, v, tt.allow)
			}
		})
	}
}

func TestAskerVerdicts(t *testing.T) {
	edited := "edited by the user"
	tests := []struct {
		name    string
		answer  Verdict
		want    Verdict
		content bool
	}{
		{"allowed", Verdict{Allowed: true}, Verdict{Allowed: true}, false},
		{"allowed with edits", Verdict{Allowed: true, Content: &edited}, Verdict{Allowed: true, Content: &edited}, true},
		{"refused with feedback", Verdict{Reason: "use the helper in util.go instead"}, Verdict{Reason: "use the helper in util.go instead"}, false},
		{"refused silently", Verdict{}, Verdict{Reason: "the user declined; ask what they would like instead"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asker := &fakeAsker{verdict: tt.answer}
			v := NewPolicy(ModeDefault, nil, asker).Check(t.Context(), Request{Tool: toolname.WriteFile, Path: "a.go", Content: "x"})
			if v.Allowed != tt.want.Allowed || v.Reason != tt.want.Reason || (v.Content != nil) != tt.content {
				t.Errorf("Check = %+v, want %+v", v, tt.want)
			}
			if tt.content && *v.Content != edited {
				t.Errorf("content %q, want the user's edit", *v.Content)
			}
			if asker.asked.Load() != 1 {
				t.Errorf("asked %d times, want 1", asker.asked.Load())
			}
		})
	}
}

// blockingAsker signals each question on started, then answers only when
// release closes (ignoring ctx when ignoreCtx is set).
type blockingAsker struct {
	started   chan Request
	release   chan struct{}
	ignoreCtx bool
	onAsk     func(Request) Verdict
}

func (a *blockingAsker) Ask(ctx context.Context, req Request) Verdict {
	a.started <- req
	if a.ignoreCtx {
		<-a.release
	} else {
		select {
		case <-a.release:
		case <-ctx.Done():
			return Verdict{Allowed: true} // a misbehaving UI: Check must still refuse
		}
	}
	if a.onAsk != nil {
		return a.onAsk(req)
	}
	return Verdict{Allowed: true}
}

func TestCheckCancelled(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("asker ignores ctx %v", ignore), func(t *testing.T) {
			asker := &blockingAsker{started: make(chan Request, 1), release: make(chan struct{}), ignoreCtx: ignore}
			defer close(asker.release)
			p := NewPolicy(ModeDefault, nil, asker)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan Verdict, 1)
			go func() { done <- p.Check(ctx, Request{Tool: toolname.Bash, Command: "ls"}) }()
			<-asker.started
			cancel()
			if v := <-done; v.Allowed || v.Reason != "cancelled by the user" {
				t.Errorf("Check = %+v, want a refusal \"cancelled by the user\"", v)
			}
		})
	}
	t.Run("already cancelled", func(t *testing.T) {
		asker := &fakeAsker{verdict: Verdict{Allowed: true}}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		v := NewPolicy(ModeBypass, nil, asker).Check(ctx, Request{Tool: toolname.Bash, Command: "ls"})
		if v.Allowed || asker.asked.Load() != 0 {
			t.Errorf("Check = %+v after %d questions, want a refusal without asking", v, asker.asked.Load())
		}
	})
}

func TestAskerPanicRefuses(t *testing.T) {
	p := NewPolicy(ModeDefault, nil, askerFunc(func(context.Context, Request) Verdict { panic("boom") }))
	if v := p.Check(t.Context(), Request{Tool: toolname.Bash, Command: "ls"}); v.Allowed || !strings.Contains(v.Reason, "boom") {
		t.Errorf("Check = %+v, want a refusal mentioning the panic", v)
	}
}

type askerFunc func(context.Context, Request) Verdict

func (f askerFunc) Ask(ctx context.Context, req Request) Verdict { return f(ctx, req) }

// TestGrantSettlesQueuedQuestion: while one question is open, a second
// request waits its turn; the first answer's session grant then allows it
// without a second question.
func TestGrantSettlesQueuedQuestion(t *testing.T) {
	var p *Policy
	asker := &blockingAsker{started: make(chan Request, 2), release: make(chan struct{})}
	asker.onAsk = func(req Request) Verdict {
		p.Grant(req)
		return Verdict{Allowed: true}
	}
	p = NewPolicy(ModeDefault, nil, asker)
	first := make(chan Verdict, 1)
	go func() { first <- p.Check(t.Context(), Request{Tool: toolname.Bash, Command: "go test ./a"}) }()
	<-asker.started
	second := make(chan Verdict, 1)
	go func() {
		second <- p.Check(t.Context(), Request{Tool: toolname.Bash, Command: "go test ./b", AgentID: "child-1"})
	}()
	close(asker.release)
	if v := <-first; !v.Allowed {
		t.Errorf("first = %+v", v)
	}
	if v := <-second; !v.Allowed {
		t.Errorf("second = %+v", v)
	}
	if n := len(asker.started); n != 0 {
		t.Errorf("the user was asked %d more times, want none", n)
	}
}

func TestGrants(t *testing.T) {
	rs := mustRules(t, nil, []string{"bash(rm -rf /:*)", "edit_file(.env)"})
	tests := []struct {
		name    string
		grant   Request
		rules   []string
		allowed []Request
		asked   []Request
	}{
		{"command prefix", Request{Tool: toolname.Bash, Command: "go test ./pkg/..."}, []string{"bash(go test:*)"},
			[]Request{{Tool: toolname.Bash, Command: "go test ./other -run X"}, {Tool: toolname.Bash, Command: "go test"}},
			[]Request{{Tool: toolname.Bash, Command: "go vet ./..."}, {Tool: toolname.Bash, Command: "go testify"}}},
		{"first word", Request{Tool: toolname.Bash, Command: "ls -la src"}, []string{"bash(ls:*)"},
			[]Request{{Tool: toolname.Bash, Command: "ls"}}, []Request{{Tool: toolname.Bash, Command: "lsof"}}},
		{"compound", Request{Tool: "bash", Command: "go build ./... && ./bin/app --help | head -5"},
			[]string{"bash(go build:*)", "bash(./bin/app:*)", "bash(head:*)"},
			// (not go build -o x: -o is a write, judged against a workspace this policy lacks)
			[]Request{{Tool: toolname.Bash, Command: "go build -v . ; head x"}}, nil},
		{"destructive exact", Request{Tool: toolname.Bash, Command: "rm -rf build"}, []string{"bash(rm -rf build)"},
			[]Request{{Tool: toolname.Bash, Command: "rm  -rf build"}}, []Request{{Tool: toolname.Bash, Command: "rm -rf src"}}},
		{"interpreter exact", Request{Tool: toolname.Bash, Command: "python3 -c 'print(1)'"}, []string{"bash(python3 -c 'print(1)')"},
			[]Request{{Tool: toolname.Bash, Command: `python3 -c "print(1)"`}}, []Request{{Tool: toolname.Bash, Command: "python3 evil.py"}}},
		// A line covey cannot see through is granted as exactly that line;
		// with a bash deny rule in force it is refused all the same.
		{"unknown line", Request{Tool: toolname.Bash, Command: "echo $((x+1))"}, []string{"bash(echo $((x+1)))"},
			nil, []Request{{Tool: toolname.Bash, Command: "echo $((x+2))"}}},
		{"loop line", Request{Tool: toolname.Bash, Command: "for f in *.go; do gofmt -l $f; done"},
			[]string{"bash(gofmt:*)"},
			[]Request{{Tool: toolname.Bash, Command: "for f in *.go; do gofmt -l $f; done"}, {Tool: toolname.Bash, Command: "gofmt -w x.go"}},
			[]Request{{Tool: toolname.Bash, Command: "for f in *.go; do rm $f; done"}}},
		{"file", Request{Tool: toolname.EditFile, Path: "docs/a.md"}, []string{"edit_file(docs/a.md)"},
			[]Request{{Tool: toolname.EditFile, Path: "./docs/a.md"}},
			[]Request{{Tool: toolname.EditFile, Path: "docs/b.md"}, {Tool: toolname.WriteFile, Path: "docs/a.md"}}},
		{"file with glob characters", Request{Tool: toolname.WriteFile, Path: "a[1].txt"}, []string{`write_file(a\[1\].txt)`},
			[]Request{{Tool: toolname.WriteFile, Path: "a[1].txt"}}, []Request{{Tool: toolname.WriteFile, Path: "a1.txt"}}},
		{"grant never beats deny", Request{Tool: toolname.Bash, Command: "rm -rf /"}, []string{"bash(rm -rf /)"},
			nil, nil},
		{"file grant never beats deny", Request{Tool: toolname.EditFile, Path: ".env"}, []string{"edit_file(.env)"},
			nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(ModeDefault, rs, nil)
			if got := SessionGrantRules(tt.grant); strings.Join(got, " ; ") != strings.Join(tt.rules, " ; ") {
				t.Errorf("SessionGrantRules = %q, want %q", got, tt.rules)
			}
			if got := p.Grant(tt.grant); strings.Join(got, " ; ") != strings.Join(tt.rules, " ; ") {
				t.Errorf("Grant = %q, want %q", got, tt.rules)
			}
			if got := p.Grants(); len(got) != len(tt.rules) {
				t.Errorf("Grants = %q", got)
			}
			if _, denied := p.decide(tt.grant); denied == "" && !p.AllowedWithoutAsking(tt.grant) {
				t.Errorf("the granted request itself is not allowed")
			}
			for _, req := range tt.allowed {
				if !p.AllowedWithoutAsking(req) {
					t.Errorf("%+v should pass after the grant", req)
				}
			}
			for _, req := range tt.asked {
				if p.AllowedWithoutAsking(req) {
					t.Errorf("%+v should still be asked about", req)
				}
			}
		})
	}
	t.Run("exact line grant without deny rules", func(t *testing.T) {
		p := NewPolicy(ModeDefault, nil, nil)
		p.Grant(Request{Tool: toolname.Bash, Command: "echo $((x+1))"})
		if !p.AllowedWithoutAsking(Request{Tool: toolname.Bash, Command: " echo $((x+1)) "}) {
			t.Error("the granted line should pass")
		}
		if p.AllowedWithoutAsking(Request{Tool: toolname.Bash, Command: "echo $((x+2))"}) {
			t.Error("another line should still be asked about")
		}
	})
	t.Run("deny still refuses after grant", func(t *testing.T) {
		p := NewPolicy(ModeDefault, rs, nil)
		p.Grant(Request{Tool: toolname.Bash, Command: "rm -rf /"})
		if v := p.Check(t.Context(), Request{Tool: toolname.Bash, Command: "rm -rf /"}); v.Allowed || !strings.Contains(v.Reason, "permissions.deny") {
			t.Errorf("Check = %+v, want the deny rule's refusal", v)
		}
	})
}

// TestGrantRulesRoundTrip: a prefix or exact rule suggested for a grant,
// pasted into the config, allows the command it was made for.
func TestGrantRulesRoundTrip(t *testing.T) {
	for _, cmd := range []string{
		"go test ./...", "ls -la", "python3 -c 'print(\"hi\")'", "npm run build", "git commit -m 'fix: a b'",
		`./x.sh "it's"`, "echo 'a'\\''b' | tr a b", "FOO=1 make build", "if go test; then go vet; fi",
	} {
		t.Run(cmd, func(t *testing.T) {
			rules := SessionGrantRules(Request{Tool: toolname.Bash, Command: cmd})
			rs, err := ParseRules(rules, nil)
			if err != nil {
				t.Fatalf("suggested rules %q do not parse: %v", rules, err)
			}
			if !NewPolicy(ModeDefault, rs, nil).AllowedWithoutAsking(Request{Tool: toolname.Bash, Command: cmd}) {
				t.Errorf("rules %q do not allow %q", rules, cmd)
			}
		})
	}
}

func TestAllowRead(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := filepath.Join(home, "proj")
	for _, d := range []string{root, filepath.Join(home, "notes"), filepath.Join(home, "secret"), filepath.Join(home, "shared")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link inside an allowed folder must not lead a read out of it.
	if err := os.Symlink(filepath.Join(home, "secret"), filepath.Join(home, "notes", "link")); err != nil {
		t.Fatal(err)
	}
	// A link inside the workspace pointing out of it is a read outside.
	if err := os.Symlink(filepath.Join(home, "secret"), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	rs := mustRules(t, []string{"read_file(~/notes/**)", "Read(../shared/**)", "read_file(**)"}, []string{"Read(.env)", "read_file(~/notes/private/**)"})
	tests := []struct {
		name string
		mode Mode
		path string
		want bool
	}{
		{"inside", ModeDefault, filepath.Join(root, "main.go"), true},
		{"inside in plan mode", ModePlan, filepath.Join(root, "main.go"), true},
		{"inside but denied", ModeBypass, filepath.Join(root, ".env"), false},
		{"home rule", ModeDefault, filepath.Join(home, "notes", "todo.md"), true},
		{"home rule deep", ModeDefault, filepath.Join(home, "notes", "a", "b.md"), true},
		{"home rule denied part", ModeDefault, filepath.Join(home, "notes", "private", "x"), false},
		{"outside without rule", ModeDefault, filepath.Join(home, "secret", "key"), false},
		{"relative globstar stays inside", ModeDefault, "/etc/passwd", false},
		{"climbing relative rule", ModeDefault, filepath.Join(home, "shared", "x.txt"), true},
		{"link out of allowed folder", ModeDefault, filepath.Join(home, "notes", "link", "key"), false},
		{"link out of workspace", ModeDefault, filepath.Join(root, "out", "key"), false},
		{"link out of workspace in bypass", ModeBypass, filepath.Join(root, "out", "key"), true},
		{"bypass", ModeBypass, "/etc/passwd", true},
		{"relative path refused", ModeBypass, "main.go", false},
		{"empty path", ModeBypass, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(tt.mode, rs, nil)
			p.SetWorkspace(root)
			if got := p.AllowRead(tt.path); got != tt.want {
				t.Errorf("AllowRead(%s) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
	t.Run("grant", func(t *testing.T) {
		p := NewPolicy(ModeDefault, rs, nil)
		p.SetWorkspace(root)
		key := filepath.Join(home, "secret", "key")
		p.Grant(Request{Tool: toolname.ReadFile, Path: key})
		if !p.AllowRead(key) || p.AllowRead(filepath.Join(home, "secret", "other")) {
			t.Error("a read grant should allow exactly its file")
		}
	})
}

// TestConcurrentModeChanges cycles the mode while requests are decided
// and granted; run with -race. A deny rule must hold in every mode.
func TestConcurrentModeChanges(t *testing.T) {
	rs := mustRules(t, []string{"bash(go test:*)"}, []string{"bash(rm:*)"})
	p := NewPolicy(ModeDefault, rs, &fakeAsker{verdict: Verdict{Allowed: true}})
	var wg sync.WaitGroup
	var denyLeaks atomic.Int32
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				switch g {
				case 0:
					if i%2 == 0 {
						p.SetMode(Modes[i%len(Modes)])
					} else {
						p.CycleMode()
					}
				case 1:
					if p.Check(t.Context(), Request{Tool: toolname.Bash, Command: "go test && rm -rf ~"}).Allowed {
						denyLeaks.Add(1)
					}
				case 2:
					p.Grant(Request{Tool: toolname.Bash, Command: fmt.Sprintf("tool%d run", i)})
					_ = p.Grants()
				default:
					_ = p.Mode()
					_ = p.AllowedWithoutAsking(Request{Tool: toolname.EditFile, Path: "a.go"})
					_ = p.Check(t.Context(), Request{Tool: toolname.EditFile, Path: "a.go"})
				}
			}
		})
	}
	wg.Wait()
	if n := denyLeaks.Load(); n > 0 {
		t.Errorf("a denied command was allowed %d times", n)
	}
	if got := len(p.Grants()); got != 200 {
		t.Errorf("%d grants recorded, want 200", got)
	}
}

func BenchmarkPolicyCheck(b *testing.B) {
	rs, err := ParseRules(
		[]string{"bash(go test:*)", "bash(go vet:*)", "bash(go build:*)", "bash(ls:*)", "bash(cat:*)", "bash(grep:*)", "edit_file(docs/**)", "write_file(src/**/*.go)"},
		[]string{"bash(rm:*)", "bash(git push:*)", "edit_file(.env)"})
	if err != nil {
		b.Fatal(err)
	}
	p := NewPolicy(ModeDefault, rs, nil)
	p.SetWorkspace(b.TempDir())
	reqs := []Request{
		{Tool: toolname.Bash, Command: "go test ./... 2>&1 | grep -v '^ok' && go vet ./..."},
		{Tool: toolname.Bash, Command: `FOO=1 cat "a file.txt" | grep -n "x && y" > out.txt`},
		{Tool: toolname.WriteFile, Path: "src/pkg/a.go"},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if !p.Check(ctx, reqs[i%len(reqs)]).Allowed {
			b.Fatal("want allowed")
		}
	}
}

// TestProtectedPaths: acceptEdits does not let writes into covey's and
// Claude Code's settings or git's folder through; a rule or bypass does.
func TestProtectedPaths(t *testing.T) {
	tests := []struct {
		mode  Mode
		allow []string
		path  string
		want  bool // allowed without asking
	}{
		{ModeAcceptEdits, nil, "src/a.go", true},
		{ModeAcceptEdits, nil, ".covey/config.yaml", false},
		{ModeAcceptEdits, nil, "./.covey/agents/x.md", false},
		{ModeAcceptEdits, nil, ".claude/agents/x.md", false},
		{ModeAcceptEdits, nil, ".git/hooks/pre-commit", false},
		{ModeAcceptEdits, nil, "src/../.git/config", false},
		{ModeAcceptEdits, nil, ".github/workflows/ci.yml", true},
		{ModeAcceptEdits, []string{"edit_file(.covey/**)"}, ".covey/config.yaml", true},
		{ModeBypass, nil, ".covey/config.yaml", true},
	}
	for _, tt := range tests {
		p := NewPolicy(tt.mode, mustRules(t, tt.allow, nil), nil)
		p.SetWorkspace(t.TempDir())
		if got := p.AllowedWithoutAsking(Request{Tool: toolname.EditFile, Path: tt.path}); got != tt.want {
			t.Errorf("%s %v edit_file %s: allowed %v, want %v", tt.mode, tt.allow, tt.path, got, tt.want)
		}
	}
}

func TestReadDenied(t *testing.T) {
	rules, err := ParseRules(nil, []string{"read_file(~/.claude/skills/secret/**)", "read_file(**/.env)"})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(ModeDefault, rules, nil)
	p.SetWorkspace("/work/proj")
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home:", err)
	}
	for path, want := range map[string]bool{
		filepath.Join(home, ".claude/skills/secret/key.txt"): true,
		filepath.Join(home, ".claude/skills/pdf/forms.md"):   false,
		"/work/proj/.env":   true,
		"/work/proj/a.go":   false,
		"relative/path.txt": true,
	} {
		if got := p.ReadDenied(path); got != want {
			t.Errorf("ReadDenied(%s) = %v, want %v", path, got, want)
		}
	}
}

// turnAsker is a blockingAsker that is told of requests waiting their turn.
type turnAsker struct {
	blockingAsker
	waits chan Request
	ended chan Request
}

func (a *turnAsker) WaitingTurn(_ context.Context, req Request) func() {
	a.waits <- req
	return func() { a.ended <- req }
}

// TestWaitingTurnIsTold: a request that waits behind an open question is
// told to a TurnWatcher asker, and its wait ends before it is asked; the
// first request, which had its turn at once, is told of no wait.
func TestWaitingTurnIsTold(t *testing.T) {
	asker := &turnAsker{blockingAsker: blockingAsker{started: make(chan Request, 2), release: make(chan struct{})},
		waits: make(chan Request, 2), ended: make(chan Request, 2)}
	p := NewPolicy(ModeDefault, nil, asker)
	first := make(chan Verdict, 1)
	go func() { first <- p.Check(t.Context(), Request{Tool: toolname.Bash, Command: "go test ./a"}) }()
	<-asker.started
	second := make(chan Verdict, 1)
	go func() {
		second <- p.Check(t.Context(), Request{Tool: toolname.Bash, Command: "go vet ./b", AgentID: "child-1"})
	}()
	if w := <-asker.waits; w.AgentID != "child-1" {
		t.Fatalf("told of %+v waiting, want child-1's request", w)
	}
	select {
	case r := <-asker.ended:
		t.Fatalf("the wait of %+v ended while the first question was open", r)
	default:
	}
	close(asker.release)
	<-first
	if r := <-asker.ended; r.AgentID != "child-1" {
		t.Errorf("the wait that ended is %+v", r)
	}
	if r := <-asker.started; r.AgentID != "child-1" {
		t.Errorf("asked %+v, want child-1's request", r)
	}
	<-second
	if n := len(asker.waits); n != 0 {
		t.Errorf("told of %d more waits", n)
	}
}
