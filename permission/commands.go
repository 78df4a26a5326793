package permission

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"covey/tools/toolname"

	"covey/internal/safefile"
	"covey/permission/shell"
)

// command is a bash command line, analysed once for every rule.
type command struct {
	raw  string     // trimmed
	line shell.Line // what it does
}

func analyseCommand(raw string) command {
	c := command{raw: strings.TrimSpace(raw)}
	c.line = shell.Analyse(c.raw)
	return c
}

// unknown says why no rule can vouch for the line, or "" when it is known.
func (c command) unknown() string {
	switch {
	case c.line.Err != nil:
		return c.line.Err.Error()
	case len(c.line.Unknown) > 0:
		return strings.Join(c.line.Unknown, "; ")
	}
	return ""
}

// systemDirs hold the programs a bare name finds; /bin/rm is rm.
var systemDirs = []string{"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"}

// candidates returns the words rules compare for cmd: as written, and with
// the program's name alone when it was given as a path. For a deny rule
// any path counts (./rm is rm); for an allow rule only a system folder
// does, since ./rm may be any program.
func candidates(cmd shell.Cmd, deny bool) [][]string {
	out := [][]string{cmd.Args}
	if cmd.Name != cmd.Args[0] && (deny || slices.Contains(systemDirs, path.Dir(path.Clean(cmd.Args[0])))) {
		out = append(out, append([]string{cmd.Name}, cmd.Args[1:]...))
	}
	return out
}

// mentions reports whether code names prog as a word of its own.
func mentions(code, prog string) bool {
	isWord := func(c byte) bool {
		return c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; ; {
		j := strings.Index(code[i:], prog)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(prog)
		if (j == 0 || !isWord(code[j-1])) && (end == len(code) || !isWord(code[end])) {
			return true
		}
		i = j + 1
	}
}

// maxScriptDepth bounds how deeply deny checks follow script files.
const maxScriptDepth = 4

// maxScriptSize is the largest script file a deny check reads.
const maxScriptSize = 256 << 10

// deniedCommand returns the first bash deny rule matching the line, and a
// note when it matches because covey cannot tell what the line runs. Deny
// rules err towards matching: every command the line runs counts,
// wrappers (sudo, env, xargs, find -exec, bash -c, ...) are seen through,
// a program given as a path matches by its name, the shell scripts the
// line runs are read, and a line that cannot be analysed (a computed
// command name, eval of a computed string, a shell fed from a pipe,
// inline interpreter code) matches every deny rule.
func deniedCommand(deny []rule, c command, dir string) (rule, string, bool) {
	var bashDeny []rule
	for _, r := range deny {
		if r.tool != toolname.Bash {
			continue
		}
		if r.kind == ruleAll {
			return r, "", true
		}
		bashDeny = append(bashDeny, r)
	}
	if len(bashDeny) == 0 {
		return rule{}, "", false
	}
	return deniedLine(bashDeny, c.line, dir, 0)
}

func deniedLine(deny []rule, l shell.Line, dir string, depth int) (rule, string, bool) {
	switch {
	case l.Err != nil:
		return deny[0], fmt.Sprintf("covey cannot parse it (%v), so deny rules are taken to match", l.Err), true
	case len(l.Unknown) > 0:
		return deny[0], fmt.Sprintf("covey cannot tell what it runs (%s), so deny rules are taken to match", strings.Join(l.Unknown, "; ")), true
	}
	for _, code := range l.Opaque {
		for _, r := range deny {
			if len(r.words) > 0 && mentions(code.Text, r.words[0]) {
				return r, fmt.Sprintf("the code %s runs names %s", code.What, r.words[0]), true
			}
		}
	}
	for _, cmd := range l.Cmds {
		for _, words := range candidates(cmd, true) {
			for _, r := range deny {
				if r.matchWords(words, false) {
					return r, "", true
				}
			}
		}
	}
	files := slices.Clone(l.Scripts)
	for _, cmd := range l.Cmds {
		if strings.Contains(cmd.Args[0], "/") && !slices.Contains(systemDirs, path.Dir(path.Clean(cmd.Args[0]))) {
			files = append(files, cmd.Args[0])
		}
	}
	for _, f := range files {
		if r, note, ok := deniedScript(deny, f, dir, depth); ok {
			return r, note, true
		}
	}
	return rule{}, "", false
}

// deniedScript checks the commands of a script file the line runs. A
// file that cannot be read (or does not exist yet) matches; a program
// that is not a shell script is not read.
func deniedScript(deny []rule, file, dir string, depth int) (rule, string, bool) {
	p := file
	if !filepath.IsAbs(p) {
		if dir == "" {
			return deny[0], fmt.Sprintf("covey cannot read the script %s it runs, so deny rules are taken to match", file), true
		}
		p = filepath.Join(dir, p)
	}
	if depth >= maxScriptDepth {
		return deny[0], fmt.Sprintf("scripts run scripts too deeply to follow (%s), so deny rules are taken to match", file), true
	}
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxScriptSize {
		return deny[0], fmt.Sprintf("covey cannot read the script %s it runs, so deny rules are taken to match", file), true
	}
	b, err := safefile.Read(p, maxScriptSize)
	if err != nil {
		return deny[0], fmt.Sprintf("covey cannot read the script %s it runs, so deny rules are taken to match", file), true
	}
	if !shellScript(b) {
		return rule{}, "", false
	}
	r, note, ok := deniedLine(deny, shell.Analyse(string(b)), filepath.Dir(p), depth+1)
	if ok && note == "" {
		note = fmt.Sprintf("the script %s runs it", file)
	}
	return r, note, ok
}

// shellScript reports whether a file's content is run by a shell: a
// shell #! line, or text without one (which bash runs itself).
func shellScript(b []byte) bool {
	head := b[:min(len(b), 512)]
	if bytes.IndexByte(head, 0) >= 0 || bytes.HasPrefix(head, []byte("\x7fELF")) {
		return false
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	if !bytes.HasPrefix(line, []byte("#!")) {
		return true
	}
	fields := strings.Fields(string(line[2:]))
	if len(fields) == 0 {
		return true
	}
	prog := path.Base(fields[0])
	if prog == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				prog = path.Base(f)
				break
			}
		}
	}
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash":
		return true
	}
	return false
}

// allowedCommand reports whether rules allow the whole line: a bare bash
// rule or a grant of this very line, or else every command it runs, with
// nothing unknown in it, no variable set that changes what programs do,
// and every file it redirects to inside the workspace (or covered by a
// write rule).
func allowedCommand(sets [][]rule, c command, root, dir string) bool {
	for _, set := range sets {
		for _, r := range set {
			if r.tool == toolname.Bash && (r.kind == ruleAll || (r.kind == ruleCmdRaw && r.raw == c.raw)) {
				return true
			}
		}
	}
	if c.unknown() != "" || slices.ContainsFunc(c.line.Sets, dangerousEnv) {
		return false
	}
	runs := false
	for _, cmd := range c.line.Cmds {
		if slices.ContainsFunc(cmd.Assigns, dangerousEnv) {
			return false
		}
		if cmd.Wrapper {
			continue
		}
		if !cmdAllowed(sets, cmd) {
			return false
		}
		runs = true
	}
	for _, w := range c.line.Writes {
		if !writeAllowed(sets, c, w, root, dir) {
			return false
		}
	}
	return runs
}

// cmdAllowed reports whether an allow rule or grant covers one command.
func cmdAllowed(sets [][]rule, cmd shell.Cmd) bool {
	for _, words := range candidates(cmd, false) {
		for _, set := range sets {
			for _, r := range set {
				if r.tool == toolname.Bash && r.matchWords(words, cmd.OpenArgs) {
					return true
				}
			}
		}
	}
	return false
}

// writeAllowed reports whether a redirection may write without asking:
// its target is known and inside the workspace, or a write rule covers
// it. A rule allowing a command trusts the program, not where the line
// sends its output.
func writeAllowed(sets [][]rule, c command, w shell.Write, root, dir string) bool {
	if w.Dynamic || w.Bare {
		return false
	}
	forms, ok := writeForms(c, w, root, dir)
	if !ok {
		return false
	}
	if forms.rel != "" && !outsideRel(forms.rel) && !protectedWrite(forms, dir) {
		return true
	}
	return allowedPath(sets, toolname.WriteFile, forms) || allowedPath(sets, toolname.EditFile, forms)
}

// protectedWrite is protectedPath for a command's redirection: a target
// inside the folder the command starts in is judged relative to it, so a
// child working in a git worktree (which lies under .git/) writes its own
// files freely, but not its worktree's .git or .covey.
func protectedWrite(forms pathForms, dir string) bool {
	if dir != "" && forms.abs != "" {
		if rel, err := filepath.Rel(realPath(dir), filepath.FromSlash(forms.abs)); err == nil && !outsideRel(filepath.ToSlash(rel)) {
			return protectedPath(pathForms{rel: filepath.ToSlash(rel)})
		}
	}
	return protectedPath(forms)
}

// writeForms resolves a redirection's target against the folder the line
// starts in; after a cd, a relative target could be anywhere.
func writeForms(c command, w shell.Write, root, dir string) (pathForms, bool) {
	target := w.Target
	if target == "~" || strings.HasPrefix(target, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return pathForms{}, false
		}
		target = filepath.Join(home, target[1:])
	}
	if !filepath.IsAbs(target) {
		if changesDir(c.line) {
			return pathForms{}, false
		}
		if dir == "" {
			dir = root
		}
		if dir == "" {
			return pathForms{}, false
		}
		target = filepath.Join(dir, target)
	}
	return pathFormsOf(realPath(target), root), true
}

// changesDir reports whether the line changes its working folder.
func changesDir(l shell.Line) bool {
	return slices.ContainsFunc(l.Cmds, func(c shell.Cmd) bool {
		return c.Name == "cd" || c.Name == "pushd" || c.Name == "popd"
	})
}

// deniedWrite returns the first file deny rule covering a file the line
// redirects to; a target known only at run time matches every one.
func deniedWrite(deny []rule, c command, root, dir string) (rule, bool) {
	var fileDeny []rule
	for _, r := range deny {
		if fileTool(r.tool) {
			fileDeny = append(fileDeny, r)
		}
	}
	if len(fileDeny) == 0 {
		return rule{}, false
	}
	for _, w := range c.line.Writes {
		forms, ok := writeForms(c, w, root, dir)
		if w.Dynamic || !ok {
			return fileDeny[0], true
		}
		if r, ok := deniedPath(fileDeny, toolname.WriteFile, forms); ok {
			return r, true
		}
	}
	return rule{}, false
}

// dangerousEnv reports whether setting the variable name changes which
// program runs, how it starts, or what code it loads (so that FOO=1 go
// test matches go test:* but HOME=/tmp/x git status, with a planted
// .gitconfig, does not). The list errs towards asking.
func dangerousEnv(name string) bool {
	switch name {
	case "PATH", "HOME", "IFS", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "GLOBIGNORE", "CDPATH",
		"SHELL", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "TERMINFO", "INPUTRC", "ZDOTDIR", "XDG_CONFIG_HOME",
		"XDG_DATA_HOME", "XDG_CONFIG_DIRS", "SSH_ASKPASS", "SUDO_ASKPASS", "CC", "CXX", "CPP", "LD", "AR", "AS", "FC",
		"MAKEFLAGS", "MAKEFILES", "GOFLAGS", "GOTOOLCHAIN", "GOENV", "GOROOT", "GOPATH", "GOPROXY", "GOINSECURE", "GONOSUMDB",
		"GONOSUMCHECK", "GOPRIVATE", "GOEXPERIMENT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
		"RUSTC", "RUSTC_WRAPPER", "RUSTFLAGS", "RUSTDOCFLAGS", "TMPDIR", "OPENSSL_CONF", "GCONV_PATH", "LOCPATH", "NLSPATH",
		"HOSTALIASES", "RESOLV_HOST_CONF", "MALLOC_CHECK_", "PERLLIB", "DOTNET_STARTUP_HOOKS", "COMPOSER_HOME":
		return true
	}
	for _, prefix := range []string{"GIT_", "LD_", "DYLD_", "PYTHON", "NODE_", "NPM_CONFIG_", "npm_config_", "YARN_", "PNPM_", "BUN_",
		"PERL", "RUBY", "GEM_", "BUNDLE_", "BASH_FUNC_", "LESS", "CARGO_", "CGO_", "PIP_", "UV_", "POETRY_", "CONDA", "LUA_",
		"R_", "PHP", "DENO_", "CORECLR_", "COMPlus_", "DOTNET_", "MAVEN_", "GRADLE_", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS"} {
		if strings.HasPrefix(name, prefix) && name != "CGO_ENABLED" {
			return true
		}
	}
	return false
}

// deniedReadArg returns the first read_file deny rule covering a file a
// command names: an argument (or the value of --opt=value) or an input
// redirection that is, or whose glob matches, a path the rule keeps from
// being read, so cat .env is refused like read_file .env. This is
// best effort: a program reading a folder (grep -r), a name computed when
// the line runs or code in another language are not seen.
func deniedReadArg(deny []rule, c command, root, dir string) (rule, string, bool) {
	var readDeny []rule
	for _, r := range deny {
		if r.governs(toolname.ReadFile, true) && !fileTool(r.tool) {
			readDeny = append(readDeny, r)
		}
	}
	if len(readDeny) == 0 || root == "" {
		return rule{}, "", false
	}
	if dir == "" {
		dir = root
	}
	names := slices.Clone(c.line.Reads)
	for _, cmd := range c.line.Cmds {
		if namesOnly[cmd.Name] {
			continue
		}
		for _, a := range cmd.Args[1:] {
			names = append(names, a)
			if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
				names = append(names, v)
			}
		}
	}
	for _, n := range names {
		if n == "" || strings.HasPrefix(n, "-") {
			continue
		}
		p := n
		if p == "~" || strings.HasPrefix(p, "~/") {
			home, err := os.UserHomeDir()
			if err != nil {
				continue
			}
			p = filepath.Join(home, p[1:])
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		candidates := []string{p}
		if strings.ContainsAny(n, "*?[") {
			if matches, err := filepath.Glob(p); err == nil {
				candidates = append(candidates, matches...)
			}
		}
		for _, cand := range candidates {
			for _, f := range []pathForms{pathFormsOf(filepath.Clean(cand), root), pathFormsOf(realPath(cand), root)} {
				if r, ok := deniedPath(readDeny, toolname.ReadFile, f); ok {
					return r, n, true
				}
			}
		}
	}
	return rule{}, "", false
}

// namesOnly are commands whose arguments name files without reading them
// (echo .env >> .gitignore is not a read of .env).
var namesOnly = map[string]bool{
	"echo": true, "printf": true, "ls": true, "touch": true, "rm": true, "rmdir": true, "mkdir": true,
	"test": true, "[": true, "stat": true, "chmod": true, "chown": true, "basename": true, "dirname": true,
}
