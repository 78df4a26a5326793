// Package shell tells the permission gate which commands a bash command
// line runs.
package shell

import (
	"errors"
	"fmt"
	"strings"
)

// This file holds a small lexer for the bash command lines the model sends,
// written only to answer one question safely: which simple commands does
// this line run? A permission rule such as bash(go test:*) must hold for
// every one of them, so `go test ./... && rm -rf ~` never rides on it.
//
// It follows bash's rules where they decide where one command ends and the
// next begins: quoting ('...', "...", $'...', backslashes), comments,
// the operators && || ; | |& & and newlines, subshells ( ), groups { },
// command substitution $( ) and backticks, process substitution <( ) >( ),
// redirections and here-documents. Whatever it does not understand fully
// (arithmetic $(( )), unusual ${...} expansions, function definitions,
// case patterns, a here-document body that substitutes commands) is a
// parse error, and a command that cannot be parsed is never auto-allowed.

// errUnparseable wraps every reason a command line could not be analysed.
var errUnparseable = errors.New("cannot analyse the command safely")

// maxShellDepth bounds nesting of substitutions and subshells, so hostile
// input cannot exhaust the stack.
const maxShellDepth = 64

// Cmd is one simple command found in a command line.
type Cmd struct {
	// Args are the command name and its arguments with quotes removed,
	// without leading assignments and redirections. A word holding a
	// substitution keeps its source text, e.g. "$(date)".
	Args []string
	// DynamicName reports that the command name is computed (it holds a
	// $ or a substitution), so no rule can vouch for what runs.
	DynamicName bool
	// Assigns are the names of leading NAME=value assignments.
	Assigns []string
	// Redirs counts the redirections of the command.
	Redirs int
	// Keywords are the leading reserved words ("if", "!", "{", ...).
	Keywords []string
	// Opaque marks a command led by a reserved word that makes its words
	// something other than a command (for, case, [[, ...).
	Opaque bool
	// Subshell marks the ( ) wrapper of a subshell, whose commands are
	// listed separately.
	Subshell bool
}

// SimpleKeyword reports whether w is a reserved word that introduces or
// closes a command without changing what the following words mean, so it
// is stripped before matching.
func SimpleKeyword(w string) bool {
	switch w {
	case "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time", "esac":
		return true
	}
	return false
}

// OpaqueKeyword reports whether w is a reserved word after which the words
// are not a command (a loop's list, a case subject, a test expression).
func OpaqueKeyword(w string) bool {
	switch w {
	case "for", "select", "case", "function", "coproc", "in", "[[", "]]":
		return true
	}
	return false
}

// heredoc is a here-document whose body follows the next newline.
type heredoc struct {
	delim     string
	quoted    bool // the body is literal: no substitution happens in it
	stripTabs bool // <<- strips leading tabs from body lines
}

// shellParser parses one command line into the simple commands it runs.
type shellParser struct {
	src     string
	pos     int
	depth   int
	cmds    []Cmd
	pending []heredoc
}

// Parse returns every simple command that src runs, including those
// inside substitutions and subshells, in source order of their start. An
// error means the line cannot be analysed (bad syntax or a construct this
// parser does not follow) and must not be auto-allowed.
func Parse(src string) ([]Cmd, error) {
	p := &shellParser{src: src}
	if err := p.parseList(0); err != nil {
		return nil, err
	}
	return p.cmds, nil
}

func (p *shellParser) errorf(format string, a ...any) error {
	return fmt.Errorf("%w: %s at byte %d", errUnparseable, fmt.Sprintf(format, a...), p.pos)
}

func (p *shellParser) eof() bool { return p.pos >= len(p.src) }

func (p *shellParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.src[p.pos]
}

func (p *shellParser) peekAt(off int) byte {
	if p.pos+off >= len(p.src) {
		return 0
	}
	return p.src[p.pos+off]
}

// skipBlanks skips spaces, tabs and line continuations.
func (p *shellParser) skipBlanks() {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t':
			p.pos++
		case c == '\\' && p.peekAt(1) == '\n':
			p.pos += 2
		default:
			return
		}
	}
}

// skipComment skips from # to the end of the line, leaving the newline.
func (p *shellParser) skipComment() {
	for !p.eof() && p.peek() != '\n' {
		p.pos++
	}
}

// newline consumes a newline and the bodies of here-documents begun on the
// line it ends.
func (p *shellParser) newline() error {
	p.pos++
	docs := p.pending
	p.pending = nil
	for _, d := range docs {
		if err := p.heredocBody(d); err != nil {
			return err
		}
	}
	return nil
}

// heredocBody consumes one here-document body. An unquoted body undergoes
// substitution, so one that substitutes commands is refused rather than
// parsed a second way.
func (p *shellParser) heredocBody(d heredoc) error {
	for !p.eof() {
		end := strings.IndexByte(p.src[p.pos:], '\n')
		line := p.src[p.pos:]
		next := len(p.src)
		if end >= 0 {
			line = p.src[p.pos : p.pos+end]
			next = p.pos + end + 1
		}
		check := line
		if d.stripTabs {
			check = strings.TrimLeft(line, "\t")
		}
		if check == d.delim {
			p.pos = next
			return nil
		}
		if !d.quoted && (strings.Contains(line, "`") || strings.Contains(line, "$(")) {
			return p.errorf("here-document %s substitutes a command", d.delim)
		}
		if !d.quoted && strings.HasSuffix(line, "\\") {
			// bash joins such a line with the next before looking for the
			// delimiter; refuse rather than find it somewhere else.
			return p.errorf("here-document %s continues a line", d.delim)
		}
		p.pos = next
	}
	return nil // bash runs a here-document ended by end of input
}

// parseList parses commands joined by operators until the end of input or,
// with term ')', the parenthesis closing a subshell or substitution.
func (p *shellParser) parseList(term byte) error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxShellDepth {
		return p.errorf("nesting deeper than %d", maxShellDepth)
	}
	needCmd := false // after && || | a command must follow
	for {
		p.skipBlanks()
		switch c := p.peek(); {
		case p.eof():
			if term != 0 {
				return p.errorf("missing %q", term)
			}
			if needCmd {
				return p.errorf("line ends after an operator")
			}
			return nil
		case c == '#':
			p.skipComment()
			continue
		case c == '\n':
			if err := p.newline(); err != nil {
				return err
			}
			continue
		case c == ')':
			if term != ')' || needCmd {
				return p.errorf("unexpected )")
			}
			p.pos++
			return nil
		case c == ';' || c == '|' || c == '&' && p.peekAt(1) != '>':
			return p.errorf("unexpected %q", c)
		}
		if err := p.parseCommand(); err != nil {
			return err
		}
		needCmd = false
		p.skipBlanks()
		switch c := p.peek(); {
		case c == '&' && p.peekAt(1) == '&', c == '|' && p.peekAt(1) == '|', c == '|' && p.peekAt(1) == '&':
			p.pos += 2
			needCmd = true
		case c == '|':
			p.pos++
			needCmd = true
		case c == ';':
			if p.peekAt(1) == ';' || p.peekAt(1) == '&' {
				return p.errorf("case terminator outside case")
			}
			p.pos++
		case c == '&':
			p.pos++
		case c == '\n', c == ')', c == '#', p.eof():
			// handled at the top of the loop
		default:
			return p.errorf("unexpected %q", c)
		}
	}
}

// parseCommand parses one simple command, subshell or keyword-led command.
func (p *shellParser) parseCommand() error {
	var cmd Cmd
	idx := len(p.cmds)
	p.cmds = append(p.cmds, Cmd{}) // placeholder keeps source order
	commandPos := true             // the next word may be a keyword or a command name
	for {
		p.skipBlanks()
		c := p.peek()
		switch {
		case p.eof(), c == '\n', c == ';', c == '|', c == ')':
			p.cmds[idx] = cmd
			return nil
		case c == '&' && p.peekAt(1) != '>':
			p.cmds[idx] = cmd
			return nil
		case c == '#':
			p.skipComment()
			continue
		case c == '(':
			if !commandPos || len(cmd.Args) > 0 || len(cmd.Assigns) > 0 || cmd.Redirs > 0 {
				return p.errorf("unexpected ( (function definitions and arrays are not analysed)")
			}
			if p.peekAt(1) == '(' {
				return p.errorf("arithmetic commands are not analysed")
			}
			p.pos++
			if err := p.parseList(')'); err != nil {
				return err
			}
			commandPos = false
			cmd.Subshell = true
			continue
		}
		if done, err := p.redirection(&cmd); err != nil {
			return err
		} else if done {
			continue
		}
		if cmd.Subshell {
			return p.errorf("word after a subshell")
		}
		from := p.pos
		w, err := p.word()
		if err != nil {
			return err
		}
		if p.pos == from {
			return p.errorf("unexpected %q", c)
		}
		bare := len(cmd.Args) == 0 && len(cmd.Assigns) == 0 && cmd.Redirs == 0
		if commandPos && bare && !w.quoted && !w.dynamic {
			if SimpleKeyword(w.text) {
				cmd.Keywords = append(cmd.Keywords, w.text)
				continue
			}
			if OpaqueKeyword(w.text) {
				cmd.Keywords = append(cmd.Keywords, w.text)
				cmd.Opaque = true
				commandPos = false
				continue
			}
		}
		if len(cmd.Args) == 0 && !cmd.Opaque {
			if name, ok := AssignmentName(w.raw); ok {
				cmd.Assigns = append(cmd.Assigns, name)
				continue
			}
			cmd.DynamicName = w.dynamic
		}
		cmd.Args = append(cmd.Args, w.text)
		commandPos = false
	}
}

// AssignmentName reports whether raw (a word's source) is NAME=value or
// NAME+=value, and returns NAME.
func AssignmentName(raw string) (string, bool) {
	i := 0
	for i < len(raw) && (raw[i] == '_' || shLetter(raw[i]) || (i > 0 && shDigit(raw[i]))) {
		i++
	}
	if i == 0 {
		return "", false
	}
	rest := raw[i:]
	if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "+=") {
		return raw[:i], true
	}
	return "", false
}

func shLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func shDigit(c byte) bool  { return c >= '0' && c <= '9' }

// redirection parses a redirection at the current position, if there is
// one: an optional fd number, the operator and its target word.
func (p *shellParser) redirection(cmd *Cmd) (bool, error) {
	start := p.pos
	for shDigit(p.peek()) {
		p.pos++
	}
	op := p.redirOp()
	if op == "" {
		p.pos = start
		return false, nil
	}
	p.skipBlanks()
	if p.eof() || strings.IndexByte("\n;|&()<>", p.peek()) >= 0 {
		return false, p.errorf("redirection %s without a target", op)
	}
	w, err := p.word()
	if err != nil {
		return false, err
	}
	if op == "<<" || op == "<<-" {
		p.pending = append(p.pending, heredoc{delim: w.text, quoted: w.quoted, stripTabs: op == "<<-"})
	}
	cmd.Redirs++
	return true, nil
}

// redirOp consumes a redirection operator, or returns "" (consuming
// nothing) when there is none. <( and >( are process substitutions, words.
func (p *shellParser) redirOp() string {
	rest := p.src[p.pos:]
	if strings.HasPrefix(rest, "<(") || strings.HasPrefix(rest, ">(") {
		return ""
	}
	for _, op := range []string{"&>>", "<<<", "<<-", "&>", ">>", "<<", "<&", ">&", "<>", ">|", "<", ">"} {
		if strings.HasPrefix(rest, op) {
			p.pos += len(op)
			return op
		}
	}
	return ""
}
