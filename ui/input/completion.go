package input

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
	"covey/ui/cells"
	"covey/ui/transcript"
)

// maxCompletions is how many matches the popup shows at once.
const maxCompletions = 6

// Entry is one thing the popup completes: a command after "/", an agent
// type or a path after "@".
type Entry struct {
	// Name is what is completed, without the "/" or "@"; a folder's ends
	// in "/".
	Name string
	// Args is the usage of the argument ("NAME", "[FOCUS]"); "" when it
	// takes none.
	Args string
	// Help says what the entry is.
	Help string
	// Path marks a file or folder of the workspace.
	Path bool
}

// Completion is the popup of commands matching what is typed after "/",
// and, for a word starting with "@", of agent types (when the word starts
// the input) and then of the workspace's files and folders.
type Completion struct {
	cmds    []Entry
	agents  []Entry   // agent types, as entries whose name is the type's
	files   pathIndex // the workspace's paths, for "@path"
	lead    byte      // '/' or '@': what the matches complete
	start   int       // where the completed word starts in the input
	keys    Keys
	styles  *theme.Styles
	width   int
	matches []Entry
	sel     int
}

// NewCompletion makes a closed popup over the commands cmds.
func NewCompletion(cmds []Entry, keys Keys, styles *theme.Styles) Completion {
	return Completion{cmds: cmds, keys: keys, styles: styles}
}

// Filter recomputes the matches for the input's text. The popup is open
// while the text is a "/" followed by part of a command name, or while
// its last word is an "@" followed by part of an agent type or a path.
func (c *Completion) Filter(value string) {
	prev := ""
	if c.sel < len(c.matches) {
		prev = c.matches[c.sel].Name
	}
	c.matches = c.matches[:0]
	c.sel, c.start, c.lead = 0, 0, 0
	start, word, at := atWord(value)
	switch {
	case value != "" && value[0] == '/' && !strings.ContainsAny(value, " \n"):
		c.lead = '/'
		typed := strings.ToLower(value[1:])
		for _, cmd := range c.cmds {
			if strings.HasPrefix(strings.ToLower(cmd.Name), typed) {
				c.matches = append(c.matches, cmd)
			}
		}
	case at:
		c.lead, c.start = '@', start
		typed := strings.ToLower(word)
		if start == 0 && !strings.Contains(typed, "/") {
			for _, a := range c.agents {
				if strings.HasPrefix(strings.ToLower(a.Name), typed) {
					c.matches = append(c.matches, a)
				}
			}
		}
		for _, p := range c.files.Match(typed) {
			help := ""
			if strings.HasSuffix(p, "/") {
				help = "folder"
			}
			c.matches = append(c.matches, Entry{Name: p, Help: help, Path: true})
		}
	}
	for i, m := range c.matches {
		if m.Name == prev {
			c.sel = i
		}
	}
}

// WantsFiles reports whether an "@" word is being completed with no
// fresh listing of the workspace's files.
func (c *Completion) WantsFiles(now time.Time) bool {
	return c.lead == '@' && c.files.stale(now)
}

// ListingFiles marks a listing of the workspace's files on its way, so
// the next keys do not ask again.
func (c *Completion) ListingFiles() { c.files.loading = true }

// SetFiles takes a listing of the workspace's files made at now; a
// failed one (err) keeps the old listing, or none, until it is stale.
func (c *Completion) SetFiles(files []string, err error, now time.Time) {
	if err != nil {
		c.files.loading = false
		c.files.at = now
		return
	}
	c.files = newPathIndex(files, now)
}

// SetStyles draws the popup with other styles.
func (c *Completion) SetStyles(styles *theme.Styles) { c.styles = styles }

// SetAgents sets the agent types an "@" completes.
func (c *Completion) SetAgents(agents []Entry) { c.agents = agents }

// Complete is the input's text with the selected entry in place of the
// word being completed, and whether that entry was a path.
func (c Completion) Complete(value string) (string, Entry) {
	sel, _ := c.Selected()
	full := value[:min(c.start, len(value))] + string(c.lead) + sel.Name
	if c.lead == '/' {
		full = "/" + sel.Name
	}
	// A command or type that takes an argument, and a file, are followed
	// by a space; a folder is not, so its completion goes on inside it.
	if sel.Args != "" || (sel.Path && !strings.HasSuffix(sel.Name, "/")) {
		full += " "
	}
	return full, sel
}

// CompletesAt reports whether the popup completes an "@" word (an agent
// type or a path).
func (c Completion) CompletesAt() bool { return c.lead == '@' }

// Matches are the entries the popup holds, in its order.
func (c Completion) Matches() []Entry { return c.matches }

// Open reports whether the popup is shown.
func (c Completion) Open() bool { return len(c.matches) > 0 }

// Selected is the highlighted command.
func (c Completion) Selected() (Entry, bool) {
	if c.sel < len(c.matches) {
		return c.matches[c.sel], true
	}
	return Entry{}, false
}

// Close hides the popup until the next Filter.
func (c *Completion) Close() { c.matches = c.matches[:0] }

// Update moves the selection.
func (c Completion) Update(msg tea.Msg) (Completion, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || len(c.matches) == 0 {
		return c, nil
	}
	n := len(c.matches)
	switch {
	case key.Matches(k, c.keys.CompletePrev):
		c.sel = (c.sel - 1 + n) % n
	case key.Matches(k, c.keys.CompleteNext):
		c.sel = (c.sel + 1) % n
	}
	return c, nil
}

// SetSize sets the popup's width.
func (c *Completion) SetSize(width int) { c.width = width }

// Height is the number of lines View draws.
func (c Completion) Height() int { return min(len(c.matches), maxCompletions) }

// View draws the visible matches, keeping the selection in the window.
func (c Completion) View() string {
	n := c.Height()
	if n == 0 {
		return ""
	}
	first := min(max(0, c.sel-n+1), len(c.matches)-n)
	label := func(cmd Entry) string {
		name := string(c.lead) + cmd.Name
		if cmd.Args != "" {
			name += " " + cmd.Args
		}
		return name
	}
	// The descriptions start in one column, after the widest name (of
	// all matches, so it stays put as the selection scrolls), up to a
	// share of the width; a longer name is cut, a path at its start so
	// its file name shows.
	widest := 0
	for _, cmd := range c.matches {
		widest = max(widest, cells.Width(label(cmd))+1)
	}
	room := max(c.width-2, 1) // less the selection marker
	col := max(min(widest, room*transcript.NameShare/5), 1)
	lines := make([]string, 0, n)
	for i := first; i < first+n; i++ {
		cmd := c.matches[i]
		marker, st := "  ", c.styles.Completion.Item
		if i == c.sel {
			marker, st = "› ", c.styles.Completion.Selected
		}
		// A path keeps its "@" when cut.
		fit := func(w int) string {
			if cmd.Path {
				return string(c.lead) + cutName(cmd.Name, w-1, true)
			}
			return cutName(label(cmd), w, false)
		}
		var line string
		if cmd.Help == "" {
			line = st.Render(marker + fit(room))
		} else {
			line = st.Render(marker+cells.Pad(fit(col-1), col)) + c.styles.Completion.Desc.Render(cmd.Help)
		}
		lines = append(lines, ansi.Truncate(line, max(c.width, 0), "…"))
	}
	return strings.Join(lines, "\n")
}

// cutName fits name into w cells: a path loses its start ("…ts/helper.go"),
// anything else its end.
func cutName(name string, w int, path bool) string {
	if cells.Width(name) <= w {
		return name
	}
	if path {
		return "…" + ansi.TruncateLeft(name, cells.Width(name)-(w-1), "")
	}
	return ansi.Truncate(name, w, "…")
}
