package subagent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"covey/tools/toolname"

	"covey/agentdefs"
	"covey/internal/scripted"
	"covey/tools/tool"
)

// fakeMCP stands in for an MCP server's tool.
type fakeMCP struct{ server, name string }

func (f fakeMCP) Name() string           { return "mcp__" + f.server + "__" + f.name }
func (f fakeMCP) Description() string    { return f.name }
func (f fakeMCP) Schema() map[string]any { return map[string]any{"type": "object"} }
func (f fakeMCP) ReadOnly() bool         { return false }
func (f fakeMCP) Server() string         { return f.server }
func (f fakeMCP) Run(context.Context, json.RawMessage) tool.Result {
	return tool.Result{Content: "ran " + f.name}
}

func TestChildrenMCPTools(t *testing.T) {
	mcp := []tool.Tool{fakeMCP{"gh", "search"}, fakeMCP{"gh", "create_issue"}, fakeMCP{"docs", "read"}, fakeMCP{"docs", "delete"}}
	defs := []agentdefs.Definition{
		{Name: "gh-reader", Description: "d", Tools: []string{toolname.ReadFile, "mcp__gh__search"}, Prompt: "p", Scope: agentdefs.Project},
		{Name: "gh-all", Description: "d", Tools: []string{toolname.ReadFile, "mcp__gh"}, Prompt: "p", Scope: agentdefs.Project},
		{Name: "docs-only", Description: "d", MCPServers: []string{"docs"}, DisallowedTools: []string{"mcp__docs__delete"}, Prompt: "p", Scope: agentdefs.Project},
	}
	h := newHarness(t, harnessOpts{defs: defs, mcp: mcp})
	h.mainScript("go", batch(
		task("a", "general-purpose", "child-general"),
		task("b", "Explore", "child-explore"),
		task("c", "gh-reader", "child-gh-reader"),
		task("d", "gh-all", "child-gh-all"),
		task("e", "docs-only", "child-docs"),
	))
	for _, m := range []string{"child-general", "child-explore", "child-gh-reader", "child-gh-all", "child-docs"} {
		h.child(m, scripted.Turn{Text: "ok"})
	}
	if _, err := h.main.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		// No tools list: every MCP tool, as in Claude Code.
		"child-general": {"mcp__gh__search", "mcp__gh__create_issue", "mcp__docs__read", "mcp__docs__delete"},
		// A read-only type gets none unless its list names them.
		"child-explore":   nil,
		"child-gh-reader": {"mcp__gh__search"},
		"child-gh-all":    {"mcp__gh__search", "mcp__gh__create_issue"},
		"child-docs":      {"mcp__docs__read"},
	}
	seen := 0
	for _, e := range h.srv.Journal() {
		w, ok := want[e.FirstUser]
		if !ok {
			continue
		}
		seen++
		var got []string
		for _, n := range e.Tools {
			if strings.HasPrefix(n, "mcp__") {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s offered MCP tools %v, want %v", e.FirstUser, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("saw %d of %d children", seen, len(want))
	}
}
