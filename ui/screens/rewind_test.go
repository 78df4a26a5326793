package screens

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/checkpoint"
)

// pointsEngine has one point; restoring its files would overwrite the
// files in conflicts.
type pointsEngine struct{ conflicts []checkpoint.Conflict }

func (e pointsEngine) RewindPoints() ([]checkpoint.Point, error) {
	return []checkpoint.Point{{ID: "c1", Time: time.Unix(0, 0), Text: "the first message", Files: []string{"a.go"}}}, nil
}

func (e pointsEngine) PlanRewind(context.Context, string) (checkpoint.Plan, error) {
	return checkpoint.Plan{Files: []string{"a.go"}, Conflicts: e.conflicts}, nil
}

// TestRewindPicksAPoint: the screen lists the user's messages, enter on
// one offers what goes back, and the choice comes back as RewindTo for
// the root to run: conversation only at once, code after the plan, with
// the files changed outside covey kept on n. esc goes back a stage, then
// out. (ui's TestEscTwiceOpensRewindAfterATurn opens it through the root
// and runs the rewind.)
func TestRewindPicksAPoint(t *testing.T) {
	tests := []struct {
		name      string
		conflicts []checkpoint.Conflict
		keys      []tea.KeyMsg // after enter on the point
		want      Action
	}{
		{"conversation only runs at once", nil, []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyEnter}},
			RewindTo{Req: checkpoint.Request{To: "c1", Mode: checkpoint.ConversationOnly}, Label: "“the first message”"}},
		{"code and conversation with nothing changed since", nil, []tea.KeyMsg{{Type: tea.KeyEnter}},
			RewindTo{Req: checkpoint.Request{To: "c1", Mode: checkpoint.Both}, Label: "“the first message”"}},
		{"n keeps the files changed outside covey", []checkpoint.Conflict{{Path: "a.go"}},
			[]tea.KeyMsg{{Type: tea.KeyEnter}, {Type: tea.KeyRunes, Runes: []rune("n")}},
			RewindTo{Req: checkpoint.Request{To: "c1", Mode: checkpoint.Both, Keep: []string{"a.go"}}, Label: "“the first message”"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRewind(context.Background(), testStyles(), defaultKeys(), pointsEngine{conflicts: tt.conflicts})
			r.SetSize(100, 28)
			view := func() string { return ansi.Strip(r.View()) }
			r.Update(r.Load()())
			if !strings.Contains(view(), "Rewind to before which message?") || !strings.Contains(view(), "the first message") {
				t.Fatalf("the points are not listed:\n%s", view())
			}
			r.Update(tea.KeyMsg{Type: tea.KeyEnter})
			if !strings.Contains(view(), "what goes back?") {
				t.Fatalf("no choice:\n%s", view())
			}
			var got Action
			for _, k := range tt.keys {
				a, cmd := r.Update(k)
				for cmd != nil && a == nil {
					a, cmd = r.Update(cmd())
				}
				got = a
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("action %#v, want %#v", got, tt.want)
			}
		})
	}
	t.Run("esc goes back a stage, then out", func(t *testing.T) {
		r := NewRewind(context.Background(), testStyles(), defaultKeys(), pointsEngine{})
		r.SetSize(100, 28)
		r.Update(r.Load()())
		r.Update(tea.KeyMsg{Type: tea.KeyEnter})
		if a, _ := r.Update(tea.KeyMsg{Type: tea.KeyEsc}); a != nil || strings.Contains(ansi.Strip(r.View()), "what goes back?") {
			t.Errorf("esc at the choice asked %#v:\n%s", a, ansi.Strip(r.View()))
		}
		if a, _ := r.Update(tea.KeyMsg{Type: tea.KeyEsc}); a != (Back{}) {
			t.Errorf("esc at the list asked %#v, want Back", a)
		}
	})
}
