package ui

import (
	"strings"
	"testing"
	"time"

	"covey/agent"
)

func TestMention(t *testing.T) {
	types := []AgentInfo{{Name: "Explore"}, {Name: "general-purpose"}}
	tests := map[string]struct {
		text, typ, brief string
		ok               bool
	}{
		"a type and a brief":     {"@Explore find the retry logic", "Explore", "find the retry logic", true},
		"any case":               {"@explore  find it ", "Explore", "find it", true},
		"a brief on a new line":  {"@general-purpose\nwrite the notes", "general-purpose", "write the notes", true},
		"no brief":               {"@Explore", "Explore", "", true},
		"no such type (a path?)": {"@docs/guide.md what is in it", "", "", false},
		"not at the start":       {"ask @Explore", "", "", false},
		"plain text":             {"hello", "", "", false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			typ, brief, ok := mention(tt.text, types)
			if typ != tt.typ || brief != tt.brief || ok != tt.ok {
				t.Errorf("mention(%q) = %q, %q, %v; want %q, %q, %v", tt.text, typ, brief, ok, tt.typ, tt.brief, tt.ok)
			}
		})
	}
}

func TestCompletionAgents(t *testing.T) {
	keys := DefaultKeyMap()
	c := newCompletion(defaultCommands(keys), keys, nil)
	c.agents = agentEntries([]AgentInfo{{Name: "Explore", Description: "Reads"}, {Name: "general-purpose"}, {Name: "Plan"}})
	tests := map[string][]string{
		"@":         {"Explore", "general-purpose", "Plan"},
		"@ex":       {"Explore"},
		"@PL":       {"Plan"},
		"@docs/":    nil, // no type: room for paths
		"@Explore ": nil,
		"/cl":       {"clear"},
	}
	for value, want := range tests {
		c.Filter(value)
		var got []string
		for _, m := range c.matches {
			got = append(got, m.name)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("Filter(%q) = %v, want %v", value, got, want)
		}
		if len(want) > 0 && c.lead != value[0] {
			t.Errorf("Filter(%q): lead %q", value, c.lead)
		}
	}
}

// A shell's pane shows its last lines as they are now, its bytes and, once
// ended, how; it is never stalled, and the crew keys that make no sense for
// a shell are off.
func TestShellPane(t *testing.T) {
	src := agent.Source{AgentID: "shell-1", Name: "shell-1", AgentType: agent.ShellType, Description: "npm run dev", Depth: 1, ParentID: "main", ParentCallID: "call_1"}
	b := NewSubagentBlock(agent.ChildStarted{Source: src, Background: true, Prompt: "npm run dev"})
	b.Observe(testNow.Add(-90 * time.Second))
	b.Apply(agent.ChildState{Source: src, State: agent.StateRunning, Background: true})
	b.Observe(testNow)
	b.Apply(agent.ShellOutput{Source: src, Lines: []string{"compiling", "ready on :3000"}, Bytes: 2048})
	b.Apply(agent.ShellOutput{Source: src, Lines: []string{"ready on :3000", "GET / 200", "\x1b[31mGET /x 404\x1b[0m"}, Bytes: 4096})
	ctx := blockCtx(t, 80)
	lines := b.Lines(ctx)
	text := strings.Join(lines, "\n")
	for _, want := range []string{"shell-1 [shell] npm run dev", "1m30s · 4.1 KB", "│ GET / 200", "│ GET /x 404"} {
		if !strings.Contains(text, want) {
			t.Errorf("pane lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "compiling") || strings.Contains(text, "tools") || strings.Contains(text, "\x1b[31m") {
		t.Errorf("pane:\n%s", text)
	}
	if b.StateName() != "running" || b.Stalled(testNow.Add(time.Hour)) {
		t.Errorf("state %q, stalled %v", b.StateName(), b.Stalled(testNow.Add(time.Hour)))
	}
	b.Apply(agent.ChildFinished{Source: src, Reason: agent.StopError, Error: "exit 3", Summary: "exit 3", Elapsed: 95 * time.Second})
	text = strings.Join(b.Lines(ctx), "\n")
	if !strings.Contains(text, "1m35s · 4.1 KB · exit 3") || !strings.Contains(text, "│ GET /x 404") || b.Model() != "exit 3" || b.StateName() != "failed" {
		t.Errorf("ended pane (model %q):\n%s", b.Model(), text)
	}
	checkWidth(t, b.Lines(ctx), 80)
}

func TestForkedPane(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource, Forked: true})
	text := strings.Join(b.Lines(blockCtx(t, 100)), "\n")
	if !strings.Contains(text, "forked from its parent's conversation") {
		t.Errorf("pane does not say forked:\n%s", text)
	}
}

func TestByteText(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 4096: "4.1 KB", 104_857_600: "104.9 MB", 3e9: "3.0 GB"} {
		if got := byteText(n); got != want {
			t.Errorf("byteText(%d) = %q, want %q", n, got, want)
		}
	}
}
