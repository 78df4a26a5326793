// Package termbg keeps covey's first frame from waiting on the terminal.
//
// With --theme auto, covey must know whether the terminal's background is
// dark. Asking (OSC 11) and waiting for the answer held the first frame up
// by a round trip, and by termenv's 5 s timeout on a terminal that never
// answers (a serial console, `script`, some multiplexers, a slow link).
// Instead covey paints at once with the answer it remembered last time
// (dark if none), asks after the first frame, and takes the answer out of
// the input (Input) when it comes, to remember it; the UI switches its
// palette live when the answer differs from the one it drew with.
//
// Its init runs before Bubble Tea's, whose own init asks the terminal
// (lipgloss.HasDarkBackground) and would wait: Go initializes, among the
// packages ready, the one first in import-path order, and "covey/..."
// comes before "github.com/...". It imports nothing Bubble Tea does not.
package termbg

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

func init() {
	// An explicit answer: lipgloss never asks the terminal, so neither
	// Bubble Tea's init nor the theme's choice waits on it.
	dark, ok := Remembered()
	lipgloss.SetHasDarkBackground(dark || !ok)
}

// Query asks the terminal for its background colour (OSC 11). A terminal
// that knows answers "\x1b]11;rgb:RRRR/GGGG/BBBB" and ST or BEL; Input
// takes the answer out of what the program reads.
const Query = "\x1b]11;?\x1b\\"

// stateFile is where the last answer is kept: the state folder
// ($XDG_STATE_HOME, else ~/.local/state), covey/background.
func stateFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "covey", "background")
}

// Remembered is the last answer kept (dark or not); ok is false when there
// is none.
func Remembered() (dark, ok bool) {
	path := stateFile()
	if path == "" {
		return false, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false, false
	}
	switch strings.TrimSpace(string(data)) {
	case "dark":
		return true, true
	case "light":
		return false, true
	}
	return false, false
}

// Remember keeps an answer for the next start.
func Remember(dark bool) error {
	path := stateFile()
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	word := "light\n"
	if dark {
		word = "dark\n"
	}
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, []byte(word), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ParseAnswer reads an OSC 11 answer's colour ("rgb:1e1e/1e1e/1e1e", each
// part 1 to 4 hex digits) and says whether it is dark (HSL lightness under
// one half, as termenv judges); ok is false for anything else.
func ParseAnswer(colour string) (dark, ok bool) {
	rest, found := strings.CutPrefix(colour, "rgb:")
	if !found {
		return false, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return false, false
	}
	var c [3]float64
	for i, p := range parts {
		if len(p) < 1 || len(p) > 4 {
			return false, false
		}
		n, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return false, false
		}
		c[i] = float64(n) / float64(uint64(1)<<(4*len(p))-1)
	}
	hi, lo := max(c[0], c[1], c[2]), min(c[0], c[1], c[2])
	return (hi+lo)/2 < 0.5, true
}
