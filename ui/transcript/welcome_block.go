package transcript

import (
	"strings"

	"covey/ui/cells"
)

// Welcome is what the first screen says about the session, so it is never
// blank: the model and where it is served, the workspace, and whether the
// project's instructions (AGENTS.md) were loaded.
type Welcome struct {
	// Version is covey's version.
	Version string
	// Model and Endpoint are the main agent's model and the provider's
	// base URL (or its host).
	Model, Endpoint string
	// Workspace is the folder the agents work in.
	Workspace string
	// InstructionsFile is the instructions file that was loaded (AGENTS.md
	// or CLAUDE.md); "" when there is none.
	InstructionsFile string
	// Try is a prompt the card suggests (the demo's long exploration, whose
	// children run long enough to try the crew keys on); "" for none.
	Try string
}

// keySep separates two keys on the card, as on the help line.
const keySep = " • "

// KeyHint is one key and what it does, drawn from the root's KeyMap.
type KeyHint struct{ Key, Desc string }

// WelcomeBlock is the first block of a new session: a short card about the
// session and three key hints. It is an ordinary transcript block, so it
// scrolls away as the conversation grows.
type WelcomeBlock struct {
	w     Welcome
	hints []KeyHint
	crew  []KeyHint // the crew keys, one line (wrapped when narrow)
	cache LineCache
}

// NewWelcomeBlock builds the card: hints are the line of keys under it,
// crew the crew keys' line (its first two items joined: "tab to a pane,
// then o open"). The root names the keys from its KeyMap, so a rebinding
// changes them.
func NewWelcomeBlock(w Welcome, hints, crew []KeyHint) *WelcomeBlock {
	return &WelcomeBlock{w: w, hints: hints, crew: crew}
}

// Lines implements Block.
func (b *WelcomeBlock) Lines(ctx RenderContext) []string {
	key := CacheKey{Styles: ctx.Styles, Width: ctx.Width}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	st := ctx.Styles
	title := st.App.Bold.Render("covey")
	if b.w.Version != "" {
		title += " " + st.App.Muted.Render(b.w.Version)
	}
	title += st.App.Muted.Render(" · a coding agent with live parallel subagents")
	// Foreground colours only: the bar's background, under the card's
	// words alone, drew patches on the terminal's own.
	row := func(label, value string) string {
		return st.App.Muted.Render(label+strings.Repeat(" ", max(0, 10-len(label)))) + st.App.Text.Render(value)
	}
	model := cells.Clean(b.w.Model)
	if ep := cells.Clean(b.w.Endpoint); ep != "" {
		model += st.App.Muted.Render(" at ") + st.App.Text.Render(ep)
	}
	instr := st.App.Muted.Render("no AGENTS.md here (add one to brief covey on this project)")
	if b.w.InstructionsFile != "" {
		instr = st.App.Success.Render(cells.Clean(b.w.InstructionsFile)+" loaded") + st.App.Muted.Render(" into every prompt")
	}
	var hints []string
	for _, h := range b.hints {
		hints = append(hints, st.Help.Key.Render(h.Key)+" "+st.Help.Desc.Render(h.Desc))
	}
	lines := []string{
		title,
		"",
		row("model", "") + model,
		row("workspace", cells.ShortenHome(cells.Clean(b.w.Workspace))),
		row("project", "") + instr,
	}
	if b.w.Try != "" {
		lines = append(lines, row("try", "")+st.App.Text.Render("“"+cells.Clean(b.w.Try)+"”")+
			st.App.Muted.Render(": slow explorers to try the keys below on"))
	}
	lines = append(lines, "", strings.Join(hints, st.Help.Sep.Render(" · ")))
	// The crew keys, named once: they work on a focused pane.
	crew := make([]string, len(b.crew))
	for i, h := range b.crew {
		crew[i] = st.Help.Key.Render(h.Key) + " " + st.Help.Desc.Render(h.Desc)
	}
	if len(crew) > 1 {
		crew = append([]string{crew[0] + " " + crew[1]}, crew[2:]...) // "tab to a pane, then o open"
	}
	lines = append(lines, cells.WrapItems(crew, st.Help.Sep.Render(keySep), ctx.Width)...)
	lines = append(lines, "")
	for i, l := range lines {
		lines[i] = cells.Fit(l, ctx.Width)
	}
	b.cache.Put(key, lines)
	return lines
}

// Focusable implements Block.
func (b *WelcomeBlock) Focusable() bool { return false }

// Expanded implements Block.
func (b *WelcomeBlock) Expanded() bool { return false }

// SetExpanded implements Block; the card has one form.
func (b *WelcomeBlock) SetExpanded(bool) {}

// Live implements Block.
func (b *WelcomeBlock) Live() bool { return false }
