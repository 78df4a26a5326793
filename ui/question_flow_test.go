package ui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/permission"
	"covey/ui/keys"
)

func questionRequest(multi bool) permission.Request {
	return permission.Request{Tool: permission.ToolAskUser, Question: &permission.Question{
		Question: "Which database?", MultiSelect: multi,
		Options: []permission.QuestionOption{{Label: "Postgres"}, {Label: "SQLite", Description: "one file"}, {Label: "MySQL"}},
	}}
}

// TestQuestionAnswers: each way of answering the model's question gives
// the model what the user chose, and keys meant for approvals answer
// nothing.
func TestQuestionAnswers(t *testing.T) {
	tests := []struct {
		name  string
		multi bool
		keys  []tea.KeyMsg
		want  permission.Verdict
	}{
		{"a number picks", false, []tea.KeyMsg{runes("2")}, permission.Verdict{Allowed: true, Answer: "SQLite"}},
		{"approval keys do nothing, then a number", false, []tea.KeyMsg{runes("y"), runes("n"), runes("a"), runes("3")}, permission.Verdict{Allowed: true, Answer: "MySQL"}},
		{"a number past the options does nothing", false, []tea.KeyMsg{runes("5"), runes("1")}, permission.Verdict{Allowed: true, Answer: "Postgres"}},
		{"arrows and enter", false, []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyDown}, {Type: tea.KeyUp}, {Type: tea.KeyEnter}}, permission.Verdict{Allowed: true, Answer: "SQLite"}},
		{"the last row types an answer", false, []tea.KeyMsg{runes("4"), runes("DuckDB"), {Type: tea.KeyEnter}}, permission.Verdict{Allowed: true, Answer: "DuckDB"}},
		{"up from the top wraps to typing", false, []tea.KeyMsg{{Type: tea.KeyUp}, {Type: tea.KeyEnter}, runes("y n"), {Type: tea.KeyEnter}}, permission.Verdict{Allowed: true, Answer: "y n"}},
		{"esc declines", false, []tea.KeyMsg{{Type: tea.KeyEsc}}, permission.Verdict{Reason: permission.DeclinedAnswer}},
		{"several marked", true, []tea.KeyMsg{runes("1"), runes("3"), {Type: tea.KeyEnter}}, permission.Verdict{Allowed: true, Answer: "Postgres\nMySQL"}},
		{"space marks under the cursor", true, []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeySpace, Runes: []rune{' '}}, {Type: tea.KeyEnter}}, permission.Verdict{Allowed: true, Answer: "SQLite"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, 100, 40)
			got := h.ask(context.Background(), questionRequest(tt.multi))
			h.deliver(1)
			if !h.screenContains("? Which database?") || !h.screenContains("2. ") || !h.screenContains("4. Type an answer") {
				t.Fatalf("the question is not shown:\n%s", strings.Join(h.screenLines(), "\n"))
			}
			for _, k := range tt.keys {
				h.send(k)
			}
			v := verdictOf(t, got)
			if v.Allowed != tt.want.Allowed || v.Answer != tt.want.Answer || v.Reason != tt.want.Reason {
				t.Errorf("verdict %+v, want %+v", v, tt.want)
			}
			if h.m.focus == keys.FocusApproval {
				t.Error("the question kept the keyboard after its answer")
			}
		})
	}
}

// TestQuestionTabToInput: tab gives the input the keys while the question
// waits, and tab again brings them back to it.
func TestQuestionTabToInput(t *testing.T) {
	h := newApprovalHarness(t, 100, 40)
	got := h.ask(context.Background(), questionRequest(false))
	h.deliver(1)
	h.key(tea.KeyTab)
	if h.m.focus == keys.FocusApproval {
		t.Fatal("tab left the keys with the question")
	}
	h.typeText("2")
	if h.m.input.Value() != "2" {
		t.Errorf("the input holds %q, want the 2 typed", h.m.input.Value())
	}
	h.key(tea.KeyTab)
	if h.m.focus != keys.FocusApproval {
		t.Fatal("tab did not bring the keys back to the question")
	}
	h.send(runes("1"))
	if v := verdictOf(t, got); v.Answer != "Postgres" {
		t.Errorf("verdict %+v", v)
	}
}

// TestPlanApproval: a plan approved sets the mode chosen; d sends
// feedback and keeps the mode.
func TestPlanApproval(t *testing.T) {
	plan := permission.Request{Tool: permission.ToolExitPlanMode, Plan: "# Plan\n\n1. do **this**\n"}
	tests := []struct {
		name     string
		keys     []tea.KeyMsg
		allowed  bool
		mode     permission.Mode
		feedback string
	}{
		{"y approves into default", []tea.KeyMsg{runes("y")}, true, permission.ModeDefault, ""},
		{"a approves into acceptEdits", []tea.KeyMsg{runes("a")}, true, permission.ModeAcceptEdits, ""},
		{"d keeps planning with feedback", []tea.KeyMsg{runes("d"), runes("add tests"), {Type: tea.KeyEnter}}, false, permission.ModePlan, "add tests"},
		{"n keeps planning", []tea.KeyMsg{runes("n")}, false, permission.ModePlan, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, 100, 40)
			h.perms.mode = permission.ModePlan
			got := h.ask(context.Background(), plan)
			h.deliver(1)
			if !h.screenContains("? Approve this plan?") || h.screenContains("**this**") {
				t.Fatalf("the plan is not shown rendered:\n%s", strings.Join(h.screenLines(), "\n"))
			}
			for _, k := range tt.keys {
				h.send(k)
			}
			v := verdictOf(t, got)
			if v.Allowed != tt.allowed || (tt.allowed && v.Mode != tt.mode) || !strings.Contains(v.Reason, tt.feedback) {
				t.Errorf("verdict %+v", v)
			}
			if h.perms.Mode() != tt.mode {
				t.Errorf("mode %s, want %s", h.perms.Mode(), tt.mode)
			}
		})
	}
}
