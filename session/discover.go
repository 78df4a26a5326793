package session

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"covey/agentdefs"
	"covey/config"
	"covey/hooks"
	"covey/mcp"
	"covey/plugins"
	"covey/statusline"
)

// Discovery is what a workspace brings, read once: plugins, agent files,
// commands and skills, status lines, hooks and MCP servers. The start-up
// trust question lists the commands among them that covey would run by
// itself (Commands), and the session then runs exactly those: the scripts
// a project hook runs are pinned here, and a session opened with this
// Discovery reads none of it again.
type Discovery struct {
	root         string
	plugs        []plugins.Plugin
	plugWarnings []string
	defs         *agentdefs.Set
	problems     []agentdefs.Problem
	ext          *extensions
	status       statusline.Settings
	hookSet      hooks.Set
	project      []hooks.Hook // the hooks that need trust, pinned
	mcp          mcp.Loaded
	mcpErr       error

	pinMu      sync.Mutex
	serverPins map[string]hooks.Hook // by server name: its scripts pinned
}

// DiscoverOptions say where Discover looks.
type DiscoverOptions struct {
	// Workspace is the project's root.
	Workspace string
	// Config holds the hooks and MCP servers of the user's config
	// (Hooks, MCPServers) and of the project's (ProjectHooks,
	// ProjectMCPServers); nothing else of it is read.
	Config config.Config
	// ReservedCommands are the built-in commands' names (Options').
	ReservedCommands []string
	// MCPConfigFiles are --mcp-config values (Options').
	MCPConfigFiles []string
}

// Discover reads what the workspace at opts.Workspace brings.
func Discover(opts DiscoverOptions) *Discovery {
	root := opts.Workspace
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // as the session's workspace is
	}
	home, _ := os.UserHomeDir()
	d := &Discovery{root: root}
	d.plugs, d.plugWarnings = discoverPlugins(home, root)
	d.defs, d.problems = agentdefs.Load(agentdefs.LoadOptions{UserConfigDir: config.UserDir(), HomeDir: home, ProjectDir: root,
		Plugins: pluginFolders(d.plugs, "agents")})
	d.ext = loadExtensions(root, home, config.UserDir(), opts.ReservedCommands, d.plugs)
	d.status = statusline.Read(home, root)
	user, _ := config.Paths(root)
	d.hookSet = hooks.Load(hooks.Sources{
		Home: home, Workspace: root,
		User: opts.Config.Hooks, UserSource: user,
		Project: opts.Config.ProjectHooks, ProjectSource: filepath.Join(".covey", "config.yaml"),
	})
	d.hookSet.Hooks = append(d.hookSet.Hooks, pluginHooks(d.plugs)...)
	d.project = d.hookSet.Project()
	for _, def := range d.defs.All() {
		if def.Scope == agentdefs.Project && len(def.Hooks) > 0 {
			d.project = append(d.project, def.Hooks.Hooks("agent "+def.Name, hooks.ScopeProject)...)
		}
	}
	for _, c := range d.ext.commands {
		if c.Scope == agentdefs.Project && len(c.Hooks) > 0 {
			d.project = append(d.project, c.Hooks.Hooks("command /"+c.Name, hooks.ScopeProject)...)
		}
	}
	d.project = append(d.project, statusLineHooks(d.status)...)
	// The scripts the project's hooks run are pinned now, with what the
	// user is asked to trust; a script changed later does not run.
	d.project = hooks.Pin(d.project, root)
	d.mcp, d.mcpErr = LoadMCP(root, opts.Config, opts.MCPConfigFiles)
	d.mcp.Problems = append(d.mcp.Problems, addPluginServers(&d.mcp, d.plugs)...)
	for _, s := range d.mcp.Servers {
		if s.Scope == mcp.ScopeProject {
			d.serverScripts(s)
		}
	}
	return d
}

// Commands are the commands the workspace brings that covey would run by
// itself, for the trust question: its hooks (settings, config, agent and
// command files, plugins the project enables), status lines and MCP
// servers. Each one's Pin holds the hashes of the workspace scripts it
// runs, so a script changed since is asked about again.
func (d *Discovery) Commands() []config.Setting {
	if d == nil {
		return nil
	}
	var out []config.Setting
	for _, h := range d.project {
		key := "hook " + h.Event
		if h.Event == statusLineEvent {
			key = "status line"
		}
		if h.Matcher != "" {
			key += " (" + h.Matcher + ")"
		}
		var pins []string
		for _, s := range h.Scripts {
			pins = append(pins, fmt.Sprintf("%s=%s", s.Path, s.Hash))
		}
		out = append(out, config.Setting{Key: key, Value: h.Command, From: h.Source, Pin: strings.Join(pins, ",")})
	}
	for _, s := range d.mcp.Servers {
		if s.Scope != mcp.ScopeProject {
			continue
		}
		from := s.Source
		if rel, err := filepath.Rel(d.root, from); err == nil && filepath.IsLocal(rel) {
			from = rel
		}
		if from == "" {
			from = mcp.ProjectFile
		}
		_, what, _ := strings.Cut(mcp.Describe(s), ": ")
		// What the server is given shows too: an env of LD_PRELOAD or a
		// header naming a host is as much the command as its words.
		var extra []string
		for _, k := range slices.Sorted(maps.Keys(s.Config.Env)) {
			extra = append(extra, k+"="+s.Config.Env[k])
		}
		for _, k := range slices.Sorted(maps.Keys(s.Config.Headers)) {
			extra = append(extra, k+": "+s.Config.Headers[k])
		}
		if len(extra) > 0 {
			what += " (" + strings.Join(extra, ", ") + ")"
		}
		// The workspace files it runs are pinned into the answer, as a
		// hook's are: a rewritten ./server.sh asks again at the next start.
		var pins []string
		for _, sc := range d.serverScripts(s).Scripts {
			pins = append(pins, sc.Path+"="+sc.Hash)
		}
		out = append(out, config.Setting{Key: "MCP server " + s.Name, Value: what, From: from, Pin: strings.Join(pins, ",")})
	}
	return out
}

// serverScripts is a project MCP server's command line as a hook, its
// workspace scripts pinned once (the first call), so every later check
// compares with what the question listed.
func (d *Discovery) serverScripts(s mcp.Server) hooks.Hook {
	d.pinMu.Lock()
	defer d.pinMu.Unlock()
	if h, ok := d.serverPins[s.Name]; ok {
		return h
	}
	if d.serverPins == nil {
		d.serverPins = map[string]hooks.Hook{}
	}
	h := hooks.Pin([]hooks.Hook{{Command: strings.Join(append([]string{s.Config.Command}, s.Config.Args...), " "), Scope: hooks.ScopeProject}}, d.root)[0]
	d.serverPins[s.Name] = h
	return h
}

// changedServerScript names the workspace script a project MCP server
// runs that changed since the trust question listed it, "" when none did
// (mcp.Options.Changed).
func (d *Discovery) changedServerScript(s mcp.Server) string {
	return hooks.ChangedScript(d.serverScripts(s), d.root)
}

// CommandsHash is the key of Commands' trust: covey's hash of them.
func (d *Discovery) CommandsHash() string { return config.SettingsHash(d.Commands()) }
