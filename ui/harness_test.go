package ui

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	xgolden "github.com/charmbracelet/x/exp/golden"

	"covey/tools/toolname"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"covey/agent"
	"covey/theme"
	"covey/tools/workspace"
)

// The golden files of this package are regenerated with -update. The flag
// may also be registered by another test file of the package, so it is
// registered here only when missing and always read through flag.Lookup.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
	// Golden screens are compared without colour.
	lipgloss.SetColorProfile(termenv.Ascii)
}

// checkGolden compares got with testdata/<test>/<name>.golden through
// x/exp/golden (-update rewrites it): <test> is the top-level test, so the
// cases of a table share one folder.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	xgolden.RequireEqual(goldenTB{TB: t, name: strings.Split(t.Name(), "/")[0] + "/" + name}, got)
}

// goldenTB names a golden file for x/exp/golden, which takes the name from
// the test.
type goldenTB struct {
	testing.TB
	name string
}

// Name implements testing.TB.
func (g goldenTB) Name() string { return g.name }

// fakeEngine records what the UI asks of it. Run blocks until its context
// is cancelled or release is signalled.
type fakeEngine struct {
	mu        sync.Mutex
	prompts   []string
	ctxs      []context.Context
	cancelled []string
	resets    int
	model     string
	release   chan error
	undos     int
	undoReply []undoReply // answers of successive Undo calls
	retries   int
	// crew controls, in call order
	sent         []string
	paused       []string
	backgrounded []string
	turnCancels  int
}

// undoReply is one answer of the fake engine's Undo.
type undoReply struct {
	summary string
	err     error
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{model: "test-model", release: make(chan error, 16)}
}

func (f *fakeEngine) Run(ctx context.Context, prompt string) error {
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	f.ctxs = append(f.ctxs, ctx)
	f.mu.Unlock()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-f.release:
		return err
	}
}

func (f *fakeEngine) CancelChild(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, id)
	return true
}

func (f *fakeEngine) SendToChild(_ context.Context, id, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, id+": "+text)
	return nil
}

func (f *fakeEngine) PauseChild(id string, paused bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paused = append(f.paused, fmt.Sprintf("%s=%v", id, paused))
	return true
}

func (f *fakeEngine) BackgroundChild(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.backgrounded = append(f.backgrounded, id)
	return true
}

func (f *fakeEngine) CancelTurn() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turnCancels++
	return true
}

func (f *fakeEngine) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resets++
}

func (f *fakeEngine) Model() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.model
}

func (f *fakeEngine) SetModel(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.model = name
}

func (f *fakeEngine) Undo(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.undos++
	if len(f.undoReply) == 0 {
		return "", workspace.ErrNothingToUndo
	}
	r := f.undoReply[0]
	f.undoReply = f.undoReply[1:]
	return r.summary, r.err
}

// Retry blocks like Run, recording the retry as the prompt "(retry)".
func (f *fakeEngine) Retry(ctx context.Context) error {
	f.mu.Lock()
	f.retries++
	f.mu.Unlock()
	return f.Run(ctx, "(retry)")
}

func (f *fakeEngine) snapshot() (prompts []string, ctxs []context.Context, cancelled []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.prompts...), append([]context.Context(nil), f.ctxs...), append([]string(nil), f.cancelled...)
}

// fixedNow is the clock of every test model.
var fixedNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// harness drives a Model the way bubbletea does: Update, then commands run
// in goroutines whose messages are collected for the test to deliver.
type harness struct {
	t    *testing.T
	m    Model
	eng  *fakeEngine
	msgs chan tea.Msg
}

func newHarness(t *testing.T, width, height int) *harness {
	t.Helper()
	eng := newFakeEngine()
	m := New(Options{
		Engine:         eng,
		Theme:          theme.New(theme.ModeDark, true, false),
		Workspace:      "/work/project",
		PermissionMode: "ask",
		MarkdownStyle:  "ascii",
		Agents: []AgentInfo{
			{Name: "Explore", Description: "reads code", Source: "built-in", ReadOnly: true, Tools: []string{toolname.ReadFile, toolname.Grep}},
		},
	})
	m.clock = func() time.Time { return fixedNow }
	m.kx.graceFor = 0 // answer requests at once; TestApprovalGrace tests the grace
	h := &harness{t: t, m: m, eng: eng, msgs: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: width, Height: height})
	return h
}

// send delivers msg and starts the commands it returns.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	nm, cmd := h.m.Update(msg)
	h.m = nm.(Model)
	h.spawn(cmd)
}

func (h *harness) spawn(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		switch msg := cmd().(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				h.spawn(c)
			}
		default:
			h.msgs <- msg
		}
	}()
}

// await returns the next message of type T, dropping others (ticks,
// prewarms). The timeout only guards against a hang.
func await[T tea.Msg](h *harness) T {
	h.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case msg := <-h.msgs:
			if v, ok := msg.(T); ok {
				return v
			}
		case <-deadline:
			var zero T
			h.t.Fatalf("no %T arrived", zero)
			return zero
		}
	}
}

// awaitType is await for a message whose type another package keeps to
// itself (a screen's results), named as %T prints it.
func awaitType(h *harness, name string) tea.Msg {
	h.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case msg := <-h.msgs:
			if fmt.Sprintf("%T", msg) == name {
				return msg
			}
		case <-deadline:
			h.t.Fatalf("no %s arrived", name)
			return nil
		}
	}
}

func (h *harness) key(t tea.KeyType) { h.t.Helper(); h.send(tea.KeyMsg{Type: t}) }

func (h *harness) typeText(s string) {
	h.t.Helper()
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
}

func (h *harness) events(evs ...agent.Event) { h.t.Helper(); h.send(eventsMsg{events: evs}) }

// screenLines is the current frame, without colour.
func (h *harness) screenLines() []string {
	return strings.Split(ansi.Strip(h.m.View()), "\n")
}

func (h *harness) screenContains(s string) bool {
	return strings.Contains(ansi.Strip(h.m.View()), s)
}

// screenMatches reports whether the screen, without colour, matches the
// regular expression re.
func (h *harness) screenMatches(re string) bool {
	return regexp.MustCompile(re).MatchString(ansi.Strip(h.m.View()))
}

// Event builders.

func mainSrc() agent.Source { return agent.Source{AgentID: agent.MainAgentID} }

func childSrc(id, parent, typ, desc string) agent.Source {
	return agent.Source{AgentID: id, ParentCallID: parent, AgentType: typ, Description: desc, Depth: 1}
}

func toolStarted(src agent.Source, id, name, arg string) agent.ToolStarted {
	return agent.ToolStarted{Source: src, CallID: id, Name: name, KeyArg: arg,
		Args: []byte(fmt.Sprintf(`{"path":%q}`, arg))}
}
