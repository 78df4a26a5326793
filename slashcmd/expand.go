package slashcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"covey/internal/safefile"
)

// Bounds of what one expansion attaches.
const (
	maxAttachedFile  = 64 << 10  // one @path file
	maxAttachedTotal = 256 << 10 // every @path file of one command
	maxAttachedFiles = 20
)

// Expander is what Expand needs from the session.
type Expander struct {
	// Root is the workspace root: relative @paths start there.
	Root string
	// Home is the home folder, for @~/paths.
	Home string
	// AllowRead decides whether an @path file may be read (the permission
	// policy's read check: deny rules, the workspace, read_file allow
	// rules); nil allows the workspace only.
	AllowRead func(abs string) bool
	// SessionID is what ${CLAUDE_SESSION_ID} stands for.
	SessionID string
	// Run runs the command of one !`command` and returns its output, or an
	// error when it did not run (not allowed, cancelled, timed out); nil
	// refuses every such command.
	Run func(ctx context.Context, command string) (string, error)
}

// ErrCommandRefused wraps the reason a !`command` did not run.
var ErrCommandRefused = errors.New("a !`command` of the command did not run")

// Expand turns c's body into the prompt for args: $ARGUMENTS is args as
// typed, $0, $1, ... (and $ARGUMENTS[0], ...) its words from the first
// (split as a shell splits them); !`command` is replaced by
// the command's output; a file named @path is attached after the text
// (the mention stays). Text that came in through an argument, a file or a
// command's output is never expanded again. When the body uses no
// argument and args is not empty, args is appended, as Claude Code does.
func (c Command) Expand(ctx context.Context, args string, x Expander) (string, error) {
	e := expansion{x: x, args: strings.TrimSpace(args), words: splitArgs(args), seen: map[string]bool{},
		vars: map[string]string{"CLAUDE_SESSION_ID": x.SessionID, "CLAUDE_SKILL_DIR": c.Dir}}
	var b strings.Builder
	body := c.Body
	for i := 0; i < len(body); {
		switch ch := body[i]; {
		case ch == '$':
			if text, n, ok := e.argument(body[i:]); ok {
				b.WriteString(text)
				i += n
				continue
			}
		case ch == '!' && strings.HasPrefix(body[i+1:], "`") && boundary(body, i):
			end := strings.IndexByte(body[i+2:], '`')
			if end > 0 && !strings.Contains(body[i+2:i+2+end], "\n") {
				command := e.substitute(body[i+2 : i+2+end])
				out, err := e.run(ctx, command)
				if err != nil {
					return "", err
				}
				b.WriteString(out)
				i += end + 3
				continue
			}
		case ch == '@' && boundary(body, i):
			n := tokenEnd(body[i+1:])
			if n > 0 {
				raw := body[i+1 : i+1+n]
				ref := e.substitute(raw)
				b.WriteString("@" + ref)
				e.attach(ref)
				i += 1 + n
				continue
			}
		}
		b.WriteByte(body[i])
		i++
	}
	out := strings.TrimRight(b.String(), " \t\n")
	if !e.used && e.args != "" {
		out = strings.TrimRight(out, "\n") + "\n\nARGUMENTS: " + e.args
	}
	if len(e.files) > 0 {
		out = strings.TrimRight(out, "\n") + "\n\n" + strings.Join(e.files, "\n\n")
	}
	return out, nil
}

// expansion is the state of one Expand.
type expansion struct {
	x     Expander
	args  string
	words []string
	used  bool // the body used $ARGUMENTS or $N

	vars map[string]string // ${NAME} substitutions (CLAUDE_SESSION_ID, CLAUDE_SKILL_DIR)

	files    []string // attachments, rendered
	seen     map[string]bool
	attached int // bytes attached so far
}

// argument reads an argument at the start of s: $ARGUMENTS (the whole
// text as typed), $ARGUMENTS[N] or $N (the Nth word, from 0, as Claude
// Code numbers them). An index no word has is not an argument, so it is
// left as written ("$5M" in a price, "$3" with two words typed); so is
// $N followed by a letter, digit or underscore.
func (e *expansion) argument(s string) (string, int, bool) {
	if rest, ok := strings.CutPrefix(s, "$ARGUMENTS["); ok {
		n, digits := leadingNumber(rest)
		if digits > 0 && digits < len(rest) && rest[digits] == ']' {
			if n < len(e.words) {
				e.used = true
				return e.words[n], len("$ARGUMENTS[") + digits + 1, true
			}
			return "", 0, false
		}
	}
	if strings.HasPrefix(s, "$ARGUMENTS") {
		e.used = true
		return e.args, len("$ARGUMENTS"), true
	}
	if s[0] == '$' && s[1:] != "" && s[1] == '{' {
		for name, value := range e.vars {
			if strings.HasPrefix(s, "${"+name+"}") && value != "" {
				return value, len(name) + 3, true
			}
		}
	}
	n, digits := leadingNumber(s[1:])
	if digits == 0 || (1+digits < len(s) && isWord(s[1+digits])) || n >= len(e.words) {
		return "", 0, false
	}
	e.used = true
	return e.words[n], 1 + digits, true
}

// leadingNumber reads the decimal number s starts with and how many
// digits it took (at most 4; a longer run is no index).
func leadingNumber(s string) (n, digits int) {
	for digits < len(s) && isDigit(s[digits]) {
		n = n*10 + int(s[digits]-'0')
		digits++
	}
	if digits > 4 {
		return 0, 0
	}
	return n, digits
}

func isWord(b byte) bool {
	return isDigit(b) || b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// substitute replaces the arguments in s (a command line or a path).
func (e *expansion) substitute(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '$' {
			if text, n, ok := e.argument(s[i:]); ok {
				b.WriteString(text)
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// run runs one !`command`.
func (e *expansion) run(ctx context.Context, command string) (string, error) {
	if strings.TrimSpace(command) == "" {
		return "", nil
	}
	if e.x.Run == nil {
		return "", fmt.Errorf("%w: !`%s`: commands cannot run here", ErrCommandRefused, command)
	}
	out, err := e.x.Run(ctx, command)
	if err != nil {
		return "", fmt.Errorf("%w: !`%s`: %w", ErrCommandRefused, command, err)
	}
	return strings.TrimRight(out, "\n"), nil
}

// attach reads the file ref names, if it is one, and keeps it for the end
// of the prompt. A reference to nothing (an @mention, a folder) is left
// as text; a file covey may not read is named with the reason.
func (e *expansion) attach(ref string) {
	abs, ref, ok := e.resolve(ref)
	if !ok {
		return
	}
	if e.seen[abs] {
		return
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	e.seen[abs] = true
	if !e.readable(abs) {
		e.files = append(e.files, fmt.Sprintf("[@%s not attached: covey may not read it (outside the workspace, or a read_file deny rule covers it)]", ref))
		return
	}
	if len(e.files) >= maxAttachedFiles || e.attached >= maxAttachedTotal {
		e.files = append(e.files, fmt.Sprintf("[@%s not attached: the command attaches at most %d files and %d KB]", ref, maxAttachedFiles, maxAttachedTotal>>10))
		return
	}
	limit := min(maxAttachedFile, maxAttachedTotal-e.attached)
	data, cut, err := safefile.ReadPrefix(abs, int64(limit))
	note := ""
	switch {
	case err != nil:
		e.files = append(e.files, fmt.Sprintf("[@%s not attached: %v]", ref, err))
		return
	case cut:
		note = fmt.Sprintf("\n[… cut: only the first %d KB are attached; read_file reads the rest]", limit>>10)
	}
	if strings.IndexByte(string(data[:min(len(data), 8<<10)]), 0) >= 0 {
		e.files = append(e.files, fmt.Sprintf("[@%s not attached: a binary file]", ref))
		return
	}
	e.attached += len(data)
	e.files = append(e.files, fmt.Sprintf("<file path=%q>\n%s%s\n</file>", ref, strings.TrimRight(string(data), "\n"), note))
}

// resolve turns ref into an absolute path; trailing punctuation that is
// no part of an existing file's name is dropped ("see @a.go.").
func (e *expansion) resolve(ref string) (abs, name string, ok bool) {
	for ref != "" {
		abs = ref
		switch {
		case ref == "~" || strings.HasPrefix(ref, "~/"):
			if e.x.Home == "" {
				return "", "", false
			}
			abs = filepath.Join(e.x.Home, ref[1:])
		case !filepath.IsAbs(ref):
			abs = filepath.Join(e.x.Root, ref)
		}
		if _, err := os.Stat(abs); err == nil {
			return filepath.Clean(abs), ref, true
		}
		trimmed := strings.TrimRight(ref, ".,;:!?)]}'\"")
		if trimmed == ref {
			return "", "", false
		}
		ref = trimmed
	}
	return "", "", false
}

func (e *expansion) readable(abs string) bool {
	if e.x.AllowRead != nil {
		return e.x.AllowRead(abs)
	}
	rel, err := filepath.Rel(e.x.Root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// boundary reports whether the character at i starts a token: at the
// start of the text or after a blank, as Claude Code reads them, so
// "user@host", "[@FILE]", "wow!`x`" and "\"!`x`\"" are left alone.
func boundary(s string, i int) bool {
	return i == 0 || unicode.IsSpace(rune(s[i-1]))
}

// tokenEnd is the length of the path at the start of s: up to a blank or
// a closing quote or bracket.
func tokenEnd(s string) int {
	for i, r := range s {
		if unicode.IsSpace(r) || r == '"' || r == '\'' || r == '`' || r == '<' || r == '>' {
			return i
		}
	}
	return len(s)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// splitArgs splits args into words as a shell does: at blanks; single or
// double quotes keep blanks in a word (and are dropped); a backslash
// keeps the next character (outside single quotes).
func splitArgs(args string) []string {
	var (
		out    []string
		cur    strings.Builder
		quote  rune
		in     bool
		escape bool
	)
	for _, r := range args {
		switch {
		case escape:
			cur.WriteRune(r)
			escape, in = false, true
		case r == '\\' && quote != '\'':
			escape, in = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
