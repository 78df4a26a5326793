package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"covey/internal/excerpt"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// maxListedMatches caps the line numbers listed for an ambiguous old_string.
const maxListedMatches = 10

// editFileTool is edit_file.
type editFileTool struct{ m mutator }

// NewEditFile returns the edit_file tool acting in env.
func NewEditFile(env *Env) tool.Tool {
	return &editFileTool{m: mutator{env: env, fs: workspace.OSFS{}}}
}

func (t *editFileTool) Name() string   { return toolname.EditFile }
func (t *editFileTool) ReadOnly() bool { return false }

func (t *editFileTool) Description() string {
	return "Replace exact text in a file read before. old_string must match exactly once (indentation included, " +
		"no line-number prefixes; add context lines to make it unique) unless replace_all. " +
		"Several changes: edits [{old_string, new_string, replace_all?}], applied in order, all or nothing. " +
		"An empty old_string creates a new file."
}

func (t *editFileTool) Schema() map[string]any { return editFileSchema() }

var editFileSchema = tool.ArgsSchema[editFileArgs](tool.SchemaClosed)

// editFileArgs are edit_file's arguments: one edit (old_string and
// new_string, pointers so an empty string can be told from a missing one)
// or a list of edits.
type editFileArgs struct {
	Path       string     `json:"path"`
	OldString  *string    `json:"old_string,omitempty" jsonschema:"Exact text to replace."`
	NewString  *string    `json:"new_string,omitempty" jsonschema:"Replacement; must differ."`
	ReplaceAll bool       `json:"replace_all,omitempty" jsonschema:"Replace every occurrence."`
	Edits      []fileEdit `json:"edits,omitempty"`
}

// fileEdit is one replacement of edit_file. Its fields are described once,
// on editFileArgs: described again under edits they would cost every
// request their bytes twice.
type fileEdit struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

func (t *editFileTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	var a editFileArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("edit_file: invalid arguments: %v", err)
	}
	if a.Path == "" {
		return tool.Errorf("edit_file: path is required")
	}
	edits := a.Edits
	switch {
	case len(edits) > 0 && (a.OldString != nil || a.NewString != nil):
		return tool.Errorf("edit_file: give either old_string/new_string or edits, not both")
	case len(edits) == 0 && (a.OldString == nil || a.NewString == nil):
		return tool.Errorf("edit_file: old_string and new_string are required (or a non-empty edits list)")
	case len(edits) == 0:
		edits = []fileEdit{{OldString: *a.OldString, NewString: *a.NewString, ReplaceAll: a.ReplaceAll}}
	}
	return t.m.apply(ctx, toolname.EditFile, a.Path, func(tg *target) (string, error) {
		return applyEdits(string(tg.content), tg.exists, edits)
	})
}

// applyEdits applies edits in order to content, all or nothing. A pure CRLF
// file is edited in its LF form and written back as CRLF, so a model that
// sends LF strings still matches and the file keeps its line endings.
func applyEdits(content string, exists bool, edits []fileEdit) (string, error) {
	label := func(i int) string {
		if len(edits) == 1 {
			return ""
		}
		return fmt.Sprintf("edit %d of %d: ", i+1, len(edits))
	}
	fail := func(i int, err error) (string, error) {
		if len(edits) > 1 {
			//nolint:revive,staticcheck // the model reads this whole paragraph as the tool's answer
			return "", fmt.Errorf("%s%w\nNo edits were applied; the file is unchanged.", label(i), err)
		}
		return "", err
	}
	start := 0
	if !exists {
		if edits[0].OldString != "" {
			return "", errors.New("file not found; to create it use write_file, or edit_file with an empty old_string")
		}
		content, start = edits[0].NewString, 1
	}
	crlf := isPureCRLF(content)
	work := content
	if crlf {
		work = toLF(content)
	}
	for i := start; i < len(edits); i++ {
		e := edits[i]
		old, repl := e.OldString, e.NewString
		if crlf {
			old, repl = toLF(old), toLF(repl)
		}
		next, err := replaceOnce(work, old, repl, e.ReplaceAll)
		if err != nil {
			return fail(i, err)
		}
		work = next
	}
	if crlf {
		work = toCRLF(work)
	}
	if exists && work == content {
		return "", errors.New("the edits leave the file unchanged")
	}
	return work, nil
}

// replaceOnce replaces old by repl in work: its single occurrence, or all of
// them with all. Errors explain how to fix the call.
func replaceOnce(work, old, repl string, all bool) (string, error) {
	if old == repl {
		return "", errors.New("old_string and new_string are identical; there is nothing to change")
	}
	if old == "" {
		if work == "" {
			return repl, nil
		}
		return "", errors.New("old_string is empty; give the exact text to replace (an empty old_string only fills an empty or missing file)")
	}
	if all {
		if !strings.Contains(work, old) {
			return "", fmt.Errorf("old_string not found. %s", missHint(work, old))
		}
		return strings.ReplaceAll(work, old, repl), nil
	}
	offs := matchOffsets(work, old, maxListedMatches+1)
	switch len(offs) {
	case 0:
		return "", fmt.Errorf("old_string not found. %s", missHint(work, old))
	case 1:
		return work[:offs[0]] + repl + work[offs[0]+len(old):], nil
	}
	lines := lineNumbers(work, offs)
	count := fmt.Sprint(len(offs))
	list := joinInts(lines)
	if len(offs) > maxListedMatches {
		count = fmt.Sprintf("more than %d", maxListedMatches)
		list += ", …"
	}
	return "", fmt.Errorf("old_string matches %s times (at lines %s); include more surrounding lines to make it unique, or set replace_all to change every occurrence", count, list)
}

// matchOffsets returns the byte offsets where needle starts in s, overlapping
// ones included (a pattern that overlaps itself is ambiguous too), at most
// limit of them.
func matchOffsets(s, needle string, limit int) []int {
	var offs []int
	for pos := 0; len(offs) < limit; {
		i := strings.Index(s[pos:], needle)
		if i < 0 {
			break
		}
		offs = append(offs, pos+i)
		pos += i + 1
	}
	return offs
}

// lineNumbers turns ascending byte offsets into 1-based line numbers.
func lineNumbers(s string, offs []int) []int {
	out := make([]int, len(offs))
	line, pos := 1, 0
	for i, off := range offs {
		line += strings.Count(s[pos:off], "\n")
		pos = off
		out[i] = line
	}
	return out
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// missHint guesses why old_string did not match, to save the model a round
// of guessing: whitespace or indentation that differs, line-number prefixes
// copied from read_file, or else the most similar line of the file.
func missHint(work, old string) string {
	const reread = "Read the file again and copy the text exactly."
	if hasLineNumberPrefixes(old) {
		return "old_string seems to include line-number prefixes from read_file; leave them out. " + reread
	}
	fileLines := strings.Split(work, "\n")
	if n, ok := looseMatch(fileLines, old); ok {
		return fmt.Sprintf("A match differing only in whitespace or indentation starts at line %d: %q. %s", n, excerpt.Clip(fileLines[n-1], 120), reread)
	}
	if n, ok := closestLine(fileLines, old); ok {
		return fmt.Sprintf("The closest line is line %d: %q. %s", n, excerpt.Clip(fileLines[n-1], 120), reread)
	}
	return reread
}

// maxHintLines bounds the work spent on a hint for a huge file.
const maxHintLines = 20000

// looseMatch finds lines of the file equal to old's lines once leading and
// trailing whitespace is ignored, and returns the 1-based first line.
func looseMatch(fileLines []string, old string) (int, bool) {
	want := strings.Split(strings.Trim(old, "\r\n"), "\n")
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	if len(want) == 0 || (len(want) == 1 && want[0] == "") || len(fileLines) > maxHintLines {
		return 0, false
	}
	for i := 0; i+len(want) <= len(fileLines); i++ {
		ok := true
		for j, w := range want {
			got := strings.TrimSpace(fileLines[i+j])
			switch {
			case len(want) == 1:
				ok = strings.Contains(got, w)
			case j == 0:
				ok = strings.HasSuffix(got, w)
			case j == len(want)-1:
				ok = strings.HasPrefix(got, w)
			default:
				ok = got == w
			}
			if !ok {
				break
			}
		}
		if ok {
			return i + 1, true
		}
	}
	return 0, false
}

// closestLine returns the file line most like old's first non-blank line, if
// any is alike enough to be worth naming.
func closestLine(fileLines []string, old string) (int, bool) {
	var probe string
	for _, l := range strings.Split(old, "\n") {
		if probe = strings.TrimSpace(l); probe != "" {
			break
		}
	}
	if probe == "" || len(fileLines) > maxHintLines {
		return 0, false
	}
	want := bigrams(probe)
	best, bestScore := 0, 0.6 // below this the "closest" line misleads
	for i, l := range fileLines {
		if s := dice(want, bigrams(strings.TrimSpace(l))); s > bestScore {
			best, bestScore = i+1, s
		}
	}
	return best, best > 0
}

// bigrams counts the adjacent byte pairs of s.
func bigrams(s string) map[string]int {
	m := make(map[string]int, len(s))
	for i := 0; i+2 <= len(s); i++ {
		m[s[i:i+2]]++
	}
	return m
}

// dice is the Sørensen–Dice similarity of two bigram multisets, 0 to 1.
func dice(a, b map[string]int) float64 {
	na, nb, common := 0, 0, 0
	for k, n := range a {
		na += n
		common += min(n, b[k])
	}
	for _, n := range b {
		nb += n
	}
	if na+nb == 0 {
		return 0
	}
	return 2 * float64(common) / float64(na+nb)
}

// hasLineNumberPrefixes reports whether every non-blank line of s starts
// with a number followed by a tab, "→", "|" or ":" as line-numbered
// listings do.
func hasLineNumberPrefixes(s string) bool {
	seen := false
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimLeft(l, " ")
		if strings.TrimSpace(t) == "" {
			continue
		}
		digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
		if digits == 0 {
			return false
		}
		rest := t[digits:]
		if !strings.HasPrefix(rest, "\t") && !strings.HasPrefix(rest, "→") &&
			!strings.HasPrefix(rest, "|") && !strings.HasPrefix(rest, ":") {
			return false
		}
		seen = true
	}
	return seen
}
