package permission

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"covey/tools/toolname"

	"covey/permission/shell"
)

// SessionGrantRules returns the rules Grant would record for req, so a UI
// can say what "allow for this session" means before the user picks it.
//
// For a write, the grant is that tool on that exact file; for web_fetch,
// the URL's host; for any other tool (an MCP tool), that tool. For a command,
// it is a prefix rule for each command the line runs: the first two words
// when the second looks like a subcommand (lowercase letters, digits and
// dashes: "go test ./pkg" grants go test:*), else the first word ("ls -la"
// grants ls:*). Programs that run arbitrary code or destroy data (shells,
// interpreters, wrappers such as env, sudo or xargs, and rm) are granted
// only with their exact arguments. A line with a part no prefix can
// describe, or one that cannot be parsed, is also granted as exactly that
// line.
func SessionGrantRules(req Request) []string { return ruleSources(grantRules(req)) }

func grantRules(req Request) []rule {
	switch {
	case req.Tool == ToolMerge, req.Tool == ToolPickAttempt:
		return nil // each merge is its own question
	case domainTool(req.Tool):
		host, ok := hostOf(req.URL)
		if !ok {
			return []rule{{src: req.Tool + "(" + req.URL + ")", tool: req.Tool, kind: ruleCmdRaw, raw: req.URL}}
		}
		return []rule{{src: req.Tool + "(domain:" + host + ")", tool: req.Tool, kind: ruleDomain, domain: host}}
	case req.Tool != toolname.Bash && !pathRuleTool(req.Tool):
		return []rule{{src: req.Tool, tool: req.Tool, kind: ruleAll}}
	}
	if req.Tool != toolname.Bash {
		p := path.Clean(filepath.ToSlash(req.Path))
		r := rule{tool: req.Tool, kind: rulePathLiteral, glob: p, abs: path.IsAbs(p)}
		r.src = fmt.Sprintf("%s(%s)", req.Tool, escapeGlob(p))
		return []rule{r}
	}
	c := analyseCommand(req.Command)
	raw := rule{src: fmt.Sprintf("%s(%s)", toolname.Bash, c.raw), tool: toolname.Bash, kind: ruleCmdRaw, raw: c.raw}
	if c.unknown() != "" || slices.ContainsFunc(c.line.Sets, dangerousEnv) {
		return []rule{raw}
	}
	var out []rule
	needRaw := changesDir(c.line)
	for _, w := range c.line.Writes {
		// a prefix rule does not cover where the line writes outside
		// the workspace
		needRaw = needRaw || w.Dynamic || path.IsAbs(w.Target) || strings.HasPrefix(w.Target, "~") || outsideRel(path.Clean(w.Target))
	}
	for _, sc := range c.line.Cmds {
		if sc.Wrapper && !slices.ContainsFunc(sc.Assigns, dangerousEnv) {
			continue
		}
		r, ok := cmdGrant(sc)
		if !ok {
			needRaw = true
			continue
		}
		if !slices.ContainsFunc(out, func(x rule) bool { return x.src == r.src }) {
			out = append(out, r)
		}
	}
	if needRaw || len(out) == 0 {
		out = append(out, raw)
	}
	return out
}

// cmdGrant returns the rule granting a command like sc, or false when no
// command rule can describe it (a variable that changes the program set
// for it, more words added when it runs).
func cmdGrant(sc shell.Cmd) (rule, bool) {
	if len(sc.Args) == 0 || slices.ContainsFunc(sc.Assigns, dangerousEnv) {
		return rule{}, false
	}
	r := rule{tool: toolname.Bash, kind: ruleCmdPrefix}
	switch args := sc.Args; {
	case exactGrant(sc.Name) && sc.OpenArgs:
		return rule{}, false
	case exactGrant(sc.Name), sc.Name == "git" && len(args) >= 2 && strings.HasPrefix(args[1], "-"):
		// git -c name=value log: a git:* grant would let any -c run code
		r.kind, r.words = ruleCmdExact, args
	case len(args) >= 2 && subcommandLike(args[1]):
		r.words = args[:2]
	default:
		r.words = args[:1]
	}
	r.words = slices.Clone(r.words)
	quoted := make([]string, len(r.words))
	for i, w := range r.words {
		quoted[i] = quoteWord(w)
	}
	if r.kind == ruleCmdPrefix {
		r.src = fmt.Sprintf("bash(%s:*)", strings.Join(quoted, " "))
	} else {
		r.src = fmt.Sprintf("bash(%s)", strings.Join(quoted, " "))
	}
	return r, true
}

// exactGrant reports whether a program is granted only with its exact
// arguments, because a prefix grant of it would allow nearly anything.
func exactGrant(prog string) bool {
	switch path.Base(prog) {
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "eval", "exec", "source", ".",
		"sudo", "doas", "su", "env", "xargs", "nohup", "timeout", "nice", "command", "builtin",
		"python", "python3", "node", "deno", "bun", "npx", "perl", "ruby", "php", "lua", "awk",
		"find", "rm", "dd", "shred", "chmod", "chown",
		"nodejs", "luajit", "Rscript", "tclsh", "osascript", "pwsh", "gawk", "mawk", "nawk", "sed":
		return true
	}
	return strings.HasPrefix(path.Base(prog), "python") // python3.12 as python3
}

// subcommandLike reports whether w looks like a subcommand ("test" in
// "go test") rather than a flag, path or file name.
func subcommandLike(w string) bool {
	if w == "" || len(w) > 32 || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; !(c >= 'a' && c <= 'z' || shDigit(c) || c == '-') {
			return false
		}
	}
	return true
}

// quoteWord quotes a word for a rule string so it parses back to itself.
func quoteWord(w string) string {
	safe := w != ""
	for i := 0; i < len(w) && safe; i++ {
		c := w[i]
		safe = shLetter(c) || shDigit(c) || strings.IndexByte("_-./:=@%+,", c) >= 0
	}
	if safe && !shell.Reserved(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func ruleSources(rs []rule) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.src)
	}
	return out
}

func shLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func shDigit(c byte) bool  { return c >= '0' && c <= '9' }
