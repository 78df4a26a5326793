package shell

import (
	"path"
	"regexp"

	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// inner is the command a wrapper runs.
type inner struct {
	words    []word
	assigns  []string
	openArgs bool
	// placeholder is xargs -I's replace string ("" without -I).
	placeholder string
}

// optSpec describes a wrapper's options well enough to find where the
// command it runs begins. An option it does not list makes the wrapper
// unknown: a guess could skip the real command.
type optSpec struct {
	withArg  string   // short options that take an argument (-n 5, -n5)
	flags    string   // short options without one
	optional string   // short options whose argument is glued or absent (-i{}, -i)
	longArg  []string // long options taking an argument unless given as --x=y
	long     []string // long options without one
	numeric  bool     // -10 is an option (nice)
	before   int      // words between the options and the command (timeout's duration)
}

var wrappers = map[string]optSpec{
	"time":    {flags: "pvaq", withArg: "fo", longArg: []string{"format", "output"}, long: []string{"append", "verbose", "portability", "quiet"}},
	"nice":    {withArg: "n", numeric: true, longArg: []string{"adjustment"}},
	"nohup":   {},
	"setsid":  {flags: "cfw", long: []string{"ctty", "fork", "wait"}},
	"timeout": {flags: "v", withArg: "sk", longArg: []string{"signal", "kill-after"}, long: []string{"preserve-status", "foreground", "verbose"}, before: 1},
	"stdbuf":  {withArg: "ioe", longArg: []string{"input", "output", "error"}},
	"ionice":  {flags: "t", withArg: "cn", longArg: []string{"class", "classdata"}, long: []string{"ignore"}},
	"taskset": {flags: "ac", long: []string{"all-tasks", "cpu-list"}, before: 1},
	"chroot":  {longArg: []string{"userspec", "groups"}, long: []string{"skip-chdir"}, before: 1},
	"sudo": {flags: "AbEHiKklnPSsVv", withArg: "CDgphRrTtUu",
		longArg: []string{"user", "group", "chdir", "chroot", "close-from", "host", "prompt", "role", "type", "command-timeout", "other-user"},
		long:    []string{"preserve-env", "askpass", "background", "login", "non-interactive", "shell", "stdin", "preserve-groups", "reset-timestamp", "remove-timestamp", "set-home"}},
	"doas":    {flags: "nLs", withArg: "uC"},
	"exec":    {flags: "cl", withArg: "a"},
	"command": {flags: "pvV"},
	"builtin": {},
	"busybox": {},
	"xargs": {flags: "0oprtx", withArg: "adEILnPs", optional: "eil",
		longArg: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		long:    []string{"null", "eof", "replace", "max-lines", "interactive", "no-run-if-empty", "verbose", "exit", "show-limits", "open-tty"}},
	"env": {flags: "0iv", withArg: "uCS", longArg: []string{"unset", "chdir", "split-string"},
		long: []string{"null", "ignore-environment", "debug", "default-signal", "ignore-signal", "block-signal", "list-signal-handling"}},
}

// privileged are wrappers that change who runs the command: a rule must
// allow them by name, never see through them.
var privileged = map[string]bool{"sudo": true, "doas": true, "xargs": true, "chroot": true}

// opaqueRunners run a command in ways whose options are not followed
// here; what they run is unknown.
var opaqueRunners = map[string]bool{
	"watch": true, "su": true, "runuser": true, "script": true, "strace": true, "ltrace": true, "gdb": true,
	"valgrind": true, "nsenter": true, "unshare": true, "firejail": true, "bwrap": true, "chrt": true,
	"parallel": true, "flock": true, "ssh": true, "entr": true, "systemd-run": true, "setpriv": true,
	"fakeroot": true, "proot": true, "catchsegv": true, "pkexec": true, "dbus-launch": true, "expect": true,
	"prlimit": true, "ssh-agent": true, "dbus-run-session": true, "sg": true, "newgrp": true, "tmux": true, "screen": true,
	"at": true, "batch": true, "xvfb-run": true, "nix-shell": true, "direnv": true, "sudoedit": true,
}

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

var pythonName = regexp.MustCompile(`^python[0-9.]*$`)

// wrapped follows what the command words run, and reports whether the
// command is a transparent wrapper (one a rule should see through).
func (a *analyser) wrapped(name string, words []word, depth int) (*inner, bool) {
	args := words[1:]
	switch {
	case a.funcs[name]:
		return nil, true // its body is walked where it is defined
	case name == "env":
		return a.env(args, depth)
	case name == "command":
		rest, ok := a.options(name, wrappers[name], args)
		if !ok || hasFlag(args, "v") || hasFlag(args, "V") {
			return nil, false // command -v only looks the name up
		}
		return &inner{words: rest}, true
	case name == "find":
		return a.find(args, depth), false
	case shells[name]:
		return a.shell(name, args, depth)
	case foreignShells[name]:
		if len(args) > 0 {
			a.unknown("%s runs code in a syntax covey does not parse", name)
		} else {
			a.unknown("%s reads commands from its input", name)
		}
		return nil, false
	case name == "eval":
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
	case name == "trap":
		a.trap(args, depth)
		return nil, false
	case name == "source" || name == ".":
		if len(args) == 0 {
			a.fedCode(name, "", true)
			return nil, false
		}
		if a.fedCode(name, args[0].text, false) {
			return nil, false
		}
		a.scriptFile(name, args[0], true)
		return nil, false
	case name == "alias" && len(args) > 0:
		for _, w := range args {
			if strings.Contains(w.text, "=") || w.dynamic {
				a.unknown("alias %s can change what a command name runs", w.text)
			}
		}
		return nil, false
	case name == "fc" && !hasFlag(args, "l"):
		a.unknown("fc runs commands from the history or through an editor (fc -e CMD)")
		return nil, false
	case name == "hash" && hasFlag(args, "p"), name == "enable" && len(args) > 0:
		a.unknown("%s can change what a command name runs", name)
		return nil, false
	case name == "shopt":
		for _, w := range args {
			if w.dynamic || w.text == "expand_aliases" {
				a.unknown("shopt %s lets aliases change what a command name runs", w.text)
			}
		}
		return nil, false
	case name == "go":
		a.goTool(args, depth)
		return nil, false
	case name == "git":
		a.git(args)
		return nil, false
	case name == "make" || name == "gmake":
		// make runs the recipes of its makefile: one the line writes
		// is code no rule has seen.
		for i, w := range args {
			if (w.text == "-f" || w.text == "--file" || w.text == "--makefile") && i+1 < len(args) {
				a.runsFile(args[i+1].text, name)
			}
		}
		for _, f := range []string{"Makefile", "makefile", "GNUmakefile"} {
			a.runsFile(f, name)
		}
		a.codeOptions("make", codeOptions["make"], args)
		return nil, false
	case name == "npm" || name == "yarn" || name == "pnpm":
		a.runsFile("package.json", name) // its scripts
		return nil, false
	case name == "sort":
		for i, w := range args {
			target, ok := "", false
			switch {
			case w.text == "--output" && i+1 < len(args):
				target, ok, w = args[i+1].text, true, args[i+1]
			case strings.HasPrefix(w.text, "--output="):
				target, ok = strings.TrimPrefix(w.text, "--output="), true
			case strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--"):
				// A cluster of short options (-ruo FILE, -ro../x): o takes
				// the rest of the word or the next one; k, t, S and T take
				// an argument that is not a file.
				for j := 1; j < len(w.text); j++ {
					if strings.IndexByte("ktST", w.text[j]) >= 0 {
						break
					}
					if w.text[j] == 'o' {
						if rest := w.text[j+1:]; rest != "" {
							target, ok = rest, true
						} else if i+1 < len(args) {
							target, ok, w = args[i+1].text, true, args[i+1]
						}
						break
					}
				}
			}
			if ok {
				a.line.Writes = append(a.line.Writes, Write{Target: target, Dynamic: w.dynamic || w.glob || tildeOther(target)})
			}
		}
		return nil, false
	case name == "sed":
		a.sed(args)
		return nil, false
	case name == "unset" || name == "test" || name == "[":
		for _, w := range args {
			if w.dynamic || strings.Contains(w.text, "[") && name == "unset" {
				a.subscript(name, w)
			} else if name != "unset" && strings.Contains(w.text, "[") && hasFlag(args, "v") {
				a.subscript(name+" -v", w)
			}
		}
		return nil, false
	case name == "read" || name == "mapfile" || name == "readarray" || name == "getopts" || name == "printf":
		a.sets(name, args)
		if opts, ok := codeOptions[name]; ok {
			a.codeOptions(name, opts, args) // mapfile -C CMD
		}
		return nil, false
	case name == "tee" || name == "cp" || name == "mv" || name == "install" || name == "ln" || name == "dd" || name == "curl" || name == "wget":
		a.copies(name, args)
		return nil, false
	case opaqueRunners[name]:
		if len(args) > 0 {
			a.unknown("covey cannot tell which command %s runs", name)
		}
		return nil, false
	}
	if spec, ok := wrappers[name]; ok {
		rest, ok := a.options(name, spec, args)
		if !ok {
			return nil, false
		}
		if len(rest) == 0 {
			if (name == "sudo" || name == "doas") && (hasFlag(args, "s") || hasFlag(args, "i")) {
				a.unknown("%s -s/-i without a command starts a shell reading its input", name)
			}
			if name == "xargs" {
				return &inner{words: []word{{text: "echo"}}, openArgs: true}, false
			}
			if name == "chroot" {
				a.unknown("chroot without a command starts a shell reading its input")
			}
			return nil, false
		}
		in := &inner{words: rest, openArgs: name == "xargs"}
		if name == "xargs" {
			in.placeholder = xargsReplace(args)
		}
		return in, !privileged[name]
	}
	if spec, ok := interpreters[name]; ok || pythonName.MatchString(name) {
		if !ok {
			spec = interpreters["python"]
		}
		a.interpreter(name, spec.code, spec.withArgs, args)
		return nil, false
	}
	if name == "awk" || name == "gawk" || name == "mawk" || name == "nawk" || name == "busybox-awk" {
		a.awk(name, args)
	}
	if opts, ok := codeOptions[name]; ok {
		a.codeOptions(name, opts, args)
	}
	return nil, false
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

// xargsReplace returns the replace string of xargs -I R, -iR, -i or
// --replace[=R], or "".
func xargsReplace(args []word) string {
	for i, w := range args {
		t := w.text
		switch {
		case t == "--" || !strings.HasPrefix(t, "-"):
			return ""
		case t == "-I" && i+1 < len(args):
			return args[i+1].text
		case strings.HasPrefix(t, "-I") && len(t) > 2:
			return t[2:]
		case t == "-i" || t == "--replace":
			return "{}"
		case strings.HasPrefix(t, "-i"):
			return t[2:]
		case strings.HasPrefix(t, "--replace="):
			return strings.TrimPrefix(t, "--replace=")
		}
	}
	return ""
}

// options skips a wrapper's options and the words before its command,
// returning the command's words; ok is false (and the line unknown) when
// an option is not understood or computed.
func (a *analyser) options(name string, spec optSpec, args []word) (rest []word, ok bool) {
	i := 0
	for i < len(args) {
		w := args[i]
		if w.dynamic {
			a.unknown("covey cannot tell which command %s runs: its argument %s is computed", name, w.text)
			return nil, false
		}
		t := w.text
		if t == "--" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		if long, isLong := strings.CutPrefix(t, "--"); isLong {
			key, _, hasValue := strings.Cut(long, "=")
			switch {
			case contains(spec.longArg, key) && !hasValue:
				i += 2
			case contains(spec.longArg, key), contains(spec.long, key):
				i++
			default:
				a.unknown("covey cannot tell which command %s runs: it does not know the option %s", name, t)
				return nil, false
			}
			continue
		}
		if spec.numeric && isDigits(t[1:]) {
			i++
			continue
		}
		i++
		for j := 1; j < len(t); j++ {
			c := t[j]
			switch {
			case strings.IndexByte(spec.withArg, c) >= 0:
				if j == len(t)-1 {
					i++ // the argument is the next word
				}
				j = len(t)
			case strings.IndexByte(spec.optional, c) >= 0:
				j = len(t)
			case strings.IndexByte(spec.flags, c) >= 0:
			default:
				a.unknown("covey cannot tell which command %s runs: it does not know the option -%c", name, c)
				return nil, false
			}
		}
	}
	if i > len(args) {
		return nil, true
	}
	for k := 0; k < spec.before; k++ {
		if i >= len(args) {
			return nil, true
		}
		if args[i].dynamic {
			a.unknown("covey cannot tell which command %s runs: its argument %s is computed", name, args[i].text)
			return nil, false
		}
		i++
	}
	return args[i:], true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hasFlag reports whether a short flag appears in the options of args.
func hasFlag(args []word, flag string) bool {
	for _, w := range args {
		if w.text == "--" || !strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "--") {
			return false
		}
		if strings.Contains(w.text[1:], flag) {
			return true
		}
	}
	return false
}

// env follows env [OPTION]... [NAME=VALUE]... [COMMAND [ARG]...],
// including -S, which splits a string into the command's words.
func (a *analyser) env(args []word, depth int) (*inner, bool) {
	var assigns []string
	var split []word
	i := 0
	for i < len(args) {
		w := args[i]
		if w.dynamic {
			a.unknown("covey cannot tell which command env runs: its argument %s is computed", w.text)
			return nil, false
		}
		t := w.text
		switch {
		case t == "--":
			i++
			goto names
		case t == "-" || !strings.HasPrefix(t, "-"):
			goto names
		case t == "-S" || t == "--split-string":
			if i+1 >= len(args) {
				a.fedCode("env -S", "", true)
				return nil, false
			}
			i++
			s, ok := a.splitString(args[i])
			if !ok {
				return nil, false
			}
			split = append(split, s...)
			i++
			continue
		case strings.HasPrefix(t, "-S") || strings.HasPrefix(t, "--split-string="):
			rest := strings.TrimPrefix(strings.TrimPrefix(t, "--split-string="), "-S")
			s, ok := a.splitString(word{text: rest})
			if !ok {
				return nil, false
			}
			split = append(split, s...)
			i++
			continue
		}
		if !strings.HasPrefix(t, "--") {
			// A cluster of short options (-iS 'rm x', -vS'rm x', -iu
			// HOME): S splits the rest or the next word into the
			// command's words; u and C take the rest or the next word.
			next, s, ok := a.envCluster(t, args[i+1:])
			if !ok {
				return nil, false
			}
			split = append(split, s...)
			i += 1 + next
			continue
		}
		rest, ok := a.options("env", wrappers["env"], args[i:i+1])
		if !ok {
			return nil, false
		}
		if len(rest) == 0 && i+1 < len(args) && (t == "--unset" || t == "--chdir") {
			i++ // the option's argument
		}
		i++
	}
names:
	// env takes every word holding "=" before the command for a variable,
	// whatever its name (BASH_FUNC_ls%%=... defines a function for bash).
	for i < len(args) && !args[i].dynamic && envAssignment(args[i].text) {
		name, value, _ := strings.Cut(args[i].text, "=")
		assigns = append(assigns, name)
		a.commandVar(name, word{text: value})
		i++
	}
	cmd := append(split, args[i:]...)
	if len(cmd) == 0 {
		a.fedCode("env", "", true)
		return nil, false
	}
	if len(split) > 0 && len(args[i:]) == 0 {
		// env -S 'A=1 cmd': assignments may lead the split string too.
		for len(cmd) > 0 && isAssignment(cmd[0].text) {
			name, _, _ := strings.Cut(cmd[0].text, "=")
			assigns = append(assigns, name)
			cmd = cmd[1:]
		}
	}
	if len(cmd) == 0 {
		return nil, false
	}
	return &inner{words: cmd, assigns: assigns}, true
}

// envCluster reads one word of env's short options, t, followed by the
// words after it; it returns how many of those the options took as
// arguments, and the words an S option splits its string into.
func (a *analyser) envCluster(t string, after []word) (int, []word, bool) {
	for j := 1; j < len(t); j++ {
		c := t[j]
		switch {
		case strings.IndexByte("0iv", c) >= 0:
			continue
		case c == 'u' || c == 'C' || c == 'S':
			arg, used := t[j+1:], 0
			if arg == "" {
				if len(after) == 0 {
					a.fedCode("env -"+string(c), "", true)
					return 0, nil, false
				}
				if after[0].dynamic {
					a.unknown("covey cannot tell which command env runs: its argument %s is computed", after[0].text)
					return 0, nil, false
				}
				arg, used = after[0].text, 1
			}
			if c != 'S' {
				return used, nil, true
			}
			s, ok := a.splitString(word{text: arg})
			return used, s, ok
		default:
			a.unknown("covey cannot tell which command env runs: it does not know the option -%c", c)
			return 0, nil, false
		}
	}
	return 0, nil, true
}

// splitString splits env -S's string into words, as a shell would split
// a simple command; anything richer is unknown.
func (a *analyser) splitString(w word) ([]word, bool) {
	if w.dynamic {
		a.unknown("env -S splits a string computed when the line runs")
		return nil, false
	}
	f, err := parse(w.text)
	if err != nil || len(f.Stmts) != 1 {
		a.unknown("covey cannot split env -S %q", w.text)
		return nil, false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(f.Stmts[0].Redirs) > 0 || len(call.Assigns) > 0 {
		a.unknown("covey cannot split env -S %q", w.text)
		return nil, false
	}
	var out []word
	for _, cw := range call.Args {
		lw := literal(cw)
		if lw.dynamic {
			a.unknown("env -S %q holds an expansion", w.text)
			return nil, false
		}
		out = append(out, lw)
	}
	return out, true
}

// envAssignment reports whether env reads s as a variable: a name of any
// characters but "=", then "=".
func envAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && name != ""
}

// commandVars are variables whose value programs run as a command (an
// editor, a pager, git's ssh and diff helpers) or as code (an exported
// bash function): setting one is inline code a deny rule checks.
var commandVars = map[string]bool{
	"EDITOR": true, "VISUAL": true, "FCEDIT": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"PAGER": true, "GIT_PAGER": true, "MANPAGER": true, "SYSTEMD_PAGER": true, "LESSOPEN": true, "LESSCLOSE": true,
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true,
	"SUDO_ASKPASS": true, "GIT_PROXY_COMMAND": true, "GIT_CONFIG_PARAMETERS": true, "BROWSER": true, "PROMPT_COMMAND": true,
}

// commandVar records the value of a command-holding variable as inline
// code (GIT_CONFIG_VALUE_n may be an alias's !command; BASH_FUNC_x%% is
// a function's body).
func (a *analyser) commandVar(name string, value word) {
	if commandVars[name] || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") || strings.HasPrefix(name, "BASH_FUNC_") {
		a.opaque(name+"=", value)
	}
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// find follows the commands of -exec, -execdir, -ok and -okdir.
func (a *analyser) find(args []word, depth int) *inner {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.dynamic && w.splits {
			a.unknown("covey cannot tell what find runs: its argument %s is computed and may split into options", w.text)
			continue
		}
		switch w.text {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			cmd := args[i+1 : j]
			plus := j < len(args) && args[j].text == "+"
			if len(cmd) > 0 {
				if cmd[0].dynamic {
					a.unknown("find %s runs a command named at run time", w.text)
				}
				fed, ph := a.fed, a.placeholder
				a.fed, a.placeholder = true, "{}"
				a.run(cmd, nil, plus, depth+1)
				a.fed, a.placeholder = fed, ph
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				a.written[path.Clean(args[i+1].text)] = true
				a.line.Writes = append(a.line.Writes, Write{Target: args[i+1].text, Dynamic: args[i+1].dynamic || args[i+1].glob})
			}
		}
	}
	return nil
}

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
func (a *analyser) trap(args []word, depth int) {
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

// interpreter follows python, node, perl and their kin.
func (a *analyser) interpreter(name string, code []string, withArgs string, args []word) {
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
func (a *analyser) awk(name string, args []word) {
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

// sets records the variables read, mapfile, getopts and printf -v set.
func (a *analyser) sets(name string, args []word) {
	var names []word
	switch name {
	case "printf":
		for i := 0; i < len(args); i++ {
			if args[i].text == "-v" && i+1 < len(args) {
				names = append(names, args[i+1])
			} else if n, ok := strings.CutPrefix(args[i].text, "-v"); ok && n != "" {
				names = append(names, word{text: n, dynamic: args[i].dynamic})
			}
		}
	case "getopts":
		if len(args) >= 2 {
			names = append(names, args[1])
		}
	default:
		withArg := map[string]bool{"-a": true, "-d": true, "-i": true, "-n": true, "-N": true, "-p": true, "-t": true, "-u": true,
			"-C": true, "-c": true, "-O": true, "-s": true}
		for i := 0; i < len(args); i++ {
			t := args[i].text
			switch {
			case withArg[t]:
				if t == "-a" && i+1 < len(args) {
					names = append(names, args[i+1])
				}
				i++
			case strings.HasPrefix(t, "-"):
			default:
				names = append(names, args[i])
			}
		}
	}
	for _, n := range names {
		if n.dynamic {
			a.unknown("%s sets a variable named at run time", name)
			continue
		}
		a.subscript(name, n)
		v, _, _ := strings.Cut(n.text, "[")
		a.set(v)
	}
}

// copies records the files tee, cp, mv, install, ln, dd, curl and wget
// write, so a later run of one of them is known to run fresh code.
func (a *analyser) copies(name string, args []word) {
	mark := func(w word) {
		// The file is written like a redirection's: rules for writes,
		// the workspace and allowed_paths judge it.
		a.line.Writes = append(a.line.Writes, Write{Target: w.text, Dynamic: w.dynamic || w.glob || tildeOther(w.text)})
		if w.dynamic {
			a.dynamicWrite = true
			return
		}
		a.written[path.Clean(w.text)] = true
	}
	switch name {
	case "tee":
		for _, w := range args {
			if !strings.HasPrefix(w.text, "-") {
				mark(w)
			}
		}
	case "dd":
		for _, w := range args {
			if f, ok := strings.CutPrefix(w.text, "of="); ok {
				mark(word{text: f, dynamic: w.dynamic})
			}
		}
	case "curl", "wget":
		for i := 0; i < len(args); i++ {
			w := args[i]
			next := func() (word, bool) {
				if i+1 < len(args) {
					i++
					return args[i], true
				}
				return word{}, false
			}
			switch {
			case w.text == "-o" || (w.text == "-O" && name == "wget") || w.text == "--output" || w.text == "--output-document",
				w.text == "--output-dir" || (w.text == "-P" && name == "wget") || w.text == "--directory-prefix":
				if f, ok := next(); ok {
					mark(f)
				}
			case strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "="):
				key, f, _ := strings.Cut(w.text, "=")
				switch key {
				case "--output", "--output-document", "--output-dir", "--directory-prefix":
					mark(word{text: f, dynamic: w.dynamic})
				}
			case len(w.text) > 2 && (strings.HasPrefix(w.text, "-o") || name == "wget" && (strings.HasPrefix(w.text, "-O") || strings.HasPrefix(w.text, "-P"))):
				mark(word{text: w.text[2:], dynamic: w.dynamic})
			}
		}
	default: // cp, mv, install, ln: the last operand, or every file into a -t folder
		var operands []word
		var folder *word
		for i := 0; i < len(args); i++ {
			t := args[i].text
			switch {
			case t == "--target-directory" && i+1 < len(args):
				folder = &args[i+1]
				i++
				continue
			case strings.HasPrefix(t, "--target-directory="):
				folder = &word{text: strings.TrimPrefix(t, "--target-directory="), dynamic: args[i].dynamic}
				continue
			case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "t"):
				// -t DIR, -tDIR, -rt DIR
				if j := strings.IndexByte(t, 't'); j < len(t)-1 {
					folder = &word{text: t[j+1:], dynamic: args[i].dynamic}
				} else if i+1 < len(args) {
					folder = &args[i+1]
					i++
				}
				continue
			}
			if !strings.HasPrefix(t, "-") {
				operands = append(operands, args[i])
			}
		}
		if folder != nil {
			a.dynamicWrite = true // files land under a folder
			mark(*folder)
			for _, src := range operands {
				mark(word{text: path.Join(folder.text, path.Base(src.text)), dynamic: folder.dynamic || src.dynamic})
			}
			return
		}
		if len(operands) > 1 {
			dest := operands[len(operands)-1]
			mark(dest)
			for _, src := range operands[:len(operands)-1] {
				mark(word{text: path.Join(dest.text, path.Base(src.text)), dynamic: dest.dynamic || src.dynamic})
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

// subscript notes a variable name with a subscript that bash evaluates
// as arithmetic when a builtin (printf -v, read, unset, test -v) uses
// it: a['$(rm x)'] runs rm. Only a number is known.
func (a *analyser) subscript(name string, w word) {
	_, sub, ok := strings.Cut(w.text, "[")
	if !ok || w.dynamic {
		return
	}
	sub = strings.TrimSuffix(sub, "]")
	if !isNumber(sub) {
		a.unknown("%s evaluates the subscript of %s, which can run commands", name, w.text)
	}
}

// goTool follows the go command's options that name a program it runs
// (-exec, -toolexec, -vettool): that program is a command of the line;
// and those that name a file it writes (-o, -coverprofile, ...): writes.
func (a *analyser) goTool(args []word, depth int) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if !strings.HasPrefix(t, "-") {
			continue
		}
		key, val, hasVal := strings.Cut(strings.TrimLeft(t, "-"), "=")
		// go test passes -test.cpuprofile and the like to the test binary
		// as they are: the same flags, spelled in full.
		switch key = strings.TrimPrefix(key, "test."); key {
		case "exec", "toolexec", "vettool":
		case "o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir":
			// a file (or, for -outputdir, a folder) it writes
			w := word{text: val, dynamic: args[i].dynamic}
			if !hasVal && i+1 < len(args) {
				i++
				w = args[i]
			}
			a.line.Writes = append(a.line.Writes, Write{Target: w.text, Dynamic: w.dynamic || w.glob || tildeOther(w.text)})
			continue
		default:
			continue
		}
		w := word{text: val, dynamic: args[i].dynamic}
		if !hasVal {
			if i+1 >= len(args) {
				return
			}
			i++
			w = args[i]
		}
		if w.dynamic {
			a.unknown("go -%s runs a program named at run time (%s)", key, w.text)
			continue
		}
		if words, ok := a.splitString(w); ok && len(words) > 0 {
			a.run(words, nil, true, depth+1)
		}
	}
}

// git follows git's options that set configuration (-c name=value,
// git config name value), whose values can be commands git runs
// (core.fsmonitor, core.pager, alias.x=!cmd, ...): they are inline code.
// --config-env and --exec-path= take what runs from outside the line.
func (a *analyser) git(args []word) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-c" && i+1 < len(args):
			i++
			a.opaque("git -c", args[i])
		case strings.HasPrefix(t, "-c") && len(t) > 2:
			a.opaque("git -c", word{text: t[2:], dynamic: args[i].dynamic})
		case strings.HasPrefix(t, "--config-env"), strings.HasPrefix(t, "--exec-path="):
			a.unknown("git %s runs commands covey cannot see", t)
		case t == "config":
			text, ok := joinLiteral(args[i+1:])
			if !ok {
				a.unknown("git config sets a value computed when the line runs")
				return
			}
			a.line.Opaque = append(a.line.Opaque, Code{What: "git config", Text: text})
			return
		case t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace":
			i++
		case !strings.HasPrefix(t, "-"):
			switch t {
			case "rebase", "difftool", "mergetool", "bisect", "submodule", "filter-branch", "filter-repo":
				// --exec, -x, --extcmd, run, foreach, --tree-filter: commands
				if text, ok := joinLiteral(args[i+1:]); ok {
					a.line.Opaque = append(a.line.Opaque, Code{What: "git " + t, Text: text})
				} else {
					a.unknown("git %s runs commands computed when the line runs", t)
				}
			}
			// the subcommand: options naming the program git runs on the
			// other side (which may be a local command), and ext:: URLs,
			// are inline code; --output writes a file
			for j := i + 1; j < len(args); j++ {
				at := args[j].text
				for _, o := range []string{"--upload-pack", "--receive-pack", "--exec"} {
					if v, ok := strings.CutPrefix(at, o+"="); ok {
						a.opaque("git "+t+" "+o, word{text: v, dynamic: args[j].dynamic})
					} else if at == o && j+1 < len(args) {
						a.opaque("git "+t+" "+o, args[j+1])
					}
				}
				if at == "-u" && (t == "clone" || t == "ls-remote") && j+1 < len(args) {
					a.opaque("git "+t+" -u", args[j+1])
				}
				if v, ok := strings.CutPrefix(at, "ext::"); ok {
					a.opaque("git ext::", word{text: v, dynamic: args[j].dynamic})
				}
			}
			for j := i + 1; j < len(args); j++ {
				if f, ok := strings.CutPrefix(args[j].text, "--output="); ok {
					a.line.Writes = append(a.line.Writes, Write{Target: f, Dynamic: args[j].dynamic || tildeOther(f)})
				} else if args[j].text == "--output" && j+1 < len(args) {
					a.line.Writes = append(a.line.Writes, Write{Target: args[j+1].text, Dynamic: args[j+1].dynamic || args[j+1].glob || tildeOther(args[j+1].text)})
				}
			}
			return
		}
	}
}

// sed scripts can run commands (the e command, the s///e flag): they are
// inline code.
func (a *analyser) sed(args []word) {
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
