package shell

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Errors of Words, for a rule's pattern.
var (
	ErrNotSimple   = errors.New("a bash rule names one simple command; write one rule per command")
	ErrAssignments = errors.New("leading assignments are ignored when matching; leave them out of the rule")
	ErrRedirects   = errors.New("redirections are ignored when matching; leave them out of the rule")
)

// Words parses src as one simple command of literal words, as a
// permission rule names a command, and returns its words with quotes
// removed.
func Words(src string) ([]string, error) {
	if first := strings.Fields(src); len(first) > 0 && reserved(first[0]) {
		return nil, fmt.Errorf("a rule cannot start with the shell keyword %q", first[0])
	}
	f, err := parse(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnparseable, err)
	}
	if len(f.Stmts) != 1 {
		return nil, ErrNotSimple
	}
	s := f.Stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	switch {
	case !ok || s.Negated || s.Background:
		return nil, ErrNotSimple
	case len(s.Redirs) > 0:
		return nil, ErrRedirects
	case len(call.Assigns) > 0:
		return nil, ErrAssignments
	case len(call.Args) == 0:
		return nil, ErrNotSimple
	}
	var out []string
	for _, w := range call.Args {
		lw := literal(w)
		if lw.dynamic {
			return nil, ErrNotSimple
		}
		out = append(out, lw.text)
	}
	return out, nil
}

// reserved reports whether w is a bash reserved word.
func reserved(w string) bool {
	switch w {
	case "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time", "esac",
		"for", "select", "case", "function", "coproc", "in", "[[", "]]":
		return true
	}
	return false
}

// Reserved reports whether w is a bash reserved word, which a rule's
// word must quote.
func Reserved(w string) bool { return reserved(w) }
