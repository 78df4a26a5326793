package permission

import (
	"context"
	"testing"

	"covey/tools/toolname"
)

// TestHookDecision: a hook's allow skips the question but never a deny rule,
// plan mode or an agent's scope; a hook's ask asks even where a rule or the
// mode would allow.
func TestHookDecision(t *testing.T) {
	tests := map[string]struct {
		mode    Mode
		allow   []string
		deny    []string
		hook    HookDecision
		req     Request
		allowed bool
		asked   bool
	}{
		"allow skips the question":          {ModeDefault, nil, nil, HookAllow, Request{Tool: toolname.Bash, Command: "make"}, true, false},
		"allow does not beat a deny rule":   {ModeDefault, nil, []string{"Bash(make:*)"}, HookAllow, Request{Tool: toolname.Bash, Command: "make"}, false, false},
		"allow does not beat plan mode":     {ModePlan, nil, nil, HookAllow, Request{Tool: toolname.Bash, Command: "make"}, false, false},
		"ask asks over an allow rule":       {ModeDefault, []string{"Bash(make:*)"}, nil, HookAsk, Request{Tool: toolname.Bash, Command: "make"}, true, true},
		"ask asks in bypass":                {ModeBypass, nil, nil, HookAsk, Request{Tool: toolname.WriteFile, Path: "a.go"}, true, true},
		"ask does not beat a deny rule":     {ModeDefault, nil, []string{"Bash(make:*)"}, HookAsk, Request{Tool: toolname.Bash, Command: "make"}, false, false},
		"no decision asks as the mode says": {ModeDefault, nil, nil, HookNone, Request{Tool: toolname.Bash, Command: "make"}, true, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			asker := &fakeAsker{verdict: Verdict{Allowed: true}}
			p := NewPolicy(tc.mode, mustRules(t, tc.allow, tc.deny), asker)
			v := p.Check(WithHookDecision(context.Background(), tc.hook), tc.req)
			if v.Allowed != tc.allowed || (asker.asked.Load() > 0) != tc.asked {
				t.Errorf("allowed %v (%s), asked %d; want %v, asked %v", v.Allowed, v.Reason, asker.asked.Load(), tc.allowed, tc.asked)
			}
		})
	}
	// Headless: a hook's ask is refused, saying why.
	p := NewPolicy(ModeBypass, nil, nil)
	if v := p.Check(WithHookDecision(context.Background(), HookAsk), Request{Tool: toolname.Bash, Command: "ls"}); v.Allowed || v.Reason == "" {
		t.Errorf("headless ask: %+v", v)
	}
	// A scope's question is not skipped by a hook's allow.
	sc, err := NewPolicy(ModeDefault, nil, &fakeAsker{}).Scoped([]string{"Bash(git diff:*)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := sc.Check(WithHookDecision(context.Background(), HookAllow), Request{Tool: toolname.Bash, Command: "rm x"}); v.Allowed {
		t.Error("a hook's allow went past the agent's scope")
	}
}
