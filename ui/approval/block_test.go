package approval

import (
	"fmt"
	"strings"
	"testing"

	"covey/tools/toolname"
	"covey/ui/diffview"
	"covey/ui/keys"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	xgolden "github.com/charmbracelet/x/exp/golden"

	"covey/permission"
	"covey/theme"
	"covey/tools/diff"
	"covey/tools/tool"
)

// approvalOld and approvalNew are a small Go file before and after an edit.
const approvalOld = `package handlers

import "net/http"

// Health answers the load balancer.
func Health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
}

// Version reports the build.
func Version(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("dev"))
}
`

const approvalNew = `package handlers

import (
	"fmt"
	"net/http"
)

// Health answers the load balancer.
func Health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}

// Version reports the build.
func Version(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "%s\n", build)
}
`

// editRequest is an edit_file request changing old into new.
func editRequest(path, old, new string) permission.Request {
	diff, added, removed := diff.UnifiedDiff(path, old, new)
	return permission.Request{Tool: toolname.EditFile, Path: path, Content: new,
		Change: &tool.FileChange{Path: path, Diff: diff, Added: added, Removed: removed}}
}

// writeRequest is a write_file request creating path with content.
func writeRequest(path, content string) permission.Request {
	diff, added, removed := diff.UnifiedDiff(path, "", content)
	return permission.Request{Tool: toolname.WriteFile, Path: path, Content: content,
		Change: &tool.FileChange{Path: path, Created: true, Diff: diff, Added: added, Removed: removed}}
}

func bashRequest(cmd string) permission.Request {
	return permission.Request{Tool: toolname.Bash, Command: cmd, Dir: "/work/project"}
}

func approvalCtx(width int) transcript.RenderContext {
	th := theme.New(theme.ModeDark, true, false)
	return transcript.RenderContext{Width: width, Styles: &th.Styles}
}

func TestApprovalGolden(t *testing.T) {
	child := editRequest("internal/handlers/health.go", approvalOld, approvalNew)
	child.Agent, child.AgentID = "[general-purpose] update handlers", "c1"
	tests := []struct {
		name   string
		req    permission.Request
		width  int
		active bool
		setup  func(b *Block)
	}{
		{name: "edit", req: editRequest("internal/handlers/health.go", approvalOld, approvalNew), width: 100, active: true},
		{name: "write_new_file", req: writeRequest("docs/RUNBOOK.md", "# Runbook\n\n1. Page the on-call.\n2. Check the dashboard.\n"), width: 100, active: true},
		{name: toolname.Bash, req: bashRequest("go test ./... && go vet ./..."), width: 100, active: true},
		{name: "side_by_side", req: editRequest("internal/handlers/health.go", approvalOld, approvalNew), width: 160, active: true},
		{name: "child_waiting_input_focused", req: child, width: 100, active: false,
			setup: func(b *Block) { b.SetWaiting(1) }},
		{name: "scrolled", req: writeRequest("data.txt", numberedLines(40)), width: 100, active: true,
			setup: func(b *Block) { b.SetRows(9); b.ScrollBy(5) }}, // 8 rows and a second line of keys
		{name: "mcp_call", req: permission.Request{Tool: "mcp__github__create_issue", Server: "github", ServerTool: "create_issue",
			Args: `{"repo":"acme/api","title":"Health check returns 200","labels":["bug"]}`}, width: 100, active: true},
		{name: toolname.WebFetch, req: permission.Request{Tool: toolname.WebFetch, URL: "https://docs.example.com/guide/install?v=2"}, width: 100, active: true},
		{name: "merge", req: mergeRequest(), width: 100, active: true,
			setup: func(b *Block) { b.MoveFile(1); b.ToggleFile() }},
		{name: "merge_side_by_side", req: mergeRequest(), width: 160, active: true},
		{name: "hunks", req: editRequest("f.txt", hunkFile, hunkEdit), width: 100, active: true,
			setup: func(b *Block) { b.SetRows(40); b.MoveHunk(1); b.ToggleHunk() }},
		{name: "hunks_side_by_side", req: editRequest("f.txt", hunkFile, hunkEdit), width: 160, active: true,
			setup: func(b *Block) { b.SetRows(40); b.ToggleHunk() }},
		{name: "pick", req: pickRequest(), width: 140, active: true,
			setup: func(b *Block) { b.SetRows(40); b.MoveAttempt(1) }},
		{name: "pick_checked", req: checkedPickRequest(), width: 140, active: true,
			setup: func(b *Block) { b.SetRows(40) }},
		{name: "feedback", req: bashRequest("rm -rf build"), width: 100, active: true,
			setup: func(b *Block) {
				km := keys.Default()
				b.StartFeedback()
				b.HandleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("use make clean")}, &km)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newHintedBlock(tt.req)
			b.SetActive(tt.active)
			b.Lines(approvalCtx(tt.width)) // learn the width, as the transcript does
			if tt.setup != nil {
				tt.setup(b)
			}
			lines := b.Lines(approvalCtx(tt.width))
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > tt.width {
					t.Errorf("line %d is %d cells wide, more than %d", i, w, tt.width)
				}
			}
			checkGolden(t, tt.name, ansi.Strip(strings.Join(lines, "\n"))+"\n")
		})
	}
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestApprovalRecord(t *testing.T) {
	tests := []struct {
		name    string
		req     permission.Request
		outcome Outcome
		detail  string
		want    string
	}{
		{"allowed", editRequest("a.go", "a\n", "b\n"), OutcomeAllowed, "", "✓ allowed  edit_file a.go"},
		{"session", editRequest("docs/x.md", "a\n", "b\n"), OutcomeSession, "edit_file(docs/x.md)",
			"✓ allowed for this session: edit_file(docs/x.md)"},
		{"denied", bashRequest("make deploy"), OutcomeDenied, "", "✗ denied  bash make deploy"},
		{"denied with feedback", bashRequest("make deploy"), OutcomeDenied, "not on a Friday",
			"✗ denied: not on a Friday  bash make deploy"},
		{"edited", writeRequest("n.txt", "x\n"), OutcomeEdited, "", "✎ allowed with your edits  write_file n.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newHintedBlock(tt.req)
			b.Resolve(tt.outcome, tt.detail)
			lines := b.Lines(approvalCtx(100))
			if len(lines) != 1 {
				t.Fatalf("%d lines, want a one-line record", len(lines))
			}
			if got := ansi.Strip(lines[0]); got != tt.want {
				t.Errorf("record %q, want %q", got, tt.want)
			}
		})
	}
}

func TestApprovalScrollAndLayout(t *testing.T) {
	b := newHintedBlock(writeRequest("data.txt", numberedLines(50)))
	b.SetActive(true)
	b.SetRows(11) // less the second line of keys
	ctx := approvalCtx(100)
	b.Lines(ctx)
	// 50 added lines and the hunk header.
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"down one", func() { b.ScrollBy(1) }, 1},
		{"page down", func() { b.PageBy(1) }, 10},
		{"past the end stops at the last window", func() { b.PageBy(100) }, 41},
		{"up past the top stops at 0", func() { b.ScrollBy(-100) }, 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do()
			if b.Offset() != s.want {
				t.Errorf("offset %d, want %d", b.Offset(), s.want)
			}
		})
	}
	t.Run("the window shows the rows at the offset", func(t *testing.T) {
		b.ScrollBy(20)
		text := ansi.Strip(strings.Join(b.Lines(ctx), "\n"))
		if !strings.Contains(text, "line 20") || strings.Contains(text, "line 19\n") || strings.Contains(text, "line 30") {
			t.Errorf("window at 20 shows:\n%s", text)
		}
		if !strings.Contains(text, "rows 21–30 of 51") {
			t.Errorf("no position note in:\n%s", text)
		}
	})
	t.Run("t toggles side by side and back, from the top", func(t *testing.T) {
		// A new file is always unified: toggle an edit.
		old := numberedLines(50)
		b := newHintedBlock(editRequest("data.txt", old, strings.Replace(old, "line 20", "line twenty", 1)))
		b.SetActive(true)
		b.SetRows(3)
		b.Lines(ctx)
		b.ScrollBy(2)
		if b.SideBySide(100) {
			t.Fatal("side by side at 100 columns by default")
		}
		b.ToggleLayout()
		if !b.SideBySide(100) || b.Offset() != 0 {
			t.Errorf("after t: side by side %v, offset %d", b.SideBySide(100), b.Offset())
		}
		text := ansi.Strip(strings.Join(b.Lines(ctx), "\n"))
		if !strings.Contains(text, "│") {
			t.Errorf("no separator in the side-by-side form:\n%s", text)
		}
		b.ToggleLayout()
		if b.SideBySide(100) {
			t.Error("second t did not go back to unified")
		}
	})
	t.Run("wide terminals start side by side", func(t *testing.T) {
		w := newHintedBlock(editRequest("a.go", approvalOld, approvalNew))
		if !w.SideBySide(SplitMinWidth) || w.SideBySide(SplitMinWidth-1) {
			t.Errorf("split at %d: %v, at %d: %v", SplitMinWidth, w.SideBySide(SplitMinWidth), SplitMinWidth-1, w.SideBySide(SplitMinWidth-1))
		}
	})
	t.Run("a command has no layout to toggle", func(t *testing.T) {
		c := newHintedBlock(bashRequest("ls"))
		c.ToggleLayout()
		if c.SideBySide(200) || c.Editable() {
			t.Error("a command is drawn as a diff or offered for editing")
		}
	})
}

func TestContentDiff(t *testing.T) {
	tests := map[string]struct {
		content string
		lines   int
	}{
		"empty":              {"", 0},
		"one line":           {"x", 2},
		"trailing newline":   {"a\nb\n", 3},
		"no trailing":        {"a\nb", 3},
		"blank lines inside": {"a\n\nb\n", 4},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := diffview.New(diffview.ContentDiff(tt.content)).Len(); got != tt.lines {
				t.Errorf("%d diff lines, want %d", got, tt.lines)
			}
		})
	}
	t.Run("a write without a FileChange shows its content", func(t *testing.T) {
		b := newHintedBlock(permission.Request{Tool: toolname.WriteFile, Path: "x.txt", Content: "hello\nworld\n"})
		text := ansi.Strip(strings.Join(b.Lines(approvalCtx(80)), "\n"))
		for _, want := range []string{"x.txt (new file)", "+2 -0", "+hello", "+world"} {
			if !strings.Contains(text, want) {
				t.Errorf("missing %q in:\n%s", want, text)
			}
		}
	})
}

// newHintedBlock is req's block naming the default keys in its hints, as
// the root model makes it (ui's newApprovalBlock).
func newHintedBlock(req permission.Request) *Block {
	return New(req, hintKeys(keys.Default()))
}

// hintKeys is ui's approvalHintKeys: the bindings of k a block names in
// its hints.
func hintKeys(k keys.KeyMap) Keys {
	return Keys{
		ApproveYes: k.ApproveYes, ApproveSession: k.ApproveSession, ApproveNo: k.ApproveNo,
		ApproveFeedback: k.ApproveFeedback, ApproveEdit: k.ApproveEdit,
		ApproveLayout: k.ApproveLayout, ApproveKeep: k.ApproveKeep,
		ApproveUp: k.ApproveUp, ApproveDown: k.ApproveDown, ApprovePageUp: k.ApprovePageUp, ApprovePageDown: k.ApprovePageDown,
		ApproveLeft: k.ApproveLeft, ApproveRight: k.ApproveRight,
		ApproveFileToggle: k.ApproveFileToggle, ApproveFileNext: k.ApproveFileNext, ApproveFilePrev: k.ApproveFilePrev,
		ApproveHunkToggle: k.ApproveHunkToggle, ApproveHunkNext: k.ApproveHunkNext, ApproveHunkPrev: k.ApproveHunkPrev,
		ApproveAttemptNext: k.ApproveAttemptNext, ApproveAttemptPrev: k.ApproveAttemptPrev,
		FeedbackSend: k.FeedbackSend, FeedbackBack: k.FeedbackBack, FocusApproval: k.FocusApproval,
		QuestionNumber: k.QuestionNumber, QuestionPick: k.QuestionPick, QuestionToggle: k.QuestionToggle,
		ApproveToInput: k.ApproveToInput,
		Cancel:         k.Cancel,
	}
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

// hunkFile is 30 numbered lines; hunkEdit changes lines 3 and 25, two
// hunks apart.
var (
	hunkFile = func() string {
		var sb strings.Builder
		for i := 1; i <= 30; i++ {
			fmt.Fprintf(&sb, "line %d\n", i)
		}
		return sb.String()
	}()
	hunkEdit = strings.Replace(strings.Replace(hunkFile, "line 3\n", "LINE 3\n", 1), "line 25\n", "LINE 25\n", 1)
)

// mergeRequest is a child's worktree merge of three files.
func mergeRequest() permission.Request {
	change := func(p, old, new string, created bool) permission.FileChange {
		d, a, r := diff.UnifiedDiff(p, old, new)
		return permission.FileChange{Path: p, Diff: d, Added: a, Removed: r, Created: created}
	}
	return permission.Request{
		Tool: permission.ToolMerge, Path: "covey/general-purpose-1-abc123",
		Agent: "[general-purpose] refactor", AgentID: "general-purpose-1",
		Changes: []permission.FileChange{
			change("a.go", "package a\n", "package a\n\nfunc A() {}\n", false),
			change("b.go", "", "package b\n", true),
			change("c.go", "x\n", "y\n", false),
		},
	}
}

func pickRequest() permission.Request {
	m := mergeRequest()
	d, a, r := diff.UnifiedDiff("d.go", hunkFile, hunkEdit)
	return permission.Request{Tool: permission.ToolPickAttempt, Path: "fix retry", Attempts: []permission.Attempt{
		{Name: "fix-retry", Status: "done", Report: "Retries now back off exponentially.", Branch: "covey/a1", Changes: m.Changes, Tokens: 12300, Cost: 0.012},
		{Name: "fix-retry-2", Status: "done", Report: "Changed two lines of d.go.", Branch: "covey/a2",
			Changes: []permission.FileChange{{Path: "d.go", Diff: d, Added: a, Removed: r}}, Tokens: 8100},
		{Name: "fix-retry-3", Status: "failed", Report: "Error: the model went away.", Branch: "covey/a3", Tokens: 900},
	}}
}

// checkedPickRequest is pickRequest with each attempt checked: one
// passed, one failed with the language server's errors, one not run.
func checkedPickRequest() permission.Request {
	req := pickRequest()
	req.Attempts[0].Check = &permission.AttemptCheck{Command: "go build ./...", Passed: true, Diagnosed: true}
	req.Attempts[1].Check = &permission.AttemptCheck{Command: "go build ./...", ExitCode: 1, Output: "d.go:3:1: undefined: x", Diagnosed: true, Errors: 2}
	req.Attempts[2].Check = &permission.AttemptCheck{Command: "go build ./...", ExitCode: -1, Error: "not run: nobody can be asked"}
	return req
}
