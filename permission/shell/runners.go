package shell

import (
	"regexp"
	"strings"
	"sync"
)

// This file holds the code runners: shells (whose scripts are parsed and
// walked), eval, trap and source, interpreters (python, node, perl, ...),
// awk and sed, and the programs whose options hold a command (tar -I,
// rsync -e, vim -c, ...): code a deny rule checks for its program's name.

// shells run a script given with -c or in a file, or read from stdin.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "rbash": true, "posh": true, "yash": true, "lksh": true}

// foreignShells have a syntax this package does not parse.
var foreignShells = map[string]bool{"fish": true, "csh": true, "tcsh": true, "nu": true, "xonsh": true, "elvish": true, "pwsh": true, "rc": true, "es": true}

// interpreters run inline code with the flag given, a script file, or a
// program read from stdin.
var interpreters = map[string]struct {
	code     []string // flags whose argument is code
	withArgs string   // short options taking an argument (not code)
}{
	"python":    {code: []string{"-c"}, withArgs: "WXm"},
	"node":      {code: []string{"-e", "--eval", "-p", "--print"}, withArgs: "r"},
	"nodejs":    {code: []string{"-e", "--eval", "-p", "--print"}, withArgs: "r"},
	"deno":      {code: []string{"eval"}},
	"bun":       {code: []string{"-e", "--eval", "-p", "--print"}},
	"perl":      {code: []string{"-e", "-E"}, withArgs: "IMmx"},
	"ruby":      {code: []string{"-e"}, withArgs: "Ir"},
	"php":       {code: []string{"-r"}, withArgs: "dc"},
	"lua":       {code: []string{"-e"}, withArgs: "l"},
	"luajit":    {code: []string{"-e"}, withArgs: "l"},
	"Rscript":   {code: []string{"-e"}},
	"tclsh":     {},
	"osascript": {code: []string{"-e"}},
	"pwsh":      {code: []string{"-c", "-Command"}},
}

var pythonName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python[0-9.]*$`) })

// shell follows bash/sh/zsh: -c SCRIPT is parsed, a script file is
// noted, and commands read from stdin are unknown.
func (a *analyser) shell(name string, args []word, depth int) (*inner, bool) {
	cflag := false
	i := 0
options:
	for i < len(args) {
		w := args[i]
		if w.dynamic {
			a.unknown("covey cannot tell what %s runs: its argument %s is computed", name, w.text)
			return nil, false
		}
		t := w.text
		switch {
		case t == "--" || t == "-":
			i++
			break options
		case strings.HasPrefix(t, "--"):
			switch t {
			case "--rcfile", "--init-file":
				a.unknown("%s %s runs a file of commands", name, t)
				return nil, false
			}
			i++
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
			i++
			for _, c := range t[1:] {
				switch c {
				case 'c':
					cflag = true
				case 'o', 'O':
					i++ // takes an option name
				case 's':
					a.unknown("%s -s reads commands from its input", name)
					return nil, false
				}
			}
		default:
			break options
		}
	}
	switch {
	case cflag && i < len(args):
		if a.fedCode(name+" -c", args[i].text, false) {
			return nil, false
		}
		a.script(args[i].text, name+" -c", depth)
		return nil, true
	case cflag:
		a.fedCode(name+" -c", "", true)
		return nil, false
	case i < len(args):
		if a.fedCode(name, args[i].text, false) {
			return nil, false
		}
		a.scriptFile(name, args[i], true)
		return nil, false
	}
	if a.fed {
		a.unknown("%s runs the script files xargs gives it when the line runs", name)
		return nil, false
	}
	a.unknown("%s reads the commands it runs from its input", name)
	return nil, false
}

// foreignShell notes a shell whose syntax covey does not parse: what it
// runs is unknown.
func (a *analyser) foreignShell(name string, args []word, depth int) {
	if len(args) > 0 {
		a.unknown("%s runs code in a syntax covey does not parse", name)
	} else {
		a.unknown("%s reads commands from its input", name)
	}
}

// eval follows eval ARG...: the words joined are a script, walked like
// the line itself.
func (a *analyser) eval(name string, args []word, depth int) (*inner, bool) {
	if len(args) > 0 && args[0].text == "--" {
		args = args[1:]
	}
	text, ok := joinLiteral(args)
	if !ok {
		a.unknown("eval runs a string computed when the line runs")
		return nil, false
	}
	if a.fedCode("eval", text, len(args) == 0) {
		return nil, false
	}
	a.script(text, "eval", depth)
	return nil, true
}

// source follows source FILE (and . FILE): the file is a shell script the
// line runs.
func (a *analyser) source(name string, args []word, depth int) {
	if len(args) == 0 {
		a.fedCode(name, "", true)
		return
	}
	if a.fedCode(name, args[0].text, false) {
		return
	}
	a.scriptFile(name, args[0], true)
}

// scriptFile notes a script file the line runs, in Scripts when the
// file is a shell script.
func (a *analyser) scriptFile(name string, w word, shellScript bool) {
	if w.dynamic {
		a.unknown("%s runs a script file named at run time (%s)", name, w.text)
		return
	}
	if shellScript {
		a.line.Scripts = append(a.line.Scripts, w.text)
	}
	a.runsFile(w.text, name)
}

// trap follows trap [-lp] [ACTION] [SIGNAL...]: ACTION is a script.
func (a *analyser) trap(_ string, args []word, depth int) {
	if len(args) > 0 && (args[0].text == "-p" || args[0].text == "-l" || args[0].text == "--") {
		if args[0].text != "--" {
			return
		}
		args = args[1:]
	}
	if len(args) < 2 {
		return
	}
	if args[0].dynamic {
		a.unknown("trap runs a string computed when the line runs")
		return
	}
	if args[0].text == "-" || args[0].text == "" {
		return
	}
	a.script(args[0].text, "trap", depth)
}

// interpreter follows a program of the interpreters table, or a python
// of any version.
func (a *analyser) interpreter(name string, args []word, depth int) {
	spec, ok := interpreters[name]
	if !ok {
		spec = interpreters["python"]
	}
	a.interpreterArgs(name, spec.code, spec.withArgs, args)
}

// interpreterArgs follows the arguments of python, node, perl and their
// kin: code given with one of the code flags, a script file, or a program
// read from stdin.
func (a *analyser) interpreterArgs(name string, code []string, withArgs string, args []word) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if args[i].dynamic && i == 0 {
			a.unknown("covey cannot tell what %s runs: its argument %s is computed", name, t)
			return
		}
		for _, c := range code {
			switch {
			case t == c && i+1 < len(args):
				if !a.fedCode(name+" "+c, args[i+1].text, false) {
					a.opaque(name+" "+c, args[i+1])
				}
				return
			case t == c:
				a.fedCode(name+" "+c, "", true)
				return
			case strings.HasPrefix(c, "-") && len(c) == 2 && strings.HasPrefix(t, c) && !strings.HasPrefix(t, "--"):
				a.opaque(name+" "+c, word{text: t[2:], dynamic: args[i].dynamic})
				return
			}
		}
		switch {
		case t == "-":
			a.unknown("%s - reads the program it runs from its input", name)
			return
		case t == "-m" && strings.Contains(withArgs, "m"):
			return // a module by name
		case strings.HasPrefix(t, "-") && len(t) == 2 && strings.IndexByte(withArgs, t[1]) >= 0:
			i++
		case strings.HasPrefix(t, "-"):
		default:
			if a.fedCode(name, t, false) {
				return
			}
			a.scriptFile(name, args[i], false)
			return
		}
	}
	if !a.fedCode(name, "", true) {
		a.unknown("%s reads the program it runs from its input", name)
	}
}

// awk programs can run commands (system(), pipes) and write files.
func (a *analyser) awk(name string, args []word, depth int) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-f" || strings.HasPrefix(t, "--file"):
			return // a program file, like any program
		case t == "-v" || t == "-F" || t == "-i" || t == "-l" || t == "-E":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			if a.fedCode(name, t, false) {
				return
			}
			if args[i].dynamic || strings.Contains(t, "system") || strings.Contains(t, "|") || strings.Contains(t, ">") || strings.Contains(t, "getline") {
				a.opaque(name, args[i])
			}
			return
		}
	}
	a.fedCode(name, "", true)
}

// sed scripts can run commands (the e command, the s///e flag): they are
// inline code.
func (a *analyser) sed(_ string, args []word, depth int) {
	script := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case (t == "-e" || t == "--expression") && i+1 < len(args):
			i++
			a.opaque("sed", args[i])
			script = true
		case strings.HasPrefix(t, "--expression="):
			a.opaque("sed", word{text: strings.TrimPrefix(t, "--expression="), dynamic: args[i].dynamic})
			script = true
		case t == "-f" || t == "--file" || strings.HasPrefix(t, "--file="):
			return // a script file, like any program
		case strings.HasPrefix(t, "-e") && len(t) > 2 && !strings.HasPrefix(t, "--"):
			a.opaque("sed", word{text: t[2:], dynamic: args[i].dynamic})
			script = true
		case t == "-l" || t == "--line-length":
			i++
		case strings.HasPrefix(t, "-") && t != "-":
		default:
			if !script {
				a.opaque("sed", args[i])
			}
			return
		}
	}
}

// codeOptions are options whose value is a command the program runs
// through a shell: inline code, which a deny rule checks for its
// program's name.
var codeOptions = map[string][]string{
	// bash's builtins whose -C runs a command to make completions or to
	// handle each line read.
	"compgen": {"-C"}, "complete": {"-C"}, "mapfile": {"-C"}, "readarray": {"-C"},
	"make":  {"--eval", "-E"},
	"tar":   {"--checkpoint-action", "--to-command", "--use-compress-program", "-I", "--rsh-command", "--info-script", "--new-volume-script", "-F"},
	"rsync": {"-e", "--rsh", "--rsync-path"},
	"zip":   {"-TT", "--unzip-command"},
	"vim":   {"-c", "--cmd"}, "vi": {"-c", "--cmd"}, "nvim": {"-c", "--cmd"}, "ex": {"-c", "--cmd"},
	"scp": {"-S"},
}

// runsCodeOptions follows a program of the codeOptions table.
func (a *analyser) runsCodeOptions(name string, args []word, depth int) {
	a.codeOptions(name, codeOptions[name], args)
}

// codeOptions records the values of a program's command-running options
// (and vim's +cmd) as inline code.
func (a *analyser) codeOptions(name string, opts []string, args []word) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if name == "make" && (t == "-f" || t == "--file" || t == "--makefile") && i+1 < len(args) && (args[i+1].text == "-" || args[i+1].text == "/dev/stdin") ||
			name == "make" && (t == "-f-" || t == "--file=-" || t == "--makefile=-") {
			a.unknown("make reads its rules from its input, which covey cannot see")
			continue
		}
		if (name == "vim" || name == "vi" || name == "nvim" || name == "ex") && strings.HasPrefix(t, "+") {
			a.opaque(name+" +", word{text: t[1:], dynamic: args[i].dynamic})
			continue
		}
		for _, o := range opts {
			switch {
			case t == o && i+1 < len(args):
				a.opaque(name+" "+o, args[i+1])
			case strings.HasPrefix(o, "--") && strings.HasPrefix(t, o+"="):
				a.opaque(name+" "+o, word{text: t[len(o)+1:], dynamic: args[i].dynamic})
			case !strings.HasPrefix(o, "--") && strings.HasPrefix(t, o) && len(t) > len(o) && !strings.HasPrefix(t, "--"):
				a.opaque(name+" "+o, word{text: t[len(o):], dynamic: args[i].dynamic})
			}
		}
	}
}

// joinLiteral joins the words of eval as bash does, if all are literal.
func joinLiteral(args []word) (string, bool) {
	parts := make([]string, len(args))
	for i, w := range args {
		if w.dynamic {
			return "", false
		}
		parts[i] = w.text
	}
	return strings.Join(parts, " "), true
}
