package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"covey/config"
	"covey/mcp"
	"covey/session"
	"covey/ui"
	"covey/ui/trustq"
)

// folder is what covey read of the folder it runs in before the
// session opens: the config, with the project's settings that need trust
// left out unless trusted, what the folder brings that covey would run by
// itself, and the one trust answer covering both.
type folder struct {
	root  string
	cfg   config.Config
	trust config.Trust
	found *session.Discovery
}

// loadWorkspace reads the config and what the folder brings, and decides
// trust: --trust-project, trusted_folders, or the remembered answer.
func loadWorkspace(o *options) (folder, error) {
	root, err := workDir()
	if err != nil {
		return folder{}, err
	}
	w := folder{root: root}
	w.cfg, w.trust, err = config.LoadTrusted(root, config.LoadOptions{TrustProject: o.trustProject, Commands: func(c config.Config) []config.Setting {
		w.found = session.Discover(session.DiscoverOptions{Workspace: root, Config: c, ReservedCommands: ui.BuiltinCommandNames(), MCPConfigFiles: o.mcpConfigs})
		return w.found.Commands()
	}})
	return w, err
}

// reload reads the config again after the answer, with the same
// discovery: the commands trusted are the ones the question listed.
func (w *folder) reload(o *options) error {
	var err error
	w.cfg, w.trust, err = config.LoadTrusted(w.root, config.LoadOptions{TrustProject: o.trustProject, Commands: func(config.Config) []config.Setting {
		return w.found.Commands()
	}})
	return err
}

// askProjectTrust asks full-screen, before the session starts, whether
// the project's settings and commands that need trust may apply and run,
// when they have not been answered yet, and remembers the answer (keyed
// to all of them: a change to any asks again). Only y trusts, and only
// once the whole list was on screen.
func askProjectTrust(ctx context.Context, o *options, w *folder) error {
	if !w.trust.Ask() {
		return nil
	}
	th, _, err := chooseTheme(config.FirstNonEmpty(o.theme, w.cfg.Theme))
	if err != nil {
		return err
	}
	q := trustq.Question{Folder: w.root, File: filepath.Join(".covey", "config.yaml")}
	for _, s := range w.trust.Needs {
		q.Settings = append(q.Settings, trustq.Item{Label: s.Key, Text: s.Value})
	}
	for _, s := range w.trust.Commands {
		q.Commands = append(q.Commands, trustq.Item{Label: s.Key, Text: s.Value, From: s.From})
	}
	yes, err := trustq.Ask(ctx, q, th)
	if errors.Is(err, trustq.ErrNoAnswer) {
		return errors.New("the trust question was left unanswered; nothing was started")
	}
	if err != nil {
		return err
	}
	if err := config.SetTrust(w.root, w.trust, yes, nil); err != nil {
		return err
	}
	return w.reload(o)
}

// skippedSettings is the line naming the project's settings that were left
// out, and how to trust them.
func skippedSettings(tr config.Trust) string {
	return fmt.Sprintf("skipped the project's settings, not trusted (.covey/config.yaml): %s; %s",
		strings.Join(tr.Skipped(), ", "), howToTrust(tr))
}

// howToTrust says how to trust the folder of tr.
func howToTrust(tr config.Trust) string {
	if tr.Answer == mcp.TrustNo {
		return "you answered n here before; to trust them: pass --trust-project (one run) or add the folder to trusted_folders in your config"
	}
	return "to trust them: answer y when covey starts here, pass --trust-project, or add the folder to trusted_folders in your config"
}
