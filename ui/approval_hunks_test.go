package ui

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/permission"
	"covey/tools/diff"
)

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

func hunkMergeRequest() permission.Request {
	req := mergeRequest()
	d, a, r := diff.UnifiedDiff("d.go", hunkFile, hunkEdit)
	req.Changes = append(req.Changes, permission.FileChange{Path: "d.go", Diff: d, Added: a, Removed: r})
	return req
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

func TestHunkApprovalAnswers(t *testing.T) {
	enter := tea.KeyMsg{Type: tea.KeyEnter}
	right := tea.KeyMsg{Type: tea.KeyRight}
	note := func(s string) []tea.KeyMsg { return []tea.KeyMsg{runes("d"), runes(s), enter} }
	tests := []struct {
		name   string
		req    permission.Request
		keys   []tea.KeyMsg
		want   permission.Verdict
		record string
	}{
		{name: "y takes every hunk", req: editRequest("f.txt", hunkFile, hunkEdit), keys: []tea.KeyMsg{runes("y")},
			want: permission.Verdict{Allowed: true}, record: "✓ allowed  edit_file f.txt"},
		{name: "s drops the first hunk, under the cursor from the start", req: editRequest("f.txt", hunkFile, hunkEdit), keys: []tea.KeyMsg{runes("s"), runes("y")},
			want: permission.Verdict{Allowed: true, Dropped: map[string][]int{"f.txt": {0}}}, record: "✓ allowed 1 of 2 hunks"},
		{name: "} s drops the second, { s the first too: a denial", req: editRequest("f.txt", hunkFile, hunkEdit),
			keys: []tea.KeyMsg{runes("}"), runes("s"), runes("{"), runes("s"), runes("y")},
			want: permission.Verdict{Reason: reasonDenied}, record: "✗ denied"},
		{name: "d after a drop still denies with feedback: one key, one meaning", req: editRequest("f.txt", hunkFile, hunkEdit),
			keys: append([]tea.KeyMsg{runes("}"), runes("s")}, note("keep line 25")...),
			want: permission.Verdict{Reason: reasonFeedback + "keep line 25"}, record: "✗ denied: keep line 25"},
		{name: "a is no answer once a hunk is dropped", req: editRequest("f.txt", hunkFile, hunkEdit),
			keys: []tea.KeyMsg{runes("s"), runes("a"), runes("y")},
			want: permission.Verdict{Allowed: true, Dropped: map[string][]int{"f.txt": {0}}}, record: "✓ allowed 1 of 2 hunks"},
		{name: "d with nothing dropped still denies with feedback", req: editRequest("f.txt", hunkFile, hunkEdit),
			keys: note("no"), want: permission.Verdict{Reason: reasonFeedback + "no"}, record: "✗ denied: no"},
		{name: "merge: a hunk of one file dropped", req: hunkMergeRequest(),
			keys: []tea.KeyMsg{runes("]"), runes("]"), runes("]"), runes("}"), runes("}"), runes("s"), runes("y")},
			want: permission.Verdict{Allowed: true, Dropped: map[string][]int{"d.go": {1}}}, record: "✓ apply 4 files, 1 hunk dropped"},
		{name: "merge: both hunks of a file dropped leave the file out", req: hunkMergeRequest(),
			keys: []tea.KeyMsg{runes("]"), runes("]"), runes("]"), runes("}"), runes("s"), runes("}"), runes("s"), runes("y")},
			want: permission.Verdict{Allowed: true, Files: []string{"a.go", "b.go", "c.go"}}, record: "✓ apply 3 of 4 files"},
		{name: "pick: → y applies the second attempt", req: pickRequest(), keys: []tea.KeyMsg{right, runes("y")},
			want: permission.Verdict{Allowed: true, Attempt: 2}, record: "✓ applied attempt 2 (fix-retry-2)"},
		{name: "pick: by hunk", req: pickRequest(), keys: []tea.KeyMsg{right, runes("s"), runes("y")},
			want: permission.Verdict{Allowed: true, Attempt: 2, Dropped: map[string][]int{"d.go": {0}}}, record: "✓ applied attempt 2 (fix-retry-2), in part"},
		{name: "pick: n applies none", req: pickRequest(), keys: []tea.KeyMsg{runes("n")},
			want: permission.Verdict{Reason: reasonDenied}, record: "✗ applied none of 3 attempts"},
		{name: "pick: l keeps them all", req: pickRequest(), keys: []tea.KeyMsg{runes("l")},
			want: permission.Verdict{Reason: "the user kept the change on its branch for later", Keep: true}, record: "⏸ kept all 3 attempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, 120, 60)
			got := h.ask(context.Background(), tt.req)
			h.deliver(1)
			if !h.screenContains("take/drop hunk") {
				t.Errorf("the footer does not offer the hunk keys:\n%s", strings.Join(h.screenLines(), "\n"))
			}
			for _, k := range tt.keys {
				h.send(k)
			}
			v := verdictOf(t, got)
			v.ByUser = false
			if !reflect.DeepEqual(v, tt.want) {
				t.Errorf("verdict %+v, want %+v", v, tt.want)
			}
			bs := approvalBlocks(h.m)
			if len(bs) != 1 || bs[0].Pending() {
				t.Fatalf("want one answered approval block, have %d", len(bs))
			}
			if rec := ansi.Strip(bs[0].Lines(approvalCtx(120))[0]); !strings.HasPrefix(rec, tt.record) {
				t.Errorf("record %q, want it to start %q", rec, tt.record)
			}
		})
	}
}

// TestTrimmedKeyBarSaysOneThing: with part of a change dropped, the
// root's key bar says y, n and d as the request's own hints do (those,
// and the header's counts, are tested on the block: ui/approval's
// TestTrimmedAnswerSaysOneThing), for an edit, a merge and a best-of-N
// pick, whole or trimmed.
func TestTrimmedKeyBarSaysOneThing(t *testing.T) {
	right := tea.KeyMsg{Type: tea.KeyRight}
	edit := editRequest("f.txt", hunkFile, strings.Replace(hunkEdit, "LINE 3\n", "LINE 3\nextra a\nextra b\n", 1))
	tests := []struct {
		name string
		req  permission.Request
		keys []tea.KeyMsg
	}{
		{"edit whole", edit, nil},
		{"edit, second hunk dropped", edit, []tea.KeyMsg{runes("}"), runes("s")}},
		{"edit, first hunk dropped", edit, []tea.KeyMsg{runes("s")}},
		{"merge whole", hunkMergeRequest(), nil},
		{"merge, a hunk dropped", hunkMergeRequest(), []tea.KeyMsg{runes("]"), runes("]"), runes("]"), runes("}"), runes("}"), runes("s")}},
		{"pick whole", pickRequest(), []tea.KeyMsg{right}},
		{"pick, a hunk dropped", pickRequest(), []tea.KeyMsg{right, runes("}"), runes("s")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, 200, 60)
			h.ask(context.Background(), tt.req)
			h.deliver(1)
			for _, k := range tt.keys {
				h.send(k)
			}
			lines := h.screenLines()
			screen := strings.Join(lines, "\n")
			bar := lines[len(lines)-1]
			k := h.m.keys
			for _, b := range []key.Binding{k.ApproveYes, k.ApproveNo, k.ApproveFeedback} {
				hint := b.Help().Key + " " + b.Help().Desc
				if !strings.Contains(bar, hint) {
					t.Errorf("the key bar %q lacks %q", bar, hint)
				}
				if !strings.Contains(screen, hint+" ·") {
					t.Errorf("the request's hints do not say %q:\n%s", hint, screen)
				}
			}
		})
	}
}
