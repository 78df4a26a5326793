package ui

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"covey/agent"
	"covey/theme"
	"covey/ui/keys"
	"covey/ui/transcript"
)

func welcomeModel(instructions string) Model {
	m := New(Options{
		Engine:        newFakeEngine(),
		Theme:         theme.New(theme.ModeDark, true, true),
		Workspace:     "/work/project",
		MarkdownStyle: "ascii",
		Welcome: &transcript.Welcome{
			Version: "1.2.3", Model: "qwen3-coder", Endpoint: "localhost:11434",
			Workspace: "/work/project", InstructionsFile: instructions,
		},
	})
	m.clock = func() time.Time { return fixedNow }
	return m
}

// TestWelcome checks the first screen: never blank, it names the model and
// endpoint, the workspace, whether AGENTS.md was loaded, and three key hints
// taken from the KeyMap; it scrolls away as the conversation grows.
func TestWelcome(t *testing.T) {
	for name, file := range map[string]string{"with AGENTS.md": "AGENTS.md", "without": ""} {
		t.Run(name, func(t *testing.T) {
			lines := welcomeModel(file).tr.At(0).Lines(blockCtx(t, 80))
			golden(t, lines, 80)
		})
	}
	t.Run("hints follow the keys.KeyMap", func(t *testing.T) {
		keys := keys.Default()
		keys.Quit.SetHelp("ctrl+q", "quit")
		text := strings.Join(newWelcomeBlock(transcript.Welcome{}, keys).Lines(blockCtx(t, 80)), "\n")
		if !strings.Contains(text, "ctrl+q twice") {
			t.Fatalf("the quit hint does not follow the keys.KeyMap:\n%s", text)
		}
	})
	t.Run("a suggested prompt", func(t *testing.T) {
		lines := newWelcomeBlock(transcript.Welcome{Try: "a long exploration"}, keys.Default()).Lines(blockCtx(t, 80))
		golden(t, lines, 80)
		if text := strings.Join(lines, "\n"); !strings.Contains(text, "try       “a long exploration”") {
			t.Errorf("the card does not suggest the prompt:\n%s", text)
		}
		plain := strings.Join(newWelcomeBlock(transcript.Welcome{}, keys.Default()).Lines(blockCtx(t, 80)), "\n")
		if strings.Contains(plain, "try ") {
			t.Errorf("a card with nothing to try names it:\n%s", plain)
		}
	})
	t.Run("scrolls away", func(t *testing.T) {
		h := newHarness(t, 80, 12)
		h.m = welcomeModel("AGENTS.md")
		h.send(tea.WindowSizeMsg{Width: 80, Height: 12})
		if !strings.Contains(h.m.View(), "qwen3-coder at localhost:11434") {
			t.Fatalf("the first screen lacks the welcome:\n%s", h.m.View())
		}
		h.m.notice(transcript.NoticeInfo, strings.Repeat("a line of conversation\n", 20))
		h.m.tr.Bottom()
		h.send(tea.WindowSizeMsg{Width: 80, Height: 12})
		if strings.Contains(h.m.View(), "qwen3-coder at") {
			t.Fatalf("the welcome did not scroll away:\n%s", h.m.View())
		}
	})
}

// TestQuitTakesTwoCtrlC drives the whole program (teatest): one ctrl+c on
// an empty input asks, the second quits.
func TestQuitTakesTwoCtrlC(t *testing.T) {
	tm := teatest.NewTestModel(t, welcomeModel("AGENTS.md"), teatest.WithInitialTermSize(100, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("AGENTS.md loaded"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("press ctrl+c again to quit"))
	}, teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if _, err := io.ReadAll(tm.FinalOutput(t)); err != nil {
		t.Fatal(err)
	}
}

// TestClearShowsWelcome: after /clear the screen is not empty: the
// welcome card comes back with its hints, under it a notice that the
// conversation was cleared, and nothing of the conversation before.
func TestClearShowsWelcome(t *testing.T) {
	h := &harness{t: t, m: welcomeModel("AGENTS.md"), msgs: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.events(agent.TextDelta{Source: mainSrc(), Text: "an answer from before"})
	h.send(submitMsg{text: "/clear"})
	h.send(await[clearedMsg](h))
	screen := strings.Join(h.screenLines(), "\n")
	for _, want := range []string{"qwen3-coder", "? help", "Conversation cleared", "/help for keys and commands"} {
		if !strings.Contains(screen, want) {
			t.Errorf("after /clear the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "an answer from before") {
		t.Errorf("the conversation before /clear is still shown:\n%s", screen)
	}
}
