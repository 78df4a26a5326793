package screens

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/ui/transcript"
)

// textRouter stands in for the root's router in a child's view: it
// streams the child's text into one answer and applies its events to its
// pane.
type textRouter struct {
	tr     *transcript.Transcript
	pane   *transcript.SubagentBlock
	answer *transcript.AssistantBlock
}

func (r *textRouter) Route(ev agent.Event, _ time.Time) {
	if e, ok := ev.(agent.TextDelta); ok {
		if r.answer == nil {
			r.answer = transcript.NewAssistantBlock()
			r.tr.Append(r.answer)
		}
		r.answer.AppendText(e.Text)
		return
	}
	r.pane.Apply(ev)
}

func (r *textRouter) FinishAssistant()                      { r.answer = nil }
func (r *textRouter) Pane(string) *transcript.SubagentBlock { return nil }
func (r *textRouter) MarkPausedWaits()                      {}

// TestCrewChildViewSaysHowItEnded checks that a child's full-screen
// transcript ends with why it stopped when it did not answer, and with
// nothing more when it did.
func TestCrewChildViewSaysHowItEnded(t *testing.T) {
	tests := map[string]struct {
		fin  agent.ChildFinished
		want string // "" : no outcome line
	}{
		"answered":  {fin: agent.ChildFinished{Reason: agent.StopOK, Summary: "all done"}},
		"cancelled": {fin: agent.ChildFinished{Reason: agent.StopCancelled, Summary: "cancelled by the user"}, want: "cancelled: cancelled by the user"},
		"failed":    {fin: agent.ChildFinished{Reason: agent.StopError, Error: "the server said 500"}, want: "failed: the server said 500"},
		"budget":    {fin: agent.ChildFinished{Reason: agent.StopBudget}, want: "stopped at its budget"},
		"timed out": {fin: agent.ChildFinished{Reason: agent.StopTimeout, Elapsed: 90 * time.Second}, want: "timed out after 1m30s"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			d := agent.Source{AgentID: "c3", Name: "drafter", ParentCallID: "call_task", AgentType: "general-purpose", Description: "draft the fix", Depth: 1}
			pane := transcript.NewSubagentBlock(agent.ChildStarted{Source: d, Model: "big"})
			pane.Observe(fixedNow)
			history := []Logged{{Event: agent.TextDelta{Source: d, Text: "Working on it."}, At: fixedNow}}
			v := NewChildView(pane, history, transcript.RenderContext{Styles: testStyles()}, defaultKeys(), nil,
				func(tr *transcript.Transcript, _ *transcript.FilesBlock) Router {
					return &textRouter{tr: tr, pane: pane}
				})
			v.SetSize(100, 28)
			fin := tt.fin
			fin.Source = d
			v.Route(fin, fixedNow.Add(time.Minute))
			var notices []string
			for _, b := range v.Transcript().Blocks() {
				if n, ok := b.(*transcript.NoticeBlock); ok {
					notices = append(notices, n.Text())
				}
			}
			if got := strings.Join(notices, "|"); got != tt.want {
				t.Errorf("outcome lines %q, want %q", got, tt.want)
			}
			if view := ansi.Strip(v.View()); tt.want != "" && !strings.Contains(view, tt.want) {
				t.Errorf("the view does not show %q:\n%s", tt.want, view)
			}
		})
	}
}
