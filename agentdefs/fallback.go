package agentdefs

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// fallbackKey matches a top-level "key:" line in the line-based reading: a
// key at the start of the line, a colon, then anything (or nothing).
// Compiled on first use, like the other patterns of this package, so a
// start that reads no agent file (--version) does not pay for them.
var fallbackKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$`)
})

// entry is one top-level key of the line-based reading.
type entry struct {
	key   string
	line  int    // 1-based line in the YAML text
	first string // the value written on the key's own line
	rest  []string
	lines []int // line of each rest entry
}

// lineFallback reads frontmatter that strict YAML rejects the way Claude
// Code does: line by line, top-level "key: value" pairs. Every "key:" line
// at the start of a line starts a pair, known key or not, so a key covey
// has never heard of (tags:, version:) cannot glue its value onto the
// tools or the permission mode above it; the exceptions are lines inside
// an <example> block and the speaker labels of examples written without
// one (user:, assistant:, Context:), which continue the description they
// belong to. Every other line continues the value above it. Tabs count as
// blanks. A value whose lines are all "- item" becomes a list; "|" and ">"
// start block text; matching outer quotes are removed. It returns a YAML
// mapping node (lines relative to the text, as the decoder's would be) so
// the rest of parsing is shared, or nil when no key was found.
func lineFallback(text string) *yaml.Node {
	var entries []*entry
	inExample := false
	for i, raw := range strings.Split(text, "\n") {
		l := strings.TrimRight(raw, " \t\r")
		lower := strings.ToLower(strings.TrimSpace(l))
		switch {
		case strings.HasPrefix(lower, "<example"):
			inExample = true
		case strings.HasPrefix(lower, "</example"):
			inExample = false
		}
		if m := fallbackKey().FindStringSubmatch(l); m != nil && (len(entries) == 0 || !inExample && !isExampleLabel(m[1])) {
			entries = append(entries, &entry{key: m[1], line: i + 1, first: strings.TrimSpace(m[2])})
			continue
		}
		if len(entries) == 0 {
			continue // comments or stray text before the first key
		}
		e := entries[len(entries)-1]
		e.rest = append(e.rest, l)
		e.lines = append(e.lines, i+1)
	}
	if len(entries) == 0 {
		return nil
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: entries[0].line}
	for _, e := range entries {
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.key, Line: e.line, Column: 1}
		root.Content = append(root.Content, k, e.value())
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}, Line: root.Line}
}

// value builds the node of one entry's value.
func (e *entry) value() *yaml.Node {
	// Trailing blank lines belong to nobody.
	rest, lines := e.rest, e.lines
	for len(rest) > 0 && strings.TrimSpace(rest[len(rest)-1]) == "" {
		rest, lines = rest[:len(rest)-1], lines[:len(lines)-1]
	}
	if e.first == "" && len(rest) > 0 && allItems(rest) {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: lines[0]}
		for i, l := range rest {
			item := strings.TrimSpace(l)
			if item == "" {
				continue
			}
			item = unquote(strings.TrimSpace(strings.TrimPrefix(item, "-")))
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: item, Line: lines[i]})
		}
		return seq
	}
	if e.first == "" && len(rest) == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: e.line}
	}
	if strings.HasPrefix(e.first, "[") && len(rest) == 0 {
		// A flow list on one line, such as tools: [Read, Grep], or one
		// missing its closing bracket, read as the list it means.
		var n yaml.Node
		if safeUnmarshal(e.first, &n) == nil && len(n.Content) == 1 && n.Content[0].Kind == yaml.SequenceNode {
			seq := n.Content[0]
			setLine(seq, e.line)
			return seq
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(e.first, "["), "]")
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: inner, Line: e.line}
	}
	var parts []string
	block := strings.HasPrefix(e.first, "|") || strings.HasPrefix(e.first, ">")
	if e.first != "" && !block {
		parts = append(parts, e.first)
	}
	indent := commonIndent(rest)
	for _, l := range rest {
		if block {
			parts = append(parts, strings.TrimRight(cutIndent(l, indent), " \t"))
		} else {
			parts = append(parts, strings.TrimSpace(l))
		}
	}
	sep := "\n"
	if strings.HasPrefix(e.first, ">") {
		sep = " "
	}
	v := strings.Join(parts, sep)
	if !block {
		v = unquote(v)
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: e.line}
}

// allItems reports whether every non-blank line is a "- item" line.
func allItems(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && t != "-" && !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "-\t") {
			return false
		}
	}
	return true
}

// commonIndent is the smallest leading run of blanks of the non-blank lines.
func commonIndent(lines []string) int {
	n := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		i := len(l) - len(strings.TrimLeft(l, " \t"))
		if n < 0 || i < n {
			n = i
		}
	}
	return max(n, 0)
}

func cutIndent(l string, n int) string {
	if len(l) >= n && strings.TrimLeft(l[:n], " \t") == "" {
		return l[n:]
	}
	return strings.TrimLeft(l, " \t")
}

// unquote removes one pair of matching outer quotes. Double quotes are
// read with Go's escapes when they parse (YAML's are close enough for
// "\n" and "\""); otherwise the quotes are just dropped.
func unquote(s string) string {
	if len(s) < 2 {
		return s
	}
	switch q := s[0]; {
	case q == '"' && s[len(s)-1] == '"':
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return s[1 : len(s)-1]
	case q == '\'' && s[len(s)-1] == '\'':
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

func setLine(n *yaml.Node, line int) {
	n.Line = line
	for _, c := range n.Content {
		setLine(c, line)
	}
}

// keyAt returns the top-level key whose value holds line (1-based) of the
// YAML text: the nearest "key:" line at or above it; "" when none is.
func keyAt(text string, line int) string {
	lines := strings.Split(text, "\n")
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if m := fallbackKey().FindStringSubmatch(strings.TrimRight(lines[i], " \t\r")); m != nil {
			return m[1]
		}
	}
	return ""
}

// isExampleLabel reports whether k is a speaker or note label of the
// example conversations Claude Code users write into descriptions: never
// a field, so such a line stays in the text above it.
func isExampleLabel(k string) bool {
	switch strings.ToLower(k) {
	case "user", "assistant", "human", "ai", "context", "commentary", "example", "examples":
		return true
	}
	return false
}
