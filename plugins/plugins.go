// Package plugins reads Claude Code's plugins: those the user installed
// (~/.claude/plugins/installed_plugins.json, each with its folder and its
// .claude-plugin/plugin.json) that a settings file enables (enabledPlugins
// in ~/.claude/settings.json, or the project's .claude/settings.json and
// settings.local.json). It finds each plugin's commands, agents, skills,
// hooks (hooks/hooks.json, ${CLAUDE_PLUGIN_ROOT} filled in), MCP servers
// (.mcp.json) and language servers (.lsp.json, kept for later); the
// session loads them beside the user's own. A plugin that cannot be read
// is named with its error and costs only itself.
package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"covey/hooks"
	"covey/internal/safefile"
)

// maxFile bounds every JSON file a plugin brings.
const maxFile = 1 << 20

// maxPlugins bounds how many installed plugins are read.
const maxPlugins = 100

// Plugin is one installed plugin.
type Plugin struct {
	// ID is name@marketplace, as installed_plugins.json and
	// enabledPlugins key it; Name is the manifest's name (the namespace of
	// its commands, agents and skills).
	ID, Name, Version, Description string
	// Root is its folder (installPath).
	Root string
	// Enabled says a settings file enables it; EnabledBy names the file,
	// and Project is set when only the project's settings enable it (its
	// hooks and MCP servers then need the project's trust).
	Enabled   bool
	EnabledBy string
	Project   bool
	// Err is why it could not be read; nothing of it loads.
	Err error

	// The folders (or files) its commands, agents and skills are read
	// from.
	Commands, Agents, Skills []string
	// Hooks are its hooks (hooks/hooks.json and the manifest's), with
	// ${CLAUDE_PLUGIN_ROOT} replaced by Root.
	Hooks hooks.Config
	// MCPServers is its MCP servers' JSON (.mcp.json's mcpServers), the
	// raw object by server name.
	MCPServers map[string]json.RawMessage
	// LSPServers is its language servers' settings (.lsp.json), kept as
	// read: covey runs no language server yet.
	LSPServers map[string]json.RawMessage
}

// installedFile is installed_plugins.json: version 2 keeps a list of
// installs per plugin, version 1 one install.
type installedFile struct {
	Plugins map[string]json.RawMessage `json:"plugins"`
}

type install struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
	ProjectPath string `json:"projectPath"`
}

// Discover reads the installed plugins of home and which settings files
// (home's and workspace's) enable them. Missing files mean no plugins; a
// broken installed_plugins.json comes back as the error, with no plugins.
func Discover(home, workspace string) ([]Plugin, error) {
	if home == "" {
		return nil, nil
	}
	installs, err := readInstalled(filepath.Join(home, ".claude", "plugins", "installed_plugins.json"), workspace)
	if err != nil || len(installs) == 0 {
		return nil, err
	}
	enabled := enabledBy(home, workspace)
	ids := make([]string, 0, len(installs))
	for id := range installs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Plugin
	for _, id := range ids {
		in := installs[id]
		p := Plugin{ID: id, Name: strings.SplitN(id, "@", 2)[0], Version: in.Version, Root: in.InstallPath}
		if e, ok := enabled[id]; ok && e.on {
			p.Enabled, p.EnabledBy, p.Project = true, e.source, e.project
		}
		if p.Enabled {
			p.Err = p.read()
		}
		out = append(out, p)
	}
	return out, nil
}

// readInstalled reads installed_plugins.json: each plugin's install for
// this workspace (a user-wide one, or one made for this project).
func readInstalled(path, workspace string) (map[string]install, error) {
	data, err := safefile.Read(path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f installedFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]install{}
	for id, raw := range f.Plugins {
		if len(out) == maxPlugins {
			break
		}
		var list []install
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, fmt.Errorf("%s: plugin %s: %w", path, id, err)
			}
		} else {
			var one install
			if err := json.Unmarshal(raw, &one); err != nil {
				return nil, fmt.Errorf("%s: plugin %s: %w", path, id, err)
			}
			list = []install{one}
		}
		for _, in := range list {
			if in.InstallPath == "" {
				continue
			}
			if in.ProjectPath != "" && (in.Scope == "project" || in.Scope == "local") && !samePath(in.ProjectPath, workspace) {
				continue // installed for another project
			}
			out[id] = in
		}
	}
	return out, nil
}

func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

type enabling struct {
	on      bool
	source  string
	project bool
}

// enabledBy reads enabledPlugins from the settings files, the later
// overriding the earlier (user, project, local), as Claude Code does. A
// plugin the user's own settings enable is the user's: trusted.
func enabledBy(home, workspace string) map[string]enabling {
	out := map[string]enabling{}
	type file struct {
		path, source string
		project      bool
	}
	files := []file{{filepath.Join(home, ".claude", "settings.json"), filepath.Join("~", ".claude", "settings.json"), false}}
	if workspace != "" {
		files = append(files,
			file{filepath.Join(workspace, ".claude", "settings.json"), filepath.Join(".claude", "settings.json"), true},
			file{filepath.Join(workspace, ".claude", "settings.local.json"), filepath.Join(".claude", "settings.local.json"), true})
	}
	for _, f := range files {
		data, err := safefile.Read(f.path, maxFile)
		if err != nil {
			continue
		}
		var s struct {
			EnabledPlugins map[string]json.RawMessage `json:"enabledPlugins"`
		}
		if json.Unmarshal(data, &s) != nil {
			continue // the hooks' reading of the file names it
		}
		for id, v := range s.EnabledPlugins {
			// true, or a list of what to enable (Claude Code's newer
			// form): both enable it; false disables.
			on := strings.TrimSpace(string(v)) != "false" && strings.TrimSpace(string(v)) != "null"
			prev, had := out[id]
			e := enabling{on: on, source: f.source, project: f.project}
			if had && prev.on && !prev.project && on {
				e = prev // the user enabled it: theirs
			}
			out[id] = e
		}
	}
	return out
}

// manifest is .claude-plugin/plugin.json.
type manifest struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Commands    json.RawMessage `json:"commands"`
	Agents      json.RawMessage `json:"agents"`
	Skills      json.RawMessage `json:"skills"`
	Hooks       json.RawMessage `json:"hooks"`
	MCPServers  json.RawMessage `json:"mcpServers"`
	LSPServers  json.RawMessage `json:"lspServers"`
}

// read fills p from its folder.
func (p *Plugin) read() error {
	fi, err := os.Stat(p.Root)
	if err != nil {
		return fmt.Errorf("its folder %s: %w", p.Root, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("its folder %s is no folder", p.Root)
	}
	var m manifest
	mpath := filepath.Join(p.Root, ".claude-plugin", "plugin.json")
	data, err := safefile.Read(mpath, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The manifest is optional: the default folders say it all.
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("%s: %w", mpath, err)
		}
	}
	if m.Name != "" {
		if strings.ContainsAny(m.Name, " :/\\\t\n") {
			return fmt.Errorf("%s: name %q holds a blank, a colon or a slash", mpath, m.Name)
		}
		p.Name = m.Name
	}
	p.Version = first(m.Version, p.Version)
	p.Description = m.Description
	for _, c := range []struct {
		into *[]string
		def  string
		raw  json.RawMessage
	}{{&p.Commands, "commands", m.Commands}, {&p.Agents, "agents", m.Agents}, {&p.Skills, "skills", m.Skills}} {
		paths, err := p.paths(c.def, c.raw)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", mpath, c.def, err)
		}
		*c.into = paths
	}
	if err := p.readHooks(m.Hooks); err != nil {
		return err
	}
	if p.MCPServers, err = p.servers(".mcp.json", "mcpServers", m.MCPServers); err != nil {
		return err
	}
	if p.LSPServers, err = p.servers(".lsp.json", "", m.LSPServers); err != nil {
		return err
	}
	return nil
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// paths are the default folder def (when it exists) and the manifest's
// own paths (a string or a list), each inside the plugin.
func (p *Plugin) paths(def string, raw json.RawMessage) ([]string, error) {
	var out []string
	if fi, err := os.Stat(filepath.Join(p.Root, def)); err == nil && fi.IsDir() {
		out = append(out, filepath.Join(p.Root, def))
	}
	var list []string
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			list = []string{one}
		} else if err := json.Unmarshal(raw, &list); err != nil {
			return nil, errors.New("must be a path or a list of paths")
		}
	}
	for _, rel := range list {
		abs, err := p.inside(rel)
		if err != nil {
			return nil, err
		}
		if !contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// inside resolves a manifest path (./x) inside the plugin's folder.
func (p *Plugin) inside(rel string) (string, error) {
	abs := filepath.Join(p.Root, rel)
	r, err := filepath.Rel(p.Root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%q leads outside the plugin's folder", rel)
	}
	return abs, nil
}

// hooksFile is hooks/hooks.json: Claude Code's hooks object, with an
// optional description.
type hooksFile struct {
	Hooks hooks.Config `json:"hooks"`
}

// readHooks reads hooks/hooks.json and the manifest's hooks (a path or
// an inline object), ${CLAUDE_PLUGIN_ROOT} filled in.
func (p *Plugin) readHooks(raw json.RawMessage) error {
	var datas [][]byte
	var names []string
	def := filepath.Join(p.Root, "hooks", "hooks.json")
	if data, err := safefile.Read(def, maxFile); err == nil {
		datas, names = append(datas, data), append(names, def)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		var rel string
		_ = json.Unmarshal(raw, &rel)
		abs, err := p.inside(rel)
		if err != nil {
			return fmt.Errorf("plugin.json: hooks: %w", err)
		}
		if abs != def {
			data, err := safefile.Read(abs, maxFile)
			if err != nil {
				return err
			}
			datas, names = append(datas, data), append(names, abs)
		}
	default:
		datas, names = append(datas, raw), append(names, "plugin.json: hooks")
	}
	for i, data := range datas {
		var f hooksFile
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("%s: %w", names[i], err)
		}
		if err := f.Hooks.Validate(); err != nil {
			return fmt.Errorf("%s: %w", names[i], err)
		}
		if p.Hooks == nil {
			p.Hooks = hooks.Config{}
		}
		for ev, groups := range f.Hooks {
			for _, g := range groups {
				for j := range g.Hooks {
					g.Hooks[j].Command = p.fill(g.Hooks[j].Command)
				}
				p.Hooks[ev] = append(p.Hooks[ev], g)
			}
		}
	}
	return nil
}

// fill puts the plugin's folder in for ${CLAUDE_PLUGIN_ROOT}.
func (p *Plugin) fill(s string) string {
	s = strings.ReplaceAll(s, "${CLAUDE_PLUGIN_ROOT}", p.Root)
	return strings.ReplaceAll(s, "$CLAUDE_PLUGIN_ROOT", p.Root)
}

// servers reads file (in the plugin's root) and the manifest's value (a
// path or an inline object) as server objects by name; key is the object
// holding them in the file ("" for the file itself).
func (p *Plugin) servers(file, key string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	add := func(name string, data []byte, keyed bool) error {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if keyed && key != "" {
			if inner, ok := obj[key]; ok {
				obj = nil
				if err := json.Unmarshal(inner, &obj); err != nil {
					return fmt.Errorf("%s: %s: %w", name, key, err)
				}
			}
		}
		for k, v := range obj {
			out[k] = json.RawMessage(p.fill(string(v)))
		}
		return nil
	}
	def := filepath.Join(p.Root, file)
	if data, err := safefile.Read(def, maxFile); err == nil {
		if err := add(def, data, true); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		var rel string
		_ = json.Unmarshal(raw, &rel)
		abs, err := p.inside(rel)
		if err != nil {
			return nil, fmt.Errorf("plugin.json: %w", err)
		}
		if abs != def {
			data, err := safefile.Read(abs, maxFile)
			if err != nil {
				return nil, err
			}
			if err := add(abs, data, true); err != nil {
				return nil, err
			}
		}
	default:
		if err := add("plugin.json", raw, true); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// State is a plugin's state in words: enabled, disabled, or broken.
func (p Plugin) State() string {
	switch {
	case p.Err != nil:
		return "broken"
	case p.Enabled && p.Project:
		return "enabled by the project"
	case p.Enabled:
		return "enabled"
	}
	return "disabled"
}

// Loaded are the enabled plugins that could be read.
func Loaded(all []Plugin) []Plugin {
	var out []Plugin
	for _, p := range all {
		if p.Enabled && p.Err == nil {
			out = append(out, p)
		}
	}
	return out
}
