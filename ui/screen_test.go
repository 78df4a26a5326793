package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/tools/tool"
)

// sessionEvents is a small but complete session: an answer, a tool call,
// and a task call with three children in different states.
func sessionEvents() []agent.Event {
	m := mainSrc()
	kids := []agent.Source{
		childSrc("c1", "call_task", "Explore", "map the ui package"),
		childSrc("c2", "call_task", "Explore", "find where events are routed"),
		childSrc("c3", "call_task", "general-purpose", "run the tests"),
	}
	return []agent.Event{
		agent.TextDelta{Source: m, Text: "I'll look at the **layout** first.\n\n- read the model\n- run the tests\n"},
		toolStarted(m, "call_read", toolname.ReadFile, "ui/model.go"),
		agent.ToolFinished{Source: m, CallID: "call_read", Name: toolname.ReadFile, KeyArg: "ui/model.go",
			Duration: 12 * time.Millisecond, Result: tool.Result{Content: "package ui\n\nimport (\n\t\"context\"\n)", Summary: "420 lines"}},
		agent.ToolStarted{Source: m, CallID: "call_task", Name: toolname.Task, KeyArg: "3 tasks"},
		agent.ChildStarted{Source: kids[0], Model: "small"},
		agent.ChildStarted{Source: kids[1], Model: "small"},
		agent.ChildStarted{Source: kids[2], Model: "big"},
		agent.ToolStarted{Source: kids[0], CallID: "k1", Name: toolname.Glob, KeyArg: "ui/*.go"},
		agent.ToolFinished{Source: kids[0], CallID: "k1", Name: toolname.Glob, KeyArg: "ui/*.go", Result: tool.Result{Summary: "14 files"}},
		agent.TextDelta{Source: kids[0], Text: "The package has a model, a transcript and blocks."},
		agent.UsageReported{Source: kids[0], Usage: agent.Usage{InputTokens: 5200, OutputTokens: 800}},
		agent.ChildFinished{Source: kids[0], Reason: agent.StopOK, ToolCalls: 1, Elapsed: 3200 * time.Millisecond,
			Usage: agent.Usage{InputTokens: 5200, OutputTokens: 800}, Summary: "model, transcript, blocks"},
		agent.ToolStarted{Source: kids[1], CallID: "k2", Name: toolname.Grep, KeyArg: "func.*route"},
		agent.UsageReported{Source: kids[1], Usage: agent.Usage{InputTokens: 3100, OutputTokens: 120}},
		agent.ToolStarted{Source: kids[2], CallID: "k3", Name: toolname.Bash, KeyArg: "go test ./..."},
		agent.ToolFinished{Source: kids[2], CallID: "k3", Name: toolname.Bash, KeyArg: "go test ./...",
			Result: tool.Result{IsError: true, Content: "exit 1", Summary: "exit 1"}},
		agent.ChildFinished{Source: kids[2], Reason: agent.StopError, Error: "provider: 500 internal error", ToolCalls: 1,
			Elapsed: 1500 * time.Millisecond},
		agent.UsageReported{Source: m, Usage: agent.Usage{InputTokens: 12000, OutputTokens: 900}},
	}
}

func TestScreen(t *testing.T) {
	sizes := []struct{ w, h int }{{120, 40}, {60, 30}}
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			h := newHarness(t, size.w, size.h)
			h.startTurn("Why is the layout wrong at 60 columns?")
			h.events(sessionEvents()...)
			view := h.m.View()
			lines := strings.Split(view, "\n")
			if len(lines) != size.h {
				t.Errorf("%d lines, want %d", len(lines), size.h)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size.w {
					t.Errorf("line %d is %d wide", i, w)
				}
			}
			checkGolden(t, fmt.Sprintf("%dx%d", size.w, size.h), ansi.Strip(view)+"\n")
		})
	}
}

func TestScreenFocusedAndExpanded(t *testing.T) {
	h := newHarness(t, 80, 30)
	h.startTurn("go")
	h.events(sessionEvents()...)
	h.key(tabKey())
	h.key(enterKey())
	checkGolden(t, "80x30", ansi.Strip(h.m.View())+"\n")
}

func tabKey() tea.KeyType   { return tea.KeyTab }
func enterKey() tea.KeyType { return tea.KeyEnter }
