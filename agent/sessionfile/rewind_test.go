package sessionfile

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"covey/agent"
)

func userText(l *Loaded) []string {
	var out []string
	for _, m := range l.Messages {
		out = append(out, m.Role+":"+m.Content)
	}
	return out
}

func turn(r *Recorder, id, text string) {
	r.Checkpoint(Checkpoint{ID: id, Tree: "tree-" + id, Text: text})
	r.Message(agent.Message{Role: agent.RoleUser, Content: text})
	r.Message(agent.Message{Role: agent.RoleAssistant, Content: "re " + text})
	r.TurnEnd(id, "end-"+id, []string{text + ".txt"})
}

func TestRewindCutsTheConversationAndRedoBringsItBack(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/w", "m")
	if err != nil {
		t.Fatal(err)
	}
	turn(r, "c1", "one")
	turn(r, "c2", "two")
	turn(r, "c3", "three")
	r.Rewind(Rewind{ID: "r1", To: "c2", Conversation: true, Code: true, Tree: "now"})
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := userText(l), []string{"user:one", "assistant:re one"}; !slices.Equal(got, want) {
		t.Fatalf("after the rewind: %v, want %v", got, want)
	}
	if len(l.Checkpoints) != 1 || l.Checkpoints[0].ID != "c1" || l.Checkpoints[0].End != "end-c1" || l.Checkpoints[0].Files[0] != "one.txt" {
		t.Fatalf("checkpoints %+v", l.Checkpoints)
	}
	if len(l.Rewinds) != 1 || l.Rewinds[0].To != "c2" {
		t.Fatalf("rewinds %+v", l.Rewinds)
	}
	// A new turn on the cut conversation, then redo: back to the branch.
	turn(r, "c4", "two again")
	r.Rewind(Rewind{ID: "r2", To: "r1", Conversation: true})
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	l, err = s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user:one", "assistant:re one", "user:two", "assistant:re two", "user:three", "assistant:re three"}
	if got := userText(l); !slices.Equal(got, want) {
		t.Fatalf("after redo: %v, want %v", got, want)
	}
	var ids []string
	for _, c := range l.Checkpoints {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []string{"c1", "c2", "c3"}) {
		t.Fatalf("checkpoints after redo %v", ids)
	}
	// And forward from redo to the other branch again.
	r.Rewind(Rewind{ID: "r3", To: "r2", Conversation: true})
	_ = r.Close()
	l, err = s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got := userText(l); !slices.Equal(got, []string{"user:one", "assistant:re one", "user:two again", "assistant:re two again"}) {
		t.Fatalf("the second branch: %v", got)
	}
}

func TestCodeOnlyRewindKeepsTheConversation(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/w", "m")
	if err != nil {
		t.Fatal(err)
	}
	turn(r, "c1", "one")
	turn(r, "c2", "two")
	r.Rewind(Rewind{ID: "r1", To: "c1", Code: true})
	_ = r.Close()
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Messages) != 4 || len(l.Checkpoints) != 2 {
		t.Fatalf("messages %v, checkpoints %d", userText(l), len(l.Checkpoints))
	}
}

func TestForkLeavesTheOriginalByteIdentical(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/w", "m")
	if err != nil {
		t.Fatal(err)
	}
	turn(r, "c1", "one")
	_ = r.Close()
	before := readFile(t, r.Path())
	id, err := s.Fork(r.ID()[:10])
	if err != nil {
		t.Fatal(err)
	}
	if id == r.ID() {
		t.Fatal("the fork has the original's ID")
	}
	if got := readFile(t, r.Path()); got != before {
		t.Fatal("the original changed")
	}
	l, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if l.Header.ID != id || l.Header.ForkedFrom != r.ID() || !slices.Equal(userText(l), []string{"user:one", "assistant:re one"}) {
		t.Fatalf("fork: %+v %v", l.Header, userText(l))
	}
	if _, err := s.Fork("nosuch"); err == nil {
		t.Fatal("forked a session that does not exist")
	}
}

func TestExportIsBoundedAndFoldsToolCalls(t *testing.T) {
	s := testStore(t)
	r, err := s.Create("/w", "m")
	if err != nil {
		t.Fatal(err)
	}
	child := agent.Source{AgentID: "k1", Name: "scout", AgentType: "Explore", Depth: 1, ParentID: agent.MainAgentID}
	r.Message(agent.Message{Role: agent.RoleUser, Content: "look"})
	r.Message(agent.Message{Role: agent.RoleAssistant, Content: "on it", ToolCalls: []agent.ToolCall{{ID: "t1", Name: "task", Arguments: `{"prompt":"search\nthe code"}`}}})
	r.Event(agent.ChildStarted{Source: child, Prompt: "find the bug"})
	long := strings.Repeat("child transcript line ", 50000) // 1 MB
	r.ChildMessage(child, agent.Message{Role: agent.RoleUser, Content: "find the bug"})
	r.ChildMessage(child, agent.Message{Role: agent.RoleTool, Content: long, ToolCallID: "x"})
	r.ChildMessage(child, agent.Message{Role: agent.RoleAssistant, Content: "FOUND " + long})
	r.Event(agent.ChildFinished{Source: child, Reason: agent.StopOK})
	r.Message(agent.Message{Role: agent.RoleTool, ToolCallID: "t1", Content: long})
	r.Message(agent.Message{Role: agent.RoleAssistant, Content: "done"})
	_ = r.Close()
	l, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := Markdown(&md, l, r.Path()); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{"## You\n\nlook", "## covey\n\non it", "- `task` {\"prompt\":\"search\\nthe code\"}", "### Subagent scout (Explore)", "**Brief:** find the bug", "FOUND child", "agent k1"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%.2000s", want, out)
		}
	}
	if len(out) > 20000 {
		t.Errorf("markdown is %d bytes: a child's transcript was inlined", len(out))
	}
	var js bytes.Buffer
	if err := JSON(&js, l, r.Path()); err != nil {
		t.Fatal(err)
	}
	if js.Len() > 20000 {
		t.Errorf("json is %d bytes", js.Len())
	}
	var x Exported
	if err := json.Unmarshal(js.Bytes(), &x); err != nil {
		t.Fatal(err)
	}
	if len(x.Messages) != 4 || len(x.Children) != 1 || x.Children[0].Brief != "find the bug" || x.Children[0].Messages < 2 {
		t.Fatalf("json export: %d messages, children %+v", len(x.Messages), x.Children)
	}
}
