package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/agentdefs"
	"covey/config"
	"covey/internal/plural"
	"covey/internal/scripted/demo"
	"covey/internal/termbg"
	"covey/permission"
	"covey/session"
	"covey/theme"
	"covey/ui"
	"covey/ui/notify"
	"covey/ui/picker"
	"covey/ui/transcript"
	"covey/worktree"
)

// runTUI runs the full-screen session, on the configured endpoint or, with
// --demo, on the embedded scripted model.
func runTUI(ctx context.Context, o *options, stderr io.Writer) int {
	if msg := terminalProblem(term.IsTerminal(os.Stdin.Fd()), term.IsTerminal(os.Stdout.Fd())); msg != "" {
		fmt.Fprintln(stderr, "covey:", msg)
		return exitUsage
	}
	if o.resumeSet && o.resume == "" && !o.demo {
		id, err := pickSession(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "covey:", err)
			return exitUsage
		}
		o.resume = id
	}
	approver := ui.NewApprover()
	var (
		s     *session.Session
		err   error
		notes []string
	)
	if o.demo {
		var stop func()
		s, stop, err = openDemoSession(o, approver)
		if stop != nil {
			defer stop()
		}
	} else {
		// Before anything is sent anywhere or run: the project may name
		// the endpoint and bring commands, which only the user's yes lets
		// it do.
		var w folder
		w, err = loadWorkspace(o)
		if err == nil {
			err = askProjectTrust(ctx, o, &w)
		}
		if err == nil {
			s, err = openSession(o, w, approver, true, true)
			if len(w.trust.Skipped()) > 0 {
				notes = append(notes, skippedSettings(w.trust))
			}
			if n := len(w.trust.Commands); n > 0 && !w.trust.Trusted {
				notes = append(notes, fmt.Sprintf("the project's %s (hooks, status lines, MCP servers) do not run, not trusted; %s",
					plural.Count(n, "command"), howToTrust(w.trust)))
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitUsage
	}
	defer s.Close(stderr)
	themeName := config.FirstNonEmpty(o.theme, s.Config().Theme)
	th, mdStyle, err := chooseTheme(themeName)
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitUsage
	}
	// With --theme auto the terminal is asked after the first frame; its
	// answer is kept for the next start (internal/termbg).
	var onBackground func(bool)
	if mode, _ := theme.ParseMode(themeName); mode == theme.ModeAuto && os.Getenv("NO_COLOR") == "" {
		onBackground = func(dark bool) { _ = termbg.Remember(dark) }
	}
	infos, agentProblems := agentInfos(s)
	worktrees := worktree.NewCommands(s.Workspace())
	ep := s.Endpoint().BaseURL
	if u, err := url.Parse(ep); err == nil && u.Host != "" {
		ep = u.Host
	}
	if api := s.API(); api != "" && !o.demo {
		ep += " (" + agent.WireName(api) + ")"
	}
	if o.demo {
		ep = "a scripted server on loopback (no key, no network)"
	}
	welcome := &transcript.Welcome{
		Version: version, Model: s.Model(), Endpoint: ep,
		Workspace: s.Workspace(), InstructionsFile: s.InstructionsFile(),
	}
	if o.demo {
		welcome.Try = demo.LongPrompt
	}
	// A resumed session is read after the first frame (ui.Options.Load):
	// a large one would keep the screen blank for seconds.
	var (
		load    ui.LoadFunc
		loadErr error
	)
	if (o.cont || o.resume != "") && !o.demo { // the demo records nothing
		welcome = nil // a resumed conversation is the first screen
		load = func() ([]agent.Event, string, error) {
			if err := s.Load(); err != nil {
				loadErr = err
				return nil, "", err
			}
			return s.Replay(), s.ResumeNote(), nil
		}
	}
	grace := ui.DefaultApprovalGrace
	if g := s.Config().ApprovalGrace; g != nil {
		grace = *g
	}
	err = ui.Run(ctx, ui.Options{
		ApprovalGrace:  grace,
		Welcome:        welcome,
		Worktrees:      worktrees,
		Engine:         s,
		StatusLine:     s,
		Events:         s.Events(),
		Theme:          th,
		Workspace:      s.Workspace(),
		PermissionMode: string(s.Mode()),
		Warnings:       append(notes, s.Warnings()...),
		Agents:         infos,
		AgentProblems:  agentProblems,
		MarkdownStyle:  mdStyle,
		InitialPrompt:  strings.Join(o.args, " "),
		Approver:       approver,
		Permissions:    s.Policy(),
		Load:           load,
		// MCP servers start once the first frame is up.
		AfterFirstFrame: s.StartMCP,
		OnBackground:    onBackground,
		Cost:            costFunc(s.Prices()),
		Hooks:           tuiHooks(s, o.demo),
		Notify:          notifier(s, os.Getenv),
		Commands:        customCommands(s),
		Skills:          skillInfos(s),
		Memory:          func() []ui.MemoryInfo { return memoryInfos(s) },
	})
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	if loadErr != nil {
		fmt.Fprintln(stderr, "covey:", loadErr)
		return exitUsage
	}
	return exitOK
}

// costFunc prices tokens for the UI from config's price table and the
// catalog's prices; nil when neither can price anything, so the UI shows
// no costs.
func costFunc(prices agent.PriceBook) ui.CostFunc {
	if prices.Empty() {
		return nil
	}
	return prices.Cost
}

// agentInfos describes the session's agent definitions and their files'
// problems for /agents and the notice at start.
func agentInfos(s *session.Session) ([]ui.AgentInfo, []ui.AgentFileProblems) {
	var infos []ui.AgentInfo
	for _, d := range s.Definitions() {
		infos = append(infos, ui.AgentInfo{
			Name: d.Name, Description: d.Summary(), Source: d.Source, ReadOnly: d.ReadOnly,
			Model: agentdefs.ModelText(d, agentdefs.ListOptions{ParentModel: s.Model(), Aliases: s.ModelAliases(), InheritModel: s.SubagentModel()}), Tools: d.ToolList(), Notes: d.Notes(),
		})
	}
	var files []ui.AgentFileProblems
	for _, f := range agentdefs.ByFile(s.Problems()) {
		fp := ui.AgentFileProblems{Path: f.Path}
		for _, p := range f.Problems {
			fp.Lines = append(fp.Lines, p.Short())
			if !p.Warning {
				fp.Errors++
			}
		}
		files = append(files, fp)
	}
	return infos, files
}

// openSession opens the session of the configured endpoint in w, with
// the project's settings and commands that need trust left out unless
// trusted (w.trust says which).
func openSession(o *options, w folder, asker permission.Asker, deferMCP, deferLoad bool) (*session.Session, error) {
	ep, err := config.ResolveEndpoint(w.cfg, o.flags.Provider, o.flags, os.Getenv)
	if err != nil {
		return nil, err
	}
	opts := sessionOptions(o, w.root, w.cfg, ep, asker, true)
	opts.DeferMCPStart = deferMCP
	opts.DeferLoad = deferLoad
	opts.Discovery = w.found
	if w.trust.Trusted {
		opts.TrustedCommands = w.trust.CommandsHash()
	}
	return session.New(opts)
}

func sessionOptions(o *options, root string, cfg config.Config, ep config.Endpoint, asker permission.Asker, record bool) session.Options {
	return session.Options{
		Workspace: root, Config: cfg, Endpoint: ep, Asker: asker, Record: record,
		Continue: o.cont, ResumeID: o.resume, Fork: o.forkSession,
		PermissionMode: o.permissionMode, MaxTurns: o.maxTurns, SandboxMode: o.sandboxMode,
		ModelFromFlag: o.flags.Model != "", Log: o.log,
		MCPConfigFiles: o.mcpConfigs, Version: version,
		ReservedCommands: ui.BuiltinCommandNames(),
	}
}

// terminalProblem says why the full-screen session cannot run as asked, or
// "": piped into, it would drop what came through the pipe; with its output
// redirected, it would draw into the file and leave the screen blank.
func terminalProblem(stdinTTY, stdoutTTY bool) string {
	switch {
	case !stdinTTY:
		return "stdin is not a terminal, so the full-screen session would drop what is piped in: " +
			"covey -p - reads the prompt from stdin"
	case !stdoutTTY:
		return "stdout is not a terminal, so the full-screen session cannot draw: " +
			"covey -p PROMPT prints the answer on stdout"
	}
	return ""
}

// chooseTheme picks the palette before the TUI owns the terminal (asking the
// terminal for its background is I/O).
func chooseTheme(name string) (*theme.Theme, string, error) {
	mode, err := theme.ParseMode(name)
	if err != nil {
		return nil, "", err
	}
	noColor := os.Getenv("NO_COLOR") != ""
	if noColor {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
	dark := true
	if mode == theme.ModeAuto {
		// The answer remembered from the last start (internal/termbg's
		// init set it): asking the terminal now would hold the first
		// frame up, for 5 s on a terminal that never answers.
		dark = lipgloss.HasDarkBackground()
	}
	th := theme.New(mode, dark, noColor)
	md := "dark"
	switch {
	case noColor:
		md = "ascii"
	case mode == theme.ModeLight || (mode == theme.ModeAuto && !dark):
		md = "light"
	}
	return th, md, nil
}

// openDemoSession starts the embedded scripted model on loopback and a
// session that talks to it.
func openDemoSession(o *options, asker permission.Asker) (*session.Session, func(), error) {
	url, stop, err := demo.Start()
	if err != nil {
		return nil, nil, err
	}
	root, err := workDir()
	if err != nil {
		stop()
		return nil, nil, err
	}
	ep := config.Endpoint{Name: "demo", BaseURL: url, Model: demo.Model}
	prov := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: ep.BaseURL, HTTPClient: &http.Client{}})
	// The demo ignores the user's config files (it must work anywhere) and
	// keeps no session file.
	opts := sessionOptions(o, root, config.Config{}, ep, asker, false)
	opts.Provider = prov
	opts.NoMCP, opts.NoHooks = true, true
	s, err := session.New(opts)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return s, stop, nil
}

// pickSession lets the user choose one of this workspace's sessionfile.
func pickSession(ctx context.Context) (string, error) {
	root, err := workDir()
	if err != nil {
		return "", err
	}
	dir, err := sessionfile.DefaultDir()
	if err != nil {
		return "", err
	}
	infos, err := sessionfile.Store{Dir: dir}.List(root)
	if err != nil {
		return "", err
	}
	var items []picker.SessionItem
	for _, in := range infos {
		if in.Messages == 0 {
			continue
		}
		items = append(items, picker.SessionItem{
			ID: in.ID, Title: in.FirstMessage, Modified: in.Modified,
			Detail: plural.Count(in.Messages, "message") + " · " + in.Model,
		})
	}
	if len(items) == 0 {
		return "", fmt.Errorf("no sessions to resume in %s", root)
	}
	th, _, err := chooseTheme("")
	if err != nil {
		return "", err
	}
	return picker.PickSession(ctx, items, th)
}

// hookLister is the session's hooks as /hooks lists them.
type hookLister struct{ s *session.Session }

// Hooks implements ui.HooksSource.
func (h hookLister) Hooks() []ui.HookInfo {
	var out []ui.HookInfo
	for _, x := range h.s.Hooks() {
		out = append(out, ui.HookInfo{Event: x.Event, Matcher: x.Matcher, Command: x.Command, Source: x.Source,
			Timeout: x.Timeout, Project: x.Scope == "project", Trusted: x.Trusted})
	}
	return out
}

// TrustProjectHooks implements ui.HooksSource.
func (h hookLister) TrustProjectHooks() error { return h.s.TrustProjectHooks() }

// tuiHooks is /hooks' source; nil in the demo, which runs no hook.
func tuiHooks(s *session.Session, demo bool) ui.HooksSource {
	if demo {
		return nil
	}
	return hookLister{s}
}

// notifier calls the user back as config's notifications: say (every
// moment and both ways on unless turned off), through the protocol the
// terminal understands, and fires the Notification hooks.
func notifier(s *session.Session, getenv func(string) string) *notify.Notifier {
	n := s.Config().Notifications
	proto, tmux := notify.DetectProtocol(getenv)
	if p := n.Protocol; p != "" {
		proto = p
		if p == "none" {
			proto = notify.ProtoNone
		}
	}
	return &notify.Notifier{
		Bell: config.On(n.Bell), Desktop: config.On(n.Desktop),
		Moments: map[notify.Moment]bool{
			notify.MomentApproval:   config.On(n.Approval),
			notify.MomentBackground: config.On(n.Background),
			notify.MomentTurnEnd:    config.On(n.TurnEnd),
		},
		Protocol: proto, Tmux: tmux,
		Hook: s.NotifyHooks,
	}
}
