package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file holds the wrappers: programs that run another command (env,
// time, nice, timeout, sudo, xargs, command, find -exec, ...), whose
// options are skipped to find the command they run, and the runners whose
// command covey cannot find (watch, ssh, ...).

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

// wrapper follows a program of the wrappers table: its options are
// skipped, and the command after them is what it runs.
func (a *analyser) wrapper(name string, args []word, depth int) (*inner, bool) {
	spec := wrappers[name]
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

// commandBuiltin follows bash's command builtin: command NAME runs NAME,
// command -v and -V only look it up.
func (a *analyser) commandBuiltin(name string, args []word, depth int) (*inner, bool) {
	rest, ok := a.options(name, wrappers[name], args)
	if !ok || hasFlag(args, "v") || hasFlag(args, "V") {
		return nil, false // command -v only looks the name up
	}
	return &inner{words: rest}, true
}

// opaqueRunner notes a runner of the opaqueRunners table: given a
// command, what it runs is unknown.
func (a *analyser) opaqueRunner(name string, args []word, depth int) {
	if len(args) > 0 {
		a.unknown("covey cannot tell which command %s runs", name)
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
func (a *analyser) env(_ string, args []word, depth int) (*inner, bool) {
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
func (a *analyser) find(_ string, args []word, depth int) {
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
}
