package keys

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
	"covey/ui/cells"
)

// This file draws the help: the one-line hint under the status bar and
// the full help `?` opens. Both list the focused context's own keys first.
// The full help lists every enabled binding of the KeyMap, wrapped to the
// width and paged when it is taller than the screen allows, so a binding
// added to the KeyMap shows there without any change here.

// helpSep separates two keys on a help line.
const helpSep = " • "

// HelpGroups are the enabled bindings in the order the help shows them:
// lead's groups (the focused screen's), FullHelp's groups (the focused
// context's first), then any enabled binding of the KeyMap none of them
// names, so none is ever left out.
func (k KeyMap) HelpGroups(lead [][]key.Binding) [][]key.Binding {
	seen := map[string]bool{}
	id := func(b key.Binding) string { return b.Help().Key + "\x00" + b.Help().Desc }
	var groups [][]key.Binding
	for _, col := range append(lead, k.FullHelp()...) {
		var g []key.Binding
		for _, b := range col {
			if b.Enabled() && !seen[id(b)] {
				seen[id(b)] = true
				g = append(g, b)
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	var rest []key.Binding
	for _, b := range k.All() {
		if b.Enabled() && b.Help().Key != "" && !seen[id(b)] {
			seen[id(b)] = true
			rest = append(rest, b)
		}
	}
	if len(rest) > 0 {
		groups = append(groups, rest)
	}
	return groups
}

// All is every binding of the KeyMap, in the order of its fields.
func (k KeyMap) All() []key.Binding {
	v := reflect.ValueOf(k)
	var out []key.Binding
	for i := range v.NumField() {
		if b, ok := v.Field(i).Interface().(key.Binding); ok {
			out = append(out, b)
		}
	}
	return out
}

// helpItem renders one binding: its key, then what it does.
func helpItem(st *theme.Styles, b key.Binding) string {
	return st.Help.Key.Render(b.Help().Key) + " " + st.Help.Desc.Render(b.Help().Desc)
}

// FullHelpLines is every enabled key, each group starting a line, wrapped
// to width; lead is the focused screen's groups.
func (k KeyMap) FullHelpLines(st *theme.Styles, width int, lead [][]key.Binding) []string {
	var lines []string
	for _, g := range k.HelpGroups(lead) {
		items := make([]string, len(g))
		for i, b := range g {
			items[i] = helpItem(st, b)
		}
		lines = append(lines, cells.WrapItems(items, st.Help.Sep.Render(helpSep), width)...)
	}
	return lines
}

// HelpPages cuts lines into pages of at most rows lines; each page but a
// lone one ends with a line saying how to turn it.
func (k KeyMap) HelpPages(st *theme.Styles, lines []string, rows int) [][]string {
	if len(lines) <= rows || rows < 2 {
		return [][]string{lines}
	}
	per := rows - 1
	var pages [][]string
	for i := 0; i < len(lines); i += per {
		pages = append(pages, lines[i:min(i+per, len(lines))])
	}
	for i := range pages {
		next := "next page"
		if i == len(pages)-1 {
			next = "close"
		}
		pages[i] = append(pages[i], st.Help.Sep.Render("page "+strconv.Itoa(i+1)+"/"+strconv.Itoa(len(pages))+" · ")+
			st.Help.Key.Render(Name(k.Help))+" "+st.Help.Desc.Render(next))
	}
	return pages
}

// ShortHelpLine is the one-line hint: the enabled short-help keys in
// order (the focused context's first) as far as they fit in width; when
// some are left out, and `?` shows the rest, it ends with "? more". Keys
// the view bar shows already (skip) are left out.
func (k KeyMap) ShortHelpLine(st *theme.Styles, width int, skip []key.Binding) string {
	var items []string
	for _, b := range k.ShortHelp() {
		if b.Enabled() && b.Help().Key != Name(k.Help) && !containsBinding(skip, b) {
			items = append(items, helpItem(st, b))
		}
	}
	return fitItems(st, items, k, width)
}

// containsBinding reports whether bs holds a binding shown as b.
func containsBinding(bs []key.Binding, b key.Binding) bool {
	for _, x := range bs {
		if x.Help() == b.Help() {
			return true
		}
	}
	return false
}

// fitItems joins items on one line of width cells; when they do not all
// fit it keeps the first ones and ends with "? more" (or "…" when ? is
// not a key right now).
func fitItems(st *theme.Styles, items []string, k KeyMap, width int) string {
	more := ""
	if k.Help.Enabled() {
		more = st.Help.Key.Render(Name(k.Help)) + " " + st.Help.Desc.Render("more")
	}
	sep := st.Help.Sep.Render(helpSep)
	line := strings.Join(items, sep)
	if more != "" {
		if line != "" {
			line += sep
		}
		line += more
	}
	if ansi.StringWidth(line) <= width {
		return line
	}
	tail := more
	if tail == "" {
		tail = st.Help.Sep.Render("…")
	}
	room := width - ansi.StringWidth(tail)
	var b strings.Builder
	used := 0
	for _, it := range items {
		add := ansi.StringWidth(it)
		if used > 0 {
			add += ansi.StringWidth(helpSep)
		}
		if used+add+ansi.StringWidth(helpSep) > room {
			break
		}
		if used > 0 {
			b.WriteString(sep)
		}
		b.WriteString(it)
		used += add
	}
	if used > 0 {
		b.WriteString(sep)
	}
	b.WriteString(tail)
	return cells.Fit(b.String(), width)
}

// Enabled are the enabled ones of bs.
func Enabled(bs []key.Binding) []key.Binding {
	var out []key.Binding
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

// ViewBar is the line drawn where the input stands while a screen takes
// the keys: its title and its enabled keys (bs, its short help), so a
// view whose letters are keys does not look like a prompt.
func (k KeyMap) ViewBar(st *theme.Styles, title string, bs []key.Binding, width int) string {
	lead := st.Help.Key.Render("▸ "+title) + st.Help.Sep.Render(": ")
	room := max(width-ansi.StringWidth(ansi.Strip(lead)), 1)
	items := viewBarItems(st, Enabled(bs), false)
	if whole := func(items []string) bool { return ansi.StringWidth(fitItems(st, items, k, 1<<20)) <= room }; !whole(items) {
		// "esc back" alone, where that makes room for every key ("m
		// message to resume" of an ended child at 80 columns); where
		// keys are cut anyway, esc keeps saying where it goes.
		if short := viewBarItems(st, Enabled(bs), true); whole(short) {
			items = short
		}
	}
	return cells.Fit(lead+fitItems(st, items, k, room), width)
}

// viewBarItems are the bar's keys; short drops where "back" goes back to.
func viewBarItems(st *theme.Styles, bs []key.Binding, short bool) []string {
	items := make([]string, 0, len(bs))
	for _, b := range bs {
		if desc := b.Help().Desc; short && strings.HasPrefix(desc, "back to ") {
			b.SetHelp(b.Help().Key, "back")
		}
		items = append(items, helpItem(st, b))
	}
	return items
}
