package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/ui/cells"
)

const testDiff = `--- a/agent/loop.go
+++ b/agent/loop.go
@@ -10,6 +10,7 @@ func run() {
 	ctx := context.Background()
 	for turn := 0; ; turn++ {
-		if turn > max {
+		if turn >= maxTurns {
+			log.Print("limit")
 			break
 		}
 		step()
@@ -98,3 +99,3 @@ func stop() {
 	a := 1
-	b := 2
+	b := 3
 	return
`

func toolStart(name, args string) agent.ToolStarted {
	return agent.ToolStarted{CallID: "call_" + name, Name: name, Args: []byte(args)}
}

func finished(name string, d time.Duration, res tool.Result) agent.ToolFinished {
	return agent.ToolFinished{CallID: "call_" + name, Name: name, Duration: d, Result: res}
}

func TestToolBlockGolden(t *testing.T) {
	longOut := strings.Repeat("line of output\n", 60)
	todos := []tool.Todo{
		{Content: "Read the agent loop", Status: "completed"},
		{Content: "Find where retries happen and write down the backoff rules in detail", Status: "in_progress"},
		{Content: "Write the test", Status: "pending"},
	}
	tests := map[string]struct {
		start    agent.ToolStarted
		end      *agent.ToolFinished
		expanded bool
		width    int
	}{
		"running": {start: toolStart(toolname.Bash, `{"command":"go test ./...\necho done"}`)},
		"ok_preview": {start: toolStart(toolname.ReadFile, `{"path":"agent/loop.go"}`),
			end: ptr(finished(toolname.ReadFile, 12*time.Millisecond, tool.Result{Content: "package agent\n\nimport \"context\"\n\nfunc Run() {}\n", Summary: "5 lines"}))},
		"ok_long_collapsed": {start: toolStart(toolname.Bash, `{"command":"seq 60"}`),
			end: ptr(finished(toolname.Bash, 1500*time.Millisecond, tool.Result{Content: longOut, Summary: "exit 0"}))},
		"ok_long_expanded": {start: toolStart(toolname.Bash, `{"command":"seq 60"}`), expanded: true,
			end: ptr(finished(toolname.Bash, 1500*time.Millisecond, tool.Result{Content: longOut, Summary: "exit 0"}))},
		"error": {start: toolStart(toolname.Grep, `{"pattern":"func ("}`),
			end: ptr(finished(toolname.Grep, 3*time.Millisecond, tool.Errorf("bad pattern %q: missing closing )", "func (")))},
		"diff": {start: toolStart(toolname.EditFile, `{"path":"agent/loop.go","old_string":"x","new_string":"y"}`),
			end: ptr(finished(toolname.EditFile, 4*time.Millisecond, tool.Result{Content: "edited", Summary: "+3 -2",
				Display: &tool.FileChange{Path: "agent/loop.go", Diff: testDiff, Added: 3, Removed: 2}}))},
		"diff_narrow": {start: toolStart(toolname.EditFile, `{"path":"agent/loop.go"}`), width: 40,
			end: ptr(finished(toolname.EditFile, 4*time.Millisecond, tool.Result{Content: "edited",
				Display: &tool.FileChange{Path: "agent/loop.go", Diff: testDiff, Added: 3, Removed: 2}}))},
		"todo": {start: toolStart(toolname.TodoWrite, `{"todos":[{},{},{}]}`),
			end: ptr(finished(toolname.TodoWrite, time.Millisecond, tool.Result{Content: "ok", Display: todos}))},
		"task": {start: toolStart("task", `{"tasks":[{},{}]}`),
			end: ptr(finished(toolname.Task, 41*time.Second, tool.Result{Content: "child results…", Summary: "2 tasks done"}))},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			width := tc.width
			if width == 0 {
				width = 80
			}
			b := NewToolBlock(tc.start)
			b.SetStarted(testNow.Add(-2 * time.Second))
			if tc.end != nil {
				b.Finish(*tc.end)
			}
			b.SetExpanded(tc.expanded)
			golden(t, b.Lines(blockCtx(t, width)), width)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestToolBlockState(t *testing.T) {
	b := NewToolBlock(toolStart(toolname.ReadFile, `{"path":"a.go"}`))
	if !b.Running() || !b.Live() || b.CallID() != "call_read_file" || b.Name() != toolname.ReadFile {
		t.Fatal("a started block is not running and live with its call's ID and name")
	}
	if b.Focusable() {
		t.Error("a running call with no output is focusable")
	}
	ctx := blockCtx(t, 60)
	if h := b.Lines(ctx)[0]; !strings.Contains(h, "a.go") || !strings.Contains(h, cells.Spinner(ctx.Frame)) {
		t.Errorf("running header %q lacks the key argument or the spinner", h)
	}
	b.Finish(finished(toolname.ReadFile, time.Second, tool.Result{Content: strings.Repeat("x\n", 10), Summary: "10 lines"}))
	b.Finish(finished(toolname.ReadFile, time.Hour, tool.Result{IsError: true}))
	if b.Running() || b.Live() || b.end.Duration != time.Second {
		t.Error("Finish did not stop the block, or a second Finish counted")
	}
	if !b.Focusable() {
		t.Error("a call with more output than its preview is not focusable")
	}
	collapsed := len(b.Lines(ctx))
	b.SetExpanded(true)
	expanded := len(b.Lines(ctx))
	if collapsed != 1+outputPreview+1 || expanded != 1+10 {
		t.Errorf("collapsed %d lines, expanded %d; want %d and %d", collapsed, expanded, 1+outputPreview+1, 11)
	}
}

// TestToolBlockByUser: a command the user typed ("!cmd") shows all of its
// output at once, past the model's call's 40 lines too, and still folds.
func TestToolBlockByUser(t *testing.T) {
	start := toolStart(toolname.Bash, `{"command":"seq 100"}`)
	start.ByUser = true
	b := NewToolBlock(start)
	b.Finish(finished(toolname.Bash, time.Second, tool.Result{Content: strings.Repeat("out\n", 99) + "LAST\n", Summary: "exit 0"}))
	ctx := blockCtx(t, 60)
	lines := b.Lines(ctx)
	if len(lines) != 1+100 || !strings.Contains(lines[len(lines)-1], "LAST") {
		t.Errorf("a user's command shows %d lines (last %q), want its header and all 100", len(lines), lines[len(lines)-1])
	}
	if !b.Focusable() {
		t.Fatal("a user's long command cannot be folded")
	}
	b.SetExpanded(false)
	if n := len(b.Lines(ctx)); n != 1+outputPreview+1 {
		t.Errorf("folded, it shows %d lines, want %d", n, 1+outputPreview+1)
	}
}

func TestToolBlockCache(t *testing.T) {
	b := NewToolBlock(toolStart(toolname.Bash, `{"command":"make"}`))
	ctx := blockCtx(t, 80)
	b.SetStarted(ctx.Now)
	b.Lines(ctx)
	b.Lines(ctx)
	if b.recompute != 1 {
		t.Fatalf("same context recomputed: %d", b.recompute)
	}
	ctx.Frame++
	b.Lines(ctx)
	if b.recompute != 2 {
		t.Fatalf("running block ignored a spinner frame")
	}
	b.Finish(finished(toolname.Bash, time.Second, tool.Result{Content: "ok"}))
	b.Lines(ctx)
	for range 3 {
		ctx.Frame++
		ctx.Now = ctx.Now.Add(time.Second)
		b.Lines(ctx)
	}
	if b.recompute != 3 {
		t.Errorf("finished block recomputed on ticks: %d computations, want 3", b.recompute)
	}
}

func TestToolBlockWidths(t *testing.T) {
	blocks := map[string]func() *ToolBlock{
		"diff": func() *ToolBlock {
			b := NewToolBlock(toolStart(toolname.EditFile, `{"path":"a/very/long/path/to/some/file/deep/in/the/tree.go"}`))
			b.Finish(finished(toolname.EditFile, 0, tool.Result{Display: &tool.FileChange{Path: "a/very/long/path/to/some/file/deep/in/the/tree.go", Diff: testDiff, Added: 3, Removed: 2}}))
			return b
		},
		"output": func() *ToolBlock {
			b := NewToolBlock(toolStart(toolname.Bash, `{"command":"`+strings.Repeat("x", 200)+`"}`))
			b.Finish(finished(toolname.Bash, 0, tool.Result{Content: strings.Repeat("wide\tcontent 日本語 ", 20), Summary: strings.Repeat("s", 100)}))
			return b
		},
		"running": func() *ToolBlock {
			return NewToolBlock(toolStart(toolname.Glob, `{"pattern":"`+strings.Repeat("*", 100)+`"}`))
		},
		"todo": func() *ToolBlock {
			b := NewToolBlock(toolStart(toolname.TodoWrite, `{}`))
			b.Finish(finished(toolname.TodoWrite, 0, tool.Result{Display: []tool.Todo{{Content: strings.Repeat("long item ", 20), Status: "weird"}}}))
			return b
		},
	}
	for name, mk := range blocks {
		for _, width := range []int{1, 10, 40, 60, 120} {
			t.Run(fmt.Sprintf("%s_%d", name, width), func(t *testing.T) {
				b := mk()
				for _, exp := range []bool{false, true} {
					b.SetExpanded(exp)
					checkWidth(t, b.Lines(blockCtx(t, width)), width)
				}
			})
		}
	}
}

func TestToolBlockFocusRedraws(t *testing.T) {
	b := NewToolBlock(toolStart(toolname.ReadFile, `{"path":"a.go"}`))
	b.Finish(finished(toolname.ReadFile, time.Millisecond, tool.Result{Content: "x"}))
	ctx := blockCtx(t, 60)
	b.Lines(ctx)
	ctx.Focused = true
	b.Lines(ctx)
	if b.recompute != 2 {
		t.Errorf("gaining the focus did not redraw the header (%d computations)", b.recompute)
	}
}

// TestToolBlockOneMoreLineShown: output one line longer than the preview
// shows whole, not with a "… 1 more line" note in the row that line needs
// (`!ls` of three files hid its "[exit code 0]" behind one).
func TestToolBlockOneMoreLineShown(t *testing.T) {
	b := NewToolBlock(toolStart(toolname.Bash, `{"command":"ls"}`))
	b.Finish(finished(toolname.Bash, time.Second, tool.Result{Content: strings.Repeat("x\n", outputPreview+1)}))
	ctx := blockCtx(t, 60)
	lines := b.Lines(ctx)
	if len(lines) != 1+outputPreview+1 || strings.Contains(ansi.Strip(strings.Join(lines, "\n")), "more line") {
		t.Errorf("collapsed call:\n%s\nwant every line and no note", strings.Join(lines, "\n"))
	}
	if b.Focusable() {
		t.Error("a call showing all its output is focusable")
	}
}

func TestProgressText(t *testing.T) {
	tests := map[string]struct {
		p    tool.Progress
		want string
	}{
		"count":        {tool.Progress{Progress: 3, Total: 10}, "3/10"},
		"fraction":     {tool.Progress{Progress: 0.25, Total: 1}, "25%"},
		"message only": {tool.Progress{Message: "indexing"}, "indexing"},
		"no total":     {tool.Progress{Progress: 42, Message: "rows"}, "42 · rows"},
		"nothing":      {tool.Progress{}, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := progressText(tc.p); got != tc.want {
				t.Errorf("progressText = %q, want %q", got, tc.want)
			}
		})
	}
}

// A running call's time is written as a subagent's is, so a task's header
// never reads behind the children it started.
func TestToolBlockRunningTime(t *testing.T) {
	for _, tc := range []struct {
		ran  time.Duration
		want string
	}{
		{300 * time.Millisecond, ""},
		{6300 * time.Millisecond, "6.3s"},
		{75 * time.Second, "1m15s"},
	} {
		b := NewToolBlock(toolStart("bash", `{"command":"sleep 100"}`))
		b.SetStarted(testNow.Add(-tc.ran))
		if got := b.runningFor(testNow); got != tc.want {
			t.Errorf("after %v: running time %q, want %q", tc.ran, got, tc.want)
		}
		ctx := blockCtx(t, 80)
		header := ansi.Strip(b.Lines(ctx)[0])
		if tc.want != "" && !strings.Contains(header, tc.want) {
			t.Errorf("after %v: header %q lacks %q", tc.ran, header, tc.want)
		}
	}
}

// TestToolBlockRunningOutput: a running command's latest lines show as
// its output preview until it finishes.
func TestToolBlockRunningOutput(t *testing.T) {
	b := NewToolBlock(agent.ToolStarted{CallID: "c1", Name: toolname.Bash, KeyArg: "make"})
	ctx := blockCtx(t, 60)
	b.SetProgress(tool.Progress{Output: []string{"one", "two", "three", "four"}})
	lines := b.Lines(ctx)
	if len(lines) != 4 || !strings.HasSuffix(lines[1], "⎿ two") || !strings.HasSuffix(lines[3], "four") {
		t.Errorf("running block = %q, want its last 3 lines of output", lines)
	}
	b.Finish(agent.ToolFinished{CallID: "c1", Name: toolname.Bash, Result: tool.Result{Content: "done\n", Summary: "exit 0"}})
	b.SetProgress(tool.Progress{Output: []string{"late"}})
	for _, l := range b.Lines(ctx) {
		if strings.Contains(l, "late") || strings.Contains(l, "four") {
			t.Errorf("finished block shows live output: %q", l)
		}
	}
}
