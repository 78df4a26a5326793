// Package status draws the one-line status bar under the input. It only
// draws: the root model sets its fields through its setters.
package status

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/transcript"
)

// Bar is the one-line bar under the input: model, workspace, permission
// mode, the context gauge, and a spinner with the elapsed time while a turn
// runs.
type Bar struct {
	styles    *theme.Styles
	looks     *statusLooks // styles as escape codes
	width     int
	model     string
	workspace string
	mode      string
	usage     agent.Usage
	running   bool
	started   time.Time
	now       time.Time
	frame     int
	note      string // a hint, shown after the spinner
	// waitingOn says the turn waits on a paused child ("waiting on
	// paused scout"), shown after the spinner.
	waitingOn string
	// retryReason and retryUntil describe a failed request of the main
	// agent waiting to be retried; the bar counts down to retryUntil.
	retryReason string
	retryUntil  time.Time
	// hint is a passing word to the user ("press ctrl+c again to quit"),
	// shown first on the right.
	hint string
	// mcp sums up the MCP servers ("MCP 2/3, 1 failed"); "" without any.
	mcp string
	// interrupt says how to stop a running turn ("esc interrupt"), shown
	// beside the spinner until a note ("cancelling…") takes its place.
	interrupt string
	// diag is the language servers' word on the workspace ("2 errors");
	// "" when they report none.
	diag string
	// ctxTokens and ctxWindow are the fill of the main agent's next
	// request and its model's window (0: unknown).
	ctxTokens, ctxWindow int
}

// Running says whether a turn runs (SetRunning, not yet SetIdle).
func (s Bar) Running() bool { return s.running }

// Mode is the permission mode shown.
func (s Bar) Mode() string { return s.mode }

// Model is the main agent's model shown.
func (s Bar) Model() string { return s.model }

// SetContext sets the gauge: the tokens the next request will carry and
// the window they must fit (0: unknown).
func (s *Bar) SetContext(tokens, window int) { s.ctxTokens, s.ctxWindow = tokens, window }

// SetModel names the main agent's model.
func (s *Bar) SetModel(model string) { s.model = model }

// SetMode names the permission mode.
func (s *Bar) SetMode(mode string) { s.mode = mode }

// SetRunning shows a turn running since started (spinner and elapsed
// time); any earlier note is dropped.
func (s *Bar) SetRunning(started time.Time) {
	s.running, s.started, s.note = true, started, ""
}

// SetIdle ends the running state; with clearNote the note goes too.
func (s *Bar) SetIdle(clearNote bool) {
	s.running = false
	if clearNote {
		s.note = ""
	}
}

// SetNote shows a note after the spinner ("cancelling…").
func (s *Bar) SetNote(note string) { s.note = note }

// SetWaitingOn says the turn waits on a paused child; "" when it does not.
func (s *Bar) SetWaitingOn(text string) { s.waitingOn = text }

// SetRetry counts down to until, saying reason; SetRetry("", zero) clears.
func (s *Bar) SetRetry(reason string, until time.Time) {
	s.retryReason, s.retryUntil = reason, until
}

// SetHint shows a passing word to the user; "" removes it.
func (s *Bar) SetHint(hint string) { s.hint = hint }

// SetInterrupt names the key that interrupts a running turn, shown beside
// the spinner at every width ("esc interrupt"); "" shows none.
func (s *Bar) SetInterrupt(text string) { s.interrupt = text }

// SetDiagnostics sets the errors and warnings the language servers
// report in the workspace; the bar shows them when there are any.
func (s *Bar) SetDiagnostics(errs, warns int) {
	switch {
	case errs == 1:
		s.diag = "1 error"
	case errs > 1:
		s.diag = fmt.Sprintf("%d errors", errs)
	default:
		s.diag = ""
	}
	if warns > 0 {
		s.diag = strings.TrimPrefix(s.diag+fmt.Sprintf(", %d warning", warns)+map[bool]string{true: "s"}[warns > 1], ", ")
	}
}

// SetMCP sets the MCP servers' summary ("mcp 2/3"; "" for none).
func (s *Bar) SetMCP(summary string) { s.mcp = summary }

// SetFrame gives the bar the frame's clock, spinner frame and the
// session's token usage.
func (s *Bar) SetFrame(now time.Time, frame int, usage agent.Usage) {
	s.now, s.frame, s.usage = now, frame, usage
}

// retryText is "rate limited, retrying in 12 s", counting down with now;
// "" when no retry waits.
func (s Bar) retryText() string {
	if s.retryReason == "" {
		return ""
	}
	left := s.retryUntil.Sub(s.now)
	if left <= 0 {
		return s.retryReason + ", retrying now…"
	}
	secs := int((left + time.Second - 1) / time.Second) // round up: never "in 0 s"
	return fmt.Sprintf("%s, retrying in %d s", s.retryReason, secs)
}

// SetStyles draws the bar with other styles (the terminal's background
// answered after the first frame).
func (s *Bar) SetStyles(styles *theme.Styles) {
	s.styles, s.looks = styles, newStatusLooks(styles)
}

// Styles are the styles the bar draws with.
func (s Bar) Styles() *theme.Styles { return s.styles }

// New makes a bar for the workspace and permission mode.
func New(styles *theme.Styles, workspace, mode string) Bar {
	return Bar{styles: styles, looks: newStatusLooks(styles), workspace: cells.ShortenHome(workspace), mode: mode}
}

// SetSize sets the bar's width.
func (s *Bar) SetSize(width int) { s.width = width }

// Key is everything the bar's look depends on: the root keeps the last
// View for it, as the bar is drawn every frame of a stream.
type Key struct {
	bar     string // model, workspace, mode, note
	width   int
	in, out int // the gauge's tokens and window
	running bool
	glyph   int
	elapsed int64
}

// Key is what View's output depends on.
func (s Bar) Key() Key {
	k := Key{
		bar:   s.model + "\x00" + s.workspace + "\x00" + s.mode + "\x00" + s.note + "\x00" + s.retryText() + "\x00" + s.hint + "\x00" + s.mcp + "\x00" + s.interrupt + "\x00" + s.diag,
		width: s.width, in: s.ctxTokens, out: s.ctxWindow, running: s.running,
	}
	if s.running {
		k.glyph = s.frame
		k.elapsed = int64(s.now.Sub(s.started) / (100 * time.Millisecond))
	}
	return k
}

// View draws the bar, exactly width cells wide. Parts are dropped from the
// middle (workspace first) when the terminal is narrow, so the running
// state and the tokens stay visible. The bar changes with every token
// count while an answer streams, so it is drawn from cached escape codes
// and measured on its plain text.
func (s Bar) View() string {
	lk := s.looks
	if lk == nil {
		lk = newStatusLooks(s.styles)
	}
	type part struct{ plain, styled string }
	styled := func(q cells.Style, text string) part { return part{text, q.Render(text)} }
	var right []part
	if s.hint != "" {
		right = append(right, styled(lk.hint, s.hint))
	}
	if s.running {
		el := s.now.Sub(s.started).Truncate(100 * time.Millisecond)
		right = append(right, styled(lk.spinner, cells.Spinner(s.frame)+" "+cells.Elapsed(el)))
		if s.interrupt != "" && s.note == "" {
			right = append(right, styled(lk.key, s.interrupt))
		}
	}
	if s.running && s.waitingOn != "" {
		right = append(right, styled(lk.spinner, s.waitingOn))
	}
	if s.note != "" {
		right = append(right, styled(lk.spinner, s.note))
	}
	if r := s.retryText(); r != "" {
		right = append(right, styled(lk.spinner, r))
	}
	// The gauge replaces the session's cumulative tokens (/cost has them):
	// what matters while working is how full the next request is.
	var tokens part
	if g, warn := transcript.ContextGauge(s.ctxTokens, s.ctxWindow); g != "" {
		tokens = part{g, lk.key.Render("ctx ") + lk.value.Render(strings.TrimPrefix(g, "ctx "))}
		if warn {
			tokens.styled = lk.hint.Render(g)
		}
	}

	mode := styled(lk.mode, s.mode)
	if s.mode == bypassMode {
		mode = styled(lk.hint, s.mode) // asks nothing: not in default's colour
	}
	parts := []part{styled(lk.value, s.model), styled(lk.key, s.workspace), mode, tokens, styled(lk.key, s.mcp), styled(lk.hint, s.diag)}
	parts = append(parts, right...)
	avail := max(0, s.width-2)
	join := func() (string, int) {
		var b strings.Builder
		w, n := 0, 0
		for _, p := range parts {
			if p.plain == "" {
				continue
			}
			if n > 0 {
				b.WriteString(lk.sep)
				w += 3
			}
			b.WriteString(p.styled)
			w += cells.Width(p.plain)
			n++
		}
		return b.String(), w
	}
	line, w := join()
	// Drop the workspace, then the model, the MCP summary, the mode and the
	// gauge before cutting anything: what runs, and how to stop it, stays.
	for _, drop := range []int{1, 0, 4, 2, 3} {
		if w <= avail {
			break
		}
		parts[drop] = part{}
		line, w = join()
	}
	if w > avail {
		line = ansi.Truncate(line, avail, "…")
		w = ansi.StringWidth(line)
	}
	pad := max(0, s.width-1-w)
	return lk.bar.Render(" ") + line + lk.bar.Render(strings.Repeat(" ", pad))
}

// bypassMode is the permission mode that asks nothing, drawn as a warning.
const bypassMode = "bypassPermissions"

// statusLooks are the bar's styles as escape codes, made once.
type statusLooks struct {
	bar, key, value, mode, spinner, hint cells.Style
	sep                                  string
}

func newStatusLooks(styles *theme.Styles) *statusLooks {
	if styles == nil {
		return &statusLooks{sep: " · "}
	}
	st := styles.Status
	return &statusLooks{
		bar: cells.NewStyle(st.Bar), key: cells.NewStyle(st.Key), value: cells.NewStyle(st.Value),
		mode: cells.NewStyle(st.Mode), spinner: cells.NewStyle(st.Spinner), hint: cells.NewStyle(st.Warning),
		sep: st.Bar.Render(" · "),
	}
}
