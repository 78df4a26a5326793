package shell

import "sync"

// This file is the dispatch from a program's name to the code that
// follows its arguments. The handlers live beside their tables, one file
// per family: wrappers.go (programs that run another command: env, time,
// sudo, xargs, find -exec, ...), runners.go (shells, interpreters, eval,
// source, trap, and options that run code: awk, sed, tar -I, ...),
// builtins.go (bash builtins that change what a name runs or set
// variables), writes.go (programs told to write a file: sort -o, tee, cp,
// dd, curl -o, ...) and devtools.go (git, go, make, npm).

// handler follows one program's arguments (the words after its name):
// the commands it runs, the files it writes, the code it is given. It
// returns the command the program runs when it wraps one, and whether
// the program is a transparent wrapper a rule should see through.
type handler func(a *analyser, name string, args []word, depth int) (*inner, bool)

// programs maps a program's name to its handler (see programTable); a
// program it does not name is a plain command. The table is built on the
// first analysis, not at package init (where it cost every covey start,
// --version included, 0.13 M instructions), and by a function, not a
// package-level initialiser, because its handlers reach wrapped again (a
// wrapper's command is followed like any other), an initialisation cycle.
var programs func() map[string]handler

func init() { programs = sync.OnceValue(programTable) }

// wrapped follows what the command words run, and reports whether the
// command is a transparent wrapper (one a rule should see through).
func (a *analyser) wrapped(name string, words []word, depth int) (*inner, bool) {
	if a.funcs[name] {
		return nil, true // its body is walked where it is defined
	}
	if h := programs()[name]; h != nil {
		return h(a, name, words[1:], depth)
	}
	if pythonName().MatchString(name) {
		return effect((*analyser).interpreter)(a, name, words[1:], depth)
	}
	return nil, false
}

// programTable builds the dispatch table. A name two families claim goes
// to the first that does, so the order below is the precedence: pwsh is a
// shell covey cannot parse before it is an interpreter, and env and
// command have their own handlers before the generic wrapper's.
func programTable() map[string]handler {
	t := map[string]handler{}
	add := func(h handler, names ...string) {
		for _, n := range names {
			if _, taken := t[n]; !taken {
				t[n] = h
			}
		}
	}
	add((*analyser).env, "env")
	add((*analyser).commandBuiltin, "command")
	add(effect((*analyser).find), "find")
	add((*analyser).shell, keys(shells)...)
	add(effect((*analyser).foreignShell), keys(foreignShells)...)
	add((*analyser).eval, "eval")
	add(effect((*analyser).trap), "trap")
	add(effect((*analyser).source), "source", ".")
	add(effect((*analyser).alias), "alias")
	add(effect((*analyser).fc), "fc")
	add(effect((*analyser).hashEnable), "hash", "enable")
	add(effect((*analyser).shopt), "shopt")
	add(effect((*analyser).goTool), "go")
	add(effect((*analyser).git), "git")
	add(effect((*analyser).make), "make", "gmake")
	add(effect((*analyser).packageScripts), "npm", "yarn", "pnpm")
	add(effect((*analyser).sortOutput), "sort")
	add(effect((*analyser).sed), "sed")
	add(effect((*analyser).subscripts), "unset", "test", "[")
	add(effect((*analyser).setters), "read", "mapfile", "readarray", "getopts", "printf")
	add(effect((*analyser).tee), "tee")
	add(effect((*analyser).dd), "dd")
	add(effect((*analyser).download), "curl", "wget")
	add(effect((*analyser).copyTargets), "cp", "mv", "install", "ln")
	add(effect((*analyser).opaqueRunner), keys(opaqueRunners)...)
	add((*analyser).wrapper, keys(wrappers)...)
	add(effect((*analyser).interpreter), keys(interpreters)...)
	add(effect((*analyser).awk), "awk", "gawk", "mawk", "nawk", "busybox-awk")
	add(effect((*analyser).runsCodeOptions), keys(codeOptions)...)
	return t
}

// effect makes a handler of a function that follows a program which wraps
// no command: what it does is recorded on the analyser, and a rule does
// not see through it.
func effect(f func(a *analyser, name string, args []word, depth int)) handler {
	return func(a *analyser, name string, args []word, depth int) (*inner, bool) {
		f(a, name, args, depth)
		return nil, false
	}
}

// keys returns the names of a table, in no particular order.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
