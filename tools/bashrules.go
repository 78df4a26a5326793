package tools

import (
	"slices"
	"strings"
)

// command is a bash command line, analysed once for every rule.
type command struct {
	raw  string     // trimmed
	cmds []shellCmd // the simple commands it runs
	err  error      // why it could not be analysed; never auto-allowed then
}

func analyseCommand(raw string) command {
	c := command{raw: strings.TrimSpace(raw)}
	c.cmds, c.err = parseShell(c.raw)
	return c
}

// deniedCommand returns the first deny rule matching any command the line
// runs. A line that cannot be parsed is split crudely at every operator
// and quote character instead: deny rules err towards matching.
func deniedCommand(deny []rule, c command) (rule, bool) {
	var parts [][]string
	if c.err == nil {
		for _, sc := range c.cmds {
			if !sc.opaque && len(sc.args) > 0 {
				parts = append(parts, sc.args)
			}
		}
	} else {
		parts = crudeParts(c.raw)
	}
	for _, r := range deny {
		if r.tool != "bash" {
			continue
		}
		if r.kind == ruleAll {
			return r, true
		}
		for _, args := range parts {
			if r.matchWords(args) {
				return r, true
			}
		}
	}
	return rule{}, false
}

// crudeParts splits a line that could not be parsed into candidate
// commands, cutting at every character that could separate or nest one.
func crudeParts(raw string) [][]string {
	unquote := strings.NewReplacer(`"`, "", `'`, "", `\`, "")
	var out [][]string
	for _, piece := range strings.FieldsFunc(raw, func(r rune) bool { return strings.ContainsRune(";&|()\n`{}<>$", r) }) {
		var words []string
		for _, w := range strings.Fields(piece) {
			w = unquote.Replace(w)
			if len(words) == 0 {
				if _, ok := assignmentName(w); ok || simpleKeyword(w) {
					continue
				}
			}
			words = append(words, w)
		}
		if len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}

// allowedCommand reports whether rules allow the whole line: a bare bash
// rule or a grant of this very line, or else every command it runs.
func allowedCommand(sets [][]rule, c command) bool {
	for _, set := range sets {
		for _, r := range set {
			if r.tool == "bash" && (r.kind == ruleAll || (r.kind == ruleCmdRaw && r.raw == c.raw)) {
				return true
			}
		}
	}
	if c.err != nil {
		return false
	}
	runs := false
	for _, sc := range c.cmds {
		ok, ran := partAllowed(sets, sc)
		if !ok {
			return false
		}
		runs = runs || ran
	}
	return runs
}

// partAllowed reports whether rules allow one simple command, and whether
// it runs a program at all (a bare assignment or a closing keyword does
// not).
//
// Redirections do not change the answer for a command a rule allows: the
// rule trusts the program with any arguments, and a program's own flags
// (-o, --output) write files just as a redirection does. A redirection
// with no command (a bare "> file" empties a file) is never allowed.
func partAllowed(sets [][]rule, sc shellCmd) (ok, runs bool) {
	if sc.opaque || slices.ContainsFunc(sc.assigns, dangerousEnv) {
		return false, false
	}
	if len(sc.args) == 0 {
		inert := sc.redirs == 0 || sc.subshell || slices.ContainsFunc(sc.keywords, closingKeyword)
		return inert, false
	}
	if sc.dynamicName {
		return false, true
	}
	for _, set := range sets {
		for _, r := range set {
			if r.tool == "bash" && r.matchWords(sc.args) {
				return true, true
			}
		}
	}
	return false, true
}

// closingKeyword reports whether w ends a compound command, whose
// redirections apply to commands checked on their own.
func closingKeyword(w string) bool { return w == "}" || w == "fi" || w == "done" || w == "esac" }

// dangerousEnv reports whether assigning the variable name changes which
// program runs or injects code into it, so that FOO=1 go test matches
// go test:* but PATH=/tmp/x go test does not. The list is best effort.
func dangerousEnv(name string) bool {
	switch name {
	case "PATH", "IFS", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "GLOBIGNORE", "CDPATH":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_")
}
