package transcript

import (
	"strconv"

	"covey/ui/cells"
	"covey/ui/diffview"
)

// FilesBlock lists the files one child changed, each with its diffs: the
// end of a child's full-screen view (live: it follows the child's pane),
// and the answer to /diff NAME (a snapshot).
type FilesBlock struct {
	files   *changeSet
	version func() uint64 // changes whenever files may have
	title   string
	cache   LineCache
	diffs   map[string]*diffview.View // parsed once per diff text
}

// NewFilesBlock returns the live block of pane's changed files.
func NewFilesBlock(pane *SubagentBlock, title string) *FilesBlock {
	return &FilesBlock{files: &pane.crew.files, version: pane.Version, title: title, diffs: map[string]*diffview.View{}}
}

// NewFilesSnapshot returns a block of pane's changed files as they are now.
func NewFilesSnapshot(pane *SubagentBlock, title string) *FilesBlock {
	cs := pane.crew.files.snapshot()
	return &FilesBlock{files: &cs, version: func() uint64 { return 0 }, title: title, diffs: map[string]*diffview.View{}}
}

// NewSessionFiles returns a block of every file the session's agents
// changed, as they are now (/diff with no name): blocks are the
// transcript's, in order, whose main-agent writes and edits and whose
// children's changes count; panes are every child (nested ones too),
// those not among blocks counted after.
func NewSessionFiles(blocks []Block, panes []*SubagentBlock, title string) *FilesBlock {
	var cs changeSet
	seen := map[*SubagentBlock]bool{}
	for _, b := range blocks {
		switch b := b.(type) {
		case *ToolBlock:
			if b.finished {
				cs.addEdit(fileChangeOf(b.end.Result))
			}
		case *SubagentBlock:
			seen[b] = true
			cs.merge(&b.crew.files)
		}
	}
	for _, p := range panes {
		if !seen[p] {
			seen[p] = true
			cs.merge(&p.crew.files)
		}
	}
	return &FilesBlock{files: &cs, version: func() uint64 { return 0 }, title: title, diffs: map[string]*diffview.View{}}
}

// Lines implements Block. The returned slice must not be modified.
func (b *FilesBlock) Lines(ctx RenderContext) []string {
	key := CacheKey{Styles: ctx.Styles, Width: ctx.Width, Version: b.version()}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	st := ctx.Styles
	cs := b.files
	head := b.title
	if s := cs.summary(); s != "" {
		head += " · " + s
	} else {
		head += " · no files changed"
	}
	lines := []string{cells.Fit(st.Crew.Title.Render(head), ctx.Width)}
	for _, f := range cs.files {
		note := f.status + ", +" + strconv.Itoa(f.added) + " −" + strconv.Itoa(f.removed)
		lines = append(lines, cells.Fit("  "+st.Tool.Name.Render(cells.Clean(f.path))+" "+st.Tool.Output.Render("("+note+")"), ctx.Width))
		if len(f.diffs) == 0 {
			lines = append(lines, cells.Fit(st.Tool.Output.Render("    changed by a command: no diff recorded"), ctx.Width))
			continue
		}
		for _, d := range f.diffs {
			dv, ok := b.diffs[d]
			if !ok {
				dv = diffview.New(d)
				b.diffs[d] = dv
			}
			lines = append(lines, indentLines(dv.Render(max(ctx.Width-4, 1), 0, st), "    ", ctx.Width)...)
		}
	}
	b.cache.Put(key, lines)
	return lines
}

// Focusable implements Block.
func (b *FilesBlock) Focusable() bool { return false }

// Expanded implements Block.
func (b *FilesBlock) Expanded() bool { return true }

// SetExpanded implements Block; the list is always shown whole.
func (b *FilesBlock) SetExpanded(bool) {}

// Live implements Block.
func (b *FilesBlock) Live() bool { return false }
