package transcript

import (
	"math"
	"strings"

	"covey/ui/cells"
	"covey/ui/markdown"

	"github.com/charmbracelet/x/ansi"
)

// reasoningTail is how many lines of thinking a collapsed block shows.
const reasoningTail = 3

// AssistantBlock shows the main agent's answer as it streams. Markdown is
// rendered only where it can no longer change: the text is cut at the last
// paragraph break outside a code fence, everything before it is rendered
// with glamour one paragraph group at a time (each group once per width),
// and only the unfinished tail is shown as plain wrapped text. On Finish the
// whole answer is rendered once and the block freezes.
type AssistantBlock struct {
	text      strings.Builder
	reasoning strings.Builder
	done      bool
	expanded  bool
	Changes

	// The stable-prefix scanner: the ends of the blocks finished so far.
	split markdown.Split

	// Render caches. segLines holds the rendered segments at segWidth,
	// flattened and separated by blank lines, for the first segDone bounds.
	segWidth int
	segDone  int
	segLines []string
	tail     wrapStream
	tailBase int // the offset in text where tail starts
	// out holds the streaming lines: the first outSeg are segLines at
	// width outW, then the tail. It is reused from render to render.
	out       []string
	outSeg    int
	outW      int
	think     wrapStream
	open      openBlock // the open segment drawn as its block: a fence's code, a table's rows
	final     []string
	finalW    int
	cache     LineCache
	recompute int // how many times Lines rebuilt its output; tests read it
	look      paneLook
}

// NewAssistantBlock returns an empty, streaming answer block.
func NewAssistantBlock() *AssistantBlock { return &AssistantBlock{} }

// AppendText adds a fragment of the answer. It only scans the newly
// completed lines for paragraph breaks; rendering waits for Lines.
func (b *AssistantBlock) AppendText(s string) {
	if s == "" || b.done {
		return
	}
	b.text.WriteString(s)
	b.split.Feed(b.text.String())
	b.Changed()
}

// AppendReasoning adds a fragment of the model's thinking.
func (b *AssistantBlock) AppendReasoning(s string) {
	if s == "" || b.done {
		return
	}
	b.reasoning.WriteString(s)
	b.Changed()
}

// Finish marks the answer complete: the next Lines renders all of it as
// markdown once, and the block no longer changes.
func (b *AssistantBlock) Finish() {
	if b.done {
		return
	}
	b.done = true
	b.Changed()
}

// Text returns the answer received so far.
func (b *AssistantBlock) Text() string { return b.text.String() }

// Lines implements Block. The returned slice must not be modified; while
// the answer streams, its tail is reused by the next call.
func (b *AssistantBlock) Lines(ctx RenderContext) []string {
	key := CacheKey{Styles: ctx.Styles, Width: ctx.Width, Version: b.version, Expanded: b.expanded}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	b.recompute++
	width := max(ctx.Width, 1)
	var lines []string
	if b.reasoning.Len() > 0 {
		lines = b.reasoningLines(ctx, width)
		if b.text.Len() > 0 {
			lines = append(lines, "")
		}
	}
	// Without thinking above it, the answer's own slice is the block's:
	// copying every line of a long answer on each token cost more than
	// the token.
	if b.done {
		lines = appendLines(lines, b.finalLines(ctx, width))
	} else {
		lines = appendLines(lines, b.streamingLines(ctx, width))
	}
	b.cache.Put(key, lines)
	return lines
}

// appendLines is append(dst, src...), or src itself when dst is empty.
func appendLines(dst, src []string) []string {
	if len(dst) == 0 {
		return src
	}
	return append(dst, src...)
}

// reasoningLines is the dimmed thinking: a header and the last few lines,
// or all of them when expanded.
func (b *AssistantBlock) reasoningLines(ctx RenderContext, width int) []string {
	st := ctx.Styles.Assistant.Reasoning
	inner := max(width-2, 1)
	done, partial := b.think.update(b.reasoning.String(), inner, b.look.style(ctx.Styles, lookReasoning))
	all := len(done) + len(partial)
	shown := all
	if !b.expanded {
		shown = min(all, reasoningTail)
	}
	header := "✻ Thinking"
	if shown < all {
		header += " (" + CountNoun(all-shown, "more line", "more lines") + ")"
	}
	lines := make([]string, 0, shown+1)
	lines = append(lines, cells.Fit(st.Render(header), width))
	skip := all - shown
	for _, group := range [2][]string{done, partial} {
		for _, l := range group {
			if skip > 0 {
				skip--
				continue
			}
			lines = append(lines, cells.Fit("  "+l, width))
		}
	}
	return lines
}

// streamingLines renders the stable segments not yet rendered at this
// width and appends the plain tail.
func (b *AssistantBlock) streamingLines(ctx RenderContext, width int) []string {
	text := b.text.String()
	if b.segWidth != width {
		b.segWidth, b.segDone, b.segLines = width, 0, nil
	}
	bounds := b.split.Bounds()
	for b.segDone < len(bounds) {
		start, tight := 0, false
		if b.segDone > 0 {
			start, tight = bounds[b.segDone-1].At, bounds[b.segDone-1].Tight
		}
		seg := renderMarkdown(ctx, text[start:bounds[b.segDone].At], width)
		if len(b.segLines) > 0 && len(seg) > 0 && !tight {
			b.segLines = append(b.segLines, "")
		}
		b.segLines = append(b.segLines, seg...)
		b.segDone++
	}
	// The stable lines stay in place in b.out; only the tail after them is
	// rewritten, so a token does not copy the whole answer's lines.
	if len(b.out) < len(b.segLines) || b.outSeg != len(b.segLines) || b.outW != width {
		b.out = append(b.out[:0], b.segLines...)
		b.outSeg, b.outW = len(b.segLines), width
	}
	lines := b.out[:len(b.segLines)]
	tail := b.tailLines(ctx, text, width)
	if len(lines) > 0 && len(tail) > 0 && !b.split.OpenTight() {
		lines = append(lines, "")
	}
	lines = append(lines, tail...)
	b.out = lines
	return lines
}

// tailLines wraps the text after the last stable boundary as plain text.
func (b *AssistantBlock) tailLines(ctx RenderContext, text string, width int) []string {
	base := b.split.Last()
	if b.tailBase != base {
		b.tail, b.tailBase = wrapStream{hang: true}, base
	}
	tailText := text[base:]
	if strings.TrimSpace(tailText) == "" {
		return nil
	}
	if ctx.Markdown != nil {
		if lines, ok := b.open.draw(ctx, tailText, base, b.split.InFence(), width); ok {
			return lines
		}
	}
	b.tail.hang = !b.split.InFence() // no bullets drawn inside code
	b.tail.md = ctx.Markdown
	done, partial := b.tail.update(tailText, width, b.look.style(ctx.Styles, lookAnswer))
	// Extra blank lines after the last boundary would widen the gap the
	// segments already leave.
	for len(done) > 0 && strings.TrimSpace(ansi.Strip(done[0])) == "" {
		done = done[1:]
	}
	if len(partial) == 1 && ansi.Strip(partial[0]) == "" {
		partial = nil // the text ends with a newline
	}
	if len(partial) == 0 {
		return done
	}
	if len(done) == 0 {
		return partial
	}
	return append(done[:len(done):len(done)], partial...)
}

// openBlock draws the open segment of a streaming answer as the block it
// will be, where plain text would show its markup raw until it closes: a
// code fence still open as highlighted code (each complete line drawn
// once, the unfinished one again), a table whose rows are still arriving
// as a table of its complete rows (drawn again when a row completes; the
// unfinished row waits for its newline).
type openBlock struct {
	base, width int
	code        *markdown.CodeStream
	consumed    int      // bytes of the segment drawn as complete lines
	drawn       []string // their screen lines
	table       bool
}

// draw draws the segment tail (starting at base in the answer) when it
// is an open fence or a table; ok is false for any other segment, which
// streams as text.
func (o *openBlock) draw(ctx RenderContext, tail string, base int, inFence bool, width int) (lines []string, ok bool) {
	if o.base != base || o.width != width || (o.code == nil && !o.table) {
		*o = openBlock{base: base, width: width}
		nl := strings.IndexByte(tail, '\n')
		switch {
		case inFence && nl >= 0:
			o.code = ctx.Markdown.NewCodeStream(tail[:nl])
			o.consumed = nl + 1
		case !inFence:
			o.table = markdown.TableStart(tail)
		}
		if o.code == nil && !o.table {
			if !inFence && markdown.Undecided(tail) {
				return nil, true
			}
			return nil, false
		}
	}
	last := strings.LastIndexByte(tail, '\n') + 1 // the end of the complete lines
	if o.table {
		if last > o.consumed {
			o.drawn, o.consumed = renderMarkdown(ctx, tail[:last], width), last
		}
		return o.drawn, true
	}
	if last > o.consumed {
		for _, l := range strings.Split(tail[o.consumed:last-1], "\n") {
			o.drawn = append(o.drawn, o.code.Line(l, width))
		}
		o.consumed = last
	}
	lines = o.drawn[:len(o.drawn):len(o.drawn)]
	if rest := tail[o.consumed:]; rest != "" {
		if l, ok := o.code.Peek(rest, width); ok {
			lines = append(lines, l)
		}
	}
	// Blank lines at the end may yet be followed by more code; until then
	// they would only push the block's end down and up.
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, true
}

// finalLines renders the whole answer once per width.
func (b *AssistantBlock) finalLines(ctx RenderContext, width int) []string {
	if b.final == nil || b.finalW != width {
		b.final = renderMarkdown(ctx, shownText(b.text.String()), width)
		if b.final == nil {
			b.final = []string{}
		}
		b.finalW = width
		// The streaming state is no longer needed; let it go.
		b.segLines, b.tail, b.split, b.segWidth, b.out, b.open = nil, wrapStream{}, markdown.Split{}, 0, nil, openBlock{}
	}
	return b.final
}

// renderMarkdown renders md with the shared renderer, falling back to
// plain wrapped text when there is none or it fails.
func renderMarkdown(ctx RenderContext, md string, width int) []string {
	if ctx.Markdown != nil {
		if lines, err := ctx.Markdown.Render(md, width); err == nil {
			return lines
		}
	}
	return styleLines(markdown.TrimBlankLines(cells.Wrap(strings.TrimRight(md, "\n"), width)), ctx.Styles.Assistant.Text)
}

// Focusable implements Block: only thinking can be expanded.
func (b *AssistantBlock) Focusable() bool { return b.reasoning.Len() > 0 }

// Expanded implements Block.
func (b *AssistantBlock) Expanded() bool { return b.expanded }

// SetExpanded implements Block.
func (b *AssistantBlock) SetExpanded(v bool) { b.expanded = v }

// Live implements Block: an answer changes with events, not with time.
func (b *AssistantBlock) Live() bool { return false }

// wrapStream wraps text that only grows at its end. Complete lines are
// wrapped and styled once; only the unfinished last line is redone on each
// call, so a token costs the same at 200 bytes as at 20 KB.
type wrapStream struct {
	hang bool // wrapped lines of a list item hang under its text
	// md, when set with hang, renders a list item's line as markdown, so
	// its inline markup (**bold**, `code`) shows as it will once the item
	// is finished, not as raw markers until the next item starts.
	md       *markdown.Renderer
	width    int
	consumed int      // bytes of complete lines already wrapped
	lines    []string // their screen lines, styled
}

// update returns the screen lines of the complete lines of src and of its
// unfinished last line. src must extend the src of the previous call.
func (w *wrapStream) update(src string, width int, st cells.Style) (done, partial []string) {
	if w.width != width {
		*w = wrapStream{width: width, hang: w.hang, md: w.md}
	}
	if nl := strings.LastIndexByte(src, '\n'); nl >= w.consumed {
		for _, line := range strings.Split(src[w.consumed:nl], "\n") {
			w.lines = append(w.lines, w.styled(line, width, st)...)
		}
		w.consumed = nl + 1
	}
	return w.lines, w.styled(src[w.consumed:], width, st)
}

// styled is one line wrapped and styled: a list item's line rendered as
// markdown when it can be, any other line wrapped as plain text.
func (w *wrapStream) styled(line string, width int, st cells.Style) []string {
	if lines := w.item(line, width); lines != nil {
		return lines
	}
	return styleLast(w.wrap(cells.Clean(line), width), math.MaxInt, st)
}

// item renders a list item's line as markdown, at its indentation; nil
// when the line is no item or there is no renderer. An unclosed marker
// ("**bol") shows as written until its closing one arrives.
func (w *wrapStream) item(line string, width int) []string {
	if w.md == nil || !w.hang {
		return nil
	}
	n, _ := markdown.ListPrefix(line)
	if n == 0 || n > width/2 {
		return nil
	}
	t := strings.TrimLeft(line, " ")
	indent := len(line) - len(t)
	lines, err := w.md.Render(t, width-indent)
	if err != nil || len(lines) == 0 {
		return nil
	}
	if indent > 0 {
		pad := strings.Repeat(" ", indent)
		for i, l := range lines {
			if l != "" {
				lines[i] = pad + l
			}
		}
	}
	return lines
}

// wrap wraps one line; with hang, a list item's marker is drawn as the
// rendered list draws it and its wrapped lines hang under its text, so
// the open item does not reflow when it is rendered.
func (w *wrapStream) wrap(line string, width int) []string {
	if !w.hang {
		return cells.AppendWrapped(nil, line, width)
	}
	n, draw := markdown.ListPrefix(line)
	if n == 0 || n > width/2 {
		return cells.AppendWrapped(nil, line, width)
	}
	lines := cells.AppendWrapped(nil, line[n:], width-n)
	pad := strings.Repeat(" ", n)
	for i := range lines {
		if i == 0 {
			lines[i] = draw + lines[i]
		} else {
			lines[i] = pad + lines[i]
		}
	}
	return lines
}
