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
	"covey/e2e/scripted"
	"covey/theme"
	"covey/tools"
	"covey/ui"
)

// runTUI runs the full-screen session, on the configured endpoint or, with
// --demo, on the embedded scripted model.
func runTUI(ctx context.Context, opts options, stderr io.Writer) int {
	var (
		s   *session
		err error
	)
	var asker tools.Asker // the TUI's approvals: wired with the approval view
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
	err = ui.Run(ctx, ui.Options{
		Engine:         s,
		Events:         s.events,
		Theme:          th,
		Workspace:      s.ws.Root,
		PermissionMode: string(s.mode),
		Agents:         infos,
		MarkdownStyle:  mdStyle,
		InitialPrompt:  joinArgs(opts.args),
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
func openDemoSession(opts options, asker tools.Asker) (*session, func(), error) {
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
