package mcp

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Expand returns c with ${VAR} and ${VAR:-default} replaced in command,
// args, env values, url and header values, reading variables through
// getenv (which reports whether a variable is set). A variable that is
// unset and has no default is an error naming the server and the field.
// A "$" not followed by "{" is kept as it is.
func Expand(name string, c ServerConfig, getenv func(string) (string, bool)) (ServerConfig, error) {
	out := c
	var err error
	one := func(field, s string) string {
		if err != nil {
			return s
		}
		v, e := expandString(s, getenv)
		if e != nil {
			err = fmt.Errorf("MCP server %q, %s: %w", name, field, e)
		}
		return v
	}
	out.Command = one("command", c.Command)
	out.URL = one("url", c.URL)
	if c.Args != nil {
		out.Args = make([]string, len(c.Args))
		for i, a := range c.Args {
			out.Args[i] = one(fmt.Sprintf("args[%d]", i), a)
		}
	}
	expandMap := func(field string, m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		r := make(map[string]string, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			r[k] = one(fmt.Sprintf("%s.%s", field, k), m[k])
		}
		return r
	}
	out.Env = expandMap("env", c.Env)
	out.Headers = expandMap("headers", c.Headers)
	if err != nil {
		return ServerConfig{}, err
	}
	return out, nil
}

// expandString expands the ${...} references of s.
func expandString(s string, getenv func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unclosed ${ in %q", s)
		}
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validVarName(name) {
			return "", fmt.Errorf("bad variable reference ${%s}", ref)
		}
		v, ok := getenv(name)
		switch {
		case ok && (v != "" || !hasDef):
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("environment variable %s is not set (write ${%s:-default} to give a default)", name, name)
		}
		s = s[i+end+1:]
	}
}

func validVarName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		letter := c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		digit := i > 0 && c >= '0' && c <= '9'
		if !letter && !digit {
			return false
		}
	}
	return true
}
