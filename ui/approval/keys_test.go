package approval

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"covey/permission"
	"covey/theme"
	"covey/tools/diff"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// numbered is n lines "line 1".."line n".
func numbered(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

// twoHunkEdit changes lines 3 and 25 of 30, two hunks apart; line 25
// becomes wider than the test's width, so the diff scrolls sideways.
func twoHunkEdit() permission.Request {
	old := numbered(30)
	cur := strings.Replace(old, "line 3\n", "LINE 3\n", 1)
	cur = strings.Replace(cur, "line 25\n", "LINE 25 "+strings.Repeat("wide ", 40)+"\n", 1)
	d, a, r := diff.UnifiedDiff("f.txt", old, cur)
	return permission.Request{Tool: toolname.EditFile, Path: "f.txt", Content: cur,
		Change: &tool.FileChange{Path: "f.txt", Diff: d, Added: a, Removed: r}}
}

// newFile writes a new file: a one-sided diff, no side by side.
func newFile() permission.Request {
	d, a, r := diff.UnifiedDiff("n.txt", "", "hello\n")
	return permission.Request{Tool: toolname.WriteFile, Path: "n.txt", Content: "hello\n",
		Change: &tool.FileChange{Path: "n.txt", Created: true, Diff: d, Added: a, Removed: r}}
}

func change(p, old, cur string) permission.FileChange {
	d, a, r := diff.UnifiedDiff(p, old, cur)
	return permission.FileChange{Path: p, Diff: d, Added: a, Removed: r}
}

// threeFileMerge is a child's worktree merge of three one-hunk files.
func threeFileMerge() permission.Request {
	return permission.Request{Tool: permission.ToolMerge, Path: "covey/c1", AgentID: "c1", Changes: []permission.FileChange{
		change("a.go", "package a\n", "package a\n\nfunc A() {}\n"),
		change("b.go", "x\n", "y\n"),
		change("c.go", "x\n", "z\n"),
	}}
}

// threeAttempts is a best-of-N review whose attempts each change one file.
func threeAttempts() permission.Request {
	return permission.Request{Tool: permission.ToolPickAttempt, Path: "fix", Attempts: []permission.Attempt{
		{Name: "fix", Status: "done", Branch: "covey/a1", Changes: []permission.FileChange{change("a.go", "x\n", "y\n")}},
		{Name: "fix-2", Status: "done", Branch: "covey/a2", Changes: []permission.FileChange{change("a.go", "x\n", "z\n")}},
		{Name: "fix-3", Status: "done", Branch: "covey/a3", Changes: []permission.FileChange{change("a.go", "x\n", "w\n")}},
	}}
}

func bash() permission.Request {
	return permission.Request{Tool: toolname.Bash, Command: "make", Dir: "/p"}
}

// press is the key a binding's key string names.
func press(s string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "up": tea.KeyUp, "down": tea.KeyDown,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	}
	if s == " " {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune(s)}
	}
	if t, ok := named[s]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// rootKeys is the KeyMap as the root model applies it while b has the
// keyboard (with a policy to grant through).
func rootKeys(b *Block) *keys.KeyMap {
	km := keys.Default()
	km.Apply(keys.State{Focus: keys.FocusApproval, Approval: b.KeyState(), CanGrant: true})
	return &km
}

// probe is what a key may change of a block.
type probe struct {
	Offset, Shift, Rows int
	Layout              string
	Hunk                int
	Dropped             []bool
	File                int
	Selected            []bool
	Attempt             int
	FeedbackOn          bool
	Feedback            string
}

func probeOf(b *Block) probe {
	p := probe{Offset: b.offset, Shift: b.shift, Rows: b.rows, Attempt: b.Attempt(), FeedbackOn: b.feedbackOn, Feedback: b.feedback.Value()}
	if b.layout != nil {
		p.Layout = fmt.Sprint(*b.layout)
	}
	if b.hunks != nil {
		p.Hunk, p.Dropped = b.hunks.cursor, append([]bool(nil), b.hunks.dropped...)
	}
	if b.merge != nil {
		p.File, p.Selected = b.merge.cursor, append([]bool(nil), b.merge.selected...)
	}
	return p
}

const testWidth = 60

// newTestBlock is req's block drawn once at testWidth with a few rows,
// so its diff scrolls both ways, and the keys in before pressed.
func newTestBlock(t *testing.T, req permission.Request, before []string) *Block {
	t.Helper()
	b := New(req, Keys{})
	b.SetActive(true)
	b.SetRows(4)
	th := theme.New(theme.ModeDark, true, false)
	b.Lines(transcript.RenderContext{Width: testWidth, Styles: &th.Styles})
	for _, s := range before {
		if _, _, handled := b.HandleKey(press(s), rootKeys(b)); !handled {
			t.Fatalf("setup key %q not handled", s)
		}
	}
	return b
}

func TestHandleKey(t *testing.T) {
	tests := []struct {
		name    string
		req     permission.Request
		before  []string // keys pressed first
		key     string
		want    Action
		ignored bool         // the key is left to the root's global bindings
		changed func(*probe) // what the key changes of the block; nil: nothing
	}{
		{name: "y allows the whole change", req: twoHunkEdit(), key: "y", want: Allow{}},
		{name: "a grants for the session", req: twoHunkEdit(), key: "a", want: GrantSession{}},
		{name: "n denies", req: twoHunkEdit(), key: "n", want: Deny{}},
		{name: "d opens the feedback", req: twoHunkEdit(), key: "d", changed: func(p *probe) { p.FeedbackOn = true }},
		{name: "e edits", req: twoHunkEdit(), key: "e", want: Edit{}},
		{name: "tab goes to the input", req: twoHunkEdit(), key: "tab", want: ToInput{}},
		{name: "esc cancels the turn", req: twoHunkEdit(), key: "esc", want: CancelTurn{}},
		{name: "s drops the hunk", req: twoHunkEdit(), key: "s", changed: func(p *probe) { p.Dropped[0] = true }},
		// The cursor starts on the first hunk, shown there.
		{name: "} moves to the next hunk", req: twoHunkEdit(), key: "}",
			changed: func(p *probe) { p.Hunk, p.Offset = 1, 8 }}, // the second hunk's header row
		{name: "down scrolls", req: twoHunkEdit(), key: "down", changed: func(p *probe) { p.Offset = 1 }},
		{name: "k scrolls up", req: twoHunkEdit(), before: []string{"j", "j"}, key: "k", changed: func(p *probe) { p.Offset = 1 }},
		{name: "pgdown pages", req: twoHunkEdit(), key: "pgdown", changed: func(p *probe) { p.Offset = p.Rows - 1 }},
		{name: "pgup pages back", req: twoHunkEdit(), before: []string{"pgdown", "pgdown"}, key: "pgup",
			changed: func(p *probe) { p.Offset -= p.Rows - 1 }},
		{name: "> shifts right", req: twoHunkEdit(), key: ">", changed: func(p *probe) { p.Shift = approvalShiftStep }},
		{name: "< shifts back", req: twoHunkEdit(), before: []string{">", ">"}, key: "<",
			changed: func(p *probe) { p.Shift = approvalShiftStep }},
		{name: "t chooses side by side", req: twoHunkEdit(), key: "t", changed: func(p *probe) { p.Layout = "true" }},
		{name: "t on a new file says why not", req: newFile(), key: "t",
			want: Say{Text: "a new or deleted file is shown unified: no side by side"}},
		{name: "y with a hunk dropped allows the rest", req: twoHunkEdit(), before: []string{"s"}, key: "y",
			want: Allow{Dropped: map[string][]int{"f.txt": {0}}}},
		{name: "y with every hunk dropped denies", req: twoHunkEdit(), before: []string{"s", "}", "s"}, key: "y", want: Deny{}},
		{name: "a with a hunk dropped is off", req: twoHunkEdit(), before: []string{"s"}, key: "a", ignored: true},
		{name: "e with a hunk dropped is off", req: twoHunkEdit(), before: []string{"s"}, key: "e", ignored: true},
		{name: "e on a command is off", req: bash(), key: "e", ignored: true},
		{name: "s on a command is off", req: bash(), key: "s", ignored: true},
		{name: "a key of no approval's", req: twoHunkEdit(), key: "x", ignored: true},

		{name: "l keeps a merge", req: threeFileMerge(), key: "l", want: Keep{}},
		{name: "space drops the file", req: threeFileMerge(), key: " ", changed: func(p *probe) { p.Selected[0] = false }},
		{name: "] moves to the next file", req: threeFileMerge(), key: "]",
			changed: func(p *probe) { p.File, p.Hunk, p.Offset = 1, 1, 5 }}, // the hunk cursor follows
		{name: "} moves to the next hunk, the file cursor following", req: threeFileMerge(), before: []string{"}"}, key: "}",
			changed: func(p *probe) { p.Hunk, p.File, p.Offset = 1, 1, 6 }},
		{name: "{ moves to the previous hunk", req: threeFileMerge(), before: []string{"}"}, key: "{",
			changed: func(p *probe) { p.Hunk, p.File, p.Offset = 2, 2, 10 }}, // c.go's hunk header
		{name: "[ moves to the previous file", req: threeFileMerge(), key: "[",
			changed: func(p *probe) { p.File, p.Hunk, p.Offset = 2, 2, 9 }},
		{name: "y applies the chosen files", req: threeFileMerge(), before: []string{" "}, key: "y",
			want: Allow{Files: []string{"b.go", "c.go"}}},
		{name: "y with no file chosen discards", req: threeFileMerge(), before: []string{" ", "]", " ", "]", " "}, key: "y", want: Deny{}},
		{name: "l on a write is off", req: twoHunkEdit(), key: "l", ignored: true},

		{name: "right shows the next attempt", req: threeAttempts(), key: "right", changed: func(p *probe) { p.Attempt = 2 }},
		{name: "left wraps to the last attempt", req: threeAttempts(), key: "left", changed: func(p *probe) { p.Attempt = 3 }},
		{name: "y applies the attempt shown", req: threeAttempts(), before: []string{"right"}, key: "y", want: Allow{Attempt: 2}},

		{name: "feedback: typing", req: twoHunkEdit(), before: []string{"d"}, key: "y", changed: func(p *probe) { p.Feedback = "y" }},
		{name: "feedback: enter with text denies with it", req: twoHunkEdit(), before: []string{"d", "use", " ", "sed"}, key: "enter",
			want: Deny{Feedback: "use sed"}},
		{name: "feedback: enter with no text denies", req: twoHunkEdit(), before: []string{"d"}, key: "enter", want: Deny{}},
		// d means one thing, whatever is dropped: y allows the hunks taken.
		{name: "feedback: enter with hunks dropped denies with the note", req: twoHunkEdit(), before: []string{"s", "d", "why"}, key: "enter",
			want: Deny{Feedback: "why"}},
		{name: "feedback: enter with hunks dropped and no text denies", req: twoHunkEdit(), before: []string{"s", "d"}, key: "enter",
			want: Deny{}},
		{name: "feedback: enter with every file dropped denies with the note", req: threeFileMerge(),
			before: []string{" ", "]", " ", "]", " ", "d", "later"}, key: "enter", want: Deny{Feedback: "later"}},
		{name: "feedback: esc closes it, keeping the text", req: twoHunkEdit(), before: []string{"d", "no"}, key: "esc",
			changed: func(p *probe) { p.FeedbackOn = false }},
		{name: "feedback: tab is typed, not the input", req: twoHunkEdit(), before: []string{"d"}, key: "tab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBlock(t, tt.req, tt.before)
			want := probeOf(b)
			if tt.changed != nil {
				tt.changed(&want)
			}
			a, _, handled := b.HandleKey(press(tt.key), rootKeys(b))
			if handled == tt.ignored {
				t.Fatalf("handled = %v, want %v", handled, !tt.ignored)
			}
			if !reflect.DeepEqual(a, tt.want) {
				t.Errorf("action = %#v, want %#v", a, tt.want)
			}
			if got := probeOf(b); !reflect.DeepEqual(got, want) {
				t.Errorf("block after the key = %+v, want %+v", got, want)
			}
		})
	}
}

// TestHandleKeyRebound shows the block matches the KeyMap it is given,
// not the keys it names in its hints.
func TestHandleKeyRebound(t *testing.T) {
	b := newTestBlock(t, twoHunkEdit(), nil)
	km := rootKeys(b)
	km.ApproveYes.SetKeys("Y")
	if _, _, handled := b.HandleKey(press("y"), km); handled {
		t.Error("y still answers after the binding moved to Y")
	}
	if a, _, _ := b.HandleKey(press("Y"), km); !reflect.DeepEqual(a, Allow{}) {
		t.Errorf("Y: action = %#v, want Allow{}", a)
	}
}
