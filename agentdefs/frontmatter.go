package agentdefs

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// frontmatter is a definition file split at its '---' fences.
type frontmatter struct {
	yaml  string // the text between the fences
	open  int    // file line of the opening fence
	close int    // file line of the closing fence
	body  string // everything after the closing fence
	// longFence is the file line of a fence written with more than three
	// dashes, 0 when both are plain "---".
	longFence int
}

// offset converts a line of the YAML text into a line of the file.
func (f frontmatter) offset() int { return f.open }

// isFence reports whether line is a fence: three or more dashes and nothing
// else. Trailing blanks are allowed because editors leave them and they are
// invisible; more dashes are allowed because Claude Code reads "-----" as a
// fence too. long reports the latter, which earns a warning.
func isFence(line string) (fence, long bool) {
	l := strings.TrimRight(line, " \t")
	if len(l) < 3 || strings.Trim(l, "-") != "" {
		return false, false
	}
	return true, len(l) > 3
}

// splitFrontmatter finds the fenced YAML at the top of a file. Leading blank
// lines and a UTF-8 byte order mark are tolerated; anything else before the
// opening fence means the file has no frontmatter.
func splitFrontmatter(data []byte) (frontmatter, *Problem) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	// Count lines as YAML does, or its line numbers would not match ours:
	// CR alone, NEL, LS and PS also end a line.
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n").Replace(text)
	// Walk line by line without splitting the body, which is most of the
	// file and is kept whole as the prompt.
	const format = "an agent file starts with a '---' line, then name and description in YAML, then '---' and the system prompt"
	line, open, yamlStart, longFence := 0, 0, 0, 0
	for rest := text; ; {
		l, after, more := strings.Cut(rest, "\n")
		line++
		start := len(text) - len(rest)
		switch {
		case open == 0 && strings.TrimSpace(l) == "":
			// Leading blank lines are tolerated.
		case open == 0:
			fence, long := isFence(l)
			if !fence {
				return frontmatter{}, &Problem{Line: line, Message: "no YAML frontmatter: " + format}
			}
			open, yamlStart = line, start+len(l)+1
			if long {
				longFence = line
			}
		default:
			fence, long := isFence(l)
			if !fence {
				break
			}
			if long && longFence == 0 {
				longFence = line
			}
			fm := frontmatter{yaml: text[yamlStart:max(start-1, yamlStart)], open: open, close: line, longFence: longFence}
			if more {
				fm.body = after
			}
			return fm, nil
		}
		if !more {
			break
		}
		rest = after
	}
	if open == 0 {
		return frontmatter{}, &Problem{Line: 1, Message: "file is empty: " + format}
	}
	return frontmatter{}, &Problem{Line: open, Message: "the frontmatter opened here is never closed by a '---' line"}
}

// yamlLineErr matches yaml.v3's "yaml: line N: reason" errors.
var yamlLineErr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`) })

// decodeYAML parses the frontmatter into a node tree. Claude Code reads
// frontmatter that strict YAML rejects (descriptions full of "Context: ..."
// and "user: \"...\"" lines, tab indentation), so when strict YAML fails,
// decodeYAML retries with plain values containing ": " quoted, and then
// reads the top-level "key: value" lines one by one (see lineFallback). A
// fallback that finds keys returns them with a warning naming the strict
// error; otherwise the strict error is returned.
func decodeYAML(fm frontmatter) (*yaml.Node, *Problem, *Problem) {
	var doc yaml.Node
	err := safeUnmarshal(fm.yaml, &doc)
	if err == nil {
		return &doc, nil, nil
	}
	p := yamlProblem(fm, err)
	hint := "; read line by line as Claude Code does"
	if strings.Contains(p.Message, "mapping values are not allowed") {
		hint += " (quote a value holding \": \" to make it valid YAML)"
	}
	warn := &Problem{Line: p.Line, Field: keyAt(fm.yaml, p.Line-fm.offset()), Warning: true, Message: p.Message + hint}
	if fixed, ok := quoteColonValues(fm.yaml); ok {
		var retry yaml.Node
		if safeUnmarshal(fixed, &retry) == nil {
			return &retry, warn, nil
		}
	}
	if n := lineFallback(fm.yaml); n != nil {
		return n, warn, nil
	}
	return nil, nil, p
}

// yamlProblem turns the YAML decoder's error into a Problem on the right
// file line.
func yamlProblem(fm frontmatter, err error) *Problem {
	// yaml.v3 omits the line when the fault is on the first one.
	p := &Problem{Line: fm.open + 1, Message: "invalid YAML in frontmatter: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := yamlLineErr().FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			if isYAMLParserProblem(m[2]) {
				// yaml.v3 prints parser (not scanner) errors with a
				// 0-based line.
				n++
			}
			p.Line = n + fm.offset()
			p.Message = "invalid YAML in frontmatter: " + m[2]
		}
	}
	// An error at the end of the text (an unclosed list, say) belongs to
	// the last line written, not to blank lines or the closing fence.
	lines := strings.Split(fm.yaml, "\n")
	if i := min(p.Line-fm.offset()-1, len(lines)-1); i >= 0 {
		for i > 0 && strings.TrimSpace(lines[i]) == "" {
			i--
		}
		p.Line = i + 1 + fm.offset()
	}
	// Tab indentation is the most common YAML mistake; yaml.v3 words it
	// variously and may point at the enclosing block, so name the fix and
	// the line the tab indents.
	for i, l := range lines {
		if !strings.HasPrefix(l, "\t") {
			continue
		}
		if tabLine := i + 1 + fm.offset(); strings.Contains(p.Message, "tab character") || p.Line == tabLine {
			p.Line = tabLine
			p.Message += " (indent with spaces, not tabs)"
		}
		break
	}
	return p
}

// isYAMLParserProblem reports whether msg is one of yaml.v3's parser
// errors, the ones whose printed line is 0-based.
func isYAMLParserProblem(msg string) bool {
	switch msg {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"did not find expected '-' indicator", "did not find expected <document start>",
		"did not find expected <stream-start>", "did not find expected key",
		"did not find expected node content", "found duplicate %TAG directive",
		"found duplicate %YAML directive", "found incompatible YAML document",
		"found undefined tag handle":
		return true
	}
	return false
}

// safeUnmarshal shields callers from a panic inside the YAML decoder: a
// definition file is user input, and a bad one must become a Problem.
func safeUnmarshal(text string, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &yamlPanic{r}
		}
	}()
	return yaml.Unmarshal([]byte(text), n)
}

type yamlPanic struct{ v any }

func (e *yamlPanic) Error() string { return "yaml: the YAML decoder failed on this input" }

// plainColonLine matches a top-level "key: value" whose value is a plain
// scalar (it starts with none of YAML's indicator characters).
var plainColonLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+([^ \t"'\[\]{}|>&*!%@` + "`" + `#-].*)$`)
})

// quoteColonValues rewrites top-level plain values that contain ": " into
// single-quoted ones (which keep backslashes literally, as plain scalars
// do), one line for one line so line numbers still match. It reports
// whether anything changed.
func quoteColonValues(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	changed := false
	for i, l := range lines {
		m := plainColonLine().FindStringSubmatch(strings.TrimRight(l, " \t\r"))
		if m == nil || !strings.Contains(m[2], ": ") {
			continue
		}
		lines[i] = m[1] + ": '" + strings.ReplaceAll(m[2], "'", "''") + "'"
		changed = true
	}
	return strings.Join(lines, "\n"), changed
}

// resolve follows YAML aliases to the node they name, with a bound so a
// malicious cycle cannot loop.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	return n
}

// kindName names a node's kind in words for error messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return "a single value"
	}
	return "an alias"
}
