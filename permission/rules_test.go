package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/toolname"
)

func TestParseRulesGood(t *testing.T) {
	tests := []struct {
		rule, tool string
		kind       ruleKind
		words      string // bash rules: the words, space-joined
		glob       string // path rules
	}{
		{toolname.Bash, toolname.Bash, ruleAll, "", ""},
		{"Bash", toolname.Bash, ruleAll, "", ""},
		{"bash(*)", toolname.Bash, ruleAll, "", ""},
		{"bash(go test:*)", toolname.Bash, ruleCmdPrefix, "go test", ""},
		{"Bash(go test:*)", toolname.Bash, ruleCmdPrefix, "go test", ""},
		{"bash(npm run *)", toolname.Bash, ruleCmdPrefix, "npm run", ""},
		{"bash(npm run build)", toolname.Bash, ruleCmdExact, "npm run build", ""},
		{"bash(  npm   run  build )", toolname.Bash, ruleCmdExact, "npm run build", ""},
		{" bash ( go vet:* ) ", toolname.Bash, ruleCmdPrefix, "go vet", ""},
		{"bash(git commit -m 'a b':*)", toolname.Bash, ruleCmdPrefix, "git commit -m a b", ""},
		{"bash(ls '*.go')", toolname.Bash, ruleCmdExact, "ls *.go", ""},
		{"edit_file(docs/**)", toolname.EditFile, rulePath, "", "docs/**"},
		{"Edit(docs/**)", toolname.EditFile, rulePath, "", "docs/**"},
		{"MultiEdit(docs/)", toolname.EditFile, rulePath, "", "docs"},
		{"write_file(src/**/*.go)", toolname.WriteFile, rulePath, "", "src/**/*.go"},
		{"Write(./src/*.go)", toolname.WriteFile, rulePath, "", "src/*.go"},
		{"edit_file(/README.md)", toolname.EditFile, rulePath, "", "README.md"},
		{"Read(//etc/hosts)", toolname.ReadFile, rulePath, "", "/etc/hosts"},
		{"read_file(../shared/**)", toolname.ReadFile, rulePath, "", "../shared/**"},
		{toolname.EditFile, toolname.EditFile, ruleAll, "", ""},
		{"READ", toolname.ReadFile, ruleAll, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			rs, err := ParseRules([]string{tt.rule}, nil)
			if err != nil {
				t.Fatalf("ParseRules(%q): %v", tt.rule, err)
			}
			r := rs.allow[0]
			if r.tool != tt.tool || r.kind != tt.kind || strings.Join(r.words, " ") != tt.words || r.glob != tt.glob {
				t.Errorf("ParseRules(%q) = %+v, want tool %s kind %d words %q glob %q", tt.rule, r, tt.tool, tt.kind, tt.words, tt.glob)
			}
			if got := rs.Allow(); len(got) != 1 || got[0] != strings.TrimSpace(tt.rule) {
				t.Errorf("Allow() = %q, want the rule as written", got)
			}
		})
	}
}

func TestParseRulesHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	rs, err := ParseRules([]string{"read_file(~/notes/**)", "Read(~)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(home)
	for i, want := range []string{filepath.ToSlash(home) + "/notes/**", filepath.ToSlash(home)} {
		r := rs.allow[i]
		if !r.abs || r.glob != want {
			t.Errorf("rule %d = %+v, want absolute glob %q", i, r, want)
		}
		if wantReal := strings.Replace(want, filepath.ToSlash(home), filepath.ToSlash(real), 1); r.realGlob != wantReal {
			t.Errorf("rule %d realGlob = %q, want %q", i, r.realGlob, wantReal)
		}
	}
}

func TestParseRulesBad(t *testing.T) {
	tests := map[string]struct {
		rule, why string
	}{
		"empty":                {"", "empty rule"},
		"blank":                {"   ", "empty rule"},
		"unclosed":             {"bash(go test", "missing closing parenthesis"},
		"open only":            {"bash(", "missing closing parenthesis"},
		"empty pattern":        {"bash()", "empty pattern"},
		"unknown tool":         {"Frobnicate(x)", "unknown tool"},
		"pattern on bare tool": {"task(x)", "takes no pattern"},
		"bad domain":           {"web_fetch(example.com)", "names a host"},
		"mcp wildcard server":  {"mcp__*", "unknown tool"},
		"unknown bare":         {toolname.Grep, "unknown tool"},
		"space without parens": {"bash go test", "TOOL(PATTERN)"},
		"compound pattern":     {"bash(go test && rm:*)", "one simple command"},
		"substitution":         {"bash(echo $(rm x))", "one simple command"},
		"inner wildcard":       {"bash(go * test)", "wildcard"},
		"two wildcards":        {"bash(npm*test*)", "wildcard"},
		"assignment":           {"bash(FOO=1 go test:*)", "assignments"},
		"redirection":          {"bash(go test > x)", "redirections"},
		"keyword":              {"bash(if true)", "keyword"},
		"unterminated quote":   {"bash(echo 'x)", "not a command"},
		"bad glob":             {"edit_file(docs/[)", "not a valid glob"},
		"bad glob braces":      {"Write({a,b)", "not a valid glob"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseRules(nil, []string{"bash(ok:*)", tt.rule})
			if err == nil {
				t.Fatalf("ParseRules(%q) succeeded, want an error", tt.rule)
			}
			msg := err.Error()
			if !strings.Contains(msg, "permissions.deny[1]") || !strings.Contains(msg, tt.why) {
				t.Errorf("error %q should name permissions.deny[1] and say %q", msg, tt.why)
			}
			if tt.rule != "" && !strings.Contains(msg, strings.TrimSpace(tt.rule)) && !strings.Contains(msg, `"`+tt.rule+`"`) {
				t.Errorf("error %q does not quote the rule %q", msg, tt.rule)
			}
		})
	}
}

func TestParseRulesNamesEveryBadRule(t *testing.T) {
	_, err := ParseRules([]string{"bash(x:*)", "nope", "bash(y:*)"}, []string{"edit_file(["})
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{`permissions.allow[1] "nope"`, `permissions.deny[0] "edit_file(["`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestNilRules(t *testing.T) {
	var r *Rules
	if r.Allow() != nil || r.Deny() != nil || r.allowList() != nil || r.denyList() != nil {
		t.Error("a nil *Rules should hold no rules")
	}
}

// TestPathRules matches write requests against path rules through a Policy
// in default mode, whose only way to allow a write is a rule.
func TestPathRules(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := filepath.Join(home, "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, rule, tool, path string
		want                   bool
	}{
		{"globstar file", "edit_file(docs/**)", toolname.EditFile, "docs/a.md", true},
		{"globstar deep", "edit_file(docs/**)", toolname.EditFile, "docs/x/y/b.md", true},
		{"globstar other folder", "edit_file(docs/**)", toolname.EditFile, "src/a.go", false},
		{"globstar prefix only", "edit_file(docs/**)", toolname.EditFile, "docsx/a.md", false},
		{"globstar climbing out", "edit_file(docs/**)", toolname.EditFile, "docs/../../x", false},
		{"allow is per tool", "edit_file(docs/**)", toolname.WriteFile, "docs/a.md", false},
		{"claude edit", "Edit(docs/**)", toolname.EditFile, "docs/a.md", true},
		{"extension", "write_file(src/**/*.go)", toolname.WriteFile, "src/a/b.go", true},
		{"extension top", "write_file(src/**/*.go)", toolname.WriteFile, "src/b.go", true},
		{"extension mismatch", "write_file(src/**/*.go)", toolname.WriteFile, "src/b.txt", false},
		{"folder name covers contents", "edit_file(docs)", toolname.EditFile, "docs/a/b.md", true},
		{"leading slash is the root", "edit_file(/README.md)", toolname.EditFile, "README.md", true},
		{"leading slash is not anywhere", "edit_file(/README.md)", toolname.EditFile, "sub/README.md", false},
		{"single star stays in folder", "edit_file(*.md)", toolname.EditFile, "a/b.md", false},
		{"single star", "edit_file(*.md)", toolname.EditFile, "b.md", true},
		{"dot slash path", "edit_file(docs/**)", toolname.EditFile, "./docs/a.md", true},
		{"home rule covers the workspace", "edit_file(~/proj/**)", toolname.EditFile, "a/b.go", true},
		{"home rule elsewhere", "edit_file(~/other/**)", toolname.EditFile, "a/b.go", false},
		{"absolute rule", "edit_file(/" + filepath.ToSlash(root) + "/*.go)", toolname.EditFile, "x.go", true},
		{"bare tool", toolname.WriteFile, toolname.WriteFile, "any/where.txt", true},
		{"brace alternatives", "edit_file({a,b}/*.md)", toolname.EditFile, "b/x.md", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := ParseRules([]string{tt.rule}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := NewPolicy(ModeDefault, rs, nil)
			p.SetWorkspace(root)
			if got := p.AllowedWithoutAsking(Request{Tool: tt.tool, Path: tt.path}); got != tt.want {
				t.Errorf("%s on %s %s: allowed = %v, want %v", tt.rule, tt.tool, tt.path, got, tt.want)
			}
		})
	}
}

func TestDenyFileRuleCoversBothWriteTools(t *testing.T) {
	rs, err := ParseRules([]string{toolname.WriteFile, toolname.EditFile}, []string{"edit_file(.env)", "Write(secrets/**)"})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(ModeBypass, rs, nil)
	for _, req := range []Request{
		{Tool: toolname.EditFile, Path: ".env"},
		{Tool: toolname.WriteFile, Path: ".env"},
		{Tool: toolname.EditFile, Path: "secrets/key.pem"},
		{Tool: toolname.WriteFile, Path: "secrets/key.pem"},
	} {
		v := p.Check(t.Context(), req)
		if v.Allowed || !strings.Contains(v.Reason, "permissions.deny") {
			t.Errorf("%s %s: %+v, want a refusal naming permissions.deny", req.Tool, req.Path, v)
		}
	}
	if v := p.Check(t.Context(), Request{Tool: toolname.EditFile, Path: "main.go"}); !v.Allowed {
		t.Errorf("edit_file main.go: %+v, want allowed", v)
	}
}

// TestClaudeCodeRuleForms: rules written as Claude Code writes them parse,
// and mean what they mean there.
func TestClaudeCodeRuleForms(t *testing.T) {
	for _, src := range []string{"Bash(ls*)", "WebFetch(*)", "WebSearch", "AskUserQuestion", "ExitPlanMode", "SlashCommand", "NotebookEdit", "NotebookEdit(*.ipynb)"} {
		if _, err := ParseRules([]string{src}, nil); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	r, err := parseRule("Bash(ls*)", nil)
	if err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]bool{"ls": true, "ls -la": true, "lsof -i": true, "cat ls": false, "l": false} {
		if got := r.matchWords(strings.Fields(args), false); got != want {
			t.Errorf("Bash(ls*) on %q = %v, want %v", args, got, want)
		}
	}
	if r, _ := parseRule("WebSearch", nil); r.tool != "web_search" {
		t.Errorf("WebSearch governs %q, want web_search", r.tool)
	}
	if _, err := ParseRules([]string{"Grep"}, nil); err == nil {
		t.Error("a Grep rule parsed: read_file rules govern grep, and a deny naming it must not be inert")
	}
}
