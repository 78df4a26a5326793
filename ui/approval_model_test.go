package ui

import (
	"context"
	"strings"
	"testing"

	"covey/tools/toolname"
	"covey/ui/keys"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/permission"
)

func TestApprovalScreen(t *testing.T) {
	h := newApprovalHarness(t, 100, 40)
	h.startTurn("make the health check return 204")
	m := mainSrc()
	h.events <- agent.TextDelta{Source: m, Text: "I'll change the status code."}
	h.events <- toolStarted(m, "e1", toolname.EditFile, "internal/handlers/health.go")
	h.ask(context.Background(), editRequest("internal/handlers/health.go", approvalOld, approvalNew))
	h.deliver(1)
	view := h.m.View()
	lines := strings.Split(view, "\n")
	if len(lines) != 40 {
		t.Errorf("%d lines, want 40", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 100 {
			t.Errorf("line %d is %d wide", i, w)
		}
	}
	checkGolden(t, "100x40", ansi.Strip(view)+"\n")
}

func TestClearWaitsForTheAnswer(t *testing.T) {
	h := newApprovalHarness(t, 100, 40)
	got := h.ask(context.Background(), bashRequest("ls"))
	h.deliver(1)
	h.key(tea.KeyTab)
	h.typeText("/clear")
	h.key(tea.KeyEnter)
	if h.m.appr.cur == nil || len(approvalBlocks(h.m)) != 1 || !h.screenContains("answer it before /clear") {
		t.Fatal("/clear dropped a waiting request")
	}
	h.key(tea.KeyTab)
	h.send(runes("y"))
	verdictOf(t, got)
}

func TestApprovalLeavesADraftAlone(t *testing.T) {
	h := newApprovalHarness(t, 100, 40)
	h.typeText("now ")
	got := h.ask(context.Background(), bashRequest("ls"))
	h.deliver(1)
	if h.m.focus == keys.FocusApproval {
		t.Fatal("the request took the keyboard from a draft being typed")
	}
	h.typeText("yes")
	if h.m.input.Value() != "now yes" || !h.m.appr.block.Pending() {
		t.Fatalf("input %q: the draft's keys answered the request", h.m.input.Value())
	}
	h.key(tea.KeyTab)
	h.send(runes("n"))
	if v := verdictOf(t, got); v.Allowed {
		t.Errorf("verdict %+v, want denied", v)
	}
	if h.m.input.Value() != "now yes" {
		t.Errorf("draft lost: %q", h.m.input.Value())
	}
}

// TestApprovalWithPolicy puts the approver behind a real permission.Policy: "a"
// grants through the policy, so the same request later passes unasked.
func TestApprovalWithPolicy(t *testing.T) {
	h := newApprovalHarness(t, 100, 40)
	pol := permission.NewPolicy(permission.ModeDefault, nil, h.ap)
	h.m.perms = pol
	req := editRequest("docs/a.md", "a\n", "b\n")
	check := func() <-chan permission.Verdict {
		out := make(chan permission.Verdict, 1)
		go func() { out <- pol.Check(context.Background(), req) }()
		return out
	}
	first := check()
	h.deliver(1)
	h.send(runes("a"))
	if v := verdictOf(t, first); !v.Allowed {
		t.Fatalf("verdict %+v", v)
	}
	if v := verdictOf(t, check()); !v.Allowed {
		t.Errorf("the granted request was refused: %+v", v)
	}
	if got := pol.Grants(); len(got) != 1 || got[0] != "edit_file(docs/a.md)" {
		t.Errorf("grants %v", got)
	}
	t.Run("ctrl+t changes what the policy decides", func(t *testing.T) {
		h.send(ctrl(tea.KeyCtrlT)) // acceptEdits
		h.send(ctrl(tea.KeyCtrlT)) // plan
		if pol.Mode() != permission.ModePlan {
			t.Fatalf("mode %s", pol.Mode())
		}
		if v := verdictOf(t, check()); v.Allowed {
			t.Error("plan mode let a write through")
		}
	})
}
