package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"covey/slashcmd"
	"covey/tools/tool"
	"covey/tools/toolname"
)

func TestCommandLookup(t *testing.T) {
	x := &extensions{commands: []slashcmd.Command{{Name: "review"}, {Name: "frontend:component"}}}
	tests := map[string]struct {
		name, args string
		ok         bool
	}{
		"/review":                      {name: "review", ok: true},
		"  /Review the errors  ":       {name: "review", args: "the errors", ok: true},
		"/frontend:component Button":   {name: "frontend:component", args: "Button", ok: true},
		"/review\nmore lines":          {name: "review", args: "more lines", ok: true},
		"/init":                        {name: "init", ok: true},
		"/init keep the style section": {name: "init", args: "keep the style section", ok: true},
		"/reviewer":                    {},
		"review":                       {},
		"//review":                     {},
		"/usr/bin/env is broken":       {},
	}
	for text, tc := range tests {
		c, args, ok := x.command(text)
		if ok != tc.ok || c.Name != tc.name || args != tc.args {
			t.Errorf("command(%q) = %q, %q, %v; want %q, %q, %v", text, c.Name, args, ok, tc.name, tc.args, tc.ok)
		}
	}
	c, _, _ := x.command("/init")
	if !strings.Contains(c.Body, "task tool") {
		t.Errorf("/init's prompt does not send a crew:\n%s", c.Body)
	}
}

type stubTool struct{ name string }

func (s stubTool) Name() string           { return s.name }
func (s stubTool) Description() string    { return "" }
func (s stubTool) Schema() map[string]any { return nil }
func (s stubTool) ReadOnly() bool         { return true }
func (s stubTool) Run(context.Context, json.RawMessage) tool.Result {
	return tool.Result{Content: "ran"}
}

func TestScopedTool(t *testing.T) {
	sc := &turnScope{command: "look", names: []string{toolname.ReadFile, "mcp__github"}}
	ctx := context.WithValue(context.Background(), turnScopeKey{}, sc)
	tests := map[string]bool{toolname.ReadFile: true, toolname.Bash: false, toolname.Task: false, "mcp__github__search": true, "mcp__jira__search": false}
	for name, allowed := range tests {
		tool := scopedTool{stubTool{name}}
		res := tool.Run(ctx, nil)
		if got := !res.IsError; got != allowed {
			t.Errorf("%s in /look's turn: ran %v, want %v (%s)", name, got, allowed, res.Content)
		}
		if res := tool.Run(context.Background(), nil); res.IsError {
			t.Errorf("%s outside a command's turn was refused: %s", name, res.Content)
		}
		if !tool.Concurrent() {
			t.Errorf("%s lost its concurrency", name)
		}
	}
}

func TestLastTurnForRetry(t *testing.T) {
	x := &extensions{}
	sc := &turnScope{command: "look", names: []string{toolname.ReadFile}}
	x.setLastTurn(sc, "small-model")
	ctx, model := x.lastTurn(context.Background())
	if scopeOf(ctx) != sc || model != "small-model" {
		t.Errorf("a command's retry got scope %v, model %q", scopeOf(ctx), model)
	}
	x.setLastTurn(nil, "")
	ctx, model = x.lastTurn(context.Background())
	if scopeOf(ctx) != nil || model != "" {
		t.Errorf("a message's retry got scope %v, model %q", scopeOf(ctx), model)
	}
}

// TestBangOutput: a !`command`'s output reaches the prompt as the command
// printed it, with no marker of covey's for a command that succeeded. The
// results are worded as the bash tool words them (e2e's
// TestSlashCommandHeadless runs real commands).
func TestBangOutput(t *testing.T) {
	tests := map[string]struct {
		res  tool.Result
		want string
	}{
		"output":          {res: tool.Result{Content: "main\n[exit code 0]", Summary: "exit 0"}, want: "main"},
		"lines":           {res: tool.Result{Content: "a\n\nb\n[exit code 0]", Summary: "exit 0"}, want: "a\n\nb"},
		"no output":       {res: tool.Result{Content: "(no output)\n[exit code 0]", Summary: "exit 0"}, want: ""},
		"failing":         {res: tool.Result{Content: "oops\n[exit code 3]", Summary: "exit 3"}, want: "oops\n[exit code 3]"},
		"failing, silent": {res: tool.Result{Content: "(no output)\n[exit code 1]", Summary: "exit 1"}, want: "[exit code 1]"},
		"signal":          {res: tool.Result{Content: "x\n[killed by signal 9 (killed)]", Summary: "killed by signal 9"}, want: "x\n[killed by signal 9 (killed)]"},
	}
	for name, tc := range tests {
		if got := bangOutput(tc.res); got != tc.want {
			t.Errorf("%s: bangOutput(%q) = %q, want %q", name, tc.res.Content, got, tc.want)
		}
	}
}
