package lsp

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Config is the `lsp:` key of covey's config.
type Config struct {
	// Servers are language servers by name. An entry named like a
	// default (gopls, typescript, pyright, rust-analyzer, clangd) replaces
	// it; `disabled: true` turns one off.
	Servers map[string]ServerConfig `yaml:"servers"`
	// Disabled turns every language server off.
	Disabled bool `yaml:"disabled"`
	// OtherFiles adds, after an edit, the errors the change caused in other
	// files the server has reported on (off by default).
	OtherFiles bool `yaml:"other_files"`
	// Wait bounds how long an edit's result waits for the server's
	// diagnostics (default 5s); a server later than that is noted.
	Wait time.Duration `yaml:"wait"`
}

// ServerConfig is one language server.
type ServerConfig struct {
	// Command and Args start the server, speaking LSP on stdin and stdout.
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
	// Extensions are the file extensions it serves (".go" or "go").
	Extensions []string `yaml:"extensions"`
	// Languages maps an extension to the language id sent to the server
	// (default: the usual id for the extension, else the server's name).
	Languages map[string]string `yaml:"languages"`
	// RootMarkers are files or folders whose folder is a project root for
	// this server (go.mod, package.json, Cargo.toml); the nearest one
	// inside the workspace wins, else the workspace root.
	RootMarkers []string `yaml:"root_markers"`
	// InitializationOptions are sent as they are in initialize.
	InitializationOptions map[string]any `yaml:"initialization_options"`
	// Env adds variables to the server's environment.
	Env map[string]string `yaml:"env"`
	// Disabled turns this server (or a default of the same name) off.
	Disabled bool `yaml:"disabled"`
}

// DefaultWait is how long an edit waits for diagnostics by default.
const DefaultWait = 5 * time.Second

// spec is a server ready to start: its config completed.
type spec struct {
	name string
	ServerConfig
}

// languageIDs are the usual language ids by extension.
var languageIDs = map[string]string{
	".go": "go", ".ts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".jsx": "javascriptreact",
	".mjs": "javascript", ".cjs": "javascript", ".mts": "typescript", ".cts": "typescript",
	".py": "python", ".pyi": "python", ".rs": "rust", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
	".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
}

// defaults are the servers covey starts with no config, when their
// command is on PATH. Alternatives (pyright or basedpyright) are tried in
// order; the first found is used.
var defaults = []struct {
	name string
	alts []ServerConfig
}{
	{"gopls", []ServerConfig{{Command: "gopls", Extensions: []string{".go"}, RootMarkers: []string{"go.work", "go.mod"}}}},
	{"typescript", []ServerConfig{{Command: "typescript-language-server", Args: []string{"--stdio"},
		Extensions:  []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"},
		RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}}}},
	{"pyright", []ServerConfig{
		{Command: "basedpyright-langserver", Args: []string{"--stdio"}, Extensions: []string{".py", ".pyi"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
		{Command: "pyright-langserver", Args: []string{"--stdio"}, Extensions: []string{".py", ".pyi"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
	}},
	{"rust-analyzer", []ServerConfig{{Command: "rust-analyzer", Extensions: []string{".rs"}, RootMarkers: []string{"Cargo.toml"}}}},
	{"clangd", []ServerConfig{{Command: "clangd", Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"},
		RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"}}}},
}

// Validate reports the first mistake in c, naming the server.
func (c Config) Validate() error {
	names := mapKeys(c.Servers)
	sort.Strings(names)
	for _, name := range names {
		s := c.Servers[name]
		if s.Disabled {
			continue
		}
		if strings.TrimSpace(s.Command) == "" && !isDefault(name) {
			return fmt.Errorf("lsp server %s: command is required", name)
		}
		if len(s.Extensions) == 0 && !isDefault(name) {
			return fmt.Errorf("lsp server %s: extensions are required (e.g. [\".go\"])", name)
		}
		for _, e := range s.Extensions {
			if strings.TrimPrefix(e, ".") == "" || strings.ContainsAny(e, "/\\ *") {
				return fmt.Errorf("lsp server %s: %q is not a file extension", name, e)
			}
		}
	}
	if c.Wait < 0 {
		return fmt.Errorf("lsp wait %s is negative", c.Wait)
	}
	return nil
}

func isDefault(name string) bool {
	for _, d := range defaults {
		if d.name == name {
			return true
		}
	}
	return false
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// specs returns the servers to use: the configured ones, and the defaults
// not configured whose command lookPath finds. An entry named like a
// default fills its empty fields from that default.
func (c Config) specs(lookPath func(string) (string, error)) []spec {
	if c.Disabled {
		return nil
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	var out []spec
	for _, d := range defaults {
		conf, set := c.Servers[d.name]
		if set && conf.Disabled {
			continue
		}
		if set && conf.Command != "" {
			continue // the config's own, below
		}
		for _, alt := range d.alts {
			if _, err := lookPath(alt.Command); err != nil {
				continue
			}
			if set { // a default adjusted: its fields over the default's
				alt = fillFrom(conf, alt)
			}
			out = append(out, spec{name: d.name, ServerConfig: alt})
			break
		}
	}
	names := mapKeys(c.Servers)
	sort.Strings(names)
	for _, name := range names {
		conf := c.Servers[name]
		if conf.Disabled || conf.Command == "" {
			continue
		}
		for _, d := range defaults {
			if d.name == name {
				conf = fillFrom(conf, d.alts[0])
			}
		}
		out = append(out, spec{name: name, ServerConfig: conf})
	}
	return out
}

// fillFrom completes conf's empty fields from def.
func fillFrom(conf, def ServerConfig) ServerConfig {
	if conf.Command == "" {
		conf.Command, conf.Args = def.Command, def.Args
	}
	if len(conf.Extensions) == 0 {
		conf.Extensions = def.Extensions
	}
	if len(conf.RootMarkers) == 0 {
		conf.RootMarkers = def.RootMarkers
	}
	return conf
}

// serves reports whether s serves the file at path.
func (s spec) serves(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return false
	}
	for _, e := range s.Extensions {
		if "."+strings.TrimPrefix(strings.ToLower(e), ".") == ext {
			return true
		}
	}
	return false
}

// languageID is the language id of the file at path for s.
func (s spec) languageID(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	for k, v := range s.Languages {
		if "."+strings.TrimPrefix(strings.ToLower(k), ".") == ext {
			return v
		}
	}
	if id, ok := languageIDs[ext]; ok {
		return id
	}
	return s.name
}
