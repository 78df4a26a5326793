package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"covey/internal/excerpt"
)

// ConfigKey is the key of the servers map in covey's config.yaml.
const ConfigKey = "mcp_servers"

// AddToConfig returns config.yaml content with server name set to c under
// mcp_servers, keeping every other key and comment. An existing server of
// that name is an error unless replace is set.
func AddToConfig(data []byte, name string, c ServerConfig, replace bool) ([]byte, error) {
	if err := c.Validate(name); err != nil {
		return nil, err
	}
	doc, root, err := configRoot(data)
	if err != nil {
		return nil, err
	}
	servers := mapValue(root, ConfigKey)
	if servers == nil {
		servers = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: ConfigKey}, servers)
	}
	if servers.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s in the config is not a map of servers", ConfigKey)
	}
	var val yaml.Node
	if err := val.Encode(serverYAML(c)); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(servers.Content); i += 2 {
		if servers.Content[i].Value == name {
			if !replace {
				return nil, fmt.Errorf("an MCP server named %q is already configured; remove it first (covey mcp remove %s)", name, name)
			}
			servers.Content[i+1] = &val
			return encodeDoc(doc)
		}
	}
	servers.Content = append(servers.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, &val)
	return encodeDoc(doc)
}

// RemoveFromConfig returns config.yaml content without server name; found
// is false when there was no such server.
func RemoveFromConfig(data []byte, name string) (out []byte, found bool, err error) {
	doc, root, err := configRoot(data)
	if err != nil {
		return nil, false, err
	}
	servers := mapValue(root, ConfigKey)
	if servers == nil || servers.Kind != yaml.MappingNode {
		return data, false, nil
	}
	for i := 0; i+1 < len(servers.Content); i += 2 {
		if servers.Content[i].Value == name {
			servers.Content = append(servers.Content[:i], servers.Content[i+2:]...)
			out, err := encodeDoc(doc)
			return out, true, err
		}
	}
	return data, false, nil
}

// serverYAML is the config shape written for a server: only the fields set.
func serverYAML(c ServerConfig) map[string]any {
	m := map[string]any{}
	if c.Type != "" {
		m["type"] = c.Type
	}
	if c.Command != "" {
		m["command"] = c.Command
	}
	if len(c.Args) > 0 {
		m["args"] = c.Args
	}
	if len(c.Env) > 0 {
		m["env"] = c.Env
	}
	if c.URL != "" {
		m["url"] = c.URL
	}
	if len(c.Headers) > 0 {
		m["headers"] = c.Headers
	}
	return m
}

func configRoot(data []byte) (*yaml.Node, *yaml.Node, error) {
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, nil, fmt.Errorf("read config: %w", err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, errors.New("the config is not a YAML map")
	}
	return &doc, doc.Content[0], nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func encodeDoc(doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// ParseEnvFlags turns --env K=V values into a map.
func ParseEnvFlags(vals []string) (map[string]string, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, v := range vals {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" || !validVarName(k) {
			return nil, fmt.Errorf("--env %q: write KEY=VALUE", v)
		}
		out[k] = val
	}
	return out, nil
}

// ParseHeaderFlags turns --header "K: V" values into a map.
func ParseHeaderFlags(vals []string) (map[string]string, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, v := range vals {
		k, val, ok := strings.Cut(v, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--header %q: write \"Name: value\"", v)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return out, nil
}

// WriteList prints statuses for `covey mcp list`: each server, its state
// (and why it failed, with its last stderr lines), and its tools.
func WriteList(w io.Writer, ss []Status, asJSON bool) error {
	if asJSON {
		if ss == nil {
			ss = []Status{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(ss)
	}
	if len(ss) == 0 {
		_, err := fmt.Fprintln(w, "No MCP servers are configured (.mcp.json, mcp_servers in config, --mcp-config).")
		return err
	}
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "%s  %s  (%s, %s from %s)\n", s.Name, s.State, s.Type, s.Scope, s.Source)
		switch s.State {
		case StateFailed:
			fmt.Fprintf(&b, "  error: %s\n", s.Err)
			tail := s.Stderr
			if len(tail) > 5 {
				tail = tail[len(tail)-5:]
			}
			for _, l := range tail {
				fmt.Fprintf(&b, "  stderr: %s\n", l)
			}
			if s.LogPath != "" {
				fmt.Fprintf(&b, "  log: %s\n", s.LogPath)
			}
		case StateUntrusted:
			b.WriteString("  not started: a project server you have not trusted yet (start covey here to answer, or pass the file with --mcp-config)\n")
		}
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
		for _, t := range s.Tools {
			desc := excerpt.Cut(excerpt.Line(t.Description), 100)
			fmt.Fprintf(&b, "  %s  %s\n", t.Name, desc)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
