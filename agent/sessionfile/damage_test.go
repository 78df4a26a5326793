package sessionfile

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"covey/agent"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// realSession is a session as a recorder writes it: two turns of the main
// agent (one with a bash call and a task call starting a child), the
// child's history and events, a model change.
func realSession(t testing.TB) []byte {
	t.Helper()
	f := &faultyFile{}
	r := newRecorder(f, "x", "/s/x.jsonl", nil, nil, nil)
	r.now = fixedNow
	(&retryTimers{}).install(r)
	f.buf.WriteString(faultHeader)
	bash := agent.ToolCall{ID: "b1", Name: toolname.Bash, Arguments: `{"command":"make"}`}
	task := agent.ToolCall{ID: "task1", Name: toolname.Task, Arguments: `{}`}
	r.Message(agent.Message{Role: agent.RoleUser, Content: "build it"})
	r.Event(agent.TextDelta{Source: mainSrc, Text: "Building."})
	r.Message(agent.Message{Role: agent.RoleAssistant, Content: "Building.", ToolCalls: []agent.ToolCall{bash, task}})
	r.Event(agent.ToolStarted{Source: mainSrc, CallID: "b1", Name: toolname.Bash, Args: json.RawMessage(bash.Arguments)})
	r.Event(agent.ToolStarted{Source: mainSrc, CallID: "task1", Name: toolname.Task, Args: json.RawMessage(`{}`)})
	r.Event(agent.ChildStarted{Source: childSrc, Model: "small"})
	r.ChildMessage(childSrc, agent.Message{Role: agent.RoleUser, Content: "look around"})
	r.ChildMessage(childSrc, agent.Message{Role: agent.RoleAssistant, Content: "found it"})
	r.Event(agent.ChildFinished{Source: childSrc, Reason: agent.StopOK})
	r.Event(agent.ToolFinished{Source: mainSrc, CallID: "b1", Name: toolname.Bash, Result: tool.Result{Content: "exit 0"}})
	r.Event(agent.ToolFinished{Source: mainSrc, CallID: "task1", Name: toolname.Task, Result: tool.Result{Content: "found it"}})
	r.Message(agent.Message{Role: agent.RoleTool, ToolCallID: "b1", Name: toolname.Bash, Content: "exit 0"})
	r.Message(agent.Message{Role: agent.RoleTool, ToolCallID: "task1", Name: toolname.Task, Content: "found it"})
	r.Message(agent.Message{Role: agent.RoleAssistant, Content: "Built."})
	r.Event(agent.Done{Source: mainSrc, Reason: agent.StopOK})
	r.SetModel("big")
	r.Message(agent.Message{Role: agent.RoleUser, Content: "and test it"})
	r.Message(agent.Message{Role: agent.RoleAssistant, Content: "Tested."})
	r.Event(agent.Done{Source: mainSrc, Reason: agent.StopOK})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return f.buf.Bytes()
}

// TestDamagedLine breaks one line of a real session at a time: loading
// names the line and what it held, and the history stays one providers
// take (no two replies in a row, every call answered right after it,
// a lost result marked lost, not interrupted).
func TestDamagedLine(t *testing.T) {
	data := realSession(t)
	lines := strings.SplitAfter(string(data), "\n")
	tests := map[string]struct {
		match string // the line to damage contains this
		lost  string // the warning says this was lost
		want  string // and the history holds this
	}{
		"a user message":     {`"content":"and test it"`, "a message of the user", "[covey: a message of the user was lost here: line "},
		"a reply":            {`"content":"Built."`, "a reply of the model", "[covey: a reply was lost here"},
		"a reply with calls": {`"tool_calls"`, "a reply of the model", "[covey: a reply was lost here"},
		"a tool result":      {`"tool_call_id":"b1"`, "a tool result", LostResult},
		"an event":           {`"tool_finished","agent_id":"main","call_id":"b1"`, "a tool_finished event", "exit 0"},
		"a child message":    {`"content":"look around"`, "a message of a subagent's conversation", "Tested."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			n := 0
			for i, ln := range lines {
				if n == 0 && strings.Contains(ln, tc.match) {
					n = i + 1
					// Break the JSON near its end, in the content, as a
					// flipped block on disk would.
					ln = ln[:len(ln)-8] + "\x00\x7f" + ln[len(ln)-6:]
				}
				b.WriteString(ln)
			}
			if n == 0 {
				t.Fatalf("no line contains %s", tc.match)
			}
			l, err := Read(strings.NewReader(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			wantWarn := "line " + itoa(n) + " is damaged"
			if len(l.Warnings) == 0 || !strings.Contains(l.Warnings[0], wantWarn) || !strings.Contains(l.Warnings[0], tc.lost) {
				t.Errorf("warnings %q, want the first to say %q and %q", l.Warnings, wantWarn, tc.lost)
			}
			if msg := checkHistory(l.Messages); msg != "" {
				t.Errorf("history is not well-formed: %s\n%+v", msg, l.Messages)
			}
			for _, c := range l.Children {
				if msg := checkHistory(c.Messages); msg != "" {
					t.Errorf("child history is not well-formed: %s", msg)
				}
			}
			found := false
			for _, m := range l.Messages {
				found = found || strings.Contains(m.Content, tc.want)
				if m.Content == InterruptedResult {
					t.Errorf("a finished call loads as interrupted: %+v", l.Messages)
				}
			}
			if !found {
				t.Errorf("history holds no %q: %+v", tc.want, l.Messages)
			}
		})
	}
}

// FuzzSessionLoad damages a real session file at random (bytes flipped,
// cut out, inserted; lines cut, doubled, swapped, dropped): loading never
// panics, and whatever it accepts is a history every provider takes, for
// the main agent and each child, with a replay the TUI can draw.
func FuzzSessionLoad(f *testing.F) {
	data := realSession(f)
	for _, seed := range []uint64{0, 1, 2, 3, 42, 1234} {
		f.Add(seed, uint8(3))
	}
	f.Fuzz(func(t *testing.T, seed uint64, ops uint8) {
		damaged := damage(data, seed, int(ops%16)+1)
		l, err := Read(bytes.NewReader(damaged))
		if err != nil {
			return // only a lost header is refused
		}
		if msg := checkHistory(l.Messages); msg != "" {
			t.Fatalf("history is not well-formed: %s\n%q", msg, damaged)
		}
		for _, c := range l.Children {
			if msg := checkHistory(c.Messages); msg != "" {
				t.Fatalf("child %s's history is not well-formed: %s\n%q", c.Source.AgentID, msg, damaged)
			}
		}
		for _, rec := range l.Replay {
			if (rec.Message == nil) == (rec.Event == nil) {
				t.Fatal("a replay record sets both or neither of Message and Event")
			}
		}
		_ = l.Events()
	})
}

// damage applies n random injuries to data, chosen by seed.
func damage(data []byte, seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed>>32|1))
	out := append([]byte(nil), data...)
	for range n {
		if len(out) == 0 {
			break
		}
		at := rng.IntN(len(out))
		switch rng.IntN(7) {
		case 0: // a flipped byte
			out[at] ^= byte(1 + rng.IntN(255))
		case 1: // bytes cut out
			end := min(len(out), at+1+rng.IntN(64))
			out = append(out[:at], out[end:]...)
		case 2: // garbage inserted
			junk := make([]byte, 1+rng.IntN(16))
			for i := range junk {
				junk[i] = byte(rng.IntN(256))
			}
			out = append(out[:at], append(junk, out[at:]...)...)
		case 3: // cut short, as a crash mid-write leaves it
			out = out[:at]
		default: // whole lines dropped, doubled or swapped
			lines := bytes.SplitAfter(out, []byte("\n"))
			i, j := rng.IntN(len(lines)), rng.IntN(len(lines))
			switch rng.IntN(3) {
			case 0:
				lines = append(lines[:i], lines[i+1:]...)
			case 1:
				lines = append(lines[:i+1], lines[i:]...)
			default:
				lines[i], lines[j] = lines[j], lines[i]
			}
			out = bytes.Join(lines, nil)
		}
	}
	return out
}
