package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"covey/agent"
	sessions "covey/agent/session"
	"covey/e2e/scripted"
	"covey/permission"
	"covey/theme"
	"covey/ui"
)

// runTUI runs the full-screen session, on the configured endpoint or, with
// --demo, on the embedded scripted model.
func runTUI(ctx context.Context, opts options, stderr io.Writer) int {
	var (
		s   *session
		err error
	)
	if opts.resumeSet && opts.resume == "" && !opts.demo {
		id, err := pickSession(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "covey:", err)
			return exitUsage
		}
		opts.resume = id
	}
	approver := ui.NewApprover()
	var asker permission.Asker = approver
	if opts.demo {
		var stop func()
		s, stop, err = openDemoSession(opts, asker)
		if stop != nil {
			defer stop()
		}
	} else {
		s, err = openSession(opts, asker)
	}
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitUsage
	}
	defer s.close(stderr)
	th, mdStyle, err := chooseTheme(firstNonEmpty(opts.theme, s.cfg.Theme))
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitUsage
	}
	var infos []ui.AgentInfo
	for _, d := range s.defs.All() {
		infos = append(infos, ui.AgentInfo{Name: d.Name, Description: d.Summary(), Source: d.Source, Model: d.Model, Tools: d.Tools, ReadOnly: d.ReadOnly})
	}
	for _, p := range s.problems {
		fmt.Fprintln(stderr, "covey: agent definition:", p.Error())
	}
	var worktrees ui.Worktrees
	if w := sessionWorktrees(ctx, s.ws.Root); w != nil {
		worktrees = w
	}
	err = ui.Run(ctx, ui.Options{
		Worktrees:      worktrees,
		Engine:         s,
		Events:         s.events,
		Theme:          th,
		Workspace:      s.ws.Root,
		PermissionMode: string(s.mode),
		Agents:         infos,
		MarkdownStyle:  mdStyle,
		InitialPrompt:  joinArgs(opts.args),
		Approver:       approver,
		Permissions:    s.policy,
		Replay:         s.rec.replay(),
		ResumeNote:     s.rec.resumeNote(),
	})
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	return exitOK
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
func openDemoSession(opts options, asker permission.Asker) (*session, func(), error) {
	srv := scripted.New()
	for _, c := range demoConversations() {
		srv.Add(c)
	}
	srv.AllowUnmatched()
	if err := srv.Start(); err != nil {
		return nil, nil, fmt.Errorf("start the demo model: %w", err)
	}
	root, err := os.Getwd()
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	ep := Endpoint{Name: "demo", BaseURL: srv.URL(), Model: demoModel}
	prov := agent.NewOpenAI(agent.OpenAIConfig{BaseURL: ep.BaseURL, HTTPClient: &http.Client{}})
	// The demo ignores the user's config files: it must work anywhere.
	s, err := newSession(root, Config{}, opts, sessionDeps{endpoint: ep, provider: prov, asker: asker})
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return s, srv.Close, nil
}

// pickSession lets the user choose one of this workspace's sessions.
func pickSession(ctx context.Context) (string, error) {
	root, err := os.Getwd()
	if err != nil {
		return "", err
	}
	dir, err := sessions.DefaultDir()
	if err != nil {
		return "", err
	}
	infos, err := sessions.Store{Dir: dir}.List(root)
	if err != nil {
		return "", err
	}
	var items []ui.SessionItem
	for _, in := range infos {
		if in.Messages == 0 {
			continue
		}
		items = append(items, ui.SessionItem{
			ID: in.ID, Title: in.FirstMessage, When: in.Modified.Local().Format("2006-01-02 15:04"),
			Detail: fmt.Sprintf("%d messages · %s", in.Messages, in.Model),
		})
	}
	if len(items) == 0 {
		return "", fmt.Errorf("no sessions to resume in %s", root)
	}
	th, _, err := chooseTheme("")
	if err != nil {
		return "", err
	}
	return ui.PickSession(ctx, items, th)
}

func joinArgs(args []string) string {
	out := ""
	for i, a := range args {
		if i > 0 {
			out += " "
		}
		out += a
	}
	return out
}
