package permission

import (
	"context"
	"testing"

	"covey/tools/toolname"
)

func TestWithModeNeverLooserThanTheSession(t *testing.T) {
	write := Request{Tool: toolname.WriteFile, Path: "a.go"}
	run := Request{Tool: toolname.Bash, Command: "go test ./..."}
	tests := map[string]struct {
		session, agent Mode
		raise          bool
		write, run     bool // allowed without asking
	}{
		"no agent mode follows the session":  {ModeAcceptEdits, "", false, true, false},
		"plan under bypass refuses writes":   {ModeBypass, ModePlan, false, false, false},
		"default under bypass asks":          {ModeBypass, ModeDefault, false, false, false},
		"acceptEdits under bypass":           {ModeBypass, ModeAcceptEdits, false, true, false},
		"bypass under default is capped":     {ModeDefault, ModeBypass, false, false, false},
		"bypass under default when raised":   {ModeDefault, ModeBypass, true, true, true},
		"acceptEdits under plan stays plan":  {ModePlan, ModeAcceptEdits, false, false, false},
		"unknown agent mode changes nothing": {ModeAcceptEdits, "yolo", false, true, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := NewPolicy(tc.session, nil, nil).WithMode(tc.agent, tc.raise)
			if got := p.AllowedWithoutAsking(write); got != tc.write {
				t.Errorf("write allowed = %v, want %v", got, tc.write)
			}
			if got := p.AllowedWithoutAsking(run); got != tc.run {
				t.Errorf("command allowed = %v, want %v", got, tc.run)
			}
			if v := p.Check(context.Background(), run); v.Allowed != tc.run {
				t.Errorf("Check(command) = %+v, want allowed %v", v, tc.run)
			}
		})
	}
	t.Run("follows a session made stricter later, and scoping keeps it", func(t *testing.T) {
		s := NewPolicy(ModeBypass, nil, nil)
		p := s.WithMode(ModeAcceptEdits, false)
		scoped, err := p.Scoped([]string{"Bash(go test:*)"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !scoped.AllowedWithoutAsking(write) || scoped.AllowedWithoutAsking(run) {
			t.Error("scoped acceptEdits policy: want writes allowed, commands asked")
		}
		s.SetMode(ModePlan)
		if p.AllowedWithoutAsking(write) {
			t.Error("the agent's acceptEdits outlived the session's switch to plan")
		}
	})
}
