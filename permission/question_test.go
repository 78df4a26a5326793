package permission

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestQuestionsOnlyTheUserAnswers: no mode answers ask_user or
// exit_plan_mode; with nobody to ask they say so; a question does not wait
// behind an open permission request.
func TestQuestionsOnlyTheUserAnswers(t *testing.T) {
	for _, mode := range []Mode{ModePlan, ModeDefault, ModeAcceptEdits, ModeBypass} {
		for _, tool := range []string{ToolAskUser, ToolExitPlanMode} {
			asked := false
			p := NewPolicy(mode, nil, askerFunc(func(context.Context, Request) Verdict {
				asked = true
				return Verdict{Allowed: true, Answer: "yes"}
			}))
			v := p.Check(context.Background(), Request{Tool: tool, Question: &Question{Question: "q?"}})
			if !asked || !v.Allowed || v.Answer != "yes" || !v.ByUser {
				t.Errorf("%s in %s: asked %v, verdict %+v; want the user's answer", tool, mode, asked, v)
			}
			headless := NewPolicy(mode, nil, nil).Check(context.Background(), Request{Tool: tool})
			if headless.Allowed || headless.Reason != NoUserReason {
				t.Errorf("%s in %s headless: %+v", tool, mode, headless)
			}
		}
	}

	// A permission request waits for the user; a question asked meanwhile
	// reaches the asker at once.
	block := make(chan struct{})
	got := make(chan string, 2)
	p := NewPolicy(ModeDefault, nil, askerFunc(func(_ context.Context, r Request) Verdict {
		got <- r.Tool
		if r.Tool == "bash" {
			<-block
		}
		return Verdict{Allowed: true}
	}))
	go p.Check(context.Background(), Request{Tool: "bash", Command: "make deploy"})
	if first := <-got; first != "bash" {
		t.Fatalf("first asked %s", first)
	}
	done := make(chan Verdict, 1)
	go func() { done <- p.Check(context.Background(), Request{Tool: ToolAskUser}) }()
	select {
	case v := <-done:
		if !v.Allowed {
			t.Errorf("question verdict %+v", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the question waited behind the open permission request")
	}
	close(block)
}

// TestHookAllowAnswersNoQuestion: a PreToolUse hook's allow does not
// answer a question in the user's place.
func TestHookAllowAnswersNoQuestion(t *testing.T) {
	asked := false
	p := NewPolicy(ModeDefault, nil, askerFunc(func(context.Context, Request) Verdict {
		asked = true
		return Verdict{Reason: DeclinedAnswer}
	}))
	v := p.Check(WithHookDecision(context.Background(), HookAllow), Request{Tool: ToolAskUser})
	if !asked || v.Allowed || !strings.Contains(v.Reason, "declined") {
		t.Errorf("asked %v, verdict %+v", asked, v)
	}
}
