package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"covey/tools/toolname"
)

// Prefix starts the name of every MCP tool: mcp__<server>__<tool>.
const Prefix = toolname.MCPPrefix

// maxNameLen is the longest function name OpenAI-compatible servers take
// (^[a-zA-Z0-9_-]{1,64}$).
const maxNameLen = 64

// sanitize replaces every character outside [A-Za-z0-9_-] with "_".
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// serverPart is a server's name as its tools' names carry it: sanitised,
// with runs of "_" made one and a "_" at its end made "-", so that the
// "__" after it is where it ends: a rule for server x (mcp__x, a prefix
// match on mcp__x__) cannot cover the tools of a server named x__y or x_.
func serverPart(server string) string {
	s := sanitize(server)
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	if strings.HasSuffix(s, "_") {
		s = strings.TrimSuffix(s, "_") + "-"
	}
	return s
}

// shortHash is 8 hex digits of SHA-256 of s.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// ToolName returns the name a server's tool is offered under:
// mcp__<server>__<tool>, characters outside [A-Za-z0-9_-] replaced, and cut
// to 64 characters with a short hash of the full name when longer.
func ToolName(server, tool string) string {
	full := Prefix + serverPart(server) + "__" + sanitize(tool)
	if len(full) <= maxNameLen {
		// Sanitising may make two names meet ("a.b", "a_b"); nameSet
		// resolves that when it happens, so names stay readable.
		return full
	}
	h := shortHash(server + "\x00" + tool)
	return full[:maxNameLen-len(h)-1] + "_" + h
}

// ServerPrefix returns the name prefix of every tool of server,
// "mcp__<server>__", as permission rules and agent definitions write it.
func ServerPrefix(server string) string { return Prefix + serverPart(server) + "__" }

// ServerOfName returns the sanitised server part of an MCP tool name
// written as mcp__srv or mcp__srv__tool, and whether name is one.
func ServerOfName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok || rest == "" {
		return "", "", false
	}
	server, tool, _ = strings.Cut(rest, "__")
	return server, tool, server != ""
}

// nameSet hands out unique tool names across servers, resolving collisions
// with a numeric suffix and recording each one for the user.
type nameSet struct {
	taken      map[string]string // name -> "server/tool" that holds it
	collisions []string
}

func newNameSet() *nameSet { return &nameSet{taken: map[string]string{}} }

// claim returns a unique name for server's tool.
func (n *nameSet) claim(server, tool string) string {
	want := ToolName(server, tool)
	who := server + "/" + tool
	name := want
	for i := 2; ; i++ {
		holder, taken := n.taken[name]
		if !taken || holder == who {
			break
		}
		suffix := fmt.Sprintf("_%d", i)
		base := want
		if len(base)+len(suffix) > maxNameLen {
			base = base[:maxNameLen-len(suffix)]
		}
		name = base + suffix
	}
	if name != want {
		n.collisions = append(n.collisions, fmt.Sprintf("%s/%s is offered as %s: %s was taken by %s", server, tool, name, want, n.taken[want]))
	}
	n.taken[name] = who
	return name
}
