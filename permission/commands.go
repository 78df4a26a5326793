package permission

import (
	"slices"
	"strings"

	"covey/permission/shell"
)

// command is a bash command line, analysed once for every rule.
type command struct {
	raw  string      // trimmed
	cmds []shell.Cmd // the simple commands it runs
	err  error       // why it could not be analysed; never auto-allowed then
}

func analyseCommand(raw string) command {
	c := command{raw: strings.TrimSpace(raw)}
	c.cmds, c.err = shell.Parse(c.raw)
	return c
}

// deniedCommand returns the first deny rule matching any command the line
// runs. Deny rules err towards matching: a line that cannot be parsed, or
// holds a loop or function whose words are not plain commands, is also
// split crudely at every operator; wrappers such as sudo, env or xargs are
// looked through; and the script of eval, bash -c or sh -c is parsed and
// checked too. This is a guard against the agent's ordinary commands, not
// a sandbox: a command computed at run time ($(echo rm)) escapes it.
func deniedCommand(deny []rule, c command) (rule, bool) {
	var bashDeny []rule
	for _, r := range deny {
		if r.tool != "bash" {
			continue
		}
		if r.kind == ruleAll {
			return r, true
		}
		bashDeny = append(bashDeny, r)
	}
	if len(bashDeny) == 0 {
		return rule{}, false
	}
	return deniedParts(bashDeny, c, 0)
}

// maxScriptDepth bounds how deeply deniedParts follows bash -c scripts.
const maxScriptDepth = 4

func deniedParts(deny []rule, c command, depth int) (rule, bool) {
	var parts [][]string
	crude := c.err != nil
	for _, sc := range c.cmds {
		if sc.Opaque {
			crude = true
		} else if len(sc.Args) > 0 {
			parts = append(parts, sc.Args)
		}
	}
	if crude {
		parts = append(parts, crudeParts(c.raw)...)
	}
	for _, args := range parts {
		for _, words := range unwrap(args) {
			for _, r := range deny {
				if r.matchWords(words) {
					return r, true
				}
			}
			if script, ok := scriptArg(words); ok && depth < maxScriptDepth {
				if r, ok := deniedParts(deny, analyseCommand(script), depth+1); ok {
					return r, true
				}
			}
		}
	}
	return rule{}, false
}

// unwrap returns args and, for a command run through a wrapper (sudo rm,
// env X=1 rm, nice -n 5 rm, xargs rm), every tail of its arguments: which
// of them is the wrapped command depends on the wrapper's flags, and a
// deny rule should rather match too often than miss.
func unwrap(args []string) [][]string {
	out := [][]string{args}
	if len(args) > 0 && wrapper(args[0]) {
		for i := 1; i < len(args); i++ {
			out = append(out, args[i:])
		}
	}
	return out
}

// wrapper reports whether prog runs the command given as its arguments.
func wrapper(prog string) bool {
	switch prog {
	case "sudo", "doas", "env", "command", "builtin", "exec", "nohup", "nice", "time", "xargs", "stdbuf", "timeout":
		return true
	}
	return false
}

// scriptArg returns the script of eval ARGS, or of sh/bash/zsh -c SCRIPT.
func scriptArg(args []string) (string, bool) {
	if len(args) < 2 {
		return "", false
	}
	switch args[0] {
	case "eval":
		return strings.Join(args[1:], " "), true
	case "sh", "bash", "zsh", "dash", "ksh":
		for i, a := range args[1 : len(args)-1] {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
				return args[i+2], true
			}
		}
	}
	return "", false
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
				if _, ok := shell.AssignmentName(w); ok || shell.SimpleKeyword(w) {
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
func partAllowed(sets [][]rule, sc shell.Cmd) (ok, runs bool) {
	if sc.Opaque || slices.ContainsFunc(sc.Assigns, dangerousEnv) {
		return false, false
	}
	if len(sc.Args) == 0 {
		inert := sc.Redirs == 0 || sc.Subshell || slices.ContainsFunc(sc.Keywords, closingKeyword)
		return inert, false
	}
	if sc.DynamicName {
		return false, true
	}
	for _, set := range sets {
		for _, r := range set {
			if r.tool == "bash" && r.matchWords(sc.Args) {
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
