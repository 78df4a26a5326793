package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
	"covey/ui/cells"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// command is one slash command. Adding a command (/undo, /retry, /resume)
// is one more entry in defaultCommands.
type command struct {
	name string // without the slash
	args string // usage of the argument, "" when it takes none
	help string
	run  func(m *Model, arg string) tea.Cmd
	// path marks an "@" completion's file or folder (a folder ends in
	// "/").
	path bool
}

// defaultCommands is covey's command registry, in the order /help lists
// it; the keys it names come from keys.
func defaultCommands(km keys.KeyMap) []command {
	return []command{
		{name: "help", help: "show keys and commands", run: (*Model).cmdHelp},
		{name: "clear", help: "start a fresh conversation", run: (*Model).cmdClear},
		{name: "agents", help: "list agent definitions and where they come from", run: (*Model).cmdAgents},
		{name: "model", args: "NAME", help: "show or set the model", run: (*Model).cmdModel},
		{name: "cost", help: "tokens and cost per subagent and in total", run: (*Model).cmdCost},
		{name: "context", help: "what fills the context window: prompt, tools, memory, messages, tool results", run: (*Model).cmdContext},
		{name: "crew", help: "overview of every subagent (" + keys.Name(km.Crew) + ")", run: (*Model).cmdCrew},
		{name: "diff", args: "NAME", help: "the files one subagent changed, with diffs", run: (*Model).cmdDiff},
		{name: "worktrees", args: "[prune|apply BRANCH]", help: "worktrees of isolated subagents: list, prune those left behind, or apply one", run: (*Model).cmdWorktrees},
		{name: "mcp", help: "MCP servers: state, tools, errors; reconnect", run: (*Model).cmdMCP},
		{name: "hooks", args: "[trust]", help: "the hooks in force and where they come from; trust the project's", run: (*Model).cmdHooks},
		{name: "skills", help: "the skills the model may load", run: (*Model).cmdSkills},
		{name: "memory", help: "memory files in the context (AGENTS.md, CLAUDE.md) with their tokens", run: (*Model).cmdMemory},
		{name: "init", help: "explore the repository with a crew and write AGENTS.md", run: (*Model).cmdInit},
		{name: "undo", help: "restore the files the last turn changed", run: (*Model).cmdUndo},
		{name: "retry", help: "send the last message again", run: (*Model).cmdRetry},
		{name: "compact", args: "[FOCUS]", help: "summarise the conversation to free the context window; FOCUS says what to keep", run: (*Model).cmdCompact},
		{name: "quit", help: "leave covey", run: (*Model).cmdQuit},
	}
}

// parseCommand splits "/name arg..." into its parts; ok is false when s is
// not a command at all.
func parseCommand(s string) (name, arg string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") {
		return "", "", false
	}
	name, arg, _ = strings.Cut(s[1:], " ")
	return strings.ToLower(name), strings.TrimSpace(arg), true
}

// findCommand looks a command up by its exact name.
func findCommand(cmds []command, name string) (command, bool) {
	for _, c := range cmds {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandNames lists the commands as "/a, /b, …" for error messages.
func commandNames(cmds []command) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = "/" + c.name
	}
	return strings.Join(names, ", ")
}

// maxCompletions is how many matches the popup shows at once.
const maxCompletions = 6

// completion is the popup of commands matching what is typed after "/",
// and, for a word starting with "@", of agent types (when the word starts
// the input) and then of the workspace's files and folders.
type completion struct {
	cmds    []command
	agents  []command // agent types, as entries whose name is the type's
	files   pathIndex // the workspace's paths, for "@path"
	lead    byte      // '/' or '@': what the matches complete
	start   int       // where the completed word starts in the input
	keys    keys.KeyMap
	styles  *theme.Styles
	width   int
	matches []command
	sel     int
}

func newCompletion(cmds []command, keys keys.KeyMap, styles *theme.Styles) completion {
	return completion{cmds: cmds, keys: keys, styles: styles}
}

// Filter recomputes the matches for the input's text. The popup is open
// while the text is a "/" followed by part of a command name, or while
// its last word is an "@" followed by part of an agent type or a path.
func (c *completion) Filter(value string) {
	prev := ""
	if c.sel < len(c.matches) {
		prev = c.matches[c.sel].name
	}
	c.matches = c.matches[:0]
	c.sel, c.start, c.lead = 0, 0, 0
	start, word, at := atWord(value)
	switch {
	case value != "" && value[0] == '/' && !strings.ContainsAny(value, " \n"):
		c.lead = '/'
		typed := strings.ToLower(value[1:])
		for _, cmd := range c.cmds {
			if strings.HasPrefix(strings.ToLower(cmd.name), typed) {
				c.matches = append(c.matches, cmd)
			}
		}
	case at:
		c.lead, c.start = '@', start
		typed := strings.ToLower(word)
		if start == 0 && !strings.Contains(typed, "/") {
			for _, a := range c.agents {
				if strings.HasPrefix(strings.ToLower(a.name), typed) {
					c.matches = append(c.matches, a)
				}
			}
		}
		for _, p := range c.files.Match(typed) {
			help := ""
			if strings.HasSuffix(p, "/") {
				help = "folder"
			}
			c.matches = append(c.matches, command{name: p, help: help, path: true})
		}
	}
	for i, m := range c.matches {
		if m.name == prev {
			c.sel = i
		}
	}
}

// wantsFiles reports whether an "@" word is being completed with no
// fresh listing of the workspace's files.
func (c *completion) wantsFiles(now time.Time) bool {
	return c.lead == '@' && c.files.stale(now)
}

// ListingFiles marks a listing of the workspace's files on its way, so
// the next keys do not ask again.
func (c *completion) ListingFiles() { c.files.loading = true }

// SetFiles takes a listing of the workspace's files made at now; a
// failed one (err) keeps the old listing, or none, until it is stale.
func (c *completion) SetFiles(files []string, err error, now time.Time) {
	if err != nil {
		c.files.loading = false
		c.files.at = now
		return
	}
	c.files = newPathIndex(files, now)
}

// SetAgents sets the agent types an "@" completes.
func (c *completion) SetAgents(agents []command) { c.agents = agents }

// Complete is the input's text with the selected entry in place of the
// word being completed, and whether that entry was a path.
func (c completion) Complete(value string) (string, command) {
	sel, _ := c.Selected()
	full := value[:min(c.start, len(value))] + string(c.lead) + sel.name
	if c.lead == '/' {
		full = "/" + sel.name
	}
	// A command or type that takes an argument, and a file, are followed
	// by a space; a folder is not, so its completion goes on inside it.
	if sel.args != "" || (sel.path && !strings.HasSuffix(sel.name, "/")) {
		full += " "
	}
	return full, sel
}

// Open reports whether the popup is shown.
func (c completion) Open() bool { return len(c.matches) > 0 }

// Selected is the highlighted command.
func (c completion) Selected() (command, bool) {
	if c.sel < len(c.matches) {
		return c.matches[c.sel], true
	}
	return command{}, false
}

// Close hides the popup until the next Filter.
func (c *completion) Close() { c.matches = c.matches[:0] }

// Update moves the selection.
func (c completion) Update(msg tea.Msg) (completion, tea.Cmd) {
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
func (c *completion) SetSize(width int) { c.width = width }

// Height is the number of lines View draws.
func (c completion) Height() int { return min(len(c.matches), maxCompletions) }

// View draws the visible matches, keeping the selection in the window.
func (c completion) View() string {
	n := c.Height()
	if n == 0 {
		return ""
	}
	first := min(max(0, c.sel-n+1), len(c.matches)-n)
	label := func(cmd command) string {
		name := string(c.lead) + cmd.name
		if cmd.args != "" {
			name += " " + cmd.args
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
			if cmd.path {
				return string(c.lead) + cutName(cmd.name, w-1, true)
			}
			return cutName(label(cmd), w, false)
		}
		var line string
		if cmd.help == "" {
			line = st.Render(marker + fit(room))
		} else {
			line = st.Render(marker+cells.Pad(fit(col-1), col)) + c.styles.Completion.Desc.Render(cmd.help)
		}
		lines = append(lines, ansi.Truncate(line, max(c.width, 0), "…"))
	}
	return strings.Join(lines, "\n")
}

// runCommand runs the named command, or lists the commands when there is
// no such command.
func (m *Model) runCommand(name, arg string) tea.Cmd {
	cmd, ok := findCommand(m.cmds, name)
	if !ok {
		m.notice(transcript.NoticeError, fmt.Sprintf("unknown command /%s; commands: %s", name, commandNames(m.cmds)))
		return nil
	}
	return cmd.run(m, arg)
}

// fullHelpGroups names the groups of KeyMap.FullHelp, in its order, for
// /help.
var fullHelpGroups = []string{
	"on a request waiting for an answer",
	"on a subagent (focused pane, crew overview, full-screen view) and the MCP servers screen",
	"on the transcript",
	"in the input",
	"anywhere",
	"scrolling",
}

func (m *Model) cmdHelp(string) tea.Cmd {
	var b strings.Builder
	b.WriteString("Keys\n")
	for i, col := range m.keys.FullHelp() {
		// One key means different things in different places (↑/k,
		// enter, esc, t): each group says where its keys apply.
		if i < len(fullHelpGroups) {
			fmt.Fprintf(&b, "  %s\n", fullHelpGroups[i])
		}
		for _, k := range col {
			h := k.Help()
			fmt.Fprintf(&b, "    %s\t%s\n", h.Key, h.Desc)
		}
	}
	b.WriteString("Subagents\n")
	b.WriteString("  " + escNote(*m.keys) + "\n")
	k := m.keys
	fmt.Fprintf(&b, "  %s, %s, %s, %s, %s act on the focused pane, the crew overview's row (%s) or the subagent open full-screen\n",
		keys.Name(k.ChildOpen), keys.Name(k.ChildMessage), keys.Name(k.ChildPause), keys.Name(k.CancelChild), keys.Name(k.ChildBackground), keys.Name(k.Crew))
	b.WriteString("Input\n")
	b.WriteString("  @path\tattaches a file (its content) or folder (its listing) to the message, completed as you type\n")
	b.WriteString("  !command\tat the start, runs the command in the shell (through the permission gate); the model sees its output\n")
	fmt.Fprintf(&b, "  long paste\tshows as [pasted N lines]; %s expands it, and the whole text is sent\n", keys.Name(k.ExpandPaste))
	b.WriteString("Commands\n")
	for _, c := range m.cmds {
		name := "/" + c.name
		if c.args != "" {
			name += " " + c.args
		}
		fmt.Fprintf(&b, "  %s\t%s\n", name, c.help)
	}
	// Laid out in two columns at the width it is drawn at.
	m.tr.Append(transcript.NewColumnsNotice(transcript.NoticeInfo, strings.TrimRight(b.String(), "\n")))
	return nil
}

func (m *Model) cmdClear(string) tea.Cmd {
	if m.turn != nil {
		m.notice(transcript.NoticeError, "a turn is running: press "+keys.Name(m.keys.Cancel)+" to cancel it before /clear")
		return nil
	}
	if m.appr.cur != nil {
		m.notice(transcript.NoticeError, "a request waits for your answer: answer it before /clear")
		return nil
	}
	if m.clearing {
		return nil
	}
	// The engine resets (and its session file records it) in a command;
	// the screen clears when clearedMsg says it is done, and messages sent
	// meanwhile wait in the queue.
	m.clearing = true
	engine := m.engine
	return func() tea.Msg {
		if engine != nil {
			engine.Reset()
		}
		return clearedMsg{}
	}
}

// clearedMsg reports that the engine started a fresh conversation (/clear).
type clearedMsg struct{}

// handleCleared clears the screen after /clear and sends what was queued.
func (m *Model) handleCleared() tea.Cmd {
	m.clearing = false
	m.tr.Clear()
	m.rt.reset()
	m.focus = keys.FocusInput
	m.input.Focus()
	if next, ok := m.input.Dequeue(); ok {
		return m.startQueued(next)
	}
	return nil
}

// modelSetMsg reports that the engine switched to model (/model NAME).
type modelSetMsg struct{ model string }

func (m *Model) cmdAgents(string) tea.Cmd {
	if len(m.agents) == 0 && len(m.agentProblems) == 0 {
		m.notice(transcript.NoticeInfo, "no agent definitions")
		return nil
	}
	var b strings.Builder
	b.WriteString("Agents")
	for _, a := range m.agents {
		fmt.Fprintf(&b, "\n  %s (%s)", a.Name, a.Source)
		if a.Model != "" {
			fmt.Fprintf(&b, " · model %s", a.Model)
		}
		if a.ReadOnly {
			b.WriteString(" · read-only")
		}
		if a.Description != "" {
			fmt.Fprintf(&b, "\n    %s", a.Description)
		}
		if len(a.Tools) > 0 {
			fmt.Fprintf(&b, "\n    tools: %s", strings.Join(a.Tools, ", "))
		}
		for _, n := range a.Notes {
			fmt.Fprintf(&b, "\n    %s", n)
		}
	}
	kind := transcript.NoticeInfo
	if len(m.agentProblems) > 0 {
		kind = transcript.NoticeWarning
		fmt.Fprintf(&b, "\n\nProblems in agent files:")
		for _, f := range m.agentProblems {
			fmt.Fprintf(&b, "\n  %s", f.Path)
			for _, l := range f.Lines {
				fmt.Fprintf(&b, "\n    %s", l)
			}
		}
	}
	m.notice(kind, b.String())
	return nil
}

// agentProblemsNote is the one-line notice at start about the agent
// files' problems, "" when there are none.
func agentProblemsNote(files []AgentFileProblems) string {
	if len(files) == 0 {
		return ""
	}
	errs, all := 0, 0
	for _, f := range files {
		errs += f.Errors
		all += len(f.Lines)
	}
	what := fmt.Sprintf("%d problems", all)
	if all == 1 {
		what = "1 problem"
	}
	where := fmt.Sprintf("%d agent files", len(files))
	if len(files) == 1 {
		where = "1 agent file"
	}
	if errs > 0 {
		what += fmt.Sprintf(" (%d kept a file from loading)", errs)
	}
	return fmt.Sprintf("%s in %s: /agents lists them", what, where)
}

func (m *Model) cmdModel(arg string) tea.Cmd {
	if m.engine == nil {
		m.notice(transcript.NoticeError, "no engine configured")
		return nil
	}
	if arg == "" {
		m.notice(transcript.NoticeInfo, "model: "+m.engine.Model())
		return nil
	}
	// SetModel records the switch in the session file: I/O, so a command.
	engine := m.engine
	return func() tea.Msg {
		engine.SetModel(arg)
		return modelSetMsg{model: engine.Model()}
	}
}

func (m *Model) cmdQuit(string) tea.Cmd { return m.quit() }
