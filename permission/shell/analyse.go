// Package shell tells the permission gate what a bash command line does:
// every command it runs (inside substitutions, functions, traps, wrappers
// such as env, sudo, xargs and find -exec, and the scripts of bash -c and
// eval), the files its redirections write, the variables it sets, and
// everything that cannot be known before it runs.
//
// It parses with mvdan.cc/sh/v3/syntax, the parser behind shfmt, and fails
// closed: a construct it cannot see through is reported in Line.Unknown,
// never guessed at.
package shell

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Limits that keep hostile input from costing much.
const (
	// MaxLen is the longest command line analysed; longer ones are errors.
	MaxLen = 256 << 10
	// maxDepth bounds how deeply scripts inside scripts (bash -c, eval,
	// trap) and substitutions are followed.
	maxDepth = 12
	// maxWords bounds the words brace expansion may make of one command.
	maxWords = 4096
)

// ErrUnparseable wraps every reason a line could not be parsed.
var ErrUnparseable = errors.New("cannot parse the command line")

// Cmd is one command a line runs.
type Cmd struct {
	// Args are the command's words as written, with quotes removed, escapes
	// decoded and braces expanded. A word holding an expansion keeps its
	// source text (e.g. "$HOME"), and leading assignments and redirections
	// are not words.
	Args []string
	// Name is the program: Args[0] without its directory (/bin/rm is rm).
	Name string
	// Assigns are the names of the variables set for this command only:
	// NAME=value prefixes, and those an env wrapper sets.
	Assigns []string
	// Wrapper marks a command that only runs the command listed after it
	// (time, timeout, nice, nohup, env, command, exec, bash -c with a
	// literal script, a function the line defines, ...): rules that allow
	// judge what it runs, not the wrapper itself.
	Wrapper bool
	// OpenArgs marks a command given more arguments when it runs (by
	// xargs, or find -exec ... +): only a prefix rule can allow it.
	OpenArgs bool
	// Dynamic marks a command with an argument known only when it runs.
	Dynamic bool
}

// Write is a file a redirection writes, or one a program's arguments name
// as its output (tee, cp, mv, install, ln, dd of=, curl -o, sort -o, git
// --output, find -fprint).
type Write struct {
	// Target is the path as written, quotes removed; its source text when
	// it is not known before the line runs.
	Target string
	// Dynamic marks a target known only when the line runs.
	Dynamic bool
	// Bare marks a redirection with no command (> file empties it).
	Bare bool
}

// Line is what one command line does.
type Line struct {
	// Cmds are the commands it runs, wrappers and what they wrap alike, in
	// the order they appear.
	Cmds []Cmd
	// Writes are the files its redirections write (not /dev/null and
	// the like).
	Writes []Write
	// Reads are the files its input redirections (< file) read, as
	// written; known ones only.
	Reads []string
	// Sets are the variables it sets for the commands after them (NAME=v
	// alone, export, declare, read, for NAME in ...).
	Sets []string
	// Scripts are files it runs as shell scripts (bash FILE, source FILE),
	// as written. What they do is in the files, not in the line.
	Scripts []string
	// Unknown says what the line does that cannot be known before it runs
	// (a command name held in a variable, eval of a computed string, a
	// shell fed its commands on stdin, a script the line itself writes,
	// expansions that can run code): no rule can vouch for such a line.
	Unknown []string
	// Opaque is code written inline in a language this package does not
	// read (python -c, node -e, an awk program that can run commands): a
	// rule may allow the command by its words, and a deny rule can only
	// look for its program's name in the text.
	Opaque []Code
	// Err is why the line could not be parsed; the rest is then empty.
	Err error
}

// Analyse reports what the command line src does.
func Analyse(src string) Line {
	var l Line
	if len(src) > MaxLen {
		l.Err = fmt.Errorf("%w: longer than %d bytes", ErrUnparseable, MaxLen)
		return l
	}
	if strings.ContainsRune(src, '\r') {
		// The parser reads \r\n as a line end, bash does not: rather
		// than analyse a line bash would read differently, refuse it.
		l.Err = fmt.Errorf("%w: it holds a carriage return", ErrUnparseable)
		return l
	}
	if strings.ContainsRune(src, 0) {
		// A NUL cannot reach bash (an exec argument ends at it) and the
		// parser drops it where bash would end a string: refuse the line
		// rather than analyse one that can never run as written.
		l.Err = fmt.Errorf("%w: it holds a NUL byte", ErrUnparseable)
		return l
	}
	a := &analyser{line: &l, funcs: map[string]bool{}, written: map[string]bool{}}
	f, err := parse(src)
	if err != nil {
		l.Err = fmt.Errorf("%w: %w", ErrUnparseable, err)
		return l
	}
	a.file(f, 0)
	a.searchPath()
	return l
}

// searchPath notes a line that sets PATH (the commands after it may be
// any program, such as rm copied to ./ls), BASH_CMDS or BASH_ALIASES
// (BASH_CMDS[1]=/bin/rm makes the command 1 run rm) or BASH_ENV/ENV
// (every shell started runs that file first).
func (a *analyser) searchPath() {
	for _, name := range []string{"PATH", "BASH_ENV", "ENV", "BASH_CMDS", "BASH_ALIASES"} {
		set := slices.Contains(a.line.Sets, name)
		for _, c := range a.line.Cmds {
			set = set || slices.Contains(c.Assigns, name)
		}
		if set {
			a.unknown("it sets %s, so covey cannot tell which programs or scripts run", name)
		}
	}
}

func parse(src string) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil { // the parser must never take covey down
			err = fmt.Errorf("parser failed: %v", r)
		}
	}()
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// analyser walks one line, and the scripts inside it, into a Line.
type analyser struct {
	line *Line
	// funcs are the functions the line defines: calling one runs its
	// body, which is walked where it is defined.
	funcs map[string]bool
	// written are the files the line writes (cleaned paths), so running
	// one of them is running code the line made up; dynamicWrite records
	// a write whose target is not known.
	written      map[string]bool
	dynamicWrite bool
	// fed is set while walking a command xargs or find -exec runs: it is
	// given more words when it runs, and placeholder ("{}", or xargs -I's
	// string) marks where; code or a command name from them is unknown.
	fed         bool
	placeholder string
}

// fedCode notes code (a script, a program, a command name) that xargs or
// find -exec supplies when the line runs: missing, or holding the
// placeholder.
func (a *analyser) fedCode(what, text string, missing bool) bool {
	if !a.fed {
		return false
	}
	if missing || a.placeholder != "" && strings.Contains(text, a.placeholder) {
		a.unknown("%s gets its code or command from the words xargs or find -exec give it when the line runs", what)
		return true
	}
	return false
}

func (a *analyser) unknown(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !slices.Contains(a.line.Unknown, msg) {
		a.line.Unknown = append(a.line.Unknown, msg)
	}
}

// Code is inline code of another language.
type Code struct {
	What string // e.g. "python3 -c"
	Text string
}

func (a *analyser) opaque(what string, w word) {
	if w.dynamic {
		a.unknown("%s runs code computed when the line runs (%s)", what, w.text)
		return
	}
	a.line.Opaque = append(a.line.Opaque, Code{What: what, Text: w.text})
}

func (a *analyser) set(name string) {
	if name != "" && !slices.Contains(a.line.Sets, name) {
		a.line.Sets = append(a.line.Sets, name)
	}
}

// file walks a parsed script; its function names are known up front, since
// a call may come before the definition in a loop or a later function.
func (a *analyser) file(f *syntax.File, depth int) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			a.funcs[fd.Name.Value] = true
		}
		return true
	})
	a.stmts(f.Stmts, depth)
}

// script parses and walks the text of a nested script (bash -c, eval,
// trap); what cannot be parsed is unknown.
func (a *analyser) script(src, what string, depth int) {
	if depth >= maxDepth {
		a.unknown("%s nests scripts too deeply to follow", what)
		return
	}
	f, err := parse(src)
	if err != nil {
		a.unknown("the script of %s cannot be parsed: %v", what, err)
		return
	}
	fed, ph := a.fed, a.placeholder
	a.fed, a.placeholder = false, "" // the script's own commands are its own
	a.file(f, depth+1)
	a.fed, a.placeholder = fed, ph
}

func (a *analyser) stmts(list []*syntax.Stmt, depth int) {
	for _, s := range list {
		a.stmt(s, depth)
	}
}

func (a *analyser) stmt(s *syntax.Stmt, depth int) {
	if s == nil {
		return
	}
	if depth >= maxDepth {
		a.unknown("the line nests too deeply to follow")
		return
	}
	bare := s.Cmd == nil
	if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) == 0 {
		bare = true
	}
	for _, r := range s.Redirs {
		a.redirect(r, bare, depth)
	}
	a.command(s.Cmd, depth)
}

func (a *analyser) command(c syntax.Command, depth int) {
	switch c := c.(type) {
	case nil:
	case *syntax.CallExpr:
		a.call(c, depth)
	case *syntax.Subshell:
		a.stmts(c.Stmts, depth+1)
	case *syntax.Block:
		a.stmts(c.Stmts, depth+1)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			a.stmts(ic.Cond, depth+1)
			a.stmts(ic.Then, depth+1)
		}
	case *syntax.WhileClause:
		a.stmts(c.Cond, depth+1)
		a.stmts(c.Do, depth+1)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			if l.Name != nil {
				a.set(l.Name.Value)
			}
			for _, w := range l.Items {
				a.word(w, depth)
			}
		case *syntax.CStyleLoop:
			a.arithm(l.Init, "a for (( )) loop", depth)
			a.arithm(l.Cond, "a for (( )) loop", depth)
			a.arithm(l.Post, "a for (( )) loop", depth)
		}
		a.stmts(c.Do, depth+1)
	case *syntax.BinaryCmd:
		a.stmt(c.X, depth+1)
		a.stmt(c.Y, depth+1)
	case *syntax.FuncDecl:
		a.stmt(c.Body, depth+1)
	case *syntax.CaseClause:
		a.word(c.Word, depth)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				a.word(p, depth)
			}
			a.stmts(it.Stmts, depth+1)
		}
	case *syntax.TestClause:
		a.test(c.X, depth)
	case *syntax.DeclClause:
		a.decl(c, depth)
	case *syntax.ArithmCmd:
		a.arithm(c.X, "(( ))", depth)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			a.arithm(x, "let", depth)
		}
	case *syntax.TimeClause:
		a.stmt(c.Stmt, depth+1)
	case *syntax.CoprocClause:
		if c.Name != nil {
			a.word(c.Name, depth)
		}
		a.stmt(c.Stmt, depth+1)
	default:
		a.unknown("the shell construct %T is not analysed", c)
	}
}

// decl walks declare, local, export, readonly and typeset: the variables
// they set outlive the statement.
func (a *analyser) decl(c *syntax.DeclClause, depth int) {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	for _, as := range c.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			// an option such as -x, or a name given by expansion
			w := literal(as.Value)
			if w.dynamic {
				a.unknown("%s is given a computed name (%s)", variant, w.text)
			}
			if strings.HasPrefix(w.text, "-") && strings.ContainsAny(w.text, "n") {
				a.unknown("%s %s makes a name reference, which can redirect any variable", variant, w.text)
			}
			a.word(as.Value, depth)
			continue
		}
		if as.Name != nil {
			a.set(as.Name.Value)
		}
		a.assign(as, depth)
	}
}

func (a *analyser) assign(as *syntax.Assign, depth int) {
	if as.Name != nil && as.Value != nil {
		a.commandVar(as.Name.Value, literal(as.Value))
	}
	if as.Index != nil {
		a.arithm(as.Index, "an array subscript", depth)
	}
	if as.Value != nil {
		a.word(as.Value, depth)
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				a.arithm(e.Index, "an array subscript", depth)
			}
			if e.Value != nil {
				a.word(e.Value, depth)
			}
		}
	}
}

// redirect records the file a redirection writes and walks the
// substitutions in its word or here-document.
func (a *analyser) redirect(r *syntax.Redirect, bare bool, depth int) {
	if r.Word != nil {
		a.word(r.Word, depth)
	}
	if r.Hdoc != nil {
		a.word(r.Hdoc, depth)
	}
	if r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut {
		if w := literal(r.Word); !w.dynamic {
			a.line.Reads = append(a.line.Reads, w.text)
		}
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll,
		syntax.RdrClob, syntax.AppClob, syntax.RdrAllClob, syntax.AppAllClob:
	case syntax.DplOut:
		if w := literal(r.Word); !w.dynamic && (w.text == "-" || isDigits(w.text)) {
			return // 2>&1: a copy of a descriptor, not a file
		}
	default:
		return
	}
	if r.Word == nil {
		return
	}
	w := literal(r.Word)
	if lit, ok := r.Word.Parts[0].(*syntax.Lit); ok && tildeOther(lit.Value) {
		w.dynamic = true // ~user, ~+, ~-: a folder known when it runs
	}
	if w.dynamic {
		a.dynamicWrite = true
	} else if harmlessDevice(w.text) {
		return
	} else {
		a.written[path.Clean(w.text)] = true
	}
	a.line.Writes = append(a.line.Writes, Write{Target: w.text, Dynamic: w.dynamic || w.glob, Bare: bare})
}

// tildeOther reports whether an unquoted word starting with s begins with
// a tilde prefix other than ~ alone (~root/x, ~+/x, ~-/x), which bash
// expands to some other folder.
func tildeOther(s string) bool {
	prefix, _, _ := strings.Cut(s, "/")
	return strings.HasPrefix(prefix, "~") && prefix != "~"
}

// harmlessDevice reports whether writing p touches no file.
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// word walks the expansions of a word: the commands in its substitutions,
// and the expansions that can run code however the line is written.
func (a *analyser) word(w *syntax.Word, depth int) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		a.wordPart(p, depth)
	}
}

func (a *analyser) wordPart(p syntax.WordPart, depth int) {
	switch p := p.(type) {
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			a.wordPart(q, depth)
		}
	case *syntax.CmdSubst:
		if p.TempFile || p.ReplyVar {
			a.unknown("an mksh substitution is not analysed")
		}
		a.stmts(p.Stmts, depth+1)
	case *syntax.ProcSubst:
		a.stmts(p.Stmts, depth+1)
	case *syntax.ArithmExp:
		if p.Bracket {
			a.unknown("$[ ] arithmetic (%s) can run commands through the variables it reads", source(&syntax.Word{Parts: []syntax.WordPart{p}}))
		}
		a.arithm(p.X, "$(( ))", depth)
	case *syntax.ParamExp:
		a.param(p, depth)
	case *syntax.BraceExp:
		for _, e := range p.Elems {
			a.word(e, depth)
		}
	}
}

// param checks a parameter expansion: ${x@P} runs the substitutions in x's
// value, ${!x} reads a variable named by another (whose subscript can run
// code), and subscripts and slices are arithmetic.
func (a *analyser) param(p *syntax.ParamExp, depth int) {
	text := source(&syntax.Word{Parts: []syntax.WordPart{p}})
	if p.Excl && p.Names == 0 {
		a.unknown("the indirect expansion %s reads a variable named at run time, which can run commands", text)
	}
	if p.NestedParam != nil {
		a.wordPart(p.NestedParam, depth)
	}
	if p.Index != nil {
		a.arithm(p.Index, "the subscript of "+text, depth)
	}
	if p.Slice != nil {
		a.arithm(p.Slice.Offset, "the slice "+text, depth)
		a.arithm(p.Slice.Length, "the slice "+text, depth)
	}
	if p.Repl != nil {
		a.word(p.Repl.Orig, depth)
		a.word(p.Repl.With, depth)
	}
	if p.Exp != nil {
		if p.Exp.Op == syntax.OtherParamOps {
			if op := literal(p.Exp.Word); op.dynamic || strings.ContainsAny(op.text, "P") || !strings.ContainsAny(op.text, "QEAaKkUuL") {
				a.unknown("the expansion %s runs the substitutions in a variable's value", text)
			}
		}
		a.word(p.Exp.Word, depth)
	}
	if len(p.Modifiers) > 0 {
		a.unknown("the zsh modifiers of %s are not analysed", text)
	}
}

// arithm checks an arithmetic expression: one that reads a variable
// evaluates the variable's value as arithmetic too, and a value such as
// a[$(rm -rf ~)] runs a command, so only constant arithmetic is known.
func (a *analyser) arithm(x syntax.ArithmExpr, what string, depth int) {
	if x == nil {
		return
	}
	reads := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			w := literal(n)
			if w.dynamic || !isNumber(w.text) {
				reads = true
			}
			a.word(n, depth)
			return false
		}
		return true
	})
	if reads {
		a.unknown("%s evaluates variables as arithmetic, which can run commands", what)
	}
}

// isNumber reports whether s is an arithmetic constant (10, 0x1f, 8#17).
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == 'x' || c == 'X' || c == '#' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}

// test walks a [[ ]] expression; its arithmetic comparisons evaluate
// their operands as arithmetic.
func (a *analyser) test(x syntax.TestExpr, depth int) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := side.(*syntax.Word); ok {
					if lw := literal(w); lw.dynamic || !isNumber(strings.TrimPrefix(lw.text, "-")) {
						a.unknown("[[ %s ]] compares as arithmetic, which can run commands through the variables it reads", source(x))
					}
				}
			}
		}
		a.test(x.X, depth)
		a.test(x.Y, depth)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet {
			if w, ok := x.X.(*syntax.Word); ok && strings.Contains(literal(w).text, "[") {
				a.unknown("[[ -v ]] with a subscript evaluates it, which can run commands")
			}
		}
		a.test(x.X, depth)
	case *syntax.ParenTest:
		a.test(x.X, depth)
	case *syntax.Word:
		a.word(x, depth)
	}
}

// call walks a simple command: its assignments, its words, and what it
// runs.
func (a *analyser) call(c *syntax.CallExpr, depth int) {
	var assigns []string
	for _, as := range c.Assigns {
		a.assign(as, depth)
		if as.Name == nil {
			continue
		}
		if len(c.Args) == 0 {
			a.set(as.Name.Value)
		} else {
			assigns = append(assigns, as.Name.Value)
		}
	}
	if len(c.Args) == 0 {
		return
	}
	var words []word
	for _, w := range c.Args {
		a.word(w, depth)
		expanded := []*syntax.Word{w}
		if syntax.SplitBraces(w) {
			expanded = expanded[:0]
			for ew, err := range expand.BracesSeq(nil, w) {
				if err != nil || len(words)+len(expanded) > maxWords {
					a.unknown("brace expansion makes too many words to check")
					break
				}
				expanded = append(expanded, ew)
			}
		}
		for _, ew := range expanded {
			words = append(words, literal(ew))
		}
	}
	if len(words) == 0 {
		return
	}
	if words[0].dynamic {
		a.unknown("the command name %s is computed when the line runs", words[0].text)
	} else if words[0].glob {
		a.unknown("the command name %s is a file name pattern", words[0].text)
	}
	a.run(words, assigns, false, depth)
}

// run records the command words and follows what it runs.
func (a *analyser) run(words []word, assigns []string, openArgs bool, depth int) {
	if len(words) == 0 {
		return
	}
	if depth >= maxDepth {
		a.unknown("wrappers nest too deeply to follow")
		return
	}
	args := make([]string, len(words))
	dynamic := false
	for i, w := range words {
		args[i] = w.text
		dynamic = dynamic || w.dynamic
	}
	idx := len(a.line.Cmds)
	a.line.Cmds = append(a.line.Cmds, Cmd{Args: args, Name: path.Base(args[0]), Assigns: assigns, OpenArgs: openArgs, Dynamic: dynamic})
	if words[0].dynamic {
		return
	}
	if a.fedCode("the command "+args[0], args[0], false) {
		return
	}
	if strings.HasPrefix(args[0], "-") {
		// time -p -- rm x: bash's time skips the --, the parser does not.
		a.unknown("the command name %s starts with -, which covey cannot place", args[0])
	}
	if strings.Contains(args[0], "/") {
		a.runsFile(args[0], args[0])
	}
	inner, transparent := a.wrapped(a.line.Cmds[idx].Name, words, depth)
	a.line.Cmds[idx].Wrapper = transparent
	if inner != nil {
		fed, ph := a.fed, a.placeholder
		if inner.openArgs {
			a.fed, a.placeholder = true, inner.placeholder
		}
		a.run(inner.words, append(slices.Clone(assigns), inner.assigns...), openArgs || inner.openArgs, depth+1)
		a.fed, a.placeholder = fed, ph
	}
}

// runsFile notes that the line runs the file p as code: a file the line
// itself writes is code no rule has seen.
func (a *analyser) runsFile(p, what string) {
	if a.written[path.Clean(p)] {
		a.unknown("%s runs %s, which this command line writes first", what, p)
	} else if a.dynamicWrite {
		a.unknown("%s runs %s after a write to a file named at run time", what, p)
	}
}
