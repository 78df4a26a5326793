package screens

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/ui/approval"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// Logged is a child's event and when the UI got it, so a child's view
// built later dates its nested panes as the main view did.
type Logged struct {
	Event agent.Event
	At    time.Time
}

// Router sends the events of the child shown and of its descendants to
// the view's blocks: the root's event router, which the root makes over
// the view's transcript (NewChildView's newRouter), with files last.
type Router interface {
	// Route applies ev, which the UI got at now.
	Route(ev agent.Event, now time.Time)
	// FinishAssistant ends the answer being streamed, if any.
	FinishAssistant()
	// Pane is the pane of agentID in the view, nil when it has none.
	Pane(agentID string) *transcript.SubagentBlock
	// MarkPausedWaits tells the view's panes which paused children they
	// wait on.
	MarkPausedWaits()
}

// ChildView is one child's whole transcript, full-screen: its answers as
// markdown, its tool calls as tool blocks with their diffs, its own
// children as panes, the messages it was sent as user messages, and at
// the end the files it changed with their diffs. It is built from the
// child's logged events when opened and then follows its live ones. Its
// header is the child's pane header, so state, budget and files read as
// in the transcript.
type ChildView struct {
	pane  *transcript.SubagentBlock
	tr    *transcript.Transcript
	rt    Router
	files *transcript.FilesBlock
	appr  *approval.Block // a request of the child's, shown here too
	// briefed is set once the child's brief is shown.
	briefed bool
	// shell is a background shell's whole output, once read.
	shell *shellOutput
	// sent is the messages sent to the child that it has not read yet,
	// shown queued at the end until their ChildMessage.
	sent []sentNotice

	// keys are the root's: the view takes the transcript's keys and the
	// crew keys, as the conversation does.
	keys *keys.KeyMap
	// back is the screen the view was opened from (the overview), nil
	// when it was opened from the conversation.
	back Screen

	width, height int
	base          transcript.RenderContext
	buf           strings.Builder
}

// childViewChrome is the lines above the child's transcript: its header
// and a rule.
const childViewChrome = 2

// NewChildView builds pane's view from history, the logged events of the
// child and its descendants; newRouter makes the router of its
// transcript, which keeps files (the list of changed files) last. km is
// the root's KeyMap, back the screen it was opened from (nil: the
// conversation).
func NewChildView(pane *transcript.SubagentBlock, history []Logged, base transcript.RenderContext, km *keys.KeyMap, back Screen,
	newRouter func(tr *transcript.Transcript, files *transcript.FilesBlock) Router) *ChildView {
	tr := transcript.New(base)
	files := transcript.NewFilesBlock(pane, "Changed files")
	v := &ChildView{pane: pane, tr: tr, rt: newRouter(tr, files), files: files, base: base, keys: km, back: back}
	for _, le := range history {
		v.route(le.Event, le.At)
	}
	// Messages sent before the view opened that the child has not read.
	for _, text := range pane.Unread() {
		v.ShowSent(text, true)
	}
	v.keepFilesLast()
	v.tr.Bottom()
	return v
}

// route applies one event of the child or a descendant.
func (v *ChildView) route(ev agent.Event, now time.Time) {
	if e, ok := ev.(agent.ChildMessage); ok && e.AgentID == v.pane.AgentID() && len(v.sent) > 0 {
		// Read: the queued notice gives way to the message, where it
		// entered the child's conversation.
		v.dropSent(func(s string) bool { return transcript.HoldsMessage(e.Text, s) })
	}
	v.rt.Route(ev, now)
	if ev.From().AgentID == v.pane.AgentID() {
		switch e := ev.(type) {
		case agent.ChildStarted:
			// The brief comes first, as the user's prompt does in the
			// main transcript (a resumed child starts again: once is
			// enough).
			if e.Prompt != "" && !v.briefed {
				v.briefed = true
				v.tr.Insert(0, transcript.NewUserBlock(e.Prompt))
			}
		case agent.ChildFinished:
			// How it ended, where it ended, when that was not a plain answer
			// (the pane says so; the whole transcript must too).
			if n := outcomeNotice(e); n != nil {
				v.rt.FinishAssistant()
				v.tr.Append(n)
			}
			v.tr.Touch(v.files)
		case agent.ToolFinished, agent.ChildFiles:
			v.tr.Touch(v.files)
		}
	}
}

// sentNotice is a message sent to the child, shown queued.
type sentNotice struct {
	text  string
	block *transcript.NoticeBlock
}

// ShowSent shows text, just sent to the child, as queued at the end of
// the view; sent false takes it away (the send failed).
func (v *ChildView) ShowSent(text string, sent bool) {
	if !sent {
		v.dropSent(func(s string) bool { return s == text })
		return
	}
	n := transcript.NewNoticeBlock(transcript.NoticeInfo, "✉ queued: "+cells.OneLine(text)+" (the child reads it before its next request)")
	v.sent = append(v.sent, sentNotice{text: text, block: n})
	v.tr.Append(n)
	v.keepFilesLast()
	v.tr.Bottom()
}

// ShowSentTo shows text sent to agentID as queued, or takes it back (sent
// false): the child shown, or a pane of its own (a child of the child
// shown). False when agentID is neither.
func (v *ChildView) ShowSentTo(agentID, text string, sent bool) bool {
	if agentID == v.pane.AgentID() {
		v.ShowSent(text, sent)
		return true
	}
	p := v.rt.Pane(agentID)
	if p == nil {
		return false
	}
	if sent {
		p.MarkSent(text)
	} else {
		p.UnmarkSent(text)
	}
	v.tr.Touch(p)
	return true
}

// AnyLive reports whether something in the view animates.
func (v *ChildView) AnyLive() bool { return v.tr.AnyLive() }

// MarkPausedWaits tells the view's own panes which paused children they
// wait on (the child shown is a pane of the main router, marked there).
func (v *ChildView) MarkPausedWaits() {
	v.rt.MarkPausedWaits()
}

// dropSent takes away the queued notices whose text matches.
func (v *ChildView) dropSent(match func(string) bool) {
	kept := v.sent[:0]
	for _, s := range v.sent {
		if match(s.text) {
			v.tr.Remove(s.block)
			continue
		}
		kept = append(kept, s)
	}
	v.sent = kept
}

// outcomeNotice is the line that ends a child's full-screen transcript when
// it stopped short of an answer (cancelled, failed, cut short), with why;
// nil when it answered.
func outcomeNotice(e agent.ChildFinished) *transcript.NoticeBlock {
	why := cells.OneLine(e.Error)
	if why == "" {
		why = cells.OneLine(e.Summary)
	}
	text := ""
	switch e.Reason {
	case agent.StopOK, "":
		return nil
	case agent.StopTimeout:
		text = "timed out after " + cells.Elapsed(e.Elapsed)
	case agent.StopMaxTurns:
		text = "stopped at its turn limit"
	case agent.StopBudget:
		text = "stopped at its budget"
	case agent.StopCancelled:
		text = "cancelled"
	default:
		text = "failed"
	}
	if why != "" && why != text {
		text += ": " + why
	}
	level := transcript.NoticeWarning
	if e.Reason != agent.StopCancelled && e.Reason != agent.StopTimeout && e.Reason != agent.StopMaxTurns && e.Reason != agent.StopBudget {
		level = transcript.NoticeError
	}
	return transcript.NewNoticeBlock(level, text)
}

// Route applies a live event and keeps the files list last.
func (v *ChildView) Route(ev agent.Event, now time.Time) {
	v.route(ev, now)
	v.keepFilesLast()
}

// ShowApproval shows a waiting request of the child (or of one of its
// children) above the files list, so it can be answered here; nil takes
// the shown one away.
func (v *ChildView) ShowApproval(b *approval.Block) {
	if v.appr == b {
		return // its changes reach this transcript by themselves
	}
	if v.appr != nil {
		v.tr.Remove(v.appr)
	}
	v.appr = b
	if b != nil {
		v.tr.Append(b)
		v.keepFilesLast()
		v.tr.ScrollTo(b)
	}
}

// keepFilesLast moves the files list to the end after new blocks.
func (v *ChildView) keepFilesLast() {
	if v.pane.IsShell() {
		return // a shell's changes are not tracked: no list to keep
	}
	if v.tr.Last() == transcript.Block(v.files) {
		return
	}
	v.tr.Remove(v.files)
	v.tr.Append(v.files)
}

// OpenedFrom is the screen the view was opened from (the overview), nil
// when it was opened from the conversation.
func (v *ChildView) OpenedFrom() Screen { return v.back }

// Transcript is the view's transcript.
func (v *ChildView) Transcript() *transcript.Transcript { return v.tr }

// Approval is the request of the child's shown in the view, or nil.
func (v *ChildView) Approval() *approval.Block { return v.appr }

// Pane is the child shown.
func (v *ChildView) Pane() *transcript.SubagentBlock { return v.pane }

// Chosen is the child the crew keys act on: a focused nested pane, else
// the child shown.
func (v *ChildView) Chosen() *transcript.SubagentBlock {
	if b, ok := v.tr.Focused().(*transcript.SubagentBlock); ok {
		return b
	}
	return v.pane
}

// Title names the view on the view bar.
func (v *ChildView) Title() string { return "subagent view" }

// ShortHelp is the view bar's keys.
func (v *ChildView) ShortHelp() []key.Binding {
	k := v.keys
	return []key.Binding{k.Back, k.ViewBack, k.ChildMessage, k.ChildPause, k.ChildBackground, k.CancelChild,
		k.LineUp, k.LineDown, k.FocusNext}
}

// FullHelp is the view's group of the full help: the crew keys on the
// child shown; the transcript's keys follow in their own group.
func (v *ChildView) FullHelp() [][]key.Binding {
	k := v.keys
	return [][]key.Binding{{k.ChildOpen, k.ChildMessage, k.ChildPause, k.ChildBackground, k.CancelChild, k.ViewBack,
		k.AddressCancel}}
}

// HasFocusable reports whether the view has a block tab can focus (a long
// tool output, an answer's reasoning).
func (v *ChildView) HasFocusable() bool { return v.tr.HasFocusable() }

// BlockFocused reports whether a block of the view has the keys.
func (v *ChildView) BlockFocused() bool { return v.tr.Focused() != nil }

// Update scrolls the view and moves the focus through its blocks; esc
// leaves a focused block, then the view. The crew keys on the child
// chosen (Chosen) are the root's.
func (v *ChildView) Update(msg tea.Msg) (Action, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, nil
	}
	tr, keys := v.tr, v.keys
	switch {
	case key.Matches(k, keys.Back):
		tr.Blur()
	case key.Matches(k, keys.ViewBack):
		return Back{}, nil
	case key.Matches(k, keys.FocusNext):
		tr.MoveFocus(1)
	case key.Matches(k, keys.FocusPrev):
		tr.MoveFocus(-1)
	case key.Matches(k, keys.Toggle):
		tr.Toggle()
	case key.Matches(k, keys.LineUp):
		tr.ScrollBy(-1)
	case key.Matches(k, keys.LineDown):
		tr.ScrollBy(1)
	case key.Matches(k, keys.PageUp):
		tr.PageUp()
	case key.Matches(k, keys.PageDown):
		tr.PageDown()
	case key.Matches(k, keys.Top):
		tr.Top()
	case key.Matches(k, keys.Bottom):
		tr.Bottom()
	}
	return nil, nil
}

// SetSize sets the area the view fills.
func (v *ChildView) SetSize(width, height int) {
	v.width, v.height = max(width, 1), max(height, 1)
	v.tr.SetSize(v.width, max(v.height-childViewChrome, 1))
}

// SetClock gives the view the frame's clock.
func (v *ChildView) SetClock(now time.Time, frame int) {
	v.tr.SetClock(now, frame)
	v.base.Now, v.base.Frame = now, frame
}

// View draws the header, a rule and the transcript, exactly height lines.
func (v *ChildView) View() string {
	b := &v.buf
	b.Reset()
	ctx := v.base
	ctx.Width = max(v.width-transcript.GutterWidth, 1)
	b.WriteString(strings.Repeat(" ", transcript.GutterWidth))
	b.WriteString(v.pane.Lines(ctx)[0])
	if v.height > 1 {
		b.WriteByte('\n')
		b.WriteString(ctx.Styles.Subagent.Border.Render(strings.Repeat("─", v.width)))
	}
	if v.height > childViewChrome {
		b.WriteByte('\n')
		b.WriteString(v.tr.View())
	}
	return b.String()
}

// shellViewLines bounds the lines a shell's full-screen view draws: the
// newest ones; the ring behind them holds at most a MiB.
const shellViewLines = 5000

// shellOutput is a background shell's whole kept output in its
// full-screen view, as plain text.
type shellOutput struct {
	transcript.Changes
	text  string
	cache transcript.LineCache
}

func (b *shellOutput) set(out string, cut int64) {
	out = strings.TrimRight(out, "\n")
	lines := strings.Split(out, "\n")
	var head string
	if len(lines) > shellViewLines {
		dropped := len(lines) - shellViewLines
		lines = lines[dropped:]
		head = fmt.Sprintf("… %d earlier lines not shown\n", dropped)
	}
	if cut > 0 {
		head = fmt.Sprintf("… %d bytes cut: covey keeps the last MiB of a shell's output\n", cut) + head
	}
	if out == "" {
		lines = []string{"(no output yet)"}
	}
	b.text = head + cells.Clean(strings.Join(lines, "\n"))
	b.Changed()
}

// Lines implements Block.
func (b *shellOutput) Lines(ctx transcript.RenderContext) []string {
	key := transcript.CacheKey{Width: ctx.Width, Version: b.Version(), Styles: ctx.Styles}
	if lines, ok := b.cache.Get(key); ok {
		return lines
	}
	lines := cells.Wrap(b.text, max(ctx.Width, 1))
	b.cache.Put(key, lines)
	return lines
}

// Focusable implements Block.
func (b *shellOutput) Focusable() bool { return false }

// Expanded implements Block.
func (b *shellOutput) Expanded() bool { return true }

// SetExpanded implements Block; the output is always shown whole.
func (b *shellOutput) SetExpanded(bool) {}

// Live implements Block.
func (b *shellOutput) Live() bool { return false }

// SetShellOutput shows a shell's output in its view, below its command.
func (v *ChildView) SetShellOutput(out string, cut int64) {
	if v.shell == nil {
		v.shell = &shellOutput{}
		v.tr.Append(v.shell)
	}
	v.shell.set(out, cut)
	v.tr.Touch(v.shell)
	v.keepFilesLast()
}
