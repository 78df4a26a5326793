package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/ui/keys"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		in        string
		name, arg string
		ok        bool
	}{
		{"/help", "help", "", true},
		{"  /model  gpt-x  ", "model", "gpt-x", true},
		{"/MODEL a b", "model", "a b", true},
		{"hello /help", "", "", false},
		{"//not a command", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			name, arg, ok := parseCommand(tt.in)
			if name != tt.name || arg != tt.arg || ok != tt.ok {
				t.Errorf("parseCommand(%q) = %q, %q, %v; want %q, %q, %v", tt.in, name, arg, ok, tt.name, tt.arg, tt.ok)
			}
		})
	}
}

func TestCompletionFilter(t *testing.T) {
	tests := []struct {
		typed string
		want  []string
	}{
		{"/", []string{"help", "clear", "agents", "model", "cost", "context", "crew", "diff", "worktrees", "mcp", "lsp", "hooks", "skills", "memory", "init", "undo", "rewind", "fork", "export", "retry", "compact", "report", "quit", "frontend:component", "review"}},
		{"/m", []string{"model", "mcp", "memory"}},
		{"/fr", []string{"frontend:component"}},
		{"/rev", []string{"review"}},
		{"/re", []string{"rewind", "retry", "report", "review"}},
		{"/c", []string{"clear", "cost", "context", "crew", "compact"}},
		{"/CO", []string{"cost", "context", "compact"}},
		{"/com", []string{"compact"}},
		{"/cont", []string{"context"}},
		{"/cost", []string{"cost"}},
		{"/cost ", nil},
		{"/zzz", nil},
		{"help", nil},
	}
	for _, tt := range tests {
		t.Run(tt.typed, func(t *testing.T) {
			custom := []CustomCommand{{Name: "frontend:component", Description: "make a component"}, {Name: "review"}, {Name: "help", Description: "shadowed"}}
			c := newCompletion(withCustom(defaultCommands(keys.Default()), custom), keys.Default(), nil)
			c.Filter(tt.typed)
			var got []string
			for _, m := range c.Matches() {
				got = append(got, m.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("matches %v, want %v", got, tt.want)
			}
			if c.Open() != (len(tt.want) > 0) {
				t.Errorf("Open() = %v", c.Open())
			}
		})
	}
}

func TestCompletionKeys(t *testing.T) {
	t.Run("tab completes, enter runs", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.typeText("/he")
		if !h.m.comp.Open() || !h.screenContains("/help") {
			t.Fatal("no popup for /he")
		}
		h.key(tea.KeyTab)
		if got := h.m.input.Value(); got != "/help" {
			t.Errorf("tab gave %q, want /help", got)
		}
		h.key(tea.KeyEnter)
		if h.m.input.Value() != "" || !h.screenContains("/quit") {
			t.Errorf("enter did not run /help: %q\n%s", h.m.input.Value(), h.m.View())
		}
	})
	t.Run("down selects, enter runs /diff at once: its name is optional", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.typeText("/")
		for range 7 {
			h.key(tea.KeyDown)
		}
		if sel, _ := h.m.comp.Selected(); sel.Name != "diff" {
			t.Fatalf("selected %q, want diff", sel.Name)
		}
		h.key(tea.KeyEnter)
		if got := h.m.input.Value(); got != "" || !h.screenContains("Files changed in this session") {
			t.Errorf("enter on /diff did not run it: input %q\n%s", got, h.m.View())
		}
		if h.m.comp.Open() {
			t.Error("popup still open after the command was chosen")
		}
	})
	t.Run("enter runs /model at once: it shows the model, and a command typed after it is no model name", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.typeText("/model")
		h.key(tea.KeyEnter)
		if got := h.m.input.Value(); got != "" || !h.screenContains("model: test-model") {
			t.Errorf("enter on /model did not run it: input %q", got)
		}
		h.typeText("/model /memory")
		h.key(tea.KeyEnter)
		if h.eng.Model() != "test-model" || !strings.Contains(lastNotice(h.m), "not a model name") {
			t.Errorf("model %q after /model /memory; notice %q", h.eng.Model(), lastNotice(h.m))
		}
	})
	t.Run("enter runs /compact at once: its focus is optional", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.typeText("/com")
		h.key(tea.KeyEnter)
		if got := h.m.input.Value(); got != "" || !h.screenContains("cannot compact") {
			t.Errorf("enter on /com did not run /compact: input %q", got)
		}
	})
	t.Run("esc closes the popup without cancelling", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.typeText("/c")
		h.key(tea.KeyEsc)
		if h.m.comp.Open() {
			t.Error("popup still open")
		}
		if h.m.input.Value() != "/c" {
			t.Errorf("input changed to %q", h.m.input.Value())
		}
	})
}

func TestCommands(t *testing.T) {
	tests := []struct {
		name  string
		setup func(h *harness)
		line  string
		check func(t *testing.T, h *harness)
	}{
		{
			name: "model without a name shows the current one",
			line: "/model",
			check: func(t *testing.T, h *harness) {
				if !h.screenContains("model: test-model") {
					t.Error("current model not shown")
				}
			},
		},
		{
			name: "model with a name sets it",
			line: "/model big-one",
			check: func(t *testing.T, h *harness) {
				if h.eng.Model() != "big-one" || !h.screenContains("big-one") {
					t.Errorf("engine model %q; status not updated", h.eng.Model())
				}
			},
		},
		{
			name: "agents lists definitions with their source",
			line: "/agents",
			check: func(t *testing.T, h *harness) {
				if !h.screenContains("Explore (built-in)") || !h.screenContains("read_file, grep") {
					t.Error("agents not listed")
				}
			},
		},
		{
			name: "cost lists children and the total",
			setup: func(h *harness) {
				_, kids := withPanes(h)
				h.events(
					agent.UsageReported{Source: kids[0], Usage: agent.Usage{InputTokens: 1200, OutputTokens: 300}},
					agent.UsageReported{Source: mainSrc(), Usage: agent.Usage{InputTokens: 800, OutputTokens: 100}},
				)
			},
			line: "/cost",
			check: func(t *testing.T, h *harness) {
				if !h.screenMatches(`\[Explore\] map the packages \(running\) +1\.2k +300`) {
					t.Error("per-child tokens missing")
				}
				if !h.screenMatches(`session total +2k +400`) {
					t.Error("total missing")
				}
			},
		},
		{
			name:  "clear resets the engine, the transcript and the totals",
			setup: func(h *harness) { withPanes(h) },
			line:  "/clear",
			check: func(t *testing.T, h *harness) {
				// What stays is the notice that says so.
				if h.eng.resets != 1 || h.m.tr.Len() != 1 || len(h.m.rt.order) != 0 || !h.screenContains("Conversation cleared") {
					t.Errorf("resets %d, blocks %d, panes %d\n%s", h.eng.resets, h.m.tr.Len(), len(h.m.rt.order), strings.Join(h.screenLines(), "\n"))
				}
			},
		},
		{
			name: "an unknown command lists the commands",
			line: "/nope",
			check: func(t *testing.T, h *harness) {
				if !h.screenContains("unknown command /nope") || !h.screenContains("/help, /clear") {
					t.Error("no helpful error")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, 120, 40)
			if tt.setup != nil {
				tt.setup(h)
			}
			h.send(submitMsg{text: tt.line})
			// Commands that touch the engine report back with a message.
			switch tt.line {
			case "/clear":
				h.send(await[clearedMsg](h))
			case "/model big-one":
				h.send(await[modelSetMsg](h))
			}
			tt.check(t, h)
		})
	}
	t.Run("quit quits", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		nm, _ := h.m.Update(submitMsg{text: "/quit"})
		h.m = nm.(Model)
		if h.m.ctx.Err() == nil {
			t.Error("/quit did not stop the model's context")
		}
	})
}

// TestEngineCommandsRunOutsideUpdate: /clear and /model touch the engine
// (and its session file) only in the commands Update returns, never in
// Update itself; a message sent while /clear runs waits for it.
func TestEngineCommandsRunOutsideUpdate(t *testing.T) {
	t.Run("clear", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		withPanes(h)
		cmd := h.update(submitMsg{text: "/clear"})
		if h.eng.resets != 0 || h.m.tr.Len() == 0 {
			t.Fatalf("Update itself reset the engine (%d) or cleared the screen", h.eng.resets)
		}
		h.update(submitMsg{text: "next question"})
		if h.m.turn != nil {
			t.Fatal("a message sent during /clear started a turn at once")
		}
		msg := cmd()
		if _, ok := msg.(clearedMsg); !ok || h.eng.resets != 1 {
			t.Fatalf("the command sent %T and reset %d times; want clearedMsg after one reset", msg, h.eng.resets)
		}
		h.send(msg)
		h.startTurnWait("next question")
		if h.m.tr.Len() != 2 || !h.screenContains("Conversation cleared") {
			t.Fatalf("after /clear the transcript holds %d blocks, want only the notice that says so and the queued message", h.m.tr.Len())
		}
	})
	t.Run("model", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		cmd := h.update(submitMsg{text: "/model other"})
		if h.eng.Model() != "test-model" {
			t.Fatal("Update itself switched the model")
		}
		h.send(cmd())
		if h.eng.Model() != "other" || !h.screenContains("model set to other") {
			t.Fatalf("model %q after the command", h.eng.Model())
		}
	})
}

// TestFullHelpGroupsNamed: /help names every group of the full help, so a
// key listed twice (↑/k, enter, esc, t) says where each meaning applies.
func TestFullHelpGroupsNamed(t *testing.T) {
	if got, want := len(fullHelpGroups), len(keys.Default().FullHelp()); got != want {
		t.Fatalf("%d group names for %d groups of keys", got, want)
	}
}
