package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"covey/theme"
)

// fakeBlock draws n numbered lines (twice as many expanded) and counts how
// often it is drawn.
type fakeBlock struct {
	name      string
	n         int
	focusable bool
	expanded  bool
	live      bool
	draws     int
}

func (f *fakeBlock) Lines(ctx RenderContext) []string {
	f.draws++
	n := f.n
	if f.expanded {
		n *= 2
	}
	out := make([]string, n)
	for i := range out {
		out[i] = ansi.Truncate(fmt.Sprintf("%s line %d %s", f.name, i, strings.Repeat("=", 50)), ctx.Width, "")
	}
	return out
}
func (f *fakeBlock) Focusable() bool    { return f.focusable }
func (f *fakeBlock) Expanded() bool     { return f.expanded }
func (f *fakeBlock) SetExpanded(v bool) { f.expanded = v }
func (f *fakeBlock) Live() bool         { return f.live }

func newTestTranscript(n, lines int) (*Transcript, []*fakeBlock) {
	th := theme.New(theme.ModeDark, true, false)
	t := New(RenderContext{Styles: &th.Styles})
	t.SetSize(80, 20)
	blocks := make([]*fakeBlock, n)
	for i := range blocks {
		blocks[i] = &fakeBlock{name: fmt.Sprintf("b%d", i), n: lines, focusable: i%2 == 0}
		t.Append(blocks[i])
	}
	t.Sync()
	return t, blocks
}

func TestTranscriptDrawsOnlyTheVisibleBlocks(t *testing.T) {
	tr, blocks := newTestTranscript(1000, 5)
	for _, b := range blocks {
		b.draws = 0
	}
	view := tr.View()
	drawn := 0
	for _, b := range blocks {
		drawn += b.draws
	}
	if drawn > 5 {
		t.Errorf("View drew %d blocks for a 20-line viewport of 6-line blocks", drawn)
	}
	if got := strings.Count(view, "\n") + 1; got != 20 {
		t.Errorf("View has %d lines, want 20", got)
	}
	if !strings.Contains(view, "b999 line 4") {
		t.Error("the bottom of the transcript is not shown while following")
	}
}

func TestTranscriptResizeMeasuresLazily(t *testing.T) {
	tr, blocks := newTestTranscript(1000, 5)
	for _, b := range blocks {
		b.draws = 0
	}
	tr.SetSize(60, 20)
	drawn := 0
	for _, b := range blocks {
		drawn += b.draws
	}
	if drawn > 10 {
		t.Errorf("a resize drew %d blocks; only the visible ones should be", drawn)
	}
	for i, l := range strings.Split(tr.View(), "\n") {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("line %d is %d wide after resizing to 60", i, w)
		}
	}
	rounds := 0
	for tr.Prewarm(100) {
		rounds++
	}
	if rounds < 5 {
		t.Errorf("prewarm finished in %d rounds of 100 for 1000 blocks", rounds)
	}
	for i, e := range tr.entries {
		if !e.exact {
			t.Fatalf("entry %d still estimated after prewarm", i)
		}
	}
	if tr.offset != tr.MaxOffset() {
		t.Error("prewarm lost the bottom while following")
	}
}

func TestTranscriptScrolledUpStaysPut(t *testing.T) {
	tr, blocks := newTestTranscript(50, 3)
	tr.Top()
	tr.ScrollBy(30)
	top := tr.View()
	tests := []struct {
		name   string
		change func()
	}{
		{"a block grows below", func() { blocks[49].n = 10; tr.Touch(blocks[49]) }},
		{"a block is appended", func() { tr.Append(&fakeBlock{name: "new", n: 4}) }},
		{"a block above grows", func() { blocks[0].n = 10; tr.Touch(blocks[0]) }},
		{"a block is inserted above", func() { tr.Insert(1, &fakeBlock{name: "ins", n: 2}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change()
			tr.Sync()
			if got := tr.View(); firstLines(got, 19) != firstLines(top, 19) {
				t.Errorf("the view moved:\n%s\nwas:\n%s", got, top)
			}
			if !tr.HasUnseen() && !strings.Contains(tt.name, "above") {
				t.Error("no unseen-output hint")
			}
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func TestTranscriptFocusScrollsIntoView(t *testing.T) {
	tr, blocks := newTestTranscript(100, 3)
	tr.Top()
	tr.SetFocus(blocks[60])
	if !strings.Contains(tr.View(), "b60 line 0") {
		t.Error("the focused block is not on screen")
	}
	if !strings.Contains(tr.View(), "▌ b60 line 0") {
		t.Error("the focused block has no gutter marker")
	}
	if strings.Contains(tr.View(), "▌ b59") {
		t.Error("an unfocused block carries the marker")
	}
}

func TestTranscriptEmptyAndTiny(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	tr := New(RenderContext{Styles: &th.Styles})
	for _, size := range [][2]int{{0, 0}, {1, 1}, {3, 2}, {80, 20}} {
		tr.SetSize(size[0], size[1])
		_ = tr.View()
		tr.ScrollBy(-5)
		tr.PageDown()
		tr.Top()
		tr.Bottom()
		if tr.MoveFocus(1) {
			t.Errorf("%v: focus moved in an empty transcript", size)
		}
	}
	tr.Append(&fakeBlock{name: "a", n: 30})
	tr.SetSize(1, 1)
	if v := tr.View(); strings.Count(v, "\n") != 0 {
		t.Errorf("a one-line viewport drew %q", v)
	}
}

// TestTranscriptPrewarmNear checks that the background work after a resize
// is bounded by the screen: blocks near the view are drawn at the new
// width, far ones stay estimates until they scroll near, and scrolling
// there shows them drawn and in order.
func TestTranscriptPrewarmNear(t *testing.T) {
	tr, blocks := newTestTranscript(1000, 5)
	for _, b := range blocks {
		b.draws = 0
	}
	tr.SetSize(60, 20)
	for tr.PrewarmNear(16) {
	}
	if tr.NeedsPrewarm() {
		t.Error("NeedsPrewarm after PrewarmNear finished")
	}
	drawn := 0
	for _, b := range blocks {
		drawn += b.draws
	}
	// Six-line blocks, a 20-line view and three screens of margin above:
	// some 14 blocks; 1,000 would mean the whole history.
	if drawn == 0 || drawn > 30 {
		t.Errorf("prewarm after a resize drew %d blocks, want those near the view only", drawn)
	}
	if tr.entries[0].exact {
		t.Error("the first block was drawn although it is far from the view")
	}
	if tr.offset != tr.MaxOffset() {
		t.Error("prewarm lost the bottom while following")
	}

	tr.Top()
	view := tr.View()
	if !strings.HasPrefix(ansi.Strip(view), "  b0 line 0") {
		t.Errorf("top of the transcript shows\n%s", view)
	}
	if tr.HasUnseen() {
		t.Error("drawing estimated blocks at the top was taken for new output below")
	}
	if !tr.NeedsPrewarm() {
		t.Error("the blocks below the top are estimates, yet no prewarm is asked for")
	}
	for tr.PrewarmNear(16) {
	}
	tr.PageDown()
	if got := ansi.Strip(strings.SplitN(tr.View(), "\n", 2)[0]); !strings.Contains(got, "b3 line 1") {
		t.Errorf("a page down from the top starts with %q, want block 3's second line", got)
	}
}

// TestTranscriptFollowsAgainWhenAllFits checks that once a tall block (a
// request's diff the view scrolled to) goes and everything fits, new
// output follows, with no "new output below" hint for what is in view.
func TestTranscriptFollowsAgainWhenAllFits(t *testing.T) {
	tests := map[string]struct {
		after int  // lines appended after the tall block went
		fits  bool // everything fits the 20 lines then
	}{
		"a line more":          {after: 1, fits: true},
		"more than fits":       {after: 30, fits: false},
		"nearly the remainder": {after: 8, fits: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			tr, _ := newTestTranscript(2, 4) // 8 lines
			tall := &fakeBlock{name: "approval", n: 40}
			tr.Append(tall)
			tr.Sync()
			tr.ScrollTo(tall)
			tr.Top()
			if tr.Following() {
				t.Fatal("still following after scrolling to the top")
			}
			tr.Remove(tall)
			tr.Append(&fakeBlock{name: "new", n: tt.after})
			tr.Sync()
			if tr.HasUnseen() == tt.fits {
				t.Errorf("unseen hint %v with everything in view %v", tr.HasUnseen(), tt.fits)
			}
			if tt.fits && !strings.Contains(tr.View(), fmt.Sprintf("new line %d", tt.after-1)) {
				t.Errorf("the new output is not in view:\n%s", tr.View())
			}
		})
	}
}

// TestBlocksReportTheirOwnChanges: a block that changes after it was added
// is measured again without anyone touching the transcript, in every
// transcript that holds it, and stops reporting to one it left.
func TestBlocksReportTheirOwnChanges(t *testing.T) {
	ctx := blockCtx(t, 60)
	main, view := New(ctx), New(ctx)
	for _, tr := range []*Transcript{main, view} {
		tr.SetSize(60, 20)
	}
	b := NewAssistantBlock()
	main.Append(b)
	view.Append(b)
	main.Sync()
	view.Sync()
	before := main.total()
	b.AppendText("one line\nand another\nand a third")
	main.Sync()
	view.Sync()
	if main.total() <= before || view.total() != main.total() {
		t.Fatalf("heights %d and %d after the block grew from %d: a change did not reach both transcripts", main.total(), view.total(), before)
	}
	view.Remove(b)
	if _, still := b.holders[view]; still {
		t.Fatal("a transcript the block left still hears its changes")
	}
	main.Clear()
	if len(b.holders) != 0 {
		t.Fatalf("the block still reports to %d transcripts after Clear", len(b.holders))
	}
}
