package transcript

import (
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"covey/theme"
	"covey/ui/markdown"
)

// GutterWidth is the width of the focus marker column left of every block.
const GutterWidth = 2

// entry is one block of the transcript and what the transcript knows of its
// size. height includes the blank separator line above the block (gap).
type entry struct {
	b      Block
	height int
	// exact is false when height is only an estimate (after a resize, before
	// the block was drawn at the new width).
	exact bool
}

// paneBlock is what a subagent pane offers beyond Block; panes of one batch
// sit tight under their task call, with no separator line.
type paneBlock interface {
	ParentCallID() string
}

// Transcript is the virtualised list of blocks. It keeps every block's
// height and the top line shown, and draws only the blocks that intersect
// the viewport: a frame costs the same at 100 blocks and at 5,000.
type Transcript struct {
	entries []entry
	tops    []int // tops[i] is the first line of entry i; tops[n] is the total
	// topsStale is set when a height changed or an entry moved.
	topsStale bool
	index     map[Block]int
	// indexStale is set by an insertion in the middle.
	indexStale bool
	touched    []Block
	live       map[Block]struct{}

	base          RenderContext // Styles, Markdown, Now and Frame of this frame
	width, height int           // of the viewport, gutter included
	offset        int           // first line shown
	follow        bool          // stick to the bottom as content grows
	unseen        bool          // content arrived below while scrolled up
	focused       Block         // nil: the input has the focus

	gutterOn, gutterOff string
	buf                 strings.Builder
}

// New returns an empty transcript whose blocks are drawn with base
// (styles, markdown, keys); SetSize gives it its size.
func New(base RenderContext) *Transcript {
	t := &Transcript{
		index:  map[Block]int{},
		live:   map[Block]struct{}{},
		base:   base,
		follow: true,
	}
	t.gutterOff = strings.Repeat(" ", GutterWidth)
	t.gutterOn = t.gutterOff
	if base.Styles != nil {
		t.gutterOn = base.Styles.Focus.Gutter.Render("▌") + strings.Repeat(" ", GutterWidth-1)
	}
	return t
}

// SetStyles draws every block with other styles and markdown renderer
// from the next frame on (the terminal's background answered late);
// heights stay, since colours take no room.
func (t *Transcript) SetStyles(styles *theme.Styles, md *markdown.Renderer) {
	t.base.Styles, t.base.Markdown = styles, md
	t.gutterOn = t.gutterOff
	if styles != nil {
		t.gutterOn = styles.Focus.Gutter.Render("▌") + strings.Repeat(" ", GutterWidth-1)
	}
	t.Sync()
}

// contentWidth is the width blocks draw at.
func (t *Transcript) contentWidth() int { return max(1, t.width-GutterWidth) }

// SetSize changes the viewport. A new width makes every height an estimate;
// only the blocks on screen are drawn again now, the rest by prewarm.
func (t *Transcript) SetSize(width, height int) {
	if width != t.width {
		for i := range t.entries {
			t.entries[i].exact = false
		}
	}
	t.width, t.height = width, max(1, height)
	t.Sync()
}

// Len is the number of blocks.
func (t *Transcript) Len() int { return len(t.entries) }

// At is the i-th block.
func (t *Transcript) At(i int) Block { return t.entries[i].b }

// SetClock gives the blocks the time and spinner frame of the next draw.
func (t *Transcript) SetClock(now time.Time, frame int) {
	t.base.Now, t.base.Frame = now, frame
}

// Base is the render context the blocks are drawn with.
func (t *Transcript) Base() RenderContext { return t.base }

// Loaded is told that a replayed history is in: nothing it holds is new
// output, and blocks never drawn get an estimated height until they
// scroll into view.
func (t *Transcript) Loaded() {
	t.touched = t.touched[:0]
	t.estimateUnmeasured()
}

// Blocks returns the blocks in order; callers must not modify the slice.
func (t *Transcript) Blocks() []Block {
	out := make([]Block, len(t.entries))
	for i, e := range t.entries {
		out[i] = e.b
	}
	return out
}

// Last returns the last block, or nil.
func (t *Transcript) Last() Block {
	if len(t.entries) == 0 {
		return nil
	}
	return t.entries[len(t.entries)-1].b
}

// Append adds b at the end.
func (t *Transcript) Append(b Block) {
	t.watch(b)
	t.entries = append(t.entries, entry{b: b})
	if !t.indexStale {
		t.index[b] = len(t.entries) - 1
	}
	t.tops = nil
	t.topsStale = true
	t.touched = append(t.touched, b)
}

// Insert puts b at position i (clamped), shifting later blocks down.
func (t *Transcript) Insert(i int, b Block) {
	i = min(max(i, 0), len(t.entries))
	if i == len(t.entries) {
		t.Append(b)
		return
	}
	t.watch(b)
	t.entries = append(t.entries, entry{})
	copy(t.entries[i+1:], t.entries[i:])
	t.entries[i] = entry{b: b}
	t.indexStale = true
	t.topsStale = true
	t.touched = append(t.touched, b)
}

// Remove takes b out of the transcript; it does nothing when b is absent.
func (t *Transcript) Remove(b Block) {
	i := t.IndexOf(b)
	if i < 0 {
		return
	}
	t.unwatch(b)
	t.entries = append(t.entries[:i], t.entries[i+1:]...)
	delete(t.index, b)
	delete(t.live, b)
	if t.focused == b {
		t.focused = nil
	}
	t.indexStale = true
	t.topsStale = true
	t.offset = min(t.offset, t.MaxOffset())
}

// IndexOf returns the position of b, or -1.
func (t *Transcript) IndexOf(b Block) int {
	if t.indexStale {
		clear(t.index)
		for i, e := range t.entries {
			t.index[e.b] = i
		}
		t.indexStale = false
	}
	if i, ok := t.index[b]; ok {
		return i
	}
	return -1
}

// Touch records that b changed; its height is measured again on sync.
// Blocks that report their own changes (see changes) need no Touch.
func (t *Transcript) Touch(b Block) { t.touched = append(t.touched, b) }

// watch makes b report its changes to t.
func (t *Transcript) watch(b Block) {
	if w, ok := b.(watched); ok {
		c := w.changeSet()
		if c.holders == nil {
			c.holders = map[*Transcript]Block{}
		}
		c.holders[t] = b
	}
}

// unwatch stops b reporting to t.
func (t *Transcript) unwatch(b Block) {
	if w, ok := b.(watched); ok {
		delete(w.changeSet().holders, t)
	}
}

// Clear removes every block.
func (t *Transcript) Clear() {
	for _, e := range t.entries {
		t.unwatch(e.b)
	}
	t.entries = nil
	t.tops = nil
	t.topsStale = true
	clear(t.index)
	t.indexStale = false
	t.touched = nil
	clear(t.live)
	t.offset, t.follow, t.unseen, t.focused = 0, true, false, nil
}

// AnyLive reports whether some block still changes with time.
func (t *Transcript) AnyLive() bool {
	for b := range t.live {
		if !b.Live() {
			delete(t.live, b)
			t.touched = append(t.touched, b)
		}
	}
	return len(t.live) > 0
}

// ctxFor is the render context of b in this frame.
func (t *Transcript) ctxFor(b Block) RenderContext {
	ctx := t.base
	ctx.Width = t.contentWidth()
	ctx.Focused = b != nil && b == t.focused
	return ctx
}

func gapBefore(i int, b Block) int {
	if i == 0 {
		return 0
	}
	if _, ok := b.(paneBlock); ok {
		return 0
	}
	return 1
}

// measure draws entry i at the current width and records its height.
func (t *Transcript) measure(i int) {
	e := &t.entries[i]
	h := gapBefore(i, e.b) + len(e.b.Lines(t.ctxFor(e.b)))
	if h != e.height {
		e.height = h
		t.topsStale = true
	}
	e.exact = true
	if e.b.Live() {
		t.live[e.b] = struct{}{}
	} else {
		delete(t.live, e.b)
	}
}

func (t *Transcript) layout() {
	if !t.topsStale && len(t.tops) == len(t.entries)+1 {
		return
	}
	if cap(t.tops) < len(t.entries)+1 {
		t.tops = make([]int, len(t.entries)+1, 2*len(t.entries)+16)
	}
	t.tops = t.tops[:len(t.entries)+1]
	sum := 0
	for i, e := range t.entries {
		t.tops[i] = sum
		sum += e.height
	}
	t.tops[len(t.entries)] = sum
	t.topsStale = false
}

// total is the number of lines of the whole transcript (estimated where
// heights are estimates).
func (t *Transcript) total() int {
	t.layout()
	return t.tops[len(t.entries)]
}

// MaxOffset is the offset that shows the transcript's last line at the
// bottom.
func (t *Transcript) MaxOffset() int { return max(0, t.total()-t.height) }

// Measured is block i's height in lines and whether it is measured (true)
// or still an estimate (false).
func (t *Transcript) Measured(i int) (height int, exact bool) {
	return t.entries[i].height, t.entries[i].exact
}

// Offset is the first line shown.
func (t *Transcript) Offset() int { return t.offset }

// indexAt returns the entry holding line y.
func (t *Transcript) indexAt(y int) int {
	t.layout()
	n := len(t.entries)
	i := sort.Search(n, func(i int) bool { return t.tops[i+1] > y })
	return min(i, max(n-1, 0))
}

// anchor is the first visible entry and the line of it at the top.
func (t *Transcript) anchor() (int, int) {
	if len(t.entries) == 0 {
		return 0, 0
	}
	i := t.indexAt(t.offset)
	return i, t.offset - t.tops[i]
}

// restore puts entry i's line within at the top again after heights moved.
func (t *Transcript) restore(i, within int) {
	if len(t.entries) == 0 {
		t.offset = 0
		return
	}
	t.layout()
	within = min(within, max(t.entries[i].height-1, 0))
	t.offset = min(max(t.tops[i]+within, 0), t.MaxOffset())
}

// Sync measures changed blocks and the ones on screen, keeping what the
// user looks at in place (or the bottom in view when following).
func (t *Transcript) Sync() {
	if len(t.entries) == 0 {
		t.touched = t.touched[:0]
		t.offset = 0
		return
	}
	before := t.total()
	ai, within := t.anchor()
	anchorBlock := t.entries[ai].b
	for _, b := range t.touched {
		if i := t.IndexOf(b); i >= 0 {
			t.measure(i)
		}
	}
	t.touched = t.touched[:0]
	// Only content that changed counts as unseen output, not estimates
	// made exact below.
	grew := t.total() > before
	if t.follow {
		// Make the bottom screenful exact, then pin to it.
		filled := 0
		for i := len(t.entries) - 1; i >= 0 && filled < t.height; i-- {
			if !t.entries[i].exact {
				t.measure(i)
			}
			filled += t.entries[i].height
		}
		t.offset = t.MaxOffset()
		return
	}
	t.restore(t.IndexOf(anchorBlock), within)
	// Make the visible entries exact; they lie at or below the anchor, so
	// measuring them leaves the anchor where it is.
	for i := t.indexAt(t.offset); i < len(t.entries) && t.tops[i] < t.offset+t.height; i++ {
		if !t.entries[i].exact {
			t.measure(i)
			t.layout()
		}
	}
	t.restore(t.IndexOf(anchorBlock), within)
	if t.MaxOffset() == 0 {
		// Everything fits (a tall block above went): nothing is scrolled
		// away, so new output is followed again.
		t.follow, t.unseen, t.offset = true, false, 0
		return
	}
	if grew {
		t.unseen = true
	}
}

// Prewarm measures up to n blocks whose height is only an estimate, nearest
// the bottom first; it reports whether any are left.
func (t *Transcript) Prewarm(n int) bool {
	return t.prewarm(0, len(t.entries)-1, n)
}

// prewarmScreens is how many screenfuls above and below the viewport
// PrewarmNear makes exact: enough that a page or two of scrolling lands on
// blocks already drawn, while a resize or a resumed session of thousands of
// blocks costs what is near the screen, not the whole history. Blocks
// further away stay estimates until they scroll near (sync draws what is
// on screen; the model asks for PrewarmNear again after a scroll).
const prewarmScreens = 3

// PrewarmNear is Prewarm limited to the blocks within prewarmScreens
// screenfuls of the viewport.
func (t *Transcript) PrewarmNear(n int) bool {
	first, last, ok := t.nearRange()
	if !ok {
		return false
	}
	return t.prewarm(first, last, n)
}

// NeedsPrewarm reports whether a block near the viewport is an estimate.
func (t *Transcript) NeedsPrewarm() bool {
	first, last, ok := t.nearRange()
	if !ok {
		return false
	}
	for i := first; i <= last; i++ {
		if !t.entries[i].exact {
			return true
		}
	}
	return false
}

// nearRange is the entries within prewarmScreens screenfuls of the view.
func (t *Transcript) nearRange() (first, last int, ok bool) {
	if len(t.entries) == 0 {
		return 0, 0, false
	}
	margin := prewarmScreens * t.height
	return t.indexAt(max(t.offset-margin, 0)), t.indexAt(t.offset + t.height + margin), true
}

// prewarm measures up to n estimated entries of first..last, from the last
// one up, keeping the view where it was.
func (t *Transcript) prewarm(first, last, n int) bool {
	if len(t.entries) == 0 {
		return false
	}
	ai, within := t.anchor()
	anchorBlock := t.entries[ai].b
	left := false
	for i := last; i >= first; i-- {
		if t.entries[i].exact {
			continue
		}
		if n == 0 {
			left = true
			break
		}
		t.measure(i)
		n--
	}
	if t.follow {
		t.offset = t.MaxOffset()
	} else {
		t.restore(t.IndexOf(anchorBlock), within)
	}
	return left
}

// estimateUnmeasured gives every block never drawn (a replayed one) a
// height of one line and its gap, so it has a place to scroll to and sync
// draws it when it comes into view.
func (t *Transcript) estimateUnmeasured() {
	for i := range t.entries {
		if e := &t.entries[i]; !e.exact && e.height == 0 {
			e.height = gapBefore(i, e.b) + 1
		}
	}
	t.topsStale = true
}

// HasUnseen reports whether output arrived below while scrolled up.
func (t *Transcript) HasUnseen() bool { return t.unseen && !t.follow }

// View draws the visible lines, exactly height of them. When output arrived
// below while the user reads above, the last line says so.
func (t *Transcript) View() string {
	b := &t.buf
	b.Reset()
	b.Grow((t.width + 16) * t.height)
	rows := t.height
	hint := t.HasUnseen() && t.height > 1 && t.base.Styles != nil
	if hint {
		rows--
	}
	n := 0
	if len(t.entries) > 0 {
		i := t.indexAt(t.offset)
		skip := t.offset - t.tops[i]
		for ; i < len(t.entries) && n < rows; i++ {
			e := t.entries[i]
			for g := gapBefore(i, e.b); g > 0 && n < rows; g-- {
				if skip > 0 {
					skip--
					continue
				}
				if n > 0 {
					b.WriteByte('\n')
				}
				n++
			}
			gutter := t.gutterOff
			if e.b == t.focused {
				gutter = t.gutterOn
			}
			for _, l := range e.b.Lines(t.ctxFor(e.b)) {
				if skip > 0 {
					skip--
					continue
				}
				if n == rows {
					break
				}
				if n > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(gutter)
				b.WriteString(l)
				n++
			}
		}
	}
	for ; n < rows; n++ {
		if n > 0 {
			b.WriteByte('\n')
		}
	}
	if hint {
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t.base.Styles.App.Accent.Render(ansi.Truncate("  ↓ new output below ("+t.base.hintKeys().Bottom.Help().Key+" to follow)", t.width, "…")))
	}
	return b.String()
}
