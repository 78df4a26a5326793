package shell

import (
	"path"
	"strings"
)

// This file holds the programs told to write a file: sort -o, tee, dd
// of=, curl -o and wget -O, cp, mv, install and ln. Their targets are
// writes like a redirection's, which rules for writes, the workspace and
// allowed_paths judge; those of tee, dd, curl, wget, cp, mv, install and
// ln are also remembered, so a later run of one of them is known to run
// fresh code.

// sortOutput records the file sort -o (--output) writes.
func (a *analyser) sortOutput(name string, args []word, depth int) {
	for i, w := range args {
		target, ok := "", false
		switch {
		case w.text == "--output" && i+1 < len(args):
			target, ok, w = args[i+1].text, true, args[i+1]
		case strings.HasPrefix(w.text, "--output="):
			target, ok = strings.TrimPrefix(w.text, "--output="), true
		case strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--"):
			target, ok, w = sortShortOutput(w, args[i+1:])
		}
		if ok {
			a.line.Writes = append(a.line.Writes, Write{Target: target, Dynamic: w.dynamic || w.glob || tildeOther(target)})
		}
	}
}

// sortShortOutput reads a cluster of sort's short options (-ruo FILE,
// -ro../x): o takes the rest of the word or the next one; k, t, S and T
// take an argument that is not a file. It returns the target and the word
// it came from.
func sortShortOutput(w word, after []word) (string, bool, word) {
	for j := 1; j < len(w.text); j++ {
		if strings.IndexByte("ktST", w.text[j]) >= 0 {
			break
		}
		if w.text[j] == 'o' {
			if rest := w.text[j+1:]; rest != "" {
				return rest, true, w
			}
			if len(after) > 0 {
				return after[0].text, true, after[0]
			}
			break
		}
	}
	return "", false, w
}

// markWritten records a file a program writes, as a write of the line and
// as a file the line made (see runsFile).
func (a *analyser) markWritten(w word) {
	// The file is written like a redirection's: rules for writes,
	// the workspace and allowed_paths judge it.
	a.line.Writes = append(a.line.Writes, Write{Target: w.text, Dynamic: w.dynamic || w.glob || tildeOther(w.text)})
	if w.dynamic {
		a.dynamicWrite = true
		return
	}
	a.written[path.Clean(w.text)] = true
}

// tee writes every file it names.
func (a *analyser) tee(name string, args []word, depth int) {
	for _, w := range args {
		if !strings.HasPrefix(w.text, "-") {
			a.markWritten(w)
		}
	}
}

// dd writes its of= file.
func (a *analyser) dd(name string, args []word, depth int) {
	for _, w := range args {
		if f, ok := strings.CutPrefix(w.text, "of="); ok {
			a.markWritten(word{text: f, dynamic: w.dynamic})
		}
	}
}

// download records the files and folders curl and wget are told to write
// (-o, --output, --output-dir; wget's -O, -P, --output-document,
// --directory-prefix).
func (a *analyser) download(name string, args []word, depth int) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w.text == "-o" || (w.text == "-O" && name == "wget") || w.text == "--output" || w.text == "--output-document",
			w.text == "--output-dir" || (w.text == "-P" && name == "wget") || w.text == "--directory-prefix":
			if i+1 < len(args) {
				i++
				a.markWritten(args[i])
			}
		case strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "="):
			key, f, _ := strings.Cut(w.text, "=")
			switch key {
			case "--output", "--output-document", "--output-dir", "--directory-prefix":
				a.markWritten(word{text: f, dynamic: w.dynamic})
			}
		case len(w.text) > 2 && (strings.HasPrefix(w.text, "-o") || name == "wget" && (strings.HasPrefix(w.text, "-O") || strings.HasPrefix(w.text, "-P"))):
			a.markWritten(word{text: w.text[2:], dynamic: w.dynamic})
		}
	}
}

// copyTargets records what cp, mv, install and ln write: the last
// operand, or every file into a -t folder.
func (a *analyser) copyTargets(name string, args []word, depth int) {
	operands, folder := copyOperands(args)
	if folder != nil {
		a.dynamicWrite = true // files land under a folder
		a.markWritten(*folder)
		for _, src := range operands {
			a.markWritten(word{text: path.Join(folder.text, path.Base(src.text)), dynamic: folder.dynamic || src.dynamic})
		}
		return
	}
	if len(operands) > 1 {
		dest := operands[len(operands)-1]
		a.markWritten(dest)
		for _, src := range operands[:len(operands)-1] {
			a.markWritten(word{text: path.Join(dest.text, path.Base(src.text)), dynamic: dest.dynamic || src.dynamic})
		}
	}
}

// copyOperands splits cp's (mv's, install's, ln's) arguments into its
// operands and its -t folder (nil without one).
func copyOperands(args []word) (operands []word, folder *word) {
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
	return operands, folder
}
