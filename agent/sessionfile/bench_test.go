package sessionfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"covey/tools/toolname"

	"covey/agent"
	"covey/tools/tool"
)

// BenchmarkEventTextDelta is the recorder's hot path: one streamed token.
func BenchmarkEventTextDelta(b *testing.B) {
	r, err := Store{Dir: b.TempDir(), Secrets: []string{"sk-0123456789abcdef"}}.Create("/ws", "m")
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	e := agent.TextDelta{Source: mainSrc, Text: "token "}
	b.ReportAllocs()
	for b.Loop() {
		r.Event(e)
	}
}

// BenchmarkMessage is one synchronous message write.
func BenchmarkMessage(b *testing.B) {
	r, err := Store{Dir: b.TempDir(), Secrets: []string{"sk-0123456789abcdef"}}.Create("/ws", "m")
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	m := agent.Message{Role: agent.RoleTool, ToolCallID: "call_1", Name: toolname.ReadFile, Content: strings.Repeat("some file content\n", 100)}
	b.ReportAllocs()
	for b.Loop() {
		r.Message(m)
	}
}

// bigSession writes a session of 100 turns, each with a user message, 100
// streamed fragments, a tool call and its result.
func bigSession(b *testing.B, s Store, workspace string) string {
	r, err := s.Create(workspace, "m")
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		r.Message(agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("question %d", i)})
		for j := range 100 {
			r.Event(agent.TextDelta{Source: mainSrc, Text: "word "})
			r.Event(agent.ReasoningDelta{Source: childSrc, Text: fmt.Sprint(j)})
			r.Event(agent.UsageReported{Source: childSrc}) // keeps fragments from merging
			r.Event(agent.TurnFinished{Source: mainSrc})
		}
		call := agent.ToolCall{ID: fmt.Sprint("c", i), Name: toolname.ReadFile, Arguments: `{"path":"a.go"}`}
		r.Message(agent.Message{Role: agent.RoleAssistant, Content: "reading", ToolCalls: []agent.ToolCall{call}})
		r.Event(agent.ToolStarted{Source: mainSrc, CallID: call.ID, Name: call.Name, Args: json.RawMessage(call.Arguments)})
		r.Event(agent.ToolFinished{Source: mainSrc, CallID: call.ID, Name: call.Name, Result: tool.Result{Content: strings.Repeat("x", 2000)}})
		r.Message(agent.Message{Role: agent.RoleTool, ToolCallID: call.ID, Content: strings.Repeat("x", 2000)})
		r.Event(agent.Done{Source: mainSrc, Reason: agent.StopOK})
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	return r.ID()
}

// BenchmarkRead loads a session of 100 turns and ~40,000 event lines.
func BenchmarkRead(b *testing.B) {
	s := Store{Dir: b.TempDir()}
	data, err := os.ReadFile(s.Path(bigSession(b, s, "/ws")))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList summarises 20 such sessions, as the --resume picker does.
func BenchmarkList(b *testing.B) {
	s := Store{Dir: b.TempDir()}
	for i := range 20 {
		bigSession(b, s, fmt.Sprint("/ws/", i%2))
	}
	b.ReportAllocs()
	for b.Loop() {
		infos, err := s.List("/ws/0")
		if err != nil || len(infos) != 10 {
			b.Fatal(len(infos), err)
		}
	}
}

// hugeSession writes a session whose one user message holds size bytes,
// then an answer, as a paste of a huge log would leave it.
func hugeSession(b *testing.B, s Store, size int) string {
	r, err := s.Create("/ws", "m")
	if err != nil {
		b.Fatal(err)
	}
	r.Message(agent.Message{Role: agent.RoleUser, Content: strings.Repeat("log line with a \"quote\" and a tab\t\n", size/36)})
	r.Event(agent.TextDelta{Source: mainSrc, Text: "that is a long log"})
	r.Message(agent.Message{Role: agent.RoleAssistant, Content: "that is a long log"})
	r.Event(agent.Done{Source: mainSrc, Reason: agent.StopOK})
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	return r.ID()
}

// BenchmarkLoadHugeMessage loads a session holding a 50 MB message, as
// covey --continue does before the transcript fills.
func BenchmarkLoadHugeMessage(b *testing.B) {
	s := Store{Dir: b.TempDir()}
	id := hugeSession(b, s, 50<<20)
	b.SetBytes(50 << 20)
	b.ReportAllocs()
	for b.Loop() {
		l, err := s.Load(id)
		if err != nil || len(l.Messages) != 2 {
			b.Fatal(err)
		}
	}
}

// BenchmarkListHugeFile lists the sessions (covey sessions, the --resume
// picker) with one session file of 1 GB among them: its message is paged
// through, not parsed.
func BenchmarkListHugeFile(b *testing.B) {
	s := Store{Dir: b.TempDir()}
	// Written directly: through a recorder the setup would take a minute.
	id := hugeSession(b, s, 1<<10)
	data, err := os.ReadFile(s.Path(id))
	if err != nil {
		b.Fatal(err)
	}
	head, tail, _ := bytes.Cut(data, []byte("log line"))
	f, err := os.OpenFile(s.Path(id), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		b.Fatal(err)
	}
	f.Write(head)
	chunk := bytes.Repeat([]byte(`log line with a \"quote\" and a tab\t\n`), 1<<20/40)
	for range 1024 {
		f.Write(chunk)
	}
	f.Write(tail)
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	bigSession(b, s, "/ws")
	b.ReportAllocs()
	for b.Loop() {
		infos, err := s.List("/ws")
		if err != nil || len(infos) != 2 || infos[1].Messages != 2 && infos[0].Messages != 2 {
			b.Fatal(len(infos), err)
		}
	}
}
