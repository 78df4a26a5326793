package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/theme"
	"covey/tools/toolname"
	"covey/ui/transcript"
)

func TestContextText(t *testing.T) {
	tests := map[string]struct {
		b    agent.ContextBreakdown
		want []string
	}{
		"known window": {
			agent.ContextBreakdown{Tokens: 5200, Window: 8192, WindowFrom: "server", System: 700, Memory: 300, MemoryFiles: []string{"AGENTS.md"},
				BuiltinTools: 2900, Builtins: 12, MCPTools: 400, MCPs: 3, Messages: 600, MessageCount: 4, ToolResults: 300, ResultCount: 2, Compactable: 450,
				CompactMessages: 4, CompactTokens: 700, SummaryTokens: 175},
			[]string{"Context: 5.2k of 8.2k tokens (63%)", "window: 8192 tokens, from the server", "system prompt", "memory files (AGENTS.md)",
				"tools, built-in (12)", "2.9k", "tools, MCP (3)", "messages (4)", "tool results (2)", "/compact would free about 450 tokens: 4 messages (700) become a summary of up to 175"},
		},
		"too short to gain": {
			agent.ContextBreakdown{Tokens: 3000, MessageCount: 1, Messages: 30, CompactMessages: 1, CompactTokens: 30, SummaryTokens: 100, Compactable: -80},
			[]string{"/compact would free nothing: a summary would be as long as the 1 message it replaces (30 tokens)"},
		},
		"unknown window": {
			agent.ContextBreakdown{Tokens: 3000, System: 1000, BuiltinTools: 2000, Builtins: 12},
			[]string{"3k tokens in the next request; the model's window is unknown (set context_window in config)", "/compact would free nothing yet: the conversation is empty"},
		},
		"overflow": {
			agent.ContextBreakdown{Tokens: 9000, Window: 8192, WindowFrom: agent.WindowFromOverflow},
			[]string{"(109%)", "from the server's overflow error"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := contextText(tc.b)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestPaneHeaderGaugeGivesWay checks that a child's context gauge shows in
// its pane's header when there is room, and is the first of the stats to
// give way when there is not.
func TestPaneHeaderGaugeGivesWay(t *testing.T) {
	r := newRouter(transcript.New(transcript.RenderContext{Styles: &theme.New(theme.ModeDark, true, false).Styles}))
	r.now = crewT0
	r.route(agent.ToolStarted{Source: mainSrc(), CallID: "t", Name: toolname.Task})
	src := agent.Source{AgentID: "c1", Name: "scout", ParentCallID: "t", AgentType: "Explore", Description: "map the ui package", Depth: 1}
	r.route(agent.ChildStarted{Source: src, Model: "m"})
	r.route(agent.ContextReported{Source: src, Tokens: 3000, Window: 8000})
	b := r.find("scout")
	ctx := transcript.RenderContext{Styles: &theme.New(theme.ModeDark, true, false).Styles, Now: crewT0}
	wide := ansi.Strip(b.Header(ctx, 100))
	if !strings.Contains(wide, "ctx 37%") || !strings.Contains(wide, "0 tools") {
		t.Errorf("wide header %q, want the stats and the gauge", wide)
	}
	narrow := ansi.Strip(b.Header(ctx, 52))
	if strings.Contains(narrow, "ctx") || !strings.Contains(narrow, "0 tools") {
		t.Errorf("narrow header %q, want the stats without the gauge", narrow)
	}
}
