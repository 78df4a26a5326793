// Package mcp connects covey to Model Context Protocol servers and offers
// their tools as covey tools. Servers are configured in Claude Code's shape
// ({"mcpServers": {NAME: {type, command, args, env, url, headers}}}) from a
// project's .mcp.json, the user's config and --mcp-config files. They
// connect concurrently in the background, so start-up never waits for the
// slowest; their tools join the offered set as each becomes ready.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"covey/internal/safefile"
)

// Transport types of a server.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// Defaults of the per-server limits.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 10 * time.Minute
)

// Scope says where a server was configured, which decides whether it is
// trusted without asking.
type Scope string

// The scopes.
const (
	// ScopeProject servers come from the workspace's .mcp.json: anyone who
	// can commit to the repository wrote them, so the user is asked first.
	ScopeProject Scope = "project"
	// ScopeUser servers come from covey's user config (trusted).
	ScopeUser Scope = "user"
	// ScopeFlag servers come from --mcp-config files (trusted).
	ScopeFlag Scope = "flag"
)

// ServerConfig is one server as configured, in Claude Code's shape plus
// covey's optional limits. Durations accept Go forms ("45s") or a number of
// milliseconds, as Claude Code's MCP_TIMEOUT does.
type ServerConfig struct {
	Type    string            `json:"type,omitempty" yaml:"type"`
	Command string            `json:"command,omitempty" yaml:"command"`
	Args    []string          `json:"args,omitempty" yaml:"args"`
	Env     map[string]string `json:"env,omitempty" yaml:"env"`
	URL     string            `json:"url,omitempty" yaml:"url"`
	Headers map[string]string `json:"headers,omitempty" yaml:"headers"`
	// StartupTimeout bounds connecting and listing tools (default 30s).
	StartupTimeout Duration `json:"startup_timeout,omitempty" yaml:"startup_timeout"`
	// ToolTimeout bounds one tool call (default 10m).
	ToolTimeout Duration `json:"tool_timeout,omitempty" yaml:"tool_timeout"`
}

// Duration is a time.Duration that reads "45s" or a number of milliseconds
// from JSON and YAML.
type Duration time.Duration

// UnmarshalJSON reads "45s" or 45000.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		*d = Duration(time.Duration(n * float64(time.Millisecond)))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`a duration is a string such as "45s" or a number of milliseconds`)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("bad duration %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the Go form ("45s").
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalYAML reads "45s" or 45000 (milliseconds).
func (d *Duration) UnmarshalYAML(unmarshal func(any) error) error {
	var v any
	if err := unmarshal(&v); err != nil {
		return err
	}
	b, _ := json.Marshal(v)
	return d.UnmarshalJSON(b)
}

// MarshalYAML writes the Go form ("45s").
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Server is one configured server, named and scoped.
type Server struct {
	Name   string
	Scope  Scope
	Source string // the file it came from, for messages
	Config ServerConfig
}

// TransportType returns the server's transport: its type, or stdio when
// only a command is given, or http when only a URL is.
func (c ServerConfig) TransportType() string {
	switch t := strings.ToLower(c.Type); {
	case t == "streamablehttp" || t == "streamable-http" || t == "http":
		return TypeHTTP
	case t != "":
		return t
	case c.Command != "":
		return TypeStdio
	case c.URL != "":
		return TypeHTTP
	}
	return ""
}

// startupTimeout returns the startup bound, defaulted.
func (c ServerConfig) startupTimeout() time.Duration {
	if c.StartupTimeout > 0 {
		return time.Duration(c.StartupTimeout)
	}
	return DefaultStartupTimeout
}

// toolTimeout returns the per-call bound, defaulted.
func (c ServerConfig) toolTimeout() time.Duration {
	if c.ToolTimeout > 0 {
		return time.Duration(c.ToolTimeout)
	}
	return DefaultToolTimeout
}

// Validate checks one server's configuration and names what is wrong.
func (c ServerConfig) Validate(name string) error {
	if name == "" {
		return errors.New("a server needs a name")
	}
	switch c.TransportType() {
	case TypeStdio:
		if c.Command == "" {
			return fmt.Errorf("server %q: type stdio needs a command", name)
		}
		if c.URL != "" {
			return fmt.Errorf("server %q: a stdio server takes a command, not a url", name)
		}
	case TypeHTTP, TypeSSE:
		if c.URL == "" {
			return fmt.Errorf("server %q: type %s needs a url", name, c.TransportType())
		}
		if c.Command != "" {
			return fmt.Errorf("server %q: a %s server takes a url, not a command", name, c.TransportType())
		}
		// A url built from ${VAR}s is checked when it is expanded.
		if u, err := url.Parse(c.URL); !strings.Contains(c.URL, "${") && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			return fmt.Errorf("server %q: url %q is not an http(s) URL with a host (e.g. https://mcp.example.com/mcp)", name, c.URL)
		}
	case "":
		return fmt.Errorf("server %q: give a command (stdio) or a url (http, sse)", name)
	default:
		return fmt.Errorf("server %q: unknown type %q: use stdio, http or sse", name, c.Type)
	}
	return nil
}

// File is the JSON shape of .mcp.json and --mcp-config files.
type File struct {
	MCPServers map[string]ServerConfig `json:"mcpServers"`
}

// MaxConfigSize bounds a .mcp.json-shaped file (real ones are a few KB).
const MaxConfigSize = 1 << 20

// ReadFile reads a .mcp.json-shaped file. A missing file gives no servers
// and no error when optional is true. Unknown fields are errors naming the
// file, so a typo never silently drops a setting.
func ReadFile(path string, scope Scope, optional bool) ([]Server, error) {
	// The project's .mcp.json comes from the repository: a symlink to
	// /dev/zero or a FIFO must not stall covey.
	data, err := safefile.Read(path, MaxConfigSize)
	if optional && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("MCP config: %w", err) // err names the file
	}
	return ParseFile(path, data, scope)
}

// ParseFile parses the content of a .mcp.json-shaped file.
func ParseFile(path string, data []byte, scope Scope) ([]Server, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("MCP config %s: %s", path, jsonProblem(data, err))
	}
	if f.MCPServers == nil {
		return nil, fmt.Errorf(`MCP config %s: no "mcpServers" object`, path)
	}
	return Servers(f.MCPServers, scope, path)
}

// jsonProblem words a decoding error of data for a user: where it is in
// lines and columns ("line 3, column 18") and what is wrong, in JSON's words
// rather than Go's ("command must be a string, not a number").
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s: %s", jsonPosition(data, syn.Offset), syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the file"
		}
		got := map[string]string{"number": "a number", "string": "a string", "array": "a list", "object": "an object", "bool": "true or false"}[typ.Value]
		if got == "" {
			got = typ.Value
		}
		return fmt.Sprintf("%s: %s must be %s, not %s", jsonPosition(data, typ.Offset), field, jsonKind(typ.Type), got)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the file ends early (a { or [ or string is not closed)"
	}
	return err.Error()
}

// jsonPosition is the line and column of the byte just before offset,
// where encoding/json stopped at the problem.
func jsonPosition(data []byte, offset int64) string {
	off := max(min(int(offset), len(data))-1, 0)
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// jsonKind names what a Go type holds in JSON's terms.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// Servers turns a name-to-config map into validated servers, sorted by name.
func Servers(m map[string]ServerConfig, scope Scope, source string) ([]Server, error) {
	var errs []error
	var out []Server
	for _, name := range slices.Sorted(maps.Keys(m)) {
		c := m[name]
		if err := c.Validate(name); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", source, err))
			continue
		}
		out = append(out, Server{Name: name, Scope: scope, Source: source, Config: c})
	}
	return out, errors.Join(errs...)
}

// Merge combines server lists; a later list's server replaces an earlier
// one of the same name (flags over user config over the project).
func Merge(lists ...[]Server) []Server {
	byName := map[string]Server{}
	for _, l := range lists {
		for _, s := range l {
			byName[s.Name] = s
		}
	}
	out := make([]Server, 0, len(byName))
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[n])
	}
	return out
}
