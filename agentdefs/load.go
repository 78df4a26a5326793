package agentdefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"covey/internal/safefile"
)

// LoadOptions says where to look for definition files. An empty field skips
// the folders under it, so tests and callers can load only what they mean.
type LoadOptions struct {
	// UserConfigDir is covey's config folder (~/.config/covey under XDG);
	// definitions are read from its agents/ folder.
	UserConfigDir string
	// HomeDir is the user's home, for Claude Code's ~/.claude/agents/.
	HomeDir string
	// ProjectDir is the workspace root, for .covey/agents/ and
	// .claude/agents/.
	ProjectDir string
	// Plugins are the agents/ folders of enabled plugins, read last, each
	// with its plugin's name as namespace.
	Plugins []Folder
}

// folder is one place definitions are read from.
type folder struct {
	dir       string
	scope     Scope
	namespace string
}

// folders returns the definition folders in falling precedence (see
// Folders), the plugins' last.
func (o LoadOptions) folders() []folder {
	var out []folder
	for _, f := range append(Folders("agents", o.ProjectDir, o.UserConfigDir, o.HomeDir), o.Plugins...) {
		out = append(out, folder{dir: f.Path, scope: f.Scope, namespace: f.Namespace})
	}
	return out
}

// Folder is one folder a kind of file (agents, commands, skills) is read
// from, with the scope its files get.
type Folder struct {
	Path  string
	Scope Scope
	// Namespace prefixes the names of what a plugin's folder holds
	// ("formatter" makes /formatter:fix); "" for none.
	Namespace string
}

// Folders returns the folders files of kind ("agents", "commands",
// "skills") are read from, in falling precedence: the project's before the
// user's, and at each level covey's own folder before Claude Code's
// (.covey/KIND, .claude/KIND, then USERCONFIG/KIND, ~/.claude/KIND). An
// empty base leaves its folders out.
func Folders(kind, projectDir, userConfigDir, homeDir string) []Folder {
	var out []Folder
	add := func(base string, scope Scope, rel ...string) {
		if base != "" {
			out = append(out, Folder{Path: filepath.Join(append([]string{base}, rel...)...), Scope: scope})
		}
	}
	add(projectDir, Project, ".covey", kind)
	add(projectDir, Project, ".claude", kind)
	add(userConfigDir, User, kind)
	add(homeDir, User, ".claude", kind)
	return out
}

// Load reads every definition file (*.md, recursively) from the folders
// LoadOptions names and resolves them with the built-ins: project over user
// over built-in, and at the same level covey's folder over Claude Code's.
// Missing folders are fine. A broken file becomes a Problem and the rest
// still load; of two files of one folder with the same name, the later by
// path wins, with a warning. The Set is never nil.
func Load(opts LoadOptions) (*Set, []Problem) {
	var defs []Definition
	var problems []Problem
	scanned := map[string]bool{}
	for _, f := range opts.folders() {
		// When the project is the home folder, .claude/agents would be
		// read twice and every agent would shadow itself.
		key := canonicalDir(f.dir)
		if scanned[key] {
			continue
		}
		scanned[key] = true
		files, probs := listMarkdown(f.dir)
		problems = append(problems, probs...)
		// Two files of one folder with the same name: the later by path
		// wins, as in Claude Code, with a warning naming both.
		byName := map[string]int{} // name → index in loaded
		var loaded []Definition
		for _, path := range files {
			if f.scope == Project && !WithinReal(opts.ProjectDir, path) {
				// A repository's agent file linked to a file outside it (a
				// key, say) would send that file to the model.
				problems = append(problems, Problem{Path: path, Message: "the agent file leads outside the project (a symbolic link); not loaded"})
				continue
			}
			d, nameLine, warnings, err := loadFile(path)
			if err != nil {
				var p Problem
				if !errors.As(err, &p) {
					p = Problem{Path: path, Message: err.Error()}
				}
				problems = append(problems, p)
				continue
			}
			problems = append(problems, warnings...)
			d.Scope = f.scope
			if f.namespace != "" {
				d.Name = f.namespace + ":" + d.Name
			}
			if i, dup := byName[d.Name]; dup {
				problems = append(problems, Problem{
					Path: path, Line: nameLine, Field: "name", Warning: true,
					Message: fmt.Sprintf("agent %q is also defined by %s in the same folder; this file, the later by name, wins", d.Name, loaded[i].Source),
				})
				loaded[i] = d
				continue
			}
			byName[d.Name] = len(loaded)
			loaded = append(loaded, d)
		}
		defs = append(defs, loaded...)
	}
	defs = append(defs, Builtins()...)
	problems = append(problems, resolveSpawnTypes(defs)...)
	return NewSet(defs...), problems
}

// resolveSpawnTypes rewrites each definition's SpawnTypes (from
// Agent(a, b)) to the names Lookup finds for them, so Agent(explore) means
// Explore, and warns about names that find no type (they are dropped; a
// list left empty lets the agent start none).
func resolveSpawnTypes(defs []Definition) []Problem {
	all := NewSet(defs...)
	var problems []Problem
	for i, d := range defs {
		if d.SpawnTypes == nil {
			continue
		}
		out := []string{}
		for _, t := range d.SpawnTypes {
			found, err := all.Lookup(t)
			if err != nil {
				problems = append(problems, Problem{Path: d.Source, Field: "tools", Warning: true,
					Message: fmt.Sprintf("Agent(%s): no agent type is named %q, so this agent may not start it", t, t)})
				continue
			}
			if !slices.Contains(out, found.Name) {
				out = append(out, found.Name)
			}
		}
		defs[i].SpawnTypes = out
	}
	return problems
}

// canonicalDir names a folder so two spellings of it compare equal.
func canonicalDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Clean(dir)
}

// loadFile reads and parses one file, refusing to read past the size limit
// so a stray huge file costs nothing.
func loadFile(path string) (Definition, int, []Problem, error) {
	// A FIFO or a device among the agent files is refused, not read.
	f, err := safefile.Open(path)
	if err != nil {
		return Definition{}, 0, nil, Problem{Path: path, Message: fmt.Sprintf("cannot read agent file: %v", err)}
	}
	defer func() { _ = f.Close() }() // read only: a close error changes nothing
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return Definition{}, 0, nil, Problem{Path: path, Message: fmt.Sprintf("cannot read agent file: %v", err)}
	}
	return parse(path, data)
}

// listMarkdown returns the *.md files under dir in lexical path order,
// skipping hidden subfolders. A missing dir is not a problem: most users
// have none of the four.
func listMarkdown(dir string) ([]string, []Problem) {
	var files []string
	var problems []Problem
	// WalkDir does not descend into a root that is a symlink, and
	// ~/.claude/agents is often one (into a dotfiles repository), so walk
	// the link's target and report paths under the name the user knows.
	root := dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		root = real
	}
	if info, err := os.Stat(root); err == nil && !info.IsDir() {
		return nil, []Problem{{Path: dir, Message: "is not a folder; agent definitions go in *.md files inside it"}}
	}
	display := func(path string) string {
		if rel, err := filepath.Rel(root, path); err == nil {
			return filepath.Join(dir, rel)
		}
		return path
	}
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			problems = append(problems, Problem{Path: display(path), Message: fmt.Sprintf("cannot read agents folder: %v", err)})
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			if path != root && strings.HasPrefix(e.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(e.Name()), ".md") {
			return nil
		}
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			// Follow links to files (a common way to share agents), but
			// not to folders, which could loop.
			info, statErr := os.Stat(path)
			if statErr != nil || info.IsDir() {
				return nil //nolint:nilerr // a broken or folder link is skipped, like any non-file
			}
			mode = info.Mode().Type()
		}
		if !mode.IsRegular() {
			// A FIFO or a device (a hostile repository's) is never opened.
			problems = append(problems, Problem{Path: display(path), Message: fmt.Sprintf("skipped: %v", safefile.NotRegular(mode))})
			return nil
		}
		files = append(files, display(path))
		return nil
	})
	if err != nil {
		problems = append(problems, Problem{Path: dir, Message: fmt.Sprintf("cannot read agents folder: %v", err)})
	}
	return files, problems
}

// WithinReal reports whether path, its symbolic links followed, lies in
// root (its links followed too): a repository's file that leads outside
// the repository is not read as its own.
func WithinReal(root, path string) bool {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(r, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
