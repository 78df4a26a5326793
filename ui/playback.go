package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/tools/tool"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// This file plays a recorded session back (covey replay): its events go
// through the same router, blocks, panes and screens as a live run's, at
// the pace they were recorded (times the speed), with the UI's clock set
// to the session's, so elapsed times read as they did live. Nothing is
// sent anywhere: there is no engine, and every key that would send,
// answer or change something is off (keys.State.Replay).

// Playback is a recorded session for Options.Playback.
type Playback struct {
	// Events are the session's events in order, each with its time
	// (never earlier than the one before).
	Events []ReplayEvent
	// Speed multiplies real time (10: ten times as fast); 0 means 1.
	Speed float64
	// Model is the session's model, for the status bar.
	Model string
	// Note opens the transcript: which session plays, and how.
	Note string
}

// ReplayEvent is one recorded event and when it happened.
type ReplayEvent struct {
	Event agent.Event
	At    time.Time
}

// idleCap is the longest the player waits for the next event, in real
// time: a session left idle for an hour replays its gap in this, and says
// so.
const idleCap = 2 * time.Second

// IdleCapText is idleCap in words, for the command's help.
func IdleCapText() string { return cells.Elapsed(idleCap) }

// speeds are the steps + and - go through.
var speeds = []float64{0.25, 0.5, 1, 2, 5, 10, 20, 50, 100}

// playTickMsg delivers the events due; a tick of an older gen is stale.
type playTickMsg struct{ gen int }

// player is where a playback stands.
type player struct {
	evs    []ReplayEvent
	pos    int // events delivered
	speed  float64
	paused bool
	// The session's clock: at wall time wall it read base, and it runs at
	// speed while playing, never past the next event.
	base, wall time.Time
	wallNow    func() time.Time
	gen        int
	started    bool
	// cutTo is the time of the next event while an idle gap is cut
	// short; cutting is that gap; skipped sums the gaps cut.
	cutTo   time.Time
	cutting time.Duration
	skipped time.Duration
	// landed says what a step or jump stopped at; scrolled is set when it
	// scrolled the transcript there, so playing on follows the end again.
	landed   string
	scrolled bool
}

func newPlayer(pb *Playback, wallNow func() time.Time) *player {
	p := &player{evs: pb.Events, speed: pb.Speed, wallNow: wallNow}
	if p.speed <= 0 {
		p.speed = 1
	}
	if len(p.evs) > 0 {
		p.base = p.evs[0].At
	}
	return p
}

// now is the session's time on the player's clock.
func (p *player) now() time.Time {
	if p.paused || !p.started || p.ended() {
		return p.base
	}
	t := p.base.Add(time.Duration(float64(p.wallNow().Sub(p.wall)) * p.speed))
	if p.pos < len(p.evs) && t.After(p.evs[p.pos].At) && p.cutTo.IsZero() {
		t = p.evs[p.pos].At
	}
	if !p.cutTo.IsZero() && t.After(p.cutTo) {
		t = p.cutTo
	}
	return t
}

// setAt sets the clock to t from now on.
func (p *player) setAt(t time.Time) {
	if t.After(p.base) || p.base.IsZero() {
		p.base = t
	}
	p.wall = p.wallNow()
}

func (p *player) ended() bool { return p.pos >= len(p.evs) }

// schedule asks for the tick that delivers the next event, waiting at
// most idleCap.
func (p *player) schedule() tea.Cmd {
	if p.paused || p.ended() {
		return nil
	}
	if !p.started {
		p.started = true
		p.wall = p.wallNow()
	}
	p.gen++
	gen := p.gen
	next := p.evs[p.pos].At
	wait := time.Duration(float64(next.Sub(p.now())) / p.speed)
	p.cutTo, p.cutting = time.Time{}, 0
	if wait > idleCap {
		p.cutTo, p.cutting = next, next.Sub(p.now())
		wait = idleCap
	}
	return tea.Tick(max(wait, 0), func(time.Time) tea.Msg { return playTickMsg{gen: gen} })
}

// playTick delivers every event due and asks for the next tick.
func (m *Model) playTick(msg playTickMsg) tea.Cmd {
	p := m.play
	if p == nil || msg.gen != p.gen || p.paused {
		return nil
	}
	if !p.cutTo.IsZero() {
		p.skipped += p.cutting - time.Duration(float64(idleCap)*p.speed)
		p.setAt(p.cutTo)
		p.cutTo, p.cutting = time.Time{}, 0
	}
	now := p.now()
	end := p.pos
	for end < len(p.evs) && !p.evs[end].At.After(now) {
		end++
	}
	cmd := m.deliver(end)
	if p.ended() {
		p.base = p.evs[len(p.evs)-1].At
	}
	return tea.Batch(cmd, p.schedule())
}

// deliver routes the events up to end (not included), each at its own
// time on the clock.
func (m *Model) deliver(end int) tea.Cmd {
	p := m.play
	var cmds []tea.Cmd
	for ; p.pos < end; p.pos++ {
		ev := p.evs[p.pos]
		p.setAt(ev.At)
		if u, ok := ev.Event.(agent.UserMessage); ok && !u.IsChild() {
			m.status.SetRunning(ev.At)
		}
		cmds = append(cmds, m.handleEvents([]agent.Event{ev.Event}))
	}
	return tea.Batch(cmds...)
}

// handleReplayKey runs the player's keys; while a session plays back it
// also keeps every other key from reaching the input (there is none) and
// lets through the ones that look around: scrolling, the blocks, the crew
// overview, the panes' full-screen views and the help. False passes the
// key on.
func (m *Model) handleReplayKey(k tea.KeyMsg) (tea.Cmd, bool) {
	p, km := m.play, m.keys
	switch {
	case key.Matches(k, km.ReplayQuit):
		return m.quit(), true
	case key.Matches(k, km.ReplayPause):
		return m.togglePlay(), true
	case key.Matches(k, km.ReplayStep):
		m.pause()
		if !p.ended() {
			ev := p.evs[p.pos]
			cmd := m.deliver(p.pos + 1)
			m.land(ev)
			return cmd, true
		}
		return nil, true
	case key.Matches(k, km.ReplayFaster), key.Matches(k, km.ReplaySlower):
		m.changeSpeed(key.Matches(k, km.ReplayFaster))
		return p.reschedule(), true
	case key.Matches(k, km.ReplayNextEdit):
		return m.jump(isEdit, "edit"), true
	case key.Matches(k, km.ReplayNextError):
		return m.jump(isError, "error"), true
	case key.Matches(k, km.ReplayNextAsk):
		return m.jump(isAsk, "question or approval"), true
	}
	if m.focus == keys.FocusInput {
		// No input: tab goes to the blocks; the rest of the typing keys
		// do nothing.
		if key.Matches(k, km.FocusNext) || key.Matches(k, km.FocusPrev) {
			if m.tr.MoveFocus(-1) {
				m.focus = keys.FocusTranscript
			}
			return nil, true
		}
		if k.Type == tea.KeyRunes && !key.Matches(k, km.Help) {
			return nil, true
		}
	}
	if m.focus == keys.FocusTranscript && k.Type == tea.KeyRunes && !key.Matches(k, km.Help, km.ChildOpen, km.LineUp, km.LineDown) {
		return nil, true // letters would go to the input
	}
	return nil, false
}

// togglePlay pauses a playing replay or plays a paused one on.
func (m *Model) togglePlay() tea.Cmd {
	p := m.play
	if !p.paused {
		m.pause()
		return nil
	}
	if p.ended() {
		return nil
	}
	p.paused, p.landed = false, ""
	p.wall = p.wallNow()
	if p.scrolled {
		p.scrolled = false
		m.tr.Bottom()
	}
	return p.schedule()
}

// pause stops the clock where it stands.
func (m *Model) pause() {
	p := m.play
	if p.paused {
		return
	}
	p.base = p.now()
	p.paused = true
	p.cutTo, p.cutting = time.Time{}, 0
	p.gen++ // the tick on its way is stale
}

// reschedule restarts the wait for the next event from the clock as it
// stands (after a change of speed).
func (p *player) reschedule() tea.Cmd {
	if p.paused || p.ended() || !p.started {
		return nil
	}
	p.base = p.now()
	p.wall = p.wallNow()
	return p.schedule()
}

// changeSpeed moves the speed one step up or down.
func (m *Model) changeSpeed(faster bool) {
	p := m.play
	if !p.paused && p.started {
		p.base, p.wall = p.now(), p.wallNow()
	}
	i := 0
	for i < len(speeds)-1 && speeds[i] < p.speed {
		i++
	}
	switch {
	case faster && speeds[i] > p.speed:
		// between two steps: the next one up
	case faster:
		i = min(i+1, len(speeds)-1)
	default:
		i = max(i-1, 0)
	}
	p.speed = speeds[i]
}

// jump plays at once up to the next event match says yes to, and pauses
// there.
func (m *Model) jump(match func(agent.Event) bool, what string) tea.Cmd {
	p := m.play
	m.pause()
	j := p.pos
	for j < len(p.evs) && !match(p.evs[j].Event) {
		j++
	}
	if j == len(p.evs) {
		p.landed = "no " + what + " after this point"
		return nil
	}
	cmd := m.deliver(j + 1)
	m.land(p.evs[j])
	return cmd
}

// land says what a step or jump stopped at and scrolls it into view.
func (m *Model) land(ev ReplayEvent) {
	p := m.play
	name := ""
	if pane := m.rt.children[ev.Event.From().AgentID]; pane != nil {
		name = pane.Name()
	}
	p.landed = eventLabel(ev.Event, name)
	var b transcript.Block
	switch e := ev.Event.(type) {
	case agent.ApprovalAsked:
		if a := m.rt.asks[e.ID]; a != nil {
			b = a.block
		}
	case agent.ToolStarted:
		if t, ok := m.rt.tools[e.CallID]; ok && !e.IsChild() {
			b = t
		}
	case agent.ToolFinished:
		if t, ok := m.rt.tools[e.CallID]; ok && !e.IsChild() {
			b = t
		}
	}
	if b == nil && ev.Event.From().IsChild() {
		if pane := m.rt.children[ev.Event.From().AgentID]; pane != nil {
			b = pane
		}
	}
	if b != nil && m.tr.IndexOf(b) >= 0 {
		m.layout()
		m.tr.ScrollTo(b)
		p.scrolled = true
	}
}

// isEdit says whether e changed a file: a write's result, a child's bash
// that changed files, a merge applied.
func isEdit(e agent.Event) bool {
	switch e := e.(type) {
	case agent.ToolFinished:
		fc, ok := e.Result.Display.(*tool.FileChange)
		return ok && fc != nil && !e.Result.IsError
	case agent.ChildFiles:
		return len(e.Files) > 0
	case agent.WorktreeResult:
		return e.Status == agent.WorktreeApplied
	}
	return false
}

// isError says whether e went wrong: a run's error, a failed call, a
// child that failed.
func isError(e agent.Event) bool {
	switch e := e.(type) {
	case agent.ErrorEvent:
		return true
	case agent.ToolFinished:
		return e.Result.IsError
	case agent.ChildFinished:
		return e.Reason == agent.StopError
	}
	return false
}

func isAsk(e agent.Event) bool {
	_, ok := e.(agent.ApprovalAsked)
	return ok
}

// eventLabel names an event in a few words for the replay bar; name is
// its child's ("" for the main agent's).
func eventLabel(e agent.Event, name string) string {
	who := ""
	if src := e.From(); src.IsChild() {
		who = " (" + cells.OneLine(firstNonEmpty(name, src.Name, src.AgentID)) + ")"
	}
	var s string
	switch e := e.(type) {
	case agent.ApprovalAsked:
		kind := "approval"
		if e.Question {
			kind = "question"
		}
		s = kind + ": " + e.Tool + " " + e.Summary
	case agent.ApprovalAnswered:
		s = "answer: " + e.Outcome + " " + e.Detail
	case agent.ToolFinished:
		s = e.Name + " " + e.KeyArg
		if fc, ok := e.Result.Display.(*tool.FileChange); ok && fc != nil && !e.Result.IsError {
			s = "edit " + fc.Path
		} else if e.Result.IsError {
			s = "failed " + s
		}
	case agent.ToolStarted:
		s = e.Name + " " + e.KeyArg
	case agent.ErrorEvent:
		s = "error: " + e.Message
	case agent.ChildStarted:
		s = "started"
	case agent.ChildFinished:
		s = "finished: " + e.Reason
	case agent.ChildFiles:
		s = "changed " + strconv.Itoa(len(e.Files)) + " files"
	case agent.UserMessage:
		s = "your message"
	default:
		s = strings.ReplaceAll(e.Kind(), "_", " ")
	}
	return cells.OneLine(s) + who
}

// replayBar is the two lines that stand in for the input: a rule and
// where the playback stands, or that line above the view bar of the
// screen shown.
func (m *Model) replayBar() string {
	line := cells.Fit(m.replayLine(), m.width)
	if m.viewBarShown() {
		return line + "\n" + m.keys.ViewBar(m.styles, m.scr.Title(), m.scr.ShortHelp(), m.width)
	}
	return m.styles.Input.Border.Render(strings.Repeat("─", max(m.width, 0))) + "\n" + line
}

// replayLine says where the playback stands: playing or paused, the
// speed, the session's time, the event, idle time skipped, and what a
// step or jump stopped at.
func (m *Model) replayLine() string {
	p, st := m.play, m.styles
	state := "▶ playing"
	switch {
	case p.ended():
		state = "■ end of the session"
	case p.paused:
		state = "‖ paused"
	case p.cutting > 0:
		state = "▶ skipping " + cells.Elapsed(p.cutting) + " idle"
	}
	parts := []string{st.Status.Mode.Render("replay") + " " + st.Help.Key.Render(state), speedText(p.speed)}
	if n := len(p.evs); n > 0 {
		first, last := p.evs[0].At, p.evs[n-1].At
		parts = append(parts, cells.Elapsed(p.now().Sub(first))+" / "+cells.Elapsed(last.Sub(first)),
			fmt.Sprintf("event %d/%d", p.pos, n))
	}
	if p.skipped > 0 {
		parts = append(parts, cells.Elapsed(p.skipped)+" idle skipped")
	}
	if p.landed != "" {
		parts = append(parts, "at "+p.landed)
	}
	return strings.Join(parts, st.Help.Sep.Render(" · "))
}

// speedText is "10×", "0.5×".
func speedText(s float64) string {
	return strconv.FormatFloat(s, 'f', -1, 64) + "×"
}
