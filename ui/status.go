package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/theme"
)

// statusBar is the one-line bar under the input: model, workspace,
// permission mode, session tokens, and a spinner with the elapsed time while
// a turn runs. It only draws; the root model sets its fields.
type statusBar struct {
	styles    *theme.Styles
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
	// retryReason and retryUntil describe a failed request of the main
	// agent waiting to be retried; the bar counts down to retryUntil.
	retryReason string
	retryUntil  time.Time
	// hint is a passing word to the user ("press ctrl+c again to quit"),
	// shown first on the right.
	hint string
}

// SetModel names the main agent's model.
func (s *statusBar) SetModel(model string) { s.model = model }

// SetMode names the permission mode.
func (s *statusBar) SetMode(mode string) { s.mode = mode }

// SetRunning shows a turn running since started (spinner and elapsed
// time); any earlier note is dropped.
func (s *statusBar) SetRunning(started time.Time) {
	s.running, s.started, s.note = true, started, ""
}

// SetIdle ends the running state; with clearNote the note goes too.
func (s *statusBar) SetIdle(clearNote bool) {
	s.running = false
	if clearNote {
		s.note = ""
	}
}

// SetNote shows a note after the spinner ("cancelling…").
func (s *statusBar) SetNote(note string) { s.note = note }

// SetRetry counts down to until, saying reason; SetRetry("", zero) clears.
func (s *statusBar) SetRetry(reason string, until time.Time) {
	s.retryReason, s.retryUntil = reason, until
}

// SetHint shows a passing word to the user; "" removes it.
func (s *statusBar) SetHint(hint string) { s.hint = hint }

// SetFrame gives the bar the frame's clock, spinner frame and the
// session's token usage.
func (s *statusBar) SetFrame(now time.Time, frame int, usage agent.Usage) {
	s.now, s.frame, s.usage = now, frame, usage
}

// retryText is "rate limited, retrying in 12 s", counting down with now;
// "" when no retry waits.
func (s statusBar) retryText() string {
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

func newStatusBar(styles *theme.Styles, workspace, mode string) statusBar {
	return statusBar{styles: styles, workspace: shortenHome(workspace), mode: mode}
}

// shortenHome writes the home directory as ~ so the workspace fits the bar.
func shortenHome(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || path == "" {
		return path
	}
	if path == home {
		return "~"
	}
	if rel, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rel
	}
	return path
}

// SetSize sets the bar's width.
func (s *statusBar) SetSize(width int) { s.width = width }

// memoKey is what View's output depends on.
func (s statusBar) memoKey() statusKey {
	k := statusKey{
		bar:   s.model + "\x00" + s.workspace + "\x00" + s.mode + "\x00" + s.note + "\x00" + s.retryText() + "\x00" + s.hint,
		width: s.width, in: s.usage.InputTokens, out: s.usage.OutputTokens, running: s.running,
	}
	if s.running {
		k.glyph = s.frame
		k.elapsed = int64(s.now.Sub(s.started) / (100 * time.Millisecond))
	}
	return k
}

// View draws the bar, exactly width cells wide. Parts are dropped from the
// middle (workspace first) when the terminal is narrow, so the running
// state and the tokens stay visible.
func (s statusBar) View() string {
	st := s.styles.Status
	sep := st.Bar.Render(" · ")
	var right []string
	if s.hint != "" {
		right = append(right, s.styles.Notice.Warning.Render(s.hint))
	}
	if s.running {
		el := s.now.Sub(s.started).Truncate(100 * time.Millisecond)
		right = append(right, st.Spinner.Render(spinnerGlyph(s.frame)+" "+elapsedText(el)))
	}
	if s.note != "" {
		right = append(right, st.Spinner.Render(s.note))
	}
	if r := s.retryText(); r != "" {
		right = append(right, st.Spinner.Render(r))
	}
	tokens := st.Key.Render("↑") + st.Value.Render(agent.FormatTokens(s.usage.InputTokens)) +
		st.Key.Render(" ↓") + st.Value.Render(agent.FormatTokens(s.usage.OutputTokens))

	parts := []string{st.Value.Render(s.model), st.Key.Render(s.workspace), st.Mode.Render(s.mode), tokens}
	parts = append(parts, right...)
	avail := max(0, s.width-2)
	line := strings.Join(nonEmpty(parts), sep)
	// Drop the workspace, then the model, before cutting anything.
	for _, drop := range []int{1, 0} {
		if ansi.StringWidth(line) <= avail {
			break
		}
		parts[drop] = ""
		line = strings.Join(nonEmpty(parts), sep)
	}
	line = ansi.Truncate(line, avail, "…")
	pad := max(0, s.width-1-ansi.StringWidth(line))
	return st.Bar.Render(" ") + line + st.Bar.Render(strings.Repeat(" ", pad))
}

func nonEmpty(parts []string) []string {
	out := parts[:0:0]
	for _, p := range parts {
		if ansi.Strip(p) != "" {
			out = append(out, p)
		}
	}
	return out
}
