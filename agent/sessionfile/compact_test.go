package sessionfile

import (
	"testing"

	"covey/agent"
)

// TestCompactionComesBack: the file keeps every message as it happened and
// the compaction as an event; loading resumes from the summary, the kept
// messages and what followed, for the main agent and for a child, and the
// replay still holds every earlier message for the transcript.
func TestCompactionComesBack(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	msg := func(role, text string) agent.Message { return agent.Message{Role: role, Content: text} }
	summary := []agent.Message{msg(agent.RoleUser, agent.CompactedMarker+" summary"), msg(agent.RoleAssistant, "Understood")}
	child := agent.Source{AgentID: "explore-1", ParentID: "main", AgentType: "Explore", Depth: 1, Name: "scout"}

	r.Message(msg(agent.RoleUser, "one"))
	r.Message(msg(agent.RoleAssistant, "answer one"))
	r.Event(agent.ChildStarted{Source: child, Model: "small"})
	r.ChildMessage(child, msg(agent.RoleUser, "look"))
	r.ChildMessage(child, msg(agent.RoleAssistant, "looked"))
	r.ChildMessage(child, msg(agent.RoleUser, "again"))
	r.Event(agent.Compacted{Source: child, Trigger: agent.CompactAuto, Messages: summary[:1], Kept: 1, Summarised: 2})
	r.ChildMessage(child, msg(agent.RoleAssistant, "looked again"))
	r.Event(agent.ChildFinished{Source: child, Reason: agent.StopOK})
	r.Message(msg(agent.RoleUser, "two"))
	r.Message(msg(agent.RoleAssistant, "answer two"))
	r.Event(agent.Compacted{Source: mainSrc, Trigger: agent.CompactManual, Focus: "tests", TokensBefore: 900, TokensAfter: 100,
		Summary: summary[0].Content, Messages: summary, Kept: 0, Summarised: 4})
	r.Message(msg(agent.RoleUser, "three"))
	r.Message(msg(agent.RoleAssistant, "answer three"))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "messages", l.Messages, append(append([]agent.Message(nil), summary...), msg(agent.RoleUser, "three"), msg(agent.RoleAssistant, "answer three")))
	mustEqual(t, "child messages", l.Children[0].Messages, []agent.Message{summary[0], msg(agent.RoleUser, "again"), msg(agent.RoleAssistant, "looked again")})
	var users []string
	var comp *agent.Compacted
	for _, e := range l.Events() {
		switch ev := e.(type) {
		case agent.UserMessage:
			users = append(users, ev.Text)
		case agent.Compacted:
			if !ev.IsChild() {
				comp = &ev
			}
		}
	}
	mustEqual(t, "replayed prompts", users, []string{"one", "two", "three"})
	if comp == nil || comp.Trigger != agent.CompactManual || comp.TokensBefore != 900 || comp.Summary != summary[0].Content || comp.Focus != "tests" {
		t.Fatalf("the compaction event did not come back whole: %+v", comp)
	}
}
