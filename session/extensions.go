package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"covey/agent"
	"covey/agentdefs"
	"covey/hooks"
	"covey/memory"
	"covey/permission"
	"covey/plugins"
	"covey/skills"
	"covey/slashcmd"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// extensions are what a Claude Code user carries besides agents: slash
// commands, skills and memory files.
type extensions struct {
	home string
	mem  *memory.Memory
	// nested is the main agent's tracker of subfolders' memory; a fresh
	// conversation (/clear) starts a fresh one.
	nestedMu sync.Mutex
	nested   *memory.Nested
	skills   *skills.Set
	commands []slashcmd.Command
	warnings []string
	// notes are what Claude Code accepts without a word (a key or a tool
	// covey has no use for, a command a skill shadows): the --debug log
	// lists them once, the screen never does.
	notes []string
	// bangSeq numbers the !`command` calls, for their events' call IDs.
	bangSeq atomic.Int64

	// last is the scope and model of the last user turn when a slash
	// command started it, for a retry.
	lastMu    sync.Mutex
	lastScope *turnScope
	lastModel string
}

// setLastTurn remembers the last user turn's scope and model (nil and ""
// for a plain message).
func (x *extensions) setLastTurn(sc *turnScope, model string) {
	x.lastMu.Lock()
	x.lastScope, x.lastModel = sc, model
	x.lastMu.Unlock()
}

// lastTurn returns ctx with the last user turn's scope, and its model.
func (x *extensions) lastTurn(ctx context.Context) (context.Context, string) {
	x.lastMu.Lock()
	defer x.lastMu.Unlock()
	if x.lastScope != nil {
		ctx = context.WithValue(ctx, turnScopeKey{}, x.lastScope)
	}
	return ctx, x.lastModel
}

// loadExtensions reads the commands, skills and memory of the workspace
// at root and of the user.
func loadExtensions(root, home, userDir string, reserved []string, plugs []plugins.Plugin) *extensions {
	x := &extensions{home: home}
	x.mem = memory.Load(memory.Options{Home: home, UserConfigDir: userDir, RepoRoot: memory.FindRepoRoot(root), WorkDir: root})
	x.nested = x.mem.Nested()
	x.warnings = append(x.warnings, x.mem.Warnings...)
	var problems []agentdefs.Problem
	x.skills, problems = skills.Load(skills.LoadOptions{ProjectDir: root, UserConfigDir: userDir, HomeDir: home, Plugins: pluginFolders(plugs, "skills")})
	x.problems("skill ", problems)
	x.commands, problems = slashcmd.Load(slashcmd.LoadOptions{ProjectDir: root, UserConfigDir: userDir, HomeDir: home, Reserved: reserved,
		Plugins: pluginFolders(plugs, "commands")})
	x.problems("command ", problems)
	x.addSkillCommands(reserved)
	return x
}

// commandHooks reports whether any command brings hooks of its own.
func (x *extensions) commandHooks() bool {
	return slices.ContainsFunc(x.commands, func(c slashcmd.Command) bool { return len(c.Hooks) > 0 })
}

// problems sorts problems into warnings and quiet notes.
func (x *extensions) problems(prefix string, ps []agentdefs.Problem) {
	for _, p := range ps {
		if p.Quiet {
			x.notes = append(x.notes, prefix+p.Error())
		} else {
			x.warnings = append(x.warnings, prefix+p.Error())
		}
	}
}

// addSkillCommands makes every skill the user may run a slash command of
// its name (/pdf), as Claude Code does; a skill wins over a command file
// of the same name, and a built-in command over both.
func (x *extensions) addSkillCommands(reserved []string) {
	byName := map[string]int{}
	for i, c := range x.commands {
		byName[c.Name] = i
	}
	for _, k := range x.skills.All() {
		name := strings.ToLower(k.Name)
		if !k.UserInvocable || strings.ContainsAny(name, " \t/") {
			continue
		}
		if slices.Contains(reserved, name) {
			x.notes = append(x.notes, fmt.Sprintf("skill %s: /%s is one of covey's built-in commands, which wins; the model can still load the skill", k.Path, name))
			continue
		}
		c := slashcmd.Command{Name: name, Description: k.Description, ArgumentHint: k.ArgumentHint, AllowedTools: k.AllowedTools,
			Model: k.Model, Path: k.Path, Scope: k.Scope, Skill: true, Dir: k.Dir, Fork: k.Fork, Agent: k.Agent}
		if i, ok := byName[name]; ok {
			x.notes = append(x.notes, fmt.Sprintf("command %s: /%s runs the skill %s, which wins as in Claude Code", x.commands[i].Path, name, k.Path))
			x.commands[i] = c
			continue
		}
		byName[name] = len(x.commands)
		x.commands = append(x.commands, c)
	}
	slices.SortFunc(x.commands, func(a, b slashcmd.Command) int { return strings.Compare(a.Name, b.Name) })
}

// onRead is the main agent's tools.Env.OnRead.
func (x *extensions) onRead(abs string) string {
	x.nestedMu.Lock()
	n := x.nested
	x.nestedMu.Unlock()
	return n.OnRead(abs)
}

// joined returns the subfolders' memory files in the main agent's context.
func (x *extensions) joined() []memory.File {
	x.nestedMu.Lock()
	n := x.nested
	x.nestedMu.Unlock()
	return n.Joined()
}

// resetNested forgets which subfolders' memory the main agent has seen:
// its conversation starts afresh, without them.
func (x *extensions) resetNested() {
	x.nestedMu.Lock()
	x.nested = x.mem.Nested()
	x.nestedMu.Unlock()
}

// instructions fills env with the memory files' text.
func (x *extensions) instructions(env *agent.Environment, root string) {
	env.Instructions = memory.Render(x.mem.Files, x.home)
	var names []string
	for _, f := range x.mem.Files {
		if f.ImportedBy == "" {
			names = append(names, memory.DisplayIn(f.Path, root, x.home))
		}
	}
	switch {
	case len(names) == 0:
	case len(names) <= 2:
		env.InstructionsFile = strings.Join(names, ", ")
	default:
		env.InstructionsFile = fmt.Sprintf("%s and %d more memory files", names[0], len(names)-1)
	}
}

// skillProblems warns about agent files naming skills nobody has.
func (x *extensions) skillProblems(defs []agentdefs.Definition) []string {
	var out []string
	for _, d := range defs {
		if _, missing := x.skills.Only(d.Skills); len(missing) > 0 {
			out = append(out, fmt.Sprintf("agent %s (%s): no skill is named %s", d.Name, d.Source, strings.Join(missing, ", ")))
		}
	}
	return out
}

// modelProblems warns about commands whose model: maps to no model.
func (x *extensions) modelProblems(aliases map[string]string) []string {
	var out []string
	for _, c := range x.commands {
		if _, unmapped := agentdefs.ResolveModel(c.Model, "", aliases); unmapped != "" {
			out = append(out, fmt.Sprintf("command /%s (%s): model %q maps to no model of this server (add it to model_aliases); the session's model runs it", c.Name, c.Path, c.Model))
		}
	}
	return out
}

// skillTool returns the skill tool offering the skills named, nil when
// none of them exists.
func (x *extensions) skillTool(names []string) tool.Tool {
	only, _ := x.skills.Only(names)
	return only.Tool()
}

// readAlso admits reads of the skills' folders.
func (x *extensions) readAlso(abs string) bool { return x.skills.Readable(abs) }

// initPrompt is what /init asks of the main agent: a crew of Explore
// children surveys the repository, then the agent writes AGENTS.md
// through write_file or edit_file, so the user approves the diff.
const initPrompt = `Write (or improve) AGENTS.md at the workspace root: the brief every coding agent reads before it works in this repository.

1. Survey the repository with the task tool: start several Explore subagents in ONE message so they run in parallel, for example one for how to build, test, lint and run it (exact commands, from the build files, CI config and scripts), one for the layout and architecture (the main packages or modules, how a request or command flows through them, where to add things), and one for the conventions (code style, naming, error handling, testing habits, commit messages, and anything the existing docs, README, CONTRIBUTING, CLAUDE.md or .cursorrules insist on).
2. From what they report, write AGENTS.md with write_file (or edit_file if it exists: keep what is still right). Keep it short (at most about 150 lines) and specific to this repository: commands that work, where things live, rules that are not obvious, traps. No generic advice, nothing you did not verify.
3. Say in two or three lines what you wrote.`

// command finds the slash command text starts with ("/name args"): one
// of the user's files, or /init.
func (x *extensions) command(text string) (slashcmd.Command, string, bool) {
	text = strings.TrimSpace(text)
	if text == "/init" || strings.HasPrefix(text, "/init ") {
		// The text is the whole prompt; what follows /init goes after it.
		return slashcmd.Command{Name: "init", Body: initPrompt + "\n\n$ARGUMENTS"}, strings.TrimSpace(strings.TrimPrefix(text, "/init")), true
	}
	if !strings.HasPrefix(text, "/") || strings.HasPrefix(text, "//") {
		return slashcmd.Command{}, "", false
	}
	name, args, _ := strings.Cut(text[1:], " ")
	if i := strings.IndexByte(name, '\n'); i >= 0 {
		name, args = name[:i], name[i+1:]+" "+args
	}
	name = strings.ToLower(name)
	for _, c := range x.commands {
		if c.Name == name {
			return c, strings.TrimSpace(args), true
		}
	}
	return slashcmd.Command{}, "", false
}

// Commands are the user's slash commands (files), sorted by name.
func (s *Session) Commands() []slashcmd.Command { return slices.Clone(s.ext.commands) }

// Skills are the skills the main agent is offered, sorted by name.
func (s *Session) Skills() []skills.Skill { return s.ext.skills.All() }

// Memory is the memory files in the main agent's context: those loaded
// at start and those that joined since, when it read a file in their
// folder.
func (s *Session) Memory() []memory.File {
	return append(slices.Clone(s.ext.mem.Files), s.ext.joined()...)
}

// Home is the user's home folder, for showing paths with ~.
func (s *Session) Home() string { return s.ext.home }

// runCommand runs the user's slash command c with args as one turn of
// the main agent: its body expanded (arguments, @files, !`command`
// output), on its model, with only its allowed-tools.
func (s *Session) runCommand(ctx context.Context, typed string, c slashcmd.Command, args string) (agent.Result, error) {
	if c.Path != "" {
		// Read again: the file may have been edited since start.
		fresh, _, err := slashcmd.ParseFile(c.Path, c.Name)
		if err != nil {
			return agent.Result{}, fmt.Errorf("/%s was not sent: %w", c.Name, err)
		}
		fresh.Scope, fresh.Skill, fresh.Dir = c.Scope, c.Skill, c.Dir
		// The hooks are those read at start, which the trust question
		// named: an edit since cannot add hooks that run unasked. A
		// skill's hooks do not run (covey has no skill lifecycle).
		fresh.Hooks = c.Hooks
		if c.Skill {
			// As Claude Code gives a skill: where its files are.
			fresh.Body = "Base directory for this skill: " + c.Dir + "\n\n" + fresh.Body
		}
		c = fresh
	}
	sc, err := s.commandScope(c)
	if err != nil {
		return agent.Result{}, err
	}
	s.mcpReady(ctx)
	// UserPromptSubmit hooks see the prompt as typed, before any
	// !`command` runs (a block stops those too); what they add goes after
	// the expanded text.
	submitted, err := s.submitPrompt(ctx, typed)
	if err != nil {
		return agent.Result{Reason: agent.StopError}, err
	}
	hookText := strings.TrimPrefix(submitted, typed)
	s.undoLog().BeginTurnAs(undoLabel(typed))
	text, err := c.Expand(ctx, args, slashcmd.Expander{Root: s.ws.Root, Home: s.ext.home, SessionID: s.hookSessionID(), AllowRead: s.policy.AllowRead, Run: s.bangRunner(c, sc)})
	if err != nil {
		return agent.Result{}, fmt.Errorf("/%s was not sent: %w", c.Name, err)
	}
	if c.Fork {
		text = forkPrompt(c, text)
	}
	text += hookText
	model := ""
	if c.Model != "" {
		m, unmapped := agentdefs.ResolveModel(c.Model, "", s.cfg.ModelAliases)
		if unmapped == "" {
			model = m
		} // else warned about at start (modelProblems)
	}
	s.ext.setLastTurn(sc, model)
	if sc != nil {
		ctx = context.WithValue(ctx, turnScopeKey{}, sc)
	}
	return s.driver.RunWithModel(ctx, text, model)
}

// hookSessionID is the session id hooks and ${CLAUDE_SESSION_ID} see.
func (s *Session) hookSessionID() string {
	if s.hooks != nil {
		return s.hooks.sid
	}
	return s.sessionID()
}

// Notes are what covey accepted without a word where Claude Code does
// (keys, tools and events it has no use for): for the --debug log.
func (s *Session) Notes() []string { return slices.Clone(s.ext.notes) }

// forkPrompt is the turn of a command with context: fork: the main agent
// hands the expanded text to one child, so the work runs in a context of
// its own and only the child's report joins the conversation.
func forkPrompt(c slashcmd.Command, text string) string {
	typ := c.Agent
	if typ == "" {
		typ = agentdefs.GeneralPurpose
	}
	return fmt.Sprintf("/%s runs in a forked context: call the task tool once, with subagent_type %q and exactly the prompt between the <prompt> tags below, "+
		"then tell the user in a few lines what it reported. Do no part of the work yourself.\n\n<prompt>\n%s\n</prompt>", c.Name, typ, text)
}

// turnScope is what a slash command leaves its turn: its allowed-tools
// (names nil: no limit) and its hooks.
type turnScope struct {
	command string
	names   []string
	hooks   *hooks.Runner
	// gate is the session's policy with the command's patterns
	// (Bash(git status:*)): calls outside them are asked about.
	gate *permission.Policy
}

type turnScopeKey struct{}

func scopeOf(ctx context.Context) *turnScope {
	sc, _ := ctx.Value(turnScopeKey{}).(*turnScope)
	return sc
}

// allows reports whether the command's turn may call tool.
func (sc *turnScope) allows(tool string) bool {
	return sc.names == nil || len(agentdefs.EffectiveTools(agentdefs.Definition{Tools: sc.names}, []string{tool})) == 1
}

// commandScope is c's scope, nil when it names no allowed-tools and
// brings no hooks.
func (s *Session) commandScope(c slashcmd.Command) (*turnScope, error) {
	h := s.turnHooks(c)
	if c.AllowedTools.Names == nil {
		if h == nil {
			return nil, nil
		}
		return &turnScope{command: c.Name, hooks: h, gate: s.policy}, nil
	}
	sc := &turnScope{command: c.Name, names: c.AllowedTools.Names, gate: s.policy, hooks: h}
	if src := c.AllowedTools.Sources(); len(src) > 0 {
		p, err := s.policy.Scoped(src, nil)
		if err != nil {
			return nil, fmt.Errorf("/%s: allowed-tools: %w", c.Name, err)
		}
		sc.gate = p
	}
	return sc, nil
}

// bangRunner runs the !`command`s of c as the bash tool runs the model's:
// through the permission gate (deny rules, asks; refused headless when
// they would ask, unless the mode allows) and the sandbox. With
// allowed-tools, a command needs Bash among them (Claude Code's rule),
// and its patterns limit what runs without asking.
func (s *Session) bangRunner(c slashcmd.Command, sc *turnScope) func(context.Context, string) (string, error) {
	return func(ctx context.Context, command string) (string, error) {
		var gate permission.Gate = s.policy
		if sc != nil {
			if !sc.allows(toolname.Bash) {
				return "", errors.New("the command's allowed-tools do not include Bash")
			}
			gate = sc.gate
		}
		label := "/" + c.Name
		labelled := permission.GateFunc(func(ctx context.Context, req permission.Request) permission.Verdict {
			req.Agent = label
			return gate.Check(ctx, req)
		})
		env := &tools.Env{WS: s.ws, Reads: workspace.NewReadTracker(), Locks: s.locks, Gate: labelled, Undo: s.undoLog(),
			AllowRead: s.policy.AllowRead, AllowFound: s.policy.AllowReadFound, Sandbox: s.sandbox}
		args, _ := json.Marshal(map[string]string{"command": command})
		// Shown as a bash call of the main agent, so the user sees what
		// the command ran (the transcript, -p's progress, the session
		// file), whether the gate asked or not.
		src := agent.Source{AgentID: agent.MainAgentID}
		id, key, start := fmt.Sprintf("cmd_%d", s.ext.bangSeq.Add(1)), tool.KeyArg(toolname.Bash, args), time.Now()
		s.emit(agent.ToolStarted{Source: src, CallID: id, Name: toolname.Bash, Args: args, KeyArg: key})
		res := tools.NewBash(env).Run(ctx, args)
		s.emit(agent.ToolFinished{Source: src, CallID: id, Name: toolname.Bash, KeyArg: key, Duration: time.Since(start), Result: res})
		if res.IsError {
			return "", errors.New(strings.TrimPrefix(res.Content, "Error: bash: "))
		}
		return bangOutput(res), nil
	}
}

// bangOutput is a !`command`'s output as the prompt takes it: what the
// command printed, as it printed it. The bash tool's words for the model
// ("(no output)", "[exit code 0]") are no part of it; a command that
// failed keeps its exit code, since the prompt's reader would otherwise
// take an error message for the answer.
func bangOutput(res tool.Result) string {
	code, ok := tool.ExitCode(res.Summary)
	if !ok {
		return res.Content // killed by a signal: the note says so
	}
	marker := fmt.Sprintf("[exit code %d]", code)
	body, found := strings.CutSuffix(res.Content, marker)
	if !found {
		return res.Content // a note follows the code (covey put its settings back)
	}
	body = strings.TrimSuffix(body, "\n")
	if body == "(no output)" {
		body = ""
	}
	if code == 0 {
		return body
	}
	if body == "" {
		return marker
	}
	return body + "\n" + marker
}

// scopedTool keeps a tool out of a slash command's turn when the
// command's allowed-tools do not name it.
type scopedTool struct{ tool.Tool }

// Concurrent keeps the wrapped tool's own answer.
func (t scopedTool) Concurrent() bool { return tool.RunsConcurrently(t.Tool) }

// Run refuses the call in a command's turn that does not allow the tool.
func (t scopedTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	if sc := scopeOf(ctx); sc != nil && !sc.allows(t.Name()) {
		return tool.Errorf("%s is not among the allowed-tools of /%s, the command this turn runs (it allows %s)", t.Name(), sc.command, strings.Join(sc.names, ", "))
	}
	return t.Tool.Run(ctx, args)
}

// scopeSource wraps every tool of src in scopedTool.
func scopeSource(src tool.Source) tool.Source {
	if src == nil {
		return nil
	}
	return func() []tool.Tool {
		ts := src()
		out := make([]tool.Tool, len(ts))
		for i, t := range ts {
			out[i] = scopedTool{t}
		}
		return out
	}
}

// turnGate is the main agent's gate: the session's policy, or in a slash
// command's turn, the policy scoped by the command's patterns.
func (s *Session) turnGate() permission.Gate {
	return permission.GateFunc(func(ctx context.Context, req permission.Request) permission.Verdict {
		if sc := scopeOf(ctx); sc != nil && sc.gate != nil {
			return sc.gate.Check(ctx, req)
		}
		return s.policy.Check(ctx, req)
	})
}
