package shell

import "strings"

// This file holds the bash builtins that change what a command name runs
// (alias, fc, hash -p, enable, shopt expand_aliases) and those that set
// variables or evaluate a subscript (read, mapfile, getopts, printf -v,
// unset, test -v): a['$(rm x)'] runs rm.

// alias notes aliases the line defines: they can make any name run
// anything.
func (a *analyser) alias(name string, args []word, depth int) {
	for _, w := range args {
		if strings.Contains(w.text, "=") || w.dynamic {
			a.unknown("alias %s can change what a command name runs", w.text)
		}
	}
}

// fc runs commands from the history or through an editor; only fc -l
// (listing) is known.
func (a *analyser) fc(name string, args []word, depth int) {
	if !hasFlag(args, "l") {
		a.unknown("fc runs commands from the history or through an editor (fc -e CMD)")
	}
}

// hashEnable notes hash -p (a name for any file) and enable NAME (a
// builtin switched on or off, or loaded from a file).
func (a *analyser) hashEnable(name string, args []word, depth int) {
	if name == "hash" && hasFlag(args, "p") || name == "enable" && len(args) > 0 {
		a.unknown("%s can change what a command name runs", name)
	}
}

// shopt notes shopt expand_aliases, or an option named at run time.
func (a *analyser) shopt(name string, args []word, depth int) {
	for _, w := range args {
		if w.dynamic || w.text == "expand_aliases" {
			a.unknown("shopt %s lets aliases change what a command name runs", w.text)
		}
	}
}

// setters follows read, mapfile, readarray, getopts and printf: the
// variables they set, and mapfile's -C command.
func (a *analyser) setters(name string, args []word, depth int) {
	a.sets(name, args)
	if opts, ok := codeOptions[name]; ok {
		a.codeOptions(name, opts, args) // mapfile -C CMD
	}
}

// subscripts checks the variable names unset, test -v and [ -v evaluate.
func (a *analyser) subscripts(name string, args []word, depth int) {
	for _, w := range args {
		if w.dynamic || strings.Contains(w.text, "[") && name == "unset" {
			a.subscript(name, w)
		} else if name != "unset" && strings.Contains(w.text, "[") && hasFlag(args, "v") {
			a.subscript(name+" -v", w)
		}
	}
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
