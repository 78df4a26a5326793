package agentdefs

import (
	"errors"
	"strings"

	"gopkg.in/yaml.v3"
)

// Frontmatter is the decoded frontmatter of a markdown file that is not an
// agent definition (a slash command, a skill): the same tolerant reading
// of Claude Code's YAML as agent files get, and the same tool lists.
type Frontmatter struct {
	// Fields are the top-level keys in file order; a key given twice is
	// kept once, the last time (as Claude Code does).
	Fields []FrontmatterField
	// Body is everything after the closing fence (the whole file when it
	// has no frontmatter).
	Body string
	// Warnings are problems the file still loads despite.
	Warnings []Problem

	p *fileParser
}

// FrontmatterField is one top-level key and its value.
type FrontmatterField struct {
	Key  string
	Line int
	v    *yaml.Node
}

// ParseFrontmatter splits data at its '---' fences and decodes the YAML
// between them. A file whose first line is not a fence has no frontmatter
// (Claude Code's commands need none): it is all body. The error is a
// Problem naming the line at fault.
func ParseFrontmatter(path string, data []byte) (Frontmatter, error) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	if first, _, _ := strings.Cut(strings.TrimLeft(text, " \t\r\n"), "\n"); !strings.HasPrefix(strings.TrimSpace(first), "---") {
		return Frontmatter{Body: text}, nil
	}
	fm, p := splitFrontmatter(data)
	if p != nil {
		p.Path = path
		return Frontmatter{}, *p
	}
	doc, warn, p := decodeYAML(fm)
	if p != nil {
		p.Path = path
		return Frontmatter{}, *p
	}
	fp := &fileParser{path: path, offset: fm.offset()}
	if warn != nil {
		fp.warn(warn.Line, warn.Field, "%s", warn.Message)
	}
	out := Frontmatter{Body: fm.body, p: fp}
	var root *yaml.Node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = resolve(doc.Content[0])
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		out.Warnings = fp.warnings
		return out, nil
	}
	if root.Kind != yaml.MappingNode {
		return Frontmatter{}, fp.fail(root, "the frontmatter must be \"key: value\" lines, but it is %s", kindName(root))
	}
	index := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := resolve(root.Content[i]), resolve(root.Content[i+1])
		if k == nil || k.Kind != yaml.ScalarNode {
			return Frontmatter{}, fp.fail(root.Content[i], "frontmatter keys must be plain words")
		}
		if v == nil {
			return Frontmatter{}, fp.fail(root.Content[i+1], "%s has no value", k.Value)
		}
		f := FrontmatterField{Key: k.Value, Line: fp.line(k), v: v}
		if j, ok := index[k.Value]; ok {
			fp.warn(out.Fields[j].Line, k.Value, "%s is given again at line %d; the last one is used, as Claude Code does", k.Value, f.Line)
			out.Fields[j] = f
			continue
		}
		index[k.Value] = len(out.Fields)
		out.Fields = append(out.Fields, f)
	}
	out.Warnings = fp.warnings
	return out, nil
}

// Text reads f's value as text. A list is joined with blanks, since
// Claude Code's argument-hint: [file] [line] is YAML for a list but is
// meant as the text.
func (fm *Frontmatter) Text(f FrontmatterField) (string, error) {
	if f.v.Kind == yaml.SequenceNode {
		var parts []string
		for _, it := range f.v.Content {
			it = resolve(it)
			if it == nil || it.Kind != yaml.ScalarNode {
				return "", fm.p.fail(f.v, "%s must be text, but it is %s", f.Key, kindName(f.v))
			}
			parts = append(parts, "["+it.Value+"]")
		}
		return strings.Join(parts, " "), nil
	}
	s, err := fm.p.str(f.Key, f.v)
	return strings.TrimSpace(s), err
}

// AllowedTools is a tool list of a command or skill file (allowed-tools),
// read as an agent file's tools are: Claude Code's names mapped to
// covey's, and entries with a pattern (Bash(git status:*)) kept as rules
// that limit the tool to what they match.
type AllowedTools struct {
	// Names are covey tool names; nil means the file names no list.
	Names []string
	// Rules are the entries with a pattern.
	Rules []ToolRule
}

// Sources are the rules as written, the allow patterns
// permission.Policy.Scoped takes.
func (a AllowedTools) Sources() []string { return sources(a.Rules) }

// Tools reads f's value as a tool list. Problems with entries are
// warnings (added to the Frontmatter's); a list no entry of which covey
// knows is an error.
func (fm *Frontmatter) Tools(f FrontmatterField) (AllowedTools, error) {
	tl, err := fm.p.tools(f.Key, f.v, true)
	fm.Warnings = fm.p.warnings
	if err != nil {
		return AllowedTools{}, err
	}
	return AllowedTools{Names: tl.names, Rules: tl.rules}, nil
}

// ToolsAsClaude reads f's value as a tool list the way Claude Code reads a
// command's or a skill's allowed-tools: an entry covey cannot use (a tool
// it lacks, a pattern it cannot read) is left out with a quiet note, not
// a warning, and a list left with no entry covey knows limits nothing
// (Names nil), since Claude Code loads the file and the names it cannot
// match simply never apply.
func (fm *Frontmatter) ToolsAsClaude(f FrontmatterField) AllowedTools {
	before := len(fm.p.warnings)
	tl, err := fm.p.tools(f.Key, f.v, true)
	for i := before; i < len(fm.p.warnings); i++ {
		fm.p.warnings[i].Quiet = true
	}
	if err != nil {
		msg := err.Error()
		var pr Problem
		if errors.As(err, &pr) {
			msg = pr.Message
		}
		fm.p.warnings = append(fm.p.warnings, Problem{Path: fm.p.path, Line: f.Line, Field: f.Key, Warning: true, Quiet: true,
			Message: msg + "; the list limits nothing"})
		fm.Warnings = fm.p.warnings
		return AllowedTools{}
	}
	fm.Warnings = fm.p.warnings
	return AllowedTools{Names: tl.names, Rules: tl.rules}
}

// Note adds a quiet note about f: something Claude Code accepts without a
// word, which only --debug lists.
func (fm *Frontmatter) Note(f FrontmatterField, format string, a ...any) {
	fm.p.warn(f.Line, f.Key, format, a...)
	fm.p.warnings[len(fm.p.warnings)-1].Quiet = true
	fm.Warnings = fm.p.warnings
}

// Value decodes f's value into v (a YAML-tagged struct or map), for the
// keys whose value is no text or tool list (a command's hooks).
func (fm *Frontmatter) Value(f FrontmatterField, v any) error {
	if err := f.v.Decode(v); err != nil {
		return fm.p.fail(f.v, "%s: %v", f.Key, err)
	}
	return nil
}

// IsText reports whether f's value is a single value (text, a number, a
// boolean), not a list or a mapping.
func (f FrontmatterField) IsText() bool { return f.v.Kind == yaml.ScalarNode }

// Bool reads f's value as a boolean (true, false, yes, no).
func (fm *Frontmatter) Bool(f FrontmatterField) (bool, bool) {
	if f.v.Kind != yaml.ScalarNode {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(f.v.Value)) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	return false, false
}

// Warn adds a warning about f.
func (fm *Frontmatter) Warn(f FrontmatterField, format string, a ...any) {
	fm.p.warn(f.Line, f.Key, format, a...)
	fm.Warnings = fm.p.warnings
}
