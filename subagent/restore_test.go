package subagent_test

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"covey/agent"
	"covey/agentdefs"
	"covey/internal/scripted"
	"covey/permission"
	"covey/subagent"
	"covey/tools/toolname"
)

// TestRestoredChildKeepsWorkspaceAndRules checks that a child brought back
// from a session file and resumed by a message works in the workspace (its
// tools had none and crashed) and under its agent file's rules (they were
// dropped, so its bash was unrestricted): what Bash(echo hello:*) allows
// runs, anything else is refused, even in bypassPermissions.
func TestRestoredChildKeepsWorkspaceAndRules(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	def, _, err := agentdefs.Parse("greeter.md", []byte("---\nname: greeter\ndescription: d\ntools: Glob, Bash(echo hello:*)\n---\np\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{def}, gate: func(root string) permission.Gate {
		p := permission.NewPolicy(permission.ModeBypass, nil, nil)
		p.SetWorkspace(root)
		return p
	}})
	defer h.closeAll(nil)
	h.manager.Restore([]subagent.Restored{{
		Source: agent.Source{AgentID: "greeter-3", ParentID: agent.MainAgentID, AgentType: "greeter", Description: "old", Depth: 1, Name: "oldtimer"},
		Messages: []agent.Message{
			{Role: agent.RoleUser, Content: "restored-greeter: look"},
			{Role: agent.RoleAssistant, Content: "I looked before the restart"},
		},
		Reason: agent.StopOK,
	}})
	type want struct {
		refused bool
		has     string
	}
	calls := map[string]struct {
		call scripted.Call
		want want
	}{
		toolname.Glob: {scripted.Call{ID: "r1", Name: toolname.Glob, Args: map[string]string{"pattern": "*.go"}}, want{has: "auth.go"}},
		"bash ok":     {scripted.Call{ID: "r2", Name: toolname.Bash, Args: map[string]string{"command": "echo hello again"}}, want{has: "hello again"}},
		"bash other":  {scripted.Call{ID: "r3", Name: toolname.Bash, Args: map[string]string{"command": "ls"}}, want{refused: true, has: "limits bash"}},
	}
	var turn []scripted.Call
	for _, c := range []string{toolname.Glob, "bash ok", "bash other"} {
		turn = append(turn, calls[c].call)
	}
	h.child("restored-greeter", scripted.Turn{Text: "first"}, scripted.Turn{ToolCalls: turn}, scripted.Turn{Text: "done again"})
	h.srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: `[background agent "oldtimer"`}, Turns: []scripted.Turn{{Text: "noted"}}})
	d := h.manager.NewDriver(h.main, nil)
	defer d.Close()
	if err := h.manager.Send(context.Background(), "oldtimer", "look again"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := d.Wait(context.Background()); !ok {
		t.Fatal("the resumed child's outcome was not delivered")
	}
	results := map[string]string{}
	for _, e := range h.requestsOf("restored-greeter") {
		for _, m := range e.Messages {
			if m.Role == "tool" {
				results[m.ToolCallID] = m.Content
			}
		}
	}
	for name, c := range calls {
		t.Run(name, func(t *testing.T) {
			got, ok := results[c.call.ID]
			if !ok {
				t.Fatalf("no result for %s", c.call.ID)
			}
			refused := strings.Contains(got, "refused") || strings.Contains(got, "limits") || strings.Contains(got, "not allowed")
			if strings.Contains(got, "crashed") || refused != c.want.refused || !strings.Contains(got, c.want.has) {
				t.Errorf("result %q; want refused=%v containing %q", got, c.want.refused, c.want.has)
			}
		})
	}
}

// TestRestoredChildKeepsItsUsage checks that a child resumed after a
// restart counts on from the tokens it had used: its budget holds across
// the restart and its finish reports its lifetime total.
func TestRestoredChildKeepsItsUsage(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tests := map[string]struct {
		earlier    int // input tokens used before the restart (and 100 out)
		wantReason string
		wantInput  int
	}{
		"within its budget": {earlier: 1000, wantReason: agent.StopOK, wantInput: 2000},
		// Over it before the restart: it stops at its next request.
		"at it already": {earlier: 5450, wantReason: agent.StopBudget, wantInput: 5450},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			def, _, err := agentdefs.Parse("counter.md", []byte("---\nname: counter\ndescription: d\ntools: Glob\nmax_tokens: 5500\n---\np\n"))
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, harnessOpts{defs: []agentdefs.Definition{def}})
			defer h.closeAll(nil)
			h.manager.Restore([]subagent.Restored{{
				Source:   agent.Source{AgentID: "counter-2", ParentID: agent.MainAgentID, AgentType: "counter", Depth: 1, Name: "tally"},
				Messages: []agent.Message{{Role: agent.RoleUser, Content: "restored-counter: count"}, {Role: agent.RoleAssistant, Content: "counted"}},
				Reason:   agent.StopOK,
				Usage:    agent.Usage{InputTokens: tt.earlier, OutputTokens: 100},
			}})
			h.child("restored-counter", scripted.Turn{Text: "first"},
				scripted.Turn{Text: "counted again", Usage: &scripted.Usage{Prompt: 1000, Completion: 10}},
				scripted.Turn{Text: "and again"})
			h.srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: `[background agent "tally"`}, Turns: []scripted.Turn{{Text: "noted"}}})
			d := h.manager.NewDriver(h.main, nil)
			defer d.Close()
			if err := h.manager.Send(context.Background(), "tally", "count again"); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := d.Wait(context.Background()); !ok {
				t.Fatal("the resumed child's outcome was not delivered")
			}
			fin := h.waitFor("child_finished", func(e agent.Event) bool { return e.From().Name == "tally" }).(agent.ChildFinished)
			if fin.Reason != tt.wantReason || fin.Usage.InputTokens != tt.wantInput {
				t.Errorf("finished %q with %d input tokens, want %q with %d", fin.Reason, fin.Usage.InputTokens, tt.wantReason, tt.wantInput)
			}
		})
	}
}
