package agentdefs

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"covey/hooks"
	"covey/tools/toolname"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// maxFileSize bounds a definition file; a system prompt larger than this is
// a mistake (or not a definition), and parsing it would waste memory.
const maxFileSize = 1 << 20

// Parse reads one definition file: YAML frontmatter between '---' fences,
// then the markdown body, which becomes the system prompt. Both covey's keys
// and Claude Code's are understood, and Claude's tool names are mapped to
// covey's. The returned problems are warnings (unknown keys, dropped tools);
// the definition is usable. A non-nil error is a Problem (use errors.As)
// naming the line at fault, and the definition must not be used.
//
// Claude Code accepts descriptions such as "Examples: Context: ..." that are
// not valid YAML; Parse reads those too, by quoting such values on a retry.
func Parse(path string, data []byte) (Definition, []Problem, error) {
	d, _, warnings, err := parse(path, data)
	return d, warnings, err
}

// parse is Parse that also returns the file line of the name key, for
// pointing at duplicates.
func parse(path string, data []byte) (Definition, int, []Problem, error) {
	fail := func(p *Problem) (Definition, int, []Problem, error) {
		p.Path = path
		return Definition{}, 0, nil, *p
	}
	if len(data) > maxFileSize {
		return fail(&Problem{Message: fmt.Sprintf("file is %d bytes; agent files are limited to %d", len(data), maxFileSize)})
	}
	fm, p := splitFrontmatter(data)
	if p != nil {
		return fail(p)
	}
	doc, warn, p := decodeYAML(fm)
	if p != nil {
		return fail(p)
	}
	fp := &fileParser{path: path, offset: fm.offset()}
	if fm.longFence > 0 {
		fp.warn(fm.longFence, "", "a fence of more than three dashes; read as '---', as Claude Code does")
	}
	if warn != nil {
		fp.warn(warn.Line, warn.Field, "%s", warn.Message)
	}
	d := Definition{Source: path, Model: "inherit", Prompt: strings.TrimSpace(fm.body)}
	nameLine, err := fp.fields(doc, fm, &d)
	if err != nil {
		return Definition{}, 0, nil, err
	}
	if d.Prompt == "" {
		fp.warn(fm.close, "", "the body after the frontmatter is empty, so this agent has no system prompt")
	}
	return d.withDerived(), nameLine, fp.warnings, nil
}

// fileParser decodes the frontmatter's keys of one file, collecting
// warnings and turning node lines into file lines.
type fileParser struct {
	path     string
	offset   int
	warnings []Problem
}

func (p *fileParser) line(n *yaml.Node) int {
	if n == nil || n.Line <= 0 {
		return 0
	}
	return n.Line + p.offset
}

func (p *fileParser) fail(n *yaml.Node, format string, a ...any) error {
	return Problem{Path: p.path, Line: p.line(n), Message: fmt.Sprintf(format, a...)}
}

func (p *fileParser) warn(line int, field, format string, a ...any) {
	p.warnings = append(p.warnings, Problem{Path: p.path, Line: line, Field: field, Message: fmt.Sprintf(format, a...), Warning: true})
}

// optional turns the error of a field the definition can do without into a
// warning saying the field is ignored, so the file still loads.
func (p *fileParser) optional(field string, err error) {
	if err == nil {
		return
	}
	var pr Problem
	if !errors.As(err, &pr) {
		pr = Problem{Path: p.path, Message: err.Error()}
	}
	pr.Field, pr.Warning = field, true
	pr.Message += "; ignored"
	p.warnings = append(p.warnings, pr)
}

// canonicalKey maps every accepted spelling of a key to covey's; Claude's
// camelCase forms are accepted in any folder.
func canonicalKey(k string) string {
	switch k {
	case "disallowedTools":
		return "disallowed_tools"
	case "maxTurns":
		return "max_turns"
	case "maxTokens":
		return "max_tokens"
	case "maxCost":
		return "max_cost"
	case "allowedPaths":
		return "allowed_paths"
	}
	return k
}

const knownKeys = "name, description, tools, disallowed_tools, model, provider, max_turns, max_tokens, max_cost, timeout, allowed_paths, color, " +
	"permissionMode, isolation, background, mcpServers, hooks, skills"

// fields fills d from the frontmatter document and returns the name's line.
func (p *fileParser) fields(doc *yaml.Node, fm frontmatter, d *Definition) (int, error) {
	var root *yaml.Node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = resolve(doc.Content[0])
	}
	if root != nil && root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		root = nil // only comments between the fences
	}
	if root != nil && root.Kind != yaml.MappingNode {
		return 0, p.fail(root, "the frontmatter must be \"key: value\" lines, but it is %s", kindName(root))
	}
	nameLine := 0
	var haveName, haveDesc bool
	if root != nil {
		// A key given twice counts once, the last time, as in Claude Code.
		last := map[string]int{}
		for i := 0; i+1 < len(root.Content); i += 2 {
			k := resolve(root.Content[i])
			if k == nil || k.Kind != yaml.ScalarNode {
				return 0, p.fail(root.Content[i], "frontmatter keys must be plain words")
			}
			last[canonicalKey(k.Value)] = i
		}
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := resolve(root.Content[i]), resolve(root.Content[i+1])
			if v == nil {
				return 0, p.fail(root.Content[i+1], "%s has no value", k.Value)
			}
			key := canonicalKey(k.Value)
			if j := last[key]; j != i {
				p.warn(p.line(k), k.Value, "%s is given again at line %d; the last one is used, as Claude Code does", k.Value, p.line(root.Content[j]))
				continue
			}
			var err error
			switch key {
			case "name":
				d.Name, err = p.str(k.Value, v)
				d.Name = strings.TrimSpace(d.Name)
				haveName, nameLine = d.Name != "", p.line(v)
				if err == nil && haveName {
					if vErr := ValidName(d.Name); vErr != nil {
						err = p.fail(v, "%v", vErr)
					} else if n := utf8.RuneCountInString(d.Name); n > maxNameLen {
						p.warn(p.line(v), "name", "name is %d characters long; names over %d are hard to type and read", n, maxNameLen)
					}
				}
			case "description":
				d.Description, err = p.str(k.Value, v)
				d.Description = strings.TrimSpace(d.Description)
				haveDesc = d.Description != ""
			case "tools":
				var tl toolList
				tl, err = p.tools(k.Value, v, true)
				d.Tools, d.ToolRules, d.SpawnTypes = tl.names, tl.rules, tl.spawn
			case "disallowed_tools":
				var tl toolList
				tl, err = p.tools(k.Value, v, false)
				d.DisallowedTools, d.DenyRules = tl.names, tl.rules
			case "model":
				m, mErr := p.str(k.Value, v)
				p.optional(k.Value, mErr)
				if m = strings.TrimSpace(m); mErr == nil && m != "" {
					d.Model = m
				}
			case "provider":
				pr, pErr := p.str(k.Value, v)
				p.optional(k.Value, pErr)
				d.Provider = strings.TrimSpace(pr)
			case "color":
				d.Color = p.color(k.Value, v)
			case "isolation":
				d.Isolation, err = p.str(k.Value, v)
				d.Isolation = strings.ToLower(strings.TrimSpace(d.Isolation))
				if err == nil && d.Isolation != "" && d.Isolation != IsolationWorktree {
					err = p.fail(v, "isolation must be %q (or left out), not %q", IsolationWorktree, d.Isolation)
				}
			case "max_turns":
				n, cErr := p.count(k.Value, v)
				p.optional(k.Value, cErr)
				d.MaxTurns = n
			case "max_tokens":
				n, cErr := p.count(k.Value, v)
				p.optional(k.Value, cErr)
				d.MaxTokens = n
			case "max_cost":
				c, cErr := p.amount(k.Value, v)
				p.optional(k.Value, cErr)
				d.MaxCost = c
			case "timeout":
				t, tErr := p.duration(k.Value, v)
				p.optional(k.Value, tErr)
				d.Timeout = t
			case "allowed_paths":
				d.AllowedPaths, err = p.globs(k.Value, v)
			default:
				p.claudeKey(k, v, d)
			}
			if err != nil {
				return 0, err
			}
		}
	}
	switch {
	case !haveName:
		return 0, Problem{Path: p.path, Line: fm.open, Field: "name", Message: "missing required key name (the agent's name, e.g. name: code-reviewer)"}
	case !haveDesc:
		return 0, Problem{Path: p.path, Line: fm.open, Field: "description", Message: "missing required key description (when the parent should use this agent)"}
	}
	return nameLine, nil
}

// claudeKey reads Claude Code's keys that have no covey spelling, and
// warns about keys nobody knows.
func (p *fileParser) claudeKey(k, v *yaml.Node, d *Definition) {
	line := p.line(k)
	switch k.Value {
	case "permissionMode":
		m, err := p.str(k.Value, v)
		if p.optional(k.Value, err); err != nil {
			return
		}
		m = strings.TrimSpace(m)
		for _, known := range PermissionModes() {
			if strings.EqualFold(m, known) {
				d.PermissionMode = known
				return
			}
		}
		p.warn(line, k.Value, "permissionMode %q is not one of %s; ignored (the session's mode applies)", m, strings.Join(PermissionModes(), ", "))
	case "background":
		b, err := p.boolean(k.Value, v)
		p.optional(k.Value, err)
		d.Background = b
	case "mcpServers":
		d.MCPServers = p.servers(k.Value, v)
	case "hooks":
		d.Hooks = p.hooks(k.Value, v)
	case "skills":
		d.Skills = p.servers(k.Value, v)
	case "memory", "effort":
		p.warn(line, k.Value, "%s is not supported yet; ignored", k.Value)
	default:
		p.warn(line, k.Value, "unknown key %q ignored (known keys: %s)", k.Value, knownKeys)
	}
}

// hooks reads an agent's own hooks (Claude Code's shape); what does not
// read or validate is ignored with a warning naming it.
func (p *fileParser) hooks(key string, v *yaml.Node) hooks.Config {
	var c hooks.Config
	if err := v.Decode(&c); err != nil {
		p.warn(p.line(v), key, "hooks must map event names to matcher groups ({matcher, hooks: [{type: command, command}]}): %s; ignored", plainErr(err))
		return nil
	}
	if err := c.Validate(); err != nil {
		p.warn(p.line(v), key, "hooks: %s; those entries are ignored", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return c
}

// plainErr is a YAML decoding error on one line, without the package's
// prefix.
func plainErr(err error) string {
	return strings.ReplaceAll(strings.TrimPrefix(err.Error(), "yaml: "), "\n", "; ")
}

// color reads a colour of Claude Code's palette; anything else is ignored
// with a warning.
func (p *fileParser) color(key string, v *yaml.Node) string {
	c, err := p.str(key, v)
	if p.optional(key, err); err != nil {
		return ""
	}
	c = strings.ToLower(strings.TrimSpace(c))
	if c == "" || slices.Contains(Colors(), c) {
		return c
	}
	p.warn(p.line(v), key, "color %q is not one of %s; ignored", c, strings.Join(Colors(), ", "))
	return ""
}

// boolean reads true or false (YAML's or as text).
func (p *fileParser) boolean(key string, v *yaml.Node) (bool, error) {
	if v.Kind != yaml.ScalarNode {
		return false, p.fail(v, "%s must be true or false, but it is %s", key, kindName(v))
	}
	switch strings.ToLower(strings.TrimSpace(v.Value)) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off", "", "~", "null":
		return false, nil
	}
	return false, p.fail(v, "%s must be true or false, got %q", key, v.Value)
}

// servers reads mcpServers: server names, as one string or a list. Inline
// server definitions (mappings) are not supported and are warned about.
func (p *fileParser) servers(key string, v *yaml.Node) []string {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil
		}
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		items = v.Content
	default:
		p.warn(p.line(v), key, "%s must be a list of server names, but it is %s; ignored", key, kindName(v))
		return nil
	}
	out := []string{}
	for _, it := range items {
		it = resolve(it)
		if it == nil || it.Kind != yaml.ScalarNode {
			p.warn(p.line(it), key, "inline MCP server definitions in %s are not supported yet (configure the server in .mcp.json); ignored", key)
			continue
		}
		for _, s := range strings.Split(it.Value, ",") {
			if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// str decodes a text value. Numbers and booleans are read as written, since
// "model: 4" surely means the text "4"; lists and mappings are errors.
func (p *fileParser) str(key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", p.fail(v, "%s must be text, but it is %s", key, kindName(v))
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

// count decodes a non-negative whole number; a quoted number is accepted.
func (p *fileParser) count(key string, v *yaml.Node) (int, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, p.fail(v, "%s must be a whole number, but it is %s", key, kindName(v))
	}
	if v.Tag == "!!null" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v.Value))
	if err != nil && v.Tag == "!!int" {
		// YAML spellings such as 0x1F or 1_000.
		err = v.Decode(&n)
	}
	if err != nil {
		return 0, p.fail(v, "%s must be a whole number, got %q", key, v.Value)
	}
	if n < 0 {
		return 0, p.fail(v, "%s must not be negative, got %d", key, n)
	}
	return n, nil
}

// amount decodes a non-negative number such as a cost budget (0.5).
func (p *fileParser) amount(key string, v *yaml.Node) (float64, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, p.fail(v, "%s must be a number, but it is %s", key, kindName(v))
	}
	if v.Tag == "!!null" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
	if err != nil {
		return 0, p.fail(v, "%s must be a number, got %q", key, v.Value)
	}
	if f < 0 {
		return 0, p.fail(v, "%s must not be negative, got %v", key, f)
	}
	return f, nil
}

// duration decodes a Go duration ("90s", "5m") or a number of seconds.
func (p *fileParser) duration(key string, v *yaml.Node) (time.Duration, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, p.fail(v, "%s must be a duration like \"90s\" or a number of seconds, but it is %s", key, kindName(v))
	}
	s := strings.TrimSpace(v.Value)
	if v.Tag == "!!null" || s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, numErr := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if numErr != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
			return 0, p.fail(v, "%s must be a duration like \"90s\" or \"5m\", or a number of seconds; got %q", key, v.Value)
		}
		if math.Abs(secs) > float64(math.MaxInt64)/float64(time.Second) {
			return 0, p.fail(v, "%s %q is too large", key, v.Value)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d < 0 {
		return 0, p.fail(v, "%s must not be negative, got %q", key, v.Value)
	}
	return d, nil
}

// toolList is a decoded tools (or disallowedTools) value.
type toolList struct {
	names []string   // covey names; nil means no allowlist
	rules []ToolRule // entries with a pattern, such as Bash(git diff:*)
	spawn []string   // from Agent(a, b); nil means any type
}

// toolRefs reads the entries of a tool list. A value that decides the
// list by itself returns it as decided: "*" (no allowlist), or an empty
// value (no tools in an allowlist, nothing denied in a denylist).
func (p *fileParser) toolRefs(key string, v *yaml.Node, allow bool) (refs []toolRef, decided *toolList, err error) {
	switch v.Kind {
	case yaml.ScalarNode:
		s := strings.TrimSpace(v.Value)
		if s == "*" {
			return nil, &toolList{}, nil
		}
		if v.Tag == "!!null" || s == "" {
			if !allow {
				return nil, &toolList{}, nil
			}
			return nil, &toolList{names: []string{}}, nil
		}
		for _, s := range splitToolString(v.Value) {
			refs = append(refs, toolRef{raw: s, line: p.line(v)})
		}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			item = resolve(item)
			if item == nil || item.Kind != yaml.ScalarNode {
				return nil, nil, p.fail(item, "every entry of %s must be a tool name", key)
			}
			if strings.TrimSpace(item.Value) == "*" {
				return nil, &toolList{}, nil
			}
			for _, s := range splitToolString(item.Value) {
				refs = append(refs, toolRef{raw: s, line: p.line(item)})
			}
		}
	default:
		return nil, nil, p.fail(v, "%s must be a list of tool names or a comma-separated string, but it is %s", key, kindName(v))
	}
	return refs, nil, nil
}

// tools decodes a tool list, written as a YAML list or Claude's comma (or
// blank) separated string, and maps each name to covey's. An omitted or "*"
// value means no allowlist (nil); a present but empty value or an empty
// list means no tools, as in Claude Code. For an allowlist (allow), entries
// with a pattern become rules scoped to the agent; tools covey lacks are
// named in one warning, and a list left empty by them is an error, since
// an agent its author gave tools would otherwise run with none.
func (p *fileParser) tools(key string, v *yaml.Node, allow bool) (toolList, error) {
	refs, decided, err := p.toolRefs(key, v, allow)
	if err != nil || decided != nil {
		if decided == nil {
			decided = &toolList{}
		}
		return *decided, err
	}
	out := toolList{names: []string{}}
	var unknown []string
	unknownLine := 0
	spawnAny := false
	bare := map[string]bool{}
	var companions []toolRef
	for _, r := range refs {
		if shellCompanion(r.raw) {
			// Claude Code's BashOutput and KillShell come with bash here.
			companions = append(companions, r)
			continue
		}
		m := mapToolName(r.raw)
		switch {
		case m.name == "":
			unknown = append(unknown, r.raw)
			if unknownLine == 0 {
				unknownLine = r.line
			}
			continue
		case m.name == toolname.Task && m.hasArgs && allow:
			types := splitTypes(m.args)
			if len(types) == 0 {
				p.warn(r.line, key, "%q names no agent type, so this agent may start none; task dropped", r.raw)
				continue
			}
			for _, t := range types {
				if !slices.Contains(out.spawn, t) {
					out.spawn = append(out.spawn, t)
				}
			}
		case m.hasArgs && allow:
			if err := checkRule(r.raw); err != nil {
				p.warn(r.line, key, "%q dropped (so the agent does not get more than it asks): %v", r.raw, err)
				continue
			}
			out.rules = append(out.rules, ToolRule{Tool: m.name, Pattern: m.args, Source: r.raw})
		case m.hasArgs:
			// A pattern in a denylist denies that part of the tool; one
			// covey cannot read denies all of it rather than less.
			if err := checkRule(r.raw); err != nil {
				p.warn(r.line, key, "%q denies all of %s, since covey cannot read the pattern: %v", r.raw, m.name, err)
				bare[m.name] = true
				break
			}
			out.rules = append(out.rules, ToolRule{Tool: m.name, Pattern: m.args, Source: r.raw})
			continue
		default:
			bare[m.name] = true
			if m.name == toolname.Task {
				spawnAny = true
			}
		}
		if !slices.Contains(out.names, m.name) {
			out.names = append(out.names, m.name)
		}
	}
	if spawnAny {
		out.spawn = nil
	}
	// A tool also listed without a pattern is not limited by its patterns
	// (in a denylist: denied whole, which covers them).
	kept := out.rules[:0]
	for _, r := range out.rules {
		if bare[r.Tool] {
			p.warn(p.line(v), key, "%q has no effect, since %s is also listed without a pattern", r.Source, r.Tool)
			continue
		}
		kept = append(kept, r)
	}
	out.rules = kept
	if len(out.rules) == 0 {
		out.rules = nil
	}
	if allow && !slices.Contains(out.names, toolname.Bash) {
		for _, r := range companions {
			unknown = append(unknown, r.raw+" (it comes with Bash)")
			if unknownLine == 0 || r.line < unknownLine {
				unknownLine = r.line
			}
		}
	}
	if len(unknown) > 0 {
		if allow && len(out.names) == 0 {
			return toolList{}, Problem{Path: p.path, Line: unknownLine, Field: key,
				Message: fmt.Sprintf("covey has none of %s, so this agent would have no tools at all", strings.Join(unknown, ", "))}
		}
		p.warn(unknownLine, key, "covey has no %s; %s", strings.Join(unknown, ", "), map[bool]string{true: "dropped", false: "ignored"}[allow])
		if !slices.ContainsFunc(unknown, func(u string) bool { return !claudeTool(u) }) {
			// Claude Code's own tools, which covey lacks (yet): a valid
			// file there, so no warning here.
			p.warnings[len(p.warnings)-1].Quiet = true
		}
	}
	if allow && len(out.names) == 0 && len(refs) > 0 {
		return toolList{}, Problem{Path: p.path, Line: p.line(v), Field: key,
			Message: fmt.Sprintf("every entry was dropped, so this agent would have no tools at all (write \"%s: []\" to mean no tools)", key)}
	}
	return out, nil
}

// splitTypes splits Agent(a, b)'s arguments at commas; names may hold
// blanks ("Code Reviewer").
func splitTypes(args string) []string {
	var out []string
	for _, s := range strings.Split(args, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// globs decodes allowed_paths: one glob or a list of them. A single string
// is not split at commas because globs use them ("*.{go,md}").
func (p *fileParser) globs(key string, v *yaml.Node) ([]string, error) {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		items = v.Content
	default:
		return nil, p.fail(v, "%s must be a glob or a list of globs, but it is %s", key, kindName(v))
	}
	var out []string
	for _, item := range items {
		item = resolve(item)
		if item == nil || item.Kind != yaml.ScalarNode {
			return nil, p.fail(item, "every entry of %s must be a glob", key)
		}
		g := strings.TrimSpace(item.Value)
		if g == "" {
			continue
		}
		if !doublestar.ValidatePattern(g) {
			return nil, p.fail(item, "%s entry %q is not a valid glob", key, g)
		}
		out = append(out, g)
	}
	return out, nil
}
