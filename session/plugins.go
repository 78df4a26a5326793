package session

import (
	"encoding/json"
	"fmt"
	"sort"

	"covey/agentdefs"
	"covey/hooks"
	"covey/mcp"
	"covey/plugins"
)

// discoverPlugins reads the installed plugins and which are enabled; a
// plugin that cannot be read is a warning naming it, never an error.
func discoverPlugins(home, root string) ([]plugins.Plugin, []string) {
	all, err := plugins.Discover(home, root)
	var warnings []string
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("plugins: %v; no plugin is loaded", err))
	}
	for _, p := range all {
		if p.Err != nil {
			warnings = append(warnings, fmt.Sprintf("plugin %s: %v; it is not loaded", p.ID, p.Err))
		}
	}
	return all, warnings
}

// PluginFolders are the agents/ folders (kind "agents"), commands/ or
// skills/ of the enabled plugins under home, for listings outside a
// session (covey agents).
func PluginFolders(home, root, kind string) []agentdefs.Folder {
	all, _ := plugins.Discover(home, root)
	return pluginFolders(all, kind)
}

// pluginFolders are the folders of kind (commands, agents, skills) of the
// loaded plugins, namespaced by each plugin's name. A plugin the project
// enabled gives its files the project's scope (its hooks then need the
// project's trust), except skills: read_file may read a skill's folder,
// and a plugin's is the user's install, not the repository's.
func pluginFolders(all []plugins.Plugin, kind string) []agentdefs.Folder {
	var out []agentdefs.Folder
	for _, p := range plugins.Loaded(all) {
		var paths []string
		switch kind {
		case "commands":
			paths = p.Commands
		case "agents":
			paths = p.Agents
		case "skills":
			paths = p.Skills
		}
		scope := agentdefs.User
		if p.Project && kind != "skills" {
			scope = agentdefs.Project
		}
		for _, path := range paths {
			out = append(out, agentdefs.Folder{Path: path, Scope: scope, Namespace: p.Name})
		}
	}
	return out
}

// Plugins are the installed plugins, enabled or not, broken or not.
func (s *Session) Plugins() []plugins.Plugin { return s.plugins }

// pluginHooks are the loaded plugins' hooks, tagged with the plugin.
func pluginHooks(all []plugins.Plugin) []hooks.Hook {
	var out []hooks.Hook
	for _, p := range plugins.Loaded(all) {
		scope := hooks.ScopeUser
		if p.Project {
			scope = hooks.ScopeProject
		}
		out = append(out, p.Hooks.Hooks("plugin "+p.ID, scope)...)
	}
	return out
}

// addPluginServers adds the loaded plugins' MCP servers to loaded, named
// plugin_PLUGIN_SERVER as Claude Code names them (its tools are
// mcp__plugin_PLUGIN_SERVER__tool). A project-enabled plugin's servers
// are project servers: the trust key covers them too.
func addPluginServers(loaded *mcp.Loaded, all []plugins.Plugin) []string {
	var problems []string
	var hashed []byte
	for _, p := range plugins.Loaded(all) {
		if len(p.MCPServers) == 0 {
			continue
		}
		named := map[string]json.RawMessage{}
		for name, raw := range p.MCPServers {
			named["plugin_"+p.Name+"_"+name] = raw
		}
		data, err := json.Marshal(map[string]any{"mcpServers": named})
		if err != nil {
			continue
		}
		scope := mcp.ScopeUser
		if p.Project {
			scope = mcp.ScopeProject
			hashed = append(append(hashed, 0), data...)
		}
		servers, err := mcp.ParseFile("plugin "+p.ID, data, scope)
		if err != nil {
			problems = append(problems, fmt.Sprintf("plugin %s: %v; its MCP servers were not started", p.ID, err))
			continue
		}
		loaded.Servers = append(loaded.Servers, servers...)
	}
	if hashed != nil {
		loaded.ProjectHash = mcp.FileHash(append([]byte(loaded.ProjectHash+"\x00"), hashed...))
	}
	sort.SliceStable(loaded.Servers, func(i, j int) bool { return loaded.Servers[i].Name < loaded.Servers[j].Name })
	return problems
}
