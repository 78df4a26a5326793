package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/theme"
	"covey/ui/input"
	"covey/ui/keys"
	"covey/ui/screens"
	"covey/ui/transcript"
)

// command is one slash command. Adding a command (/undo, /retry, /resume)
// is one more entry in defaultCommands.
type command struct {
	name string // without the slash
	args string // usage of the argument, "" when it takes none
	help string
	run  func(m *Model, arg string) tea.Cmd
}

// defaultCommands is covey's command registry, in the order /help lists
// it; the keys it names come from keys.
func defaultCommands(km keys.KeyMap) []command {
	return []command{
		{name: "help", help: "show keys and commands", run: (*Model).cmdHelp},
		{name: "clear", help: "start a fresh conversation", run: (*Model).cmdClear},
		{name: "agents", help: "list agent definitions and where they come from", run: (*Model).cmdAgents},
		{name: "model", args: "[NAME]", help: "show or set the model", run: (*Model).cmdModel},
		{name: "cost", help: "tokens and cost of the main agent, each subagent and the session", run: (*Model).cmdCost},
		{name: "context", help: "what fills the context window: prompt, tools, memory, messages, tool results", run: (*Model).cmdContext},
		{name: "crew", help: "overview of every subagent (" + keys.Name(km.Crew) + ")", run: (*Model).cmdCrew},
		{name: "diff", args: "[NAME]", help: "the files this session changed, with diffs; NAME: one subagent's", run: (*Model).cmdDiff},
		{name: "worktrees", args: "[prune|apply BRANCH]", help: "worktrees of isolated subagents: list, prune those left behind, or apply one", run: (*Model).cmdWorktrees},
		{name: "mcp", help: "MCP servers: state, tools, errors; reconnect", run: (*Model).cmdMCP},
		{name: "lsp", help: "language servers: state, errors, last failure", run: (*Model).cmdLSP},
		{name: "hooks", args: "[trust]", help: "the hooks in force and where they come from; trust the project's", run: (*Model).cmdHooks},
		{name: "skills", help: "the skills the model may load", run: (*Model).cmdSkills},
		{name: "memory", help: "memory files in the context (AGENTS.md, CLAUDE.md) with their tokens", run: (*Model).cmdMemory},
		{name: "init", help: "explore the repository with a crew and write AGENTS.md", run: (*Model).cmdInit},
		{name: "undo", help: "restore the files the last turn changed", run: (*Model).cmdUndo},
		{name: "rewind", help: "go back before a message: code, conversation or both (" + km.Rewind.Keys()[0] + " twice)", run: (*Model).cmdRewind},
		{name: "fork", help: "go on in a copy of this session (the original stays)", run: (*Model).cmdFork},
		{name: "export", args: "[FILE]", help: "write the conversation as markdown", run: (*Model).cmdExport},
		{name: "retry", help: "send the last message again", run: (*Model).cmdRetry},
		{name: "compact", args: "[FOCUS]", help: "summarise the conversation to free the context window; FOCUS says what to keep", run: (*Model).cmdCompact},
		{name: "report", help: "the crew report: each agent's work, cost and changes, and a timeline (html and markdown)", run: (*Model).cmdReport},
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
	"in covey replay",
}

// cmdHelp opens the help screen: every key, the input's forms and the
// commands, scrolled in place of the conversation.
func (m *Model) cmdHelp(string) tea.Cmd {
	m.openScreen(screens.NewHelp(m.styles, m.keys, m.helpText()))
	return nil
}

// helpText is /help's text: headings, and rows of two columns
// ("key\tmeaning").
func (m *Model) helpText() string {
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
	return strings.TrimRight(b.String(), "\n")
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
	// A fresh conversation starts as the first did, with its card (and
	// its hints), and says what happened to the one before.
	if m.welcome != nil {
		m.tr.Append(newWelcomeBlock(*m.welcome, *m.keys))
	}
	m.notice(transcript.NoticeInfo, "Conversation cleared: the model starts afresh, with nothing of what came before (the session file keeps it). "+
		keys.Name(m.keys.Help)+" or /help for keys and commands.")
	m.focus = keys.FocusInput
	m.input.Focus()
	if next, ok := m.input.Dequeue(); ok {
		return m.startQueued(next)
	}
	return nil
}

// modelSetMsg reports that the engine switched to model (/model NAME).
type modelSetMsg struct{ model, wire string }

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
		m.notice(transcript.NoticeInfo, "model: "+m.engine.Model()+wireOf(m.engine))
		return nil
	}
	if strings.HasPrefix(arg, "/") || strings.ContainsAny(arg, " \t") {
		// "/model /memory": a command typed after a completed /model.
		m.notice(transcript.NoticeError, fmt.Sprintf("%q is not a model name; /model NAME sets the model, /model alone shows it", arg))
		return nil
	}
	// SetModel records the switch in the session file: I/O, so a command.
	engine := m.engine
	return func() tea.Msg {
		engine.SetModel(arg)
		return modelSetMsg{model: engine.Model(), wire: wireOf(engine)}
	}
}

// wiredEngine is an engine that tells the wire its main agent speaks.
type wiredEngine interface{ API() string }

// wireOf is " (Anthropic Messages)": the wire e's main agent speaks, for
// /model; "" when e does not tell.
func wireOf(e Engine) string {
	if w, ok := e.(wiredEngine); ok && w.API() != "" {
		return " (" + agent.WireName(w.API()) + ")"
	}
	return ""
}

func (m *Model) cmdQuit(string) tea.Cmd { return m.quit() }

// newCompletion is the popup over cmds, its keys from keys.
func newCompletion(cmds []command, km keys.KeyMap, styles *theme.Styles) input.Completion {
	return input.NewCompletion(commandEntries(cmds), input.KeysOf(km), styles)
}

// commandEntries are the commands as completion entries after "/".
func commandEntries(cmds []command) []input.Entry {
	out := make([]input.Entry, len(cmds))
	for i, c := range cmds {
		out[i] = input.Entry{Name: c.name, Args: c.args, Help: c.help}
	}
	return out
}
