package agentdefs

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

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
	doc, p := decodeYAML(fm)
	if p != nil {
		return fail(p)
	}
	fp := &fileParser{path: path, offset: fm.offset()}
	d := Definition{Source: path, Model: "inherit", Prompt: strings.TrimSpace(fm.body)}
	nameLine, err := fp.fields(doc, fm, &d)
	if err != nil {
		return Definition{}, 0, nil, err
	}
	if d.Prompt == "" {
		fp.warn(fm.close, "the body after the frontmatter is empty, so this agent has no system prompt")
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

func (p *fileParser) warn(line int, format string, a ...any) {
	p.warnings = append(p.warnings, Problem{Path: p.path, Line: line, Message: fmt.Sprintf(format, a...), Warning: true})
}

// canonicalKey maps every accepted spelling of a key to covey's; Claude's
// camelCase forms are accepted in any folder.
func canonicalKey(k string) string {
	switch k {
	case "disallowedTools":
		return "disallowed_tools"
	case "maxTurns":
		return "max_turns"
	case "allowedPaths":
		return "allowed_paths"
	}
	return k
}

// claudeOnlyKeys are Claude Code settings covey has no equivalent for.
func isClaudeOnlyKey(k string) bool {
	switch k {
	case "permissionMode", "skills", "mcpServers", "hooks", "memory", "background":
		return true
	}
	return false
}

const knownKeys = "name, description, tools, disallowed_tools, model, provider, max_turns, timeout, allowed_paths, isolation, color"

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
	seen := map[string]int{}
	nameLine := 0
	var haveName, haveDesc bool
	if root != nil {
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := resolve(root.Content[i]), resolve(root.Content[i+1])
			if k == nil || v == nil || k.Kind != yaml.ScalarNode {
				return 0, p.fail(root.Content[i], "frontmatter keys must be plain words")
			}
			key := canonicalKey(k.Value)
			if prev, dup := seen[key]; dup {
				return 0, p.fail(k, "%s is given twice (first at line %d)", k.Value, prev)
			}
			seen[key] = p.line(k)
			var err error
			switch key {
			case "name":
				d.Name, err = p.str(k.Value, v)
				haveName, nameLine = d.Name != "", p.line(v)
				if err == nil && haveName {
					if vErr := ValidName(d.Name); vErr != nil {
						err = p.fail(v, "%v", vErr)
					}
				}
			case "description":
				d.Description, err = p.str(k.Value, v)
				d.Description = strings.TrimSpace(d.Description)
				haveDesc = d.Description != ""
			case "tools":
				d.Tools, err = p.tools(k.Value, v)
			case "disallowed_tools":
				d.DisallowedTools, err = p.tools(k.Value, v)
			case "model":
				d.Model, err = p.str(k.Value, v)
				if d.Model = strings.TrimSpace(d.Model); d.Model == "" {
					d.Model = "inherit"
				}
			case "provider":
				d.Provider, err = p.str(k.Value, v)
			case "color":
				d.Color, err = p.str(k.Value, v)
			case "isolation":
				d.Isolation, err = p.str(k.Value, v)
				d.Isolation = strings.ToLower(strings.TrimSpace(d.Isolation))
				if err == nil && d.Isolation != "" && d.Isolation != IsolationWorktree {
					err = p.fail(v, "isolation must be %q (or left out), not %q", IsolationWorktree, d.Isolation)
				}
			case "max_turns":
				d.MaxTurns, err = p.count(k.Value, v)
			case "timeout":
				d.Timeout, err = p.duration(k.Value, v)
			case "allowed_paths":
				d.AllowedPaths, err = p.globs(k.Value, v)
			default:
				if isClaudeOnlyKey(k.Value) {
					p.warn(p.line(k), "key %q is a Claude Code setting covey does not support; ignored", k.Value)
				} else {
					p.warn(p.line(k), "unknown key %q ignored (known keys: %s)", k.Value, knownKeys)
				}
			}
			if err != nil {
				return 0, err
			}
		}
	}
	switch {
	case !haveName:
		return 0, Problem{Path: p.path, Line: fm.open, Message: "missing required key name (the agent's name, e.g. name: code-reviewer)"}
	case !haveDesc:
		return 0, Problem{Path: p.path, Line: fm.open, Message: "missing required key description (when the parent should use this agent)"}
	}
	return nameLine, nil
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

// tools decodes a tool list, written as a YAML list or Claude's comma
// string, and maps each name to covey's. An omitted, empty or "*" value
// means no allowlist (nil); an empty list means no tools.
func (p *fileParser) tools(key string, v *yaml.Node) ([]string, error) {
	var refs []toolRef
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" || strings.TrimSpace(v.Value) == "" || strings.TrimSpace(v.Value) == "*" {
			return nil, nil
		}
		for _, s := range splitToolString(v.Value) {
			refs = append(refs, toolRef{raw: s, line: p.line(v)})
		}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			item = resolve(item)
			if item == nil || item.Kind != yaml.ScalarNode {
				return nil, p.fail(item, "every entry of %s must be a tool name", key)
			}
			if strings.TrimSpace(item.Value) == "*" {
				return nil, nil
			}
			for _, s := range splitToolString(item.Value) {
				refs = append(refs, toolRef{raw: s, line: p.line(item)})
			}
		}
	default:
		return nil, p.fail(v, "%s must be a list of tool names or a comma-separated string, but it is %s", key, kindName(v))
	}
	out := []string{}
	for _, r := range refs {
		m := mapToolName(r.raw)
		if m.note != "" {
			p.warn(r.line, "%s: %s", key, m.note)
		}
		if m.name != "" && !slices.Contains(out, m.name) {
			out = append(out, m.name)
		}
	}
	return out, nil
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
