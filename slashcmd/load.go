// Package slashcmd reads the user's own slash commands: markdown files in
// Claude Code's folders (.claude/commands, ~/.claude/commands) and covey's
// (.covey/commands, <config>/commands), a subfolder namespacing them
// (frontend/component.md is /frontend:component). Expand turns one into
// the prompt the main agent gets: $ARGUMENTS and $1..$9 replaced, @path
// files attached, and !`command` lines replaced by their output, each
// command through the caller's runner (the bash tool: the permission gate
// and the sandbox).
package slashcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"covey/agentdefs"
	"covey/hooks"
	"covey/internal/safefile"
)

// maxCommandFile bounds one command file.
const maxCommandFile = 256 << 10

// maxCommandFiles bounds how many files one folder may hold, so a folder
// of generated files cannot slow every start.
const maxCommandFiles = 1000

// Command is one slash command file.
type Command struct {
	// Name is what follows the slash, lowercased: "review", or
	// "frontend:component" for a file in a subfolder.
	Name string
	// Description is shown in completion and /help; "" when the file
	// gives none (the first line of the body stands in).
	Description string
	// ArgumentHint says what the command takes ("[file] [line]").
	ArgumentHint string
	// AllowedTools, when its Names is not nil, is what the command's turn
	// and its !`command` lines may use.
	AllowedTools agentdefs.AllowedTools
	// Model, when set, is the model of the command's turn.
	Model string
	// Body is the markdown after the frontmatter: the prompt template.
	Body string
	// Hooks run while the command's turn runs (Claude Code's hooks: key
	// of a command or skill), beside the session's.
	Hooks hooks.Config
	// Skill is set when the command is a skill typed as /name: Path is
	// its SKILL.md and Dir its folder.
	Skill bool
	Dir   string
	// Fork runs the command in a child of its own (a skill's
	// context: fork), of type Agent ("" for the default type).
	Fork  bool
	Agent string
	// Path is the file the command came from.
	Path string
	// Scope is agentdefs.Project for a repository's command, User for the
	// user's own.
	Scope agentdefs.Scope
}

// Summary is the description, or the body's first line when there is
// none, cut to one line.
func (c Command) Summary() string {
	d := c.Description
	if d == "" {
		for _, l := range strings.Split(c.Body, "\n") {
			if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
				d = l
				break
			}
		}
	}
	if len([]rune(d)) > 80 {
		d = string([]rune(d)[:79]) + "…"
	}
	return d
}

// LoadOptions says where commands are looked for.
type LoadOptions struct {
	// ProjectDir is the workspace root (.covey/commands, .claude/commands).
	ProjectDir string
	// UserConfigDir is covey's config folder (config.UserDir()).
	UserConfigDir string
	// HomeDir holds ~/.claude/commands.
	HomeDir string
	// Reserved are the names of built-in commands: a file with one of
	// these names is not loaded, with a warning (the built-in wins).
	Reserved []string
	// Plugins are the commands/ folders of enabled plugins, each with
	// its plugin's name as namespace (/plugin:command).
	Plugins []Folder
}

// Folders returns the command folders in order of precedence: the project's
// before the user's, covey's own before Claude Code's, the plugins' last.
func Folders(o LoadOptions) []Folder {
	return append(agentdefs.Folders("commands", o.ProjectDir, o.UserConfigDir, o.HomeDir), o.Plugins...)
}

// Folder is one folder commands are read from.
type Folder = agentdefs.Folder

// Load reads every command file. A name defined in two folders is taken
// from the first (see Folders), with a warning on the other; a broken file
// is skipped with a problem naming it. The result is sorted by name.
func Load(o LoadOptions) ([]Command, []agentdefs.Problem) {
	var (
		out      []Command
		problems []agentdefs.Problem
		seen     = map[string]string{}
	)
	for _, f := range Folders(o) {
		cmds, ps := loadFolder(f)
		problems = append(problems, ps...)
		for _, c := range cmds {
			if slices.Contains(o.Reserved, c.Name) {
				problems = append(problems, agentdefs.Problem{Path: c.Path, Warning: true,
					Message: fmt.Sprintf("/%s is one of covey's built-in commands, which wins; rename the file to use it", c.Name)})
				continue
			}
			if first, ok := seen[c.Name]; ok {
				problems = append(problems, agentdefs.Problem{Path: c.Path, Warning: true,
					Message: fmt.Sprintf("/%s is also defined by %s, which wins", c.Name, first)})
				continue
			}
			seen[c.Name] = c.Path
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, problems
}

// loadFolder reads the .md files under one folder, subfolders included.
func loadFolder(f Folder) ([]Command, []agentdefs.Problem) {
	fi, err := os.Stat(f.Path)
	if err != nil {
		return nil, nil
	}
	if !fi.IsDir() {
		// A plugin's manifest may name one command file.
		c, ps, ok := loadOne(f.Path, filepath.Base(f.Path))
		if !ok {
			return nil, ps
		}
		c.Scope, c.Name = f.Scope, namespaced(f.Namespace, c.Name)
		return []Command{c}, ps
	}
	var (
		out      []Command
		problems []agentdefs.Problem
		n        int
	)
	err = filepath.WalkDir(f.Path, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, agentdefs.Problem{Path: path, Message: err.Error(), Warning: true})
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != f.Path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(path), ".md") {
			return nil
		}
		if n++; n > maxCommandFiles {
			problems = append(problems, agentdefs.Problem{Path: f.Path, Warning: true,
				Message: fmt.Sprintf("more than %d command files; the rest are not read", maxCommandFiles)})
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(f.Path, path)
		c, ps, ok := loadOne(path, rel)
		problems = append(problems, ps...)
		if ok {
			c.Scope, c.Name = f.Scope, namespaced(f.Namespace, c.Name)
			out = append(out, c)
		}
		return nil
	})
	if err != nil {
		problems = append(problems, agentdefs.Problem{Path: f.Path, Message: err.Error(), Warning: true})
	}
	return out, problems
}

// loadOne reads the command file at path (rel under its folder); ok is
// false when it is broken, and the problems say why.
func loadOne(path, rel string) (Command, []agentdefs.Problem, bool) {
	name, err := nameOf(rel)
	if err != nil {
		return Command{}, []agentdefs.Problem{{Path: path, Message: err.Error()}}, false
	}
	c, ps, err := ParseFile(path, name)
	if err != nil {
		return Command{}, append(ps, asProblem(path, err)), false
	}
	return c, ps, true
}

// namespaced is name under a plugin's namespace.
func namespaced(ns, name string) string {
	if ns == "" {
		return name
	}
	return strings.ToLower(ns) + ":" + name
}

// nameOf turns a file's path under its folder into the command's name:
// review.md is review, frontend/component.md is frontend:component.
func nameOf(rel string) (string, error) {
	rel = strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel))
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		// A colon is kept: group/name:variant.md is /group:name:variant,
		// as Claude Code names it.
		if p == "" || strings.ContainsAny(p, " \t\n") {
			return "", fmt.Errorf("%q cannot name a command: a name holds no blanks (a subfolder makes the namespace)", rel)
		}
	}
	return strings.ToLower(strings.Join(parts, ":")), nil
}

func asProblem(path string, err error) agentdefs.Problem {
	var p agentdefs.Problem
	if errors.As(err, &p) {
		return p
	}
	return agentdefs.Problem{Path: path, Message: err.Error()}
}

// ParseFile reads one command file as the command name.
func ParseFile(path, name string) (Command, []agentdefs.Problem, error) {
	data, err := safefile.Read(path, maxCommandFile)
	if err != nil {
		return Command{}, nil, fmt.Errorf("read command: %w", err)
	}
	return Parse(path, name, data)
}

// Parse reads a command from data. Frontmatter is optional; the keys
// covey acts on are description, argument-hint, allowed-tools, model and
// hooks (Claude Code's spellings; underscores are accepted too). Every
// other key, and a value covey cannot use (a description YAML reads as a
// mapping, a tool covey lacks), loads as it does in Claude Code: with a
// quiet note only --debug lists.
func Parse(path, name string, data []byte) (Command, []agentdefs.Problem, error) {
	fm, err := agentdefs.ParseFrontmatter(path, quoteArgumentHint(data))
	if err != nil {
		return Command{}, nil, err
	}
	c := Command{Name: name, Path: path, Body: strings.TrimSpace(fm.Body)}
	for _, f := range fm.Fields {
		var ferr error
		switch key := strings.ReplaceAll(strings.ToLower(f.Key), "_", "-"); key {
		case "description":
			c.Description, ferr = fm.Text(f)
		case "argument-hint":
			c.ArgumentHint, ferr = fm.Text(f)
		case "model":
			c.Model, ferr = fm.Text(f)
			if strings.EqualFold(c.Model, "inherit") {
				c.Model = ""
			}
		case "allowed-tools":
			c.AllowedTools = fm.ToolsAsClaude(f)
		case "hooks":
			var h hooks.Config
			if ferr = fm.Value(f, &h); ferr == nil {
				c.Hooks, ferr = h, h.Validate()
			}
		case "context":
			v, _ := fm.Text(f)
			c.Fork = strings.EqualFold(v, "fork")
		case "agent":
			c.Agent, ferr = fm.Text(f)
		default:
			// Claude Code's disable-model-invocation, arguments,
			// disallowed-tools, a skill's name, effort, ...: accepted.
			fm.Note(f, "key %q is accepted and has no effect in covey", f.Key)
		}
		if ferr != nil {
			// Claude Code loads the file all the same.
			msg := ferr.Error()
			var p agentdefs.Problem
			if errors.As(ferr, &p) {
				msg = p.Message
			}
			fm.Note(f, "%s; ignored", msg)
		}
	}
	if c.Body == "" {
		fm.Warnings = append(fm.Warnings, agentdefs.Problem{Path: path, Warning: true, Message: "the command's body is empty, so it sends nothing"})
	}
	return c, fm.Warnings, nil
}

// argumentHintLine matches Claude Code's argument-hint: [file] [line],
// which YAML would read as a broken list.
var argumentHintLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(argument[-_]hint:[ \t]*)(\[[^\r\n]*?)[ \t]*\r?$`)
})

// quoteArgumentHint quotes an argument-hint that starts with a bracket,
// in the frontmatter only, so it reads as the text it is meant as.
func quoteArgumentHint(data []byte) []byte {
	text := string(data)
	end := strings.Index(text, "\n---")
	if end < 0 || !strings.HasPrefix(strings.TrimLeft(text, "\ufeff \t\r\n"), "---") {
		return data
	}
	head := argumentHintLine().ReplaceAllStringFunc(text[:end], func(l string) string {
		m := argumentHintLine().FindStringSubmatch(l)
		return m[1] + "'" + strings.ReplaceAll(m[2], "'", "''") + "'"
	})
	return []byte(head + text[end:])
}
