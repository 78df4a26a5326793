package permission

import (
	"strings"
	"testing"

	"covey/tools/toolname"
)

func TestMergeAndIsolatedWrites(t *testing.T) {
	merge := Request{Tool: ToolMerge, Path: "covey/general-1-abc123", Changes: []FileChange{{Path: "a.go"}, {Path: "docs/b.md"}}}
	isolated := Request{Tool: toolname.EditFile, Path: "a.go", Isolated: true}
	settings := Request{Tool: ToolMerge, Path: "covey/x", Changes: []FileChange{{Path: "a.go"}, {Path: ".covey/config.yaml"}}}
	tests := map[string]struct {
		mode        Mode
		allow, deny []string
		req         Request
		want        string // allow, ask, refuse
		reason      string
	}{
		"merge asks by default":                         {mode: ModeDefault, req: merge, want: "ask"},
		"merge allowed by acceptEdits":                  {mode: ModeAcceptEdits, req: merge, want: "allow"},
		"merge allowed by bypass":                       {mode: ModeBypass, req: merge, want: "allow"},
		"merge refused in plan mode":                    {mode: ModePlan, req: merge, want: "refuse", reason: "plan"},
		"merge refused by a deny on a file":             {mode: ModeBypass, deny: []string{"edit_file(docs/**)"}, req: merge, want: "refuse", reason: "docs/b.md"},
		"merge allowed when rules cover all":            {mode: ModeDefault, allow: []string{"edit_file(**)"}, req: merge, want: "allow"},
		"merge asks when rules cover some":              {mode: ModeDefault, allow: []string{"edit_file(docs/**)"}, req: merge, want: "ask"},
		"merge into a parent's worktree goes through":   {mode: ModeDefault, req: Request{Tool: ToolMerge, Path: "covey/x", Changes: merge.Changes, Isolated: true}, want: "allow"},
		"merge into a parent's worktree obeys deny":     {mode: ModeDefault, deny: []string{"edit_file(a.go)"}, req: Request{Tool: ToolMerge, Path: "covey/x", Changes: merge.Changes, Isolated: true}, want: "refuse", reason: "a.go"},
		"isolated write goes through":                   {mode: ModeDefault, req: isolated, want: "allow"},
		"merge of covey's settings asks in acceptEdits": {mode: ModeAcceptEdits, req: settings, want: "ask"},
		"merge of Claude's settings asks in bypass":     {mode: ModeBypass, req: Request{Tool: ToolMerge, Path: "covey/x", Changes: []FileChange{{Path: ".claude/settings.json"}}}, want: "ask"},
		"merge of settings allowed by an explicit rule": {mode: ModeDefault, allow: []string{"edit_file(**)"}, req: settings, want: "allow"},
		"isolated write still obeys deny":               {mode: ModeDefault, deny: []string{"write_file(a.go)"}, req: isolated, want: "refuse", reason: "a.go"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			asker := &fakeAsker{verdict: Verdict{Reason: "no"}}
			p := NewPolicy(tc.mode, mustRules(t, tc.allow, tc.deny), asker)
			p.SetWorkspace(t.TempDir())
			v := p.Check(t.Context(), tc.req)
			got := "refuse"
			switch {
			case asker.asked.Load() == 1:
				got = "ask"
				if !v.ByUser {
					t.Error("an answer from the asker is not marked ByUser")
				}
			case v.Allowed:
				got = "allow"
			}
			if got != tc.want {
				t.Fatalf("got %s (%+v), want %s", got, v, tc.want)
			}
			if got == "refuse" && (v.ByUser || !strings.Contains(v.Reason, tc.reason)) {
				t.Errorf("refusal %+v should name %q and not be marked ByUser", v, tc.reason)
			}
		})
	}
	if g := SessionGrantRules(merge); len(g) != 0 {
		t.Errorf("a merge offers session grants %v; each merge is its own question", g)
	}
	hp := NewPolicy(ModeDefault, nil, nil)
	if v := hp.Check(t.Context(), merge); v.Allowed || !strings.Contains(v.Reason, "acceptEdits") || !strings.Contains(v.Reason, "covey/general-1-abc123") {
		t.Errorf("headless refusal of a merge = %+v", v)
	}
}

// TestPickAttempt: the choice among a task's attempts is the user's in
// every mode, and with nobody to ask it is refused, naming the judge.
func TestPickAttempt(t *testing.T) {
	pick := Request{Tool: ToolPickAttempt, Path: "fix retry", Attempts: []Attempt{{Name: "a"}, {Name: "b"}}}
	for _, mode := range []Mode{ModeDefault, ModeAcceptEdits, ModeBypass} {
		asker := &fakeAsker{verdict: Verdict{Allowed: true, Attempt: 2}}
		p := NewPolicy(mode, mustRules(t, []string{"bash", "edit_file(**)"}, nil), asker)
		if v := p.Check(t.Context(), pick); asker.asked.Load() != 1 || !v.Allowed || v.Attempt != 2 || !v.ByUser {
			t.Errorf("%s: asked %d times, verdict %+v", mode, asker.asked.Load(), v)
		}
	}
	hp := NewPolicy(ModeBypass, nil, nil)
	if v := hp.Check(t.Context(), pick); v.Allowed || v.ByUser || !strings.Contains(v.Reason, "subagents.judge") || !strings.Contains(v.Reason, "2 attempts") {
		t.Errorf("headless answer to a pick = %+v", v)
	}
	if g := SessionGrantRules(pick); len(g) != 0 {
		t.Errorf("a pick offers session grants %v", g)
	}
}
