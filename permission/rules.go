package permission

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"covey/tools/toolname"

	"github.com/bmatcuk/doublestar/v4"

	"covey/permission/shell"
)

// Rules are the allow and deny rules of the permissions config, such as
// bash(go test:*), edit_file(docs/**) or a bare bash. A Rules value is
// immutable once parsed and safe for concurrent use; a nil *Rules holds no
// rules.
//
// Rule syntax is TOOL or TOOL(PATTERN). TOOL is a covey tool name (bash,
// edit_file, write_file, read_file) or its Claude Code spelling (Bash,
// Edit, MultiEdit, Write, Read). A bare TOOL matches every call of it.
//
// For bash, PATTERN is a command: "go test:*" (or "go test *") matches a
// command whose words begin with go and test; without the wildcard the
// words must be exactly those; "*" matches every command. Words compare
// after quote removal, so spacing and quoting do not matter.
//
// For the file tools, PATTERN is a doublestar glob against the
// workspace-relative path; a pattern naming a folder also covers what lies
// beneath it. "~/" starts at the home directory and "//" at the file
// system root (both match absolute paths, e.g. reads outside the
// workspace); a single leading "/" means the workspace root, as in Claude
// Code. A deny rule on edit_file or write_file covers both, since either
// can replace a file's content; allow rules hold only for the tool named.
type Rules struct {
	allow []rule
	deny  []rule
}

// ruleKind says what a rule compares.
type ruleKind int

const (
	ruleAll         ruleKind = iota // every call of the tool
	ruleCmdExact                    // the command's words equal words
	ruleCmdPrefix                   // the command's words begin with words
	ruleCmdRaw                      // grants only: the whole command line, trimmed
	rulePath                        // the path matches glob
	rulePathLiteral                 // grants only: the path equals glob
	ruleDomain                      // web_fetch: the URL's host matches domain
	// ruleCmdWordPrefix is Claude Code's Bash(ls*): the command's words
	// begin with words, the last of them only by its start (ls, lsof).
	ruleCmdWordPrefix
)

// rule is one parsed permission rule.
type rule struct {
	src  string // as written, for messages
	tool string // covey tool name (for a server-wide MCP rule, as written)
	// toolPrefix, when set, makes the rule govern every tool whose name
	// starts with it (mcp__server__ for mcp__server and mcp__server__*).
	toolPrefix string
	// domain is a web_fetch rule's host name, lower case; a leading "*."
	// matches every subdomain.
	domain string
	kind   ruleKind
	words  []string // bash patterns
	raw    string   // ruleCmdRaw
	glob   string   // slash pattern: absolute when abs
	// realGlob is an absolute glob with symlinks of its fixed leading
	// folders resolved, so it matches the real paths a read resolves to.
	realGlob string
	abs      bool
	// outside marks a relative pattern that climbs out of the workspace
	// ("../shared/**"); other relative patterns never match outside it.
	outside bool
}

// ParseRules parses the allow and deny lists of the permissions config. The
// error names every bad rule and why it is bad.
func ParseRules(allow, deny []string) (*Rules, error) {
	var errs []error
	home := func() (string, error) { return os.UserHomeDir() }
	parse := func(list []string, key string) []rule {
		var out []rule
		for i, s := range list {
			r, err := parseRule(s, home)
			if err != nil {
				errs = append(errs, fmt.Errorf("permissions.%s[%d] %q: %w", key, i, s, err))
				continue
			}
			out = append(out, r)
		}
		return out
	}
	r := &Rules{allow: parse(allow, "allow"), deny: parse(deny, "deny")}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return r, nil
}

// Allow returns the allow rules as written.
func (r *Rules) Allow() []string { return r.sources(func(r *Rules) []rule { return r.allow }) }

// Deny returns the deny rules as written.
func (r *Rules) Deny() []string { return r.sources(func(r *Rules) []rule { return r.deny }) }

func (r *Rules) sources(list func(*Rules) []rule) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, x := range list(r) {
		out = append(out, x.src)
	}
	return out
}

func (r *Rules) allowList() []rule {
	if r == nil {
		return nil
	}
	return r.allow
}

func (r *Rules) denyList() []rule {
	if r == nil {
		return nil
	}
	return r.deny
}

// canonicalTool maps a rule's tool name, covey's or Claude Code's, to the
// tool it governs. Besides covey's built-in names it accepts MCP tool names
// (mcp__server__tool, mcp__server for every tool of a server, and
// mcp__server__* likewise), returning prefix for the server-wide forms. Any
// other name is an error, so a misspelt deny rule is never silently inert.
func canonicalTool(name string) (tool, prefix string, ok bool) {
	switch strings.ToLower(name) {
	case toolname.Bash:
		return toolname.Bash, "", true
	case toolname.EditFile, "edit", "multiedit":
		return toolname.EditFile, "", true
	case toolname.WriteFile, "write":
		return toolname.WriteFile, "", true
	case toolname.ReadFile, "read":
		return toolname.ReadFile, "", true
	case toolname.WebFetch, "webfetch":
		return toolname.WebFetch, "", true
	case toolname.WebSearch, "websearch":
		return toolname.WebSearch, "", true
	case toolname.LSP:
		return toolname.LSP, "", true
	case toolname.Task, "agent":
		return toolname.Task, "", true
	case toolname.SendMessage, "sendmessage":
		return toolname.SendMessage, "", true
	case toolname.StopAgent:
		return toolname.StopAgent, "", true
	case toolname.TodoWrite, "todowrite":
		return toolname.TodoWrite, "", true
	}
	if t, ok := toolname.FromClaude(name); ok && t != toolname.Grep && t != toolname.Glob && t != toolname.ListDir {
		// WebSearch, AskUserQuestion, ExitPlanMode, SlashCommand: the
		// names of covey's tools for them (matching nothing until such a
		// tool is offered). Grep, Glob and LS stay refused: read_file
		// rules govern them, and a deny naming them must not be inert.
		return t, "", true
	}
	if toolname.ClaudeOnly(name) {
		// A Claude Code tool covey has no counterpart for: the rule is
		// accepted and governs nothing.
		return strings.ToLower(name), "", true
	}
	rest, isMCP := strings.CutPrefix(name, "mcp__")
	if !isMCP || rest == "" || !toolNameChars(name) {
		return "", "", false
	}
	server, tool, hasTool := strings.Cut(rest, "__")
	switch {
	case server == "" || strings.Contains(server, "*"):
		return "", "", false
	case !hasTool || tool == "*":
		return name, "mcp__" + server + "__", true
	case tool == "" || strings.Contains(tool, "*"):
		return "", "", false
	}
	return name, "", true
}

// domainTool reports whether tool's rules name domains: web_fetch, and
// web_search (the search backend's host).
func domainTool(tool string) bool { return tool == toolname.WebFetch || tool == toolname.WebSearch }

// toolNameChars reports whether name holds only the characters
// OpenAI-compatible servers allow in a function name (and a * wildcard).
func toolNameChars(name string) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '*') {
			return false
		}
	}
	return true
}

// parseRule parses one rule; home is asked only when the rule uses ~.
func parseRule(s string, home func() (string, error)) (rule, error) {
	src := strings.TrimSpace(s)
	if src == "" {
		return rule{}, errors.New("empty rule")
	}
	name, spec, hasSpec := src, "", false
	if i := strings.IndexByte(src, '('); i >= 0 {
		if !strings.HasSuffix(src, ")") {
			return rule{}, errors.New("missing closing parenthesis")
		}
		name, spec, hasSpec = strings.TrimSpace(src[:i]), strings.TrimSpace(src[i+1:len(src)-1]), true
	} else if strings.ContainsAny(src, ") ") {
		return rule{}, errors.New("expected TOOL or TOOL(PATTERN)")
	}
	tool, prefix, ok := canonicalTool(name)
	if !ok {
		return rule{}, fmt.Errorf("unknown tool %q: rules name bash, edit_file, write_file, read_file (which also governs grep, glob and list_dir), "+
			"web_fetch, web_search, lsp, task, send_message, stop_agent, todo_write or an MCP tool (mcp__server, mcp__server__tool), "+
			"or the Claude Code spellings Bash, Edit, MultiEdit, Write, Read, WebFetch, Task", name)
	}
	r := rule{src: src, tool: tool, toolPrefix: prefix}
	if !hasSpec {
		return r, nil
	}
	if spec == "" {
		return rule{}, fmt.Errorf("empty pattern: write a bare %s to match every call", name)
	}
	switch {
	case tool == toolname.Bash:
		return parseBashRule(r, spec)
	case pathRuleTool(tool):
		return parsePathRule(r, spec, home)
	case domainTool(tool) && spec == "*":
		// Claude Code's WebFetch(*): every fetch, as the bare name.
		return r, nil
	case domainTool(tool):
		return parseDomainRule(r, spec)
	case toolname.ClaudeOnly(name):
		return r, nil
	}
	return rule{}, fmt.Errorf("%s takes no pattern: write the bare name to match every call", name)
}

// parseBashRule reads a command pattern: one simple command, optionally
// ending in :* (or " *") to match by prefix.
func parseBashRule(r rule, spec string) (rule, error) {
	if spec == "*" {
		r.kind = ruleAll
		return r, nil
	}
	r.kind = ruleCmdExact
	for _, suffix := range []string{":*", " *"} {
		if cut, ok := strings.CutSuffix(spec, suffix); ok {
			r.kind, spec = ruleCmdPrefix, strings.TrimSpace(cut)
			break
		}
	}
	if cut, ok := strings.CutSuffix(spec, "*"); ok && r.kind == ruleCmdExact && cut != "" && !unquotedStar(cut) {
		// Claude Code's Bash(ls*): ls, ls -la and lsof alike.
		r.kind, spec = ruleCmdWordPrefix, cut
	}
	if unquotedStar(spec) {
		return rule{}, errors.New("a wildcard is only understood at the end, as in bash(go test:*)")
	}
	words, err := shell.Words(spec)
	switch {
	case errors.Is(err, shell.ErrUnparseable):
		return rule{}, fmt.Errorf("pattern is not a command: %w", err)
	case err != nil:
		return rule{}, err
	}
	r.words = words
	return r, nil
}

// unquotedStar reports whether spec holds a * outside quotes: a wildcard
// this syntax does not support, rather than a literal star.
func unquotedStar(spec string) bool {
	var quote byte
	for i := 0; i < len(spec); i++ {
		switch c := spec[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\\':
			i++
		case c == '\'' || c == '"':
			quote = c
		case c == '*':
			return true
		}
	}
	return false
}

// parsePathRule reads a doublestar glob and anchors it: ~/ and // give
// absolute patterns, anything else is relative to the workspace root.
func parsePathRule(r rule, spec string, home func() (string, error)) (rule, error) {
	r.kind = rulePath
	pat := filepath.ToSlash(spec)
	switch {
	case pat == "~" || strings.HasPrefix(pat, "~/"):
		h, err := home()
		if err != nil {
			return rule{}, fmt.Errorf("cannot expand ~: %w", err)
		}
		pat, r.abs = path.Join(filepath.ToSlash(h), pat[1:]), true
	case strings.HasPrefix(pat, "//"):
		pat, r.abs = path.Clean(pat[1:]), true
	default:
		pat = path.Clean(strings.TrimPrefix(pat, "/"))
		r.outside = pat == ".." || strings.HasPrefix(pat, "../")
	}
	if !doublestar.ValidatePattern(pat) {
		return rule{}, fmt.Errorf("%q is not a valid glob", spec)
	}
	r.glob, r.realGlob = pat, pat
	if r.abs {
		base, rest := doublestar.SplitPattern(pat)
		if real := realPath(filepath.FromSlash(base)); real != filepath.FromSlash(base) {
			r.realGlob = path.Join(escapeGlob(filepath.ToSlash(real)), rest)
		}
	}
	return r, nil
}

// escapeGlob quotes the glob metacharacters of a literal path.
func escapeGlob(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]{}\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// realPath resolves the symlinks of the longest existing prefix of the
// absolute path p and appends the rest; p itself when nothing resolves. A
// dangling symlink on the way is followed to its target, where a write
// through it lands (a link e -> .env before .env exists, or docs/l ->
// ../src before src does).
func realPath(p string) string { return realPathHops(p, 0) }

// maxLinkHops bounds the dangling symlinks realPath follows (a loop).
const maxLinkHops = 40

func realPathHops(p string, hops int) string {
	var rest []string
	cur := filepath.Clean(p)
	for {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real
		}
		parent := filepath.Dir(cur)
		if target, err := os.Readlink(cur); err == nil && hops < maxLinkHops {
			if !filepath.IsAbs(target) {
				target = filepath.Join(realPathHops(parent, hops+1), target)
			}
			for i := len(rest) - 1; i >= 0; i-- {
				target = filepath.Join(target, rest[i])
			}
			return realPathHops(target, hops+1)
		}
		if parent == cur {
			return filepath.Clean(p)
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// pathForms is a path in the two forms rules compare: relative to the
// workspace root (slash-separated, "" when unknown, starting with "../"
// outside it) and absolute ("" when the root is unknown).
type pathForms struct{ rel, abs string }

// outsideRel reports whether a relative path climbs out of the root.
func outsideRel(rel string) bool { return rel == ".." || strings.HasPrefix(rel, "../") }

// matchPath reports whether the rule (a path rule of any tool) covers p.
func (r rule) matchPath(p pathForms) bool {
	switch r.kind {
	case ruleAll:
		return true
	case rulePathLiteral:
		if r.abs {
			return p.abs != "" && p.abs == r.glob
		}
		return p.rel != "" && p.rel == r.glob
	case rulePath:
		if r.abs {
			return p.abs != "" && (globMatch(r.glob, p.abs) || globMatch(r.realGlob, p.abs))
		}
		if p.rel == "" || (outsideRel(p.rel) && !r.outside) {
			return false
		}
		return globMatch(r.glob, p.rel)
	}
	return false
}

// globMatch matches name against pat, or against what lies beneath pat
// when pat names a folder ("docs" covers "docs/a.md").
func globMatch(pat, name string) bool {
	if ok, _ := doublestar.Match(pat, name); ok {
		return true
	}
	ok, _ := doublestar.Match(pat+"/**", name)
	return ok
}

// forTool reports whether the rule names the tool called name.
func (r rule) forTool(name string) bool {
	if r.toolPrefix != "" {
		return strings.HasPrefix(name, r.toolPrefix)
	}
	return r.tool == name
}

// pathRuleTool reports whether tool's rules are path globs.
func pathRuleTool(tool string) bool { return fileTool(tool) || tool == toolname.ReadFile }

// parseDomainRule reads web_fetch(domain:HOST) or web_fetch(domain:*.HOST).
func parseDomainRule(r rule, spec string) (rule, error) {
	host, ok := strings.CutPrefix(spec, "domain:")
	host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	bare := strings.TrimPrefix(host, "*.")
	if !ok || bare == "" || strings.ContainsAny(bare, "*/:@ ") {
		return rule{}, errors.New("a web_fetch rule names a host, as in web_fetch(domain:example.com) or web_fetch(domain:*.example.com)")
	}
	r.kind, r.domain = ruleDomain, host
	return r, nil
}

// matchDomain reports whether host (lower case, no port) satisfies the
// rule's domain.
func (r rule) matchDomain(host string) bool {
	if host == "" {
		return false
	}
	if sub, ok := strings.CutPrefix(r.domain, "*."); ok {
		return host == sub || strings.HasSuffix(host, "."+sub)
	}
	return host == r.domain
}

// fileTool reports whether tool writes files.
func fileTool(tool string) bool { return tool == toolname.EditFile || tool == toolname.WriteFile }

// governs reports whether rule r, in a list of kind deny or not, applies to
// calls of tool: a deny on either file-writing tool holds for both.
func (r rule) governs(tool string, deny bool) bool {
	return r.forTool(tool) || (deny && fileTool(r.tool) && fileTool(tool))
}

// matchWords reports whether a command's words satisfy a bash rule. A
// command given more words when it runs (openArgs: xargs) satisfies only
// a prefix rule.
func (r rule) matchWords(args []string, openArgs bool) bool {
	switch r.kind {
	case ruleAll:
		return true
	case ruleCmdExact:
		return !openArgs && slices.Equal(args, r.words)
	case ruleCmdPrefix:
		return len(args) >= len(r.words) && slices.Equal(args[:len(r.words)], r.words)
	case ruleCmdWordPrefix:
		n := len(r.words)
		return n > 0 && len(args) >= n && slices.Equal(args[:n-1], r.words[:n-1]) && strings.HasPrefix(args[n-1], r.words[n-1])
	}
	return false
}

// deniedPath returns the first deny rule covering a file call of tool.
func deniedPath(deny []rule, tool string, p pathForms) (rule, bool) {
	for _, r := range deny {
		if r.governs(tool, true) && r.matchPath(p) {
			return r, true
		}
	}
	return rule{}, false
}

// allowedPath reports whether an allow rule (or grant) covers the call.
func allowedPath(sets [][]rule, tool string, p pathForms) bool {
	for _, set := range sets {
		for _, r := range set {
			if r.governs(tool, false) && r.matchPath(p) {
				return true
			}
		}
	}
	return false
}
