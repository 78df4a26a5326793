package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
	"covey/ui/cells"

	"covey/agent"
	"covey/theme"
	"covey/tools/tool"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// childSource is the Source of the test child's events.
var childSource = agent.Source{
	AgentID:      "child-1",
	ParentCallID: "call_task",
	AgentType:    "Explore",
	Description:  "Find where the agent loop retries failed requests",
	Depth:        1,
}

// newTestPane returns a pane that has run two tools, written some text,
// been rate limited once and is running a third tool.
func newTestPane() *SubagentBlock {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource, Model: "small"})
	b.SetStarted(testNow.Add(-3200 * time.Millisecond))
	src := childSource
	for _, ev := range []agent.Event{
		agent.ToolStarted{Source: src, CallID: "g1", Name: toolname.Grep, KeyArg: `"retry" in agent/`},
		agent.ToolFinished{Source: src, CallID: "g1", Name: toolname.Grep, Result: tool.Result{Summary: "37 matches"}},
		agent.TextDelta{Source: src, Text: "Looking at agent/loop"},
		agent.TextDelta{Source: src, Text: ".go next.\n\n"},
		agent.ToolStarted{Source: src, CallID: "r1", Name: toolname.ReadFile, KeyArg: "agent/loop.go"},
		agent.ToolFinished{Source: src, CallID: "r1", Name: toolname.ReadFile, Result: tool.Result{Summary: "212 lines"}},
		agent.UsageReported{Source: src, Usage: agent.Usage{InputTokens: 10_200, OutputTokens: 2_200}},
		agent.Retrying{Source: src, Attempt: 1, Wait: 12 * time.Second, Reason: "rate limited"},
		agent.TextDelta{Source: src, Text: "The retry logic lives in agent/provider.go: it backs off exponentially, honours Retry-After and gives up after four attempts.\n"},
		agent.ToolStarted{Source: src, CallID: "l1", Name: toolname.Glob, Args: []byte(`{"pattern":"**/*_test.go"}`)},
	} {
		b.Apply(ev)
	}
	return b
}

// paneStates are the ends a child can come to, by ChildFinished.
var paneStates = map[string]*agent.ChildFinished{
	"running": nil,
	"done": {Reason: agent.StopOK, Summary: "Retries are in agent/provider.go: exponential backoff, Retry-After, 4 attempts.",
		ToolCalls: 3, Elapsed: 41 * time.Second, Usage: agent.Usage{InputTokens: 15_000, OutputTokens: 3_100}},
	"failed":    {Reason: agent.StopError, Error: "provider: 500 Internal Server Error", ToolCalls: 3, Elapsed: 9 * time.Second},
	"cancelled": {Reason: agent.StopCancelled, ToolCalls: 3, Elapsed: 5 * time.Second},
	"timed_out": {Reason: agent.StopTimeout, Summary: "Partial: provider.go has the backoff.", ToolCalls: 3, Elapsed: 2 * time.Minute},
	"max_turns": {Reason: agent.StopMaxTurns, Summary: "Partial: looked at loop.go and provider.go.", ToolCalls: 12, Elapsed: 75 * time.Second},
}

func testPane(state string) *SubagentBlock {
	b := newTestPane()
	if fin := paneStates[state]; fin != nil {
		ev := *fin
		ev.Source = childSource
		b.Apply(ev)
	}
	return b
}

func TestSubagentBlockGolden(t *testing.T) {
	for _, width := range []int{80, 50} {
		for state := range paneStates {
			for _, expanded := range []bool{false, true} {
				if width != 80 && expanded {
					continue
				}
				form := "collapsed"
				if expanded {
					form = "expanded"
				}
				name := fmt.Sprintf("%s_%s", state, form)
				if width != 80 {
					name += fmt.Sprintf("_w%d", width)
				}
				t.Run(name, func(t *testing.T) {
					b := testPane(state)
					b.SetExpanded(expanded)
					golden(t, b.Lines(blockCtx(t, width)), width)
				})
			}
		}
	}
}

func TestSubagentBlockBodyLimits(t *testing.T) {
	tests := map[string]struct {
		expanded bool
		want     int
	}{
		"collapsed shows 2": {false, paneCollapsed},
		"expanded shows 10": {true, paneExpanded},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
			for i := range 30 {
				b.Apply(agent.TextDelta{Source: childSource, Text: fmt.Sprintf("line %d\n", i)})
			}
			b.SetExpanded(tc.expanded)
			lines := b.Lines(blockCtx(t, 80))
			if got := len(lines) - 1; got != tc.want {
				t.Fatalf("body has %d lines, want %d: %q", got, tc.want, lines)
			}
			if last := lines[len(lines)-1]; !strings.HasSuffix(last, "line 29") {
				t.Errorf("last body line = %q, want the newest text", last)
			}
		})
	}
}

func TestSubagentBlockRingBound(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
	for i := range 5 * paneMemory {
		b.Apply(agent.TextDelta{Source: childSource, Text: fmt.Sprintf("chatty line %d\n", i)})
	}
	if got := b.acts.len(); got != paneMemory {
		t.Fatalf("pane keeps %d activity lines, want at most %d", got, paneMemory)
	}
	if got := b.acts.get(0).text; got != fmt.Sprintf("chatty line %d", 4*paneMemory) {
		t.Errorf("oldest kept line = %q, want the oldest of the newest %d", got, paneMemory)
	}
	if got := b.acts.last().text; got != fmt.Sprintf("chatty line %d", 5*paneMemory-1) {
		t.Errorf("newest line = %q", got)
	}
}

func TestSubagentBlockToolLineInPlace(t *testing.T) {
	tests := map[string]struct {
		result   tool.Result
		evict    bool // push the start out of memory before it finishes
		wantLine string
	}{
		"ok":      {result: tool.Result{Summary: "37 matches"}, wantLine: `✓ grep  "func main" · 37 matches`},
		"error":   {result: tool.Result{IsError: true, Summary: "bad pattern"}, wantLine: `✗ grep  "func main" · bad pattern`},
		"evicted": {result: tool.Result{Summary: "3 matches"}, evict: true, wantLine: `✓ grep  "func main" · 3 matches`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
			b.Apply(agent.ToolStarted{Source: childSource, CallID: "c1", Name: toolname.Grep, KeyArg: `"func main"`})
			ctx := blockCtx(t, 80)
			if got := b.Lines(ctx)[1]; got != `│ → grep  "func main"` {
				t.Fatalf("running tool line = %q", got)
			}
			b.Apply(agent.TextDelta{Source: childSource, Text: "meanwhile\n"})
			if tc.evict {
				for i := range paneMemory {
					b.Apply(agent.TextDelta{Source: childSource, Text: fmt.Sprintf("filler %d\n", i)})
				}
			}
			before := b.acts.len()
			b.Apply(agent.ToolFinished{Source: childSource, CallID: "c1", Name: toolname.Grep, KeyArg: `"func main"`, Result: tc.result})
			if tc.evict {
				if b.acts.len() != paneMemory || b.acts.last().kind != actTool {
					t.Fatalf("finished tool whose start was dropped was not added as the newest line")
				}
			} else if b.acts.len() != before {
				t.Fatalf("finishing a tool added a line (%d → %d), want an update in place", before, b.acts.len())
			}
			lines := b.Lines(ctx)
			found := false
			for _, l := range lines[1:] {
				if l == "│ "+tc.wantLine {
					found = true
				}
				if strings.Contains(l, "→ grep") {
					t.Errorf("running line still shown after finish: %q", l)
				}
			}
			if !found {
				t.Errorf("no line %q in %q", tc.wantLine, lines)
			}
		})
	}
}

func TestSubagentBlockTokensAndCounts(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
	b.SetStarted(testNow)
	for _, u := range []agent.Usage{{InputTokens: 900, OutputTokens: 50}, {InputTokens: 10_000, OutputTokens: 1_450}} {
		b.Apply(agent.UsageReported{Source: childSource, Usage: u})
	}
	b.Apply(agent.ToolStarted{Source: childSource, CallID: "a", Name: toolname.ReadFile})
	if got := b.Usage(); got.InputTokens != 10_900 || got.OutputTokens != 1_500 {
		t.Fatalf("Usage = %+v, want 10900 in, 1500 out", got)
	}
	header := b.Lines(blockCtx(t, 80))[0]
	for _, want := range []string{"1 tool ·", "0ms", "12.4k tok", "[Explore]"} {
		if !strings.Contains(header, want) {
			t.Errorf("header %q lacks %q", header, want)
		}
	}
	b.Apply(agent.ChildFinished{Source: childSource, Reason: agent.StopOK, ToolCalls: 4, Elapsed: 3200 * time.Millisecond,
		Usage: agent.Usage{InputTokens: 1_000_000, OutputTokens: 200_000}})
	header = b.Lines(blockCtx(t, 80))[0]
	for _, want := range []string{"4 tools", "3.2s", "1.2M tok", cells.GlyphOK} {
		if !strings.Contains(header, want) {
			t.Errorf("finished header %q lacks %q", header, want)
		}
	}
	if b.Running() || b.Live() {
		t.Error("finished pane still running or live")
	}
	v := b.Version()
	b.Apply(agent.TextDelta{Source: childSource, Text: "late\n"})
	b.Apply(agent.UsageReported{Source: childSource, Usage: agent.Usage{InputTokens: 5}})
	if b.Version() != v || b.Usage().InputTokens != 1_000_000 {
		t.Error("events after ChildFinished changed the pane")
	}
}

func TestSubagentBlockCache(t *testing.T) {
	t.Run("running pane redraws only when the clock shows a change", func(t *testing.T) {
		b := newTestPane()
		ctx := blockCtx(t, 80)
		first := b.Lines(ctx)
		second := b.Lines(ctx)
		if b.recompute != 1 || &first[0] != &second[0] {
			t.Fatalf("second Lines with the same context recomputed (%d computations)", b.recompute)
		}
		ctx.Now = ctx.Now.Add(10 * time.Millisecond) // same tenth of a second
		b.Lines(ctx)
		if b.recompute != 1 {
			t.Errorf("a clock change the header does not show recomputed")
		}
		ctx.Frame++
		b.Lines(ctx)
		if b.recompute != 2 {
			t.Errorf("a new spinner frame did not recompute")
		}
		bodyBefore := b.body.lines
		ctx.Frame++
		b.Lines(ctx)
		if &b.body.lines[0] != &bodyBefore[0] {
			t.Errorf("a spinner frame rebuilt the body")
		}
	})
	t.Run("finished pane is frozen", func(t *testing.T) {
		b := testPane("done")
		ctx := blockCtx(t, 80)
		b.Lines(ctx)
		for i := range 5 {
			ctx.Frame++
			ctx.Now = ctx.Now.Add(time.Duration(i) * time.Second)
			b.Lines(ctx)
		}
		if b.recompute != 1 {
			t.Errorf("finished pane recomputed %d times across ticks, want 1", b.recompute)
		}
		ctx.Width = 60
		b.Lines(ctx)
		if b.recompute != 2 {
			t.Errorf("a new width did not recompute")
		}
	})
}

func TestSubagentBlockWidths(t *testing.T) {
	for state := range paneStates {
		for _, width := range []int{0, 1, 5, 12, 20, 40, 60, 120} {
			t.Run(fmt.Sprintf("%s_%d", state, width), func(t *testing.T) {
				b := testPane(state)
				b.SetWaiting(true)
				for _, exp := range []bool{false, true} {
					b.SetExpanded(exp)
					checkWidth(t, b.Lines(blockCtx(t, width)), max(width, 1))
				}
			})
		}
	}
}

func TestSubagentBlockWaitingAndAccessors(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource, Model: "m"})
	if b.AgentID() != "child-1" || b.ParentCallID() != "call_task" || b.Type() != "Explore" ||
		b.Description() != childSource.Description || b.Model() != "m" || !b.Focusable() {
		t.Fatal("accessors do not reflect ChildStarted")
	}
	b.SetWaiting(true)
	header := b.Lines(blockCtx(t, 100))[0]
	if !strings.HasPrefix(header, cells.GlyphWaiting) || !strings.Contains(header, "awaiting approval") {
		t.Errorf("waiting header = %q", header)
	}
	v := b.Version()
	b.Apply(agent.TurnFinished{Source: childSource})
	if b.Version() != v {
		t.Error("an event the pane does not show changed its version")
	}
}

func TestQuickStyleMatchesRender(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	th := theme.New(theme.ModeDark, true, false)
	var look paneLook
	for id := range lookCount {
		for _, s := range []string{"hello", "│ ", "3 tools · 1.2s"} {
			want := themeStyle(&th.Styles, id).Render(s)
			if got := look.style(&th.Styles, id).Render(s); got != want {
				t.Errorf("look %d: quick render of %q = %q, lipgloss = %q", id, s, got, want)
			}
		}
	}
	if pre, _ := look.style(&th.Styles, lookStats).Codes(); pre == "" {
		t.Error("a coloured style gave no escape codes: the test proves nothing")
	}
}

// TestSubagentBlockFailureShownOnce checks that a child that failed shows its
// error on one line, whether the error came as an event, as the finish's
// error, or as its report ("Error: ..." summary) as well.
func TestSubagentBlockFailureShownOnce(t *testing.T) {
	const msg = "the connection to api.example.com closed mid-answer (the server closed the connection); 7 tokens kept"
	tests := map[string]struct {
		event   bool
		summary string
	}{
		"event, error and report": {event: true, summary: "Error: " + msg},
		"error and report":        {summary: "Error: " + msg},
		"event and error":         {event: true},
		"error alone":             {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
			b.Apply(agent.TextDelta{Source: childSource, Text: "Looking"})
			if tc.event {
				b.Apply(agent.ErrorEvent{Source: childSource, Message: msg})
			}
			b.Apply(agent.ChildFinished{Source: childSource, Reason: agent.StopError, Error: msg, Summary: tc.summary})
			view := strings.Join(b.Lines(blockCtx(t, 200)), "\n")
			if n := strings.Count(view, "7 tokens kept"); n != 1 {
				t.Errorf("the error shows %d times, want once:\n%s", n, view)
			}
		})
	}
}

// TestSubagentBlockCancelledSaysItOnce: a cancelled child's pane says
// "cancelled" once, not again in the summary the engine gives it.
func TestSubagentBlockCancelledSaysItOnce(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
	b.Apply(agent.TextDelta{Source: childSource, Text: "working\n"})
	b.Apply(agent.ChildFinished{Source: childSource, Reason: agent.StopCancelled, Summary: agent.CancelledResult})
	text := strings.Join(b.Lines(blockCtx(t, 80)), "\n")
	if n := strings.Count(text, "cancelled"); n != 1 { // the header shows ⊘
		t.Errorf("%d mentions of cancelled, want one note:\n%s", n, text)
	}
}

// TestPaneHeaderStatsNearName checks that a pane's stats stay within a
// readable width of its name on a wide terminal, for subagent and shell
// panes alike, and still fill a narrow one.
func TestPaneHeaderStatsNearName(t *testing.T) {
	shell := childSource
	shell.AgentType = agent.ShellType
	shell.Description = "npm run dev"
	long := childSource
	long.Description = strings.Repeat("a long description of the task ", 6)
	named := childSource
	named.AgentType, named.Name, named.Description, named.NameIsDescription = "general-purpose", "write-wide-notes", "write wide notes", true
	for _, tc := range []struct {
		name    string
		src     agent.Source
		width   int
		wantEnd int // the column the stats end at
	}{
		{"subagent 80", childSource, 80, 80},
		{"subagent 100", childSource, 100, 100},
		{"subagent 200", childSource, 200, headerReadable},
		{"shell 200", shell, 200, headerReadable},
		{"long description 200", long, 200, headerWidest},
		{"long description 110", long, 110, 110},
		{"name without description 60", named, 60, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewSubagentBlock(agent.ChildStarted{Source: tc.src, Model: "small"})
			b.SetStarted(testNow)
			header := ansi.Strip(b.Lines(blockCtx(t, tc.width))[0])
			trimmed := strings.TrimRight(header, " ")
			if got := ansi.StringWidth(trimmed); got != tc.wantEnd {
				t.Errorf("stats end at column %d, want %d:\n%q", got, tc.wantEnd, header)
			}
			if !strings.HasSuffix(trimmed, "0 tok") && !strings.HasSuffix(trimmed, "0 B") {
				t.Errorf("header does not end with its stats: %q", header)
			}
		})
	}
}

func TestPaneTypeColourFromAgentFile(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	src := agent.Source{AgentID: "r-1", ParentCallID: "call_1", AgentType: "reviewer", Description: "review", Depth: 1}
	ctx := RenderContext{Styles: &th.Styles, Now: time.Now()}
	plain := NewSubagentBlock(agent.ChildStarted{Source: src})
	red := NewSubagentBlock(agent.ChildStarted{Source: src, Color: "red"})
	odd := NewSubagentBlock(agent.ChildStarted{Source: src, Color: "mauve"})
	if got, want := red.typeStyle(ctx).GetForeground(), th.Styles.Subagent.TypeByColor["red"].GetForeground(); got != want {
		t.Errorf("red pane type colour = %v, want the theme's red %v", got, want)
	}
	if got, want := red.typeStyle(ctx).GetForeground(), th.Styles.App.Error.GetForeground(); got != want {
		t.Errorf("red maps to %v, want the theme's Error colour %v", got, want)
	}
	for name, b := range map[string]*SubagentBlock{"no colour": plain, "unknown colour": odd} {
		if got, want := b.typeStyle(ctx).GetForeground(), th.Styles.Subagent.Type.GetForeground(); got != want {
			t.Errorf("%s: type colour = %v, want the theme's %v", name, got, want)
		}
	}
}

// A child's running MCP call shows its progress on its pane line, until it
// finishes.
func TestSubagentPaneShowsToolProgress(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
	b.Apply(agent.ToolStarted{Source: childSource, CallID: "c1", Name: "mcp__db__export", KeyArg: "users"})
	b.Apply(agent.ToolProgress{Source: childSource, CallID: "c1", Progress: tool.Progress{Progress: 3, Total: 8, Message: "table users"}})
	ctx := blockCtx(t, 80)
	if got := b.Lines(ctx)[1]; got != "│ → mcp__db__export  users · 3/8 · table users" {
		t.Errorf("running line = %q", got)
	}
	b.Apply(agent.ToolFinished{Source: childSource, CallID: "c1", Name: "mcp__db__export", KeyArg: "users", Result: tool.Result{Summary: "8 tables"}})
	if got := b.Lines(ctx)[1]; got != "│ ✓ mcp__db__export  users · 8 tables" {
		t.Errorf("finished line = %q", got)
	}
	// A report for a call the pane does not know changes nothing.
	b.Apply(agent.ToolProgress{Source: childSource, CallID: "zz", Progress: tool.Progress{Progress: 1}})
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

// TestSubagentBlockRunningCommand: a running command's line shows how
// long it has run (from its second second) and its latest output under
// it; once it finishes, the output goes and the result stays.
func TestSubagentBlockRunningCommand(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
	b.Observe(testNow.Add(-2500 * time.Millisecond))
	b.Apply(agent.ToolStarted{Source: childSource, CallID: "b1", Name: toolname.Bash, KeyArg: "make build"})
	b.Apply(agent.ToolProgress{Source: childSource, CallID: "b1", Progress: tool.Progress{Output: []string{"compiling a", "compiling b"}}})
	ctx := blockCtx(t, 80)
	lines := b.Lines(ctx)
	if want := "│ → bash  make build · 2.5s"; lines[1] != want {
		t.Errorf("running line = %q, want %q", lines[1], want)
	}
	if want := "│   ⎿ compiling b"; len(lines) < 3 || lines[2] != want {
		t.Errorf("output under it = %q, want %q", lines[2:], want)
	}
	ctx.Now = ctx.Now.Add(time.Second)
	if got := b.Lines(ctx)[1]; !strings.HasSuffix(got, " · 3.5s") {
		t.Errorf("a second later the line reads %q", got)
	}
	b.Apply(agent.ToolFinished{Source: childSource, CallID: "b1", Name: toolname.Bash, Result: tool.Result{Summary: "exit 0"}})
	lines = b.Lines(ctx)
	if len(lines) != 2 || lines[1] != "│ ✓ bash  make build · exit 0" {
		t.Errorf("finished pane = %q", lines)
	}
}

// TestSubagentBlockApprovalQueued: a child whose request waits behind
// another's says so, with the waiting glyph and no spinner, until it is
// no longer queued.
func TestSubagentBlockApprovalQueued(t *testing.T) {
	b := NewSubagentBlock(agent.ChildStarted{Source: childSource})
	ctx := blockCtx(t, 120)
	b.SetApprovalQueued(2)
	head := b.Lines(ctx)[0]
	if !strings.Contains(head, "approval queued (2 ahead)") || !strings.HasPrefix(head, cells.GlyphWaiting) || !b.Waiting() {
		t.Errorf("queued header = %q (waiting %v)", head, b.Waiting())
	}
	b.SetApprovalQueued(0)
	if head := b.Lines(ctx)[0]; strings.Contains(head, "queued") || strings.HasPrefix(head, cells.GlyphWaiting) {
		t.Errorf("header after the queue = %q", head)
	}
	b.SetApprovalQueued(1)
	b.Apply(agent.ChildFinished{Source: childSource, Reason: agent.StopOK})
	if head := b.Lines(ctx)[0]; strings.Contains(head, "queued") || b.Waiting() {
		t.Errorf("a finished child still says it waits: %q", head)
	}
}
