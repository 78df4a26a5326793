package shell

import "strings"

// This file holds version control and build tools: git (configuration
// that names commands, subcommands that run them, --output), go (-exec,
// -toolexec, -vettool; -o and the profiles it writes), make (its
// makefile and --eval) and npm, yarn and pnpm (package.json's scripts).
// A file they run that the line itself writes first is code no rule has
// seen.

// make runs the recipes of its makefile: one the line writes is code no
// rule has seen; --eval and -E are inline code.
func (a *analyser) make(name string, args []word, depth int) {
	for i, w := range args {
		if (w.text == "-f" || w.text == "--file" || w.text == "--makefile") && i+1 < len(args) {
			a.runsFile(args[i+1].text, name)
		}
	}
	for _, f := range []string{"Makefile", "makefile", "GNUmakefile"} {
		a.runsFile(f, name)
	}
	a.codeOptions("make", codeOptions["make"], args)
}

// packageScripts notes that npm, yarn and pnpm run package.json's
// scripts.
func (a *analyser) packageScripts(name string, args []word, depth int) {
	a.runsFile("package.json", name) // its scripts
}

// goTool follows the go command's options that name a program it runs
// (-exec, -toolexec, -vettool): that program is a command of the line;
// and those that name a file it writes (-o, -coverprofile, ...): writes.
func (a *analyser) goTool(_ string, args []word, depth int) {
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
func (a *analyser) git(_ string, args []word, depth int) {
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
