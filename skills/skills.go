// Package skills reads skills: folders holding a SKILL.md (frontmatter
// name, description, optional allowed-tools; the body is the
// instructions) in Claude Code's folders (.claude/skills, ~/.claude/skills)
// and covey's (.covey/skills, <config>/skills). The model sees each
// skill's name and description in the skill tool's description; the tool
// returns a skill's body when the model asks for it, and the folder's
// other files are readable through read_file (see Set.Readable).
package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"covey/agentdefs"
	"covey/internal/safefile"
)

// maxSkillFile bounds one SKILL.md.
const maxSkillFile = 256 << 10

// maxSkills bounds how many skills one folder may hold.
const maxSkills = 200

// Skill is one skill folder.
type Skill struct {
	// Name is the skill's name (frontmatter name, else the folder's).
	Name string
	// Description tells the model when to use it.
	Description string
	// AllowedTools is the frontmatter's allowed-tools (Names nil when
	// there is none). covey shows it; it grants nothing (see the docs).
	AllowedTools agentdefs.AllowedTools
	// Model is the model of the turn a /name runs the skill in.
	Model string
	// ArgumentHint says what /name takes.
	ArgumentHint string
	// ModelInvocable is false for disable-model-invocation: true, a skill
	// only the user runs (/name): the skill tool does not offer it.
	ModelInvocable bool
	// UserInvocable is false for user-invocable: false, a skill only the
	// model loads: it is no slash command.
	UserInvocable bool
	// Fork is context: fork: /name runs it in a child of type Agent.
	Fork  bool
	Agent string
	// Dir is the skill's folder (its real path) and Path its SKILL.md.
	Dir, Path string
	// Scope is agentdefs.Project or agentdefs.User.
	Scope agentdefs.Scope
	// root is the project a project skill must stay inside (checked again
	// when the skill is read).
	root string
}

// LoadOptions says where skills are looked for.
type LoadOptions struct {
	ProjectDir, UserConfigDir, HomeDir string
	// Plugins are the skills/ folders of enabled plugins, each with its
	// plugin's name as namespace (plugin:skill).
	Plugins []Folder
}

// Folders returns the skill folders in order of precedence: the project's
// before the user's, covey's own before Claude Code's, the plugins' last.
func Folders(o LoadOptions) []Folder {
	return append(agentdefs.Folders("skills", o.ProjectDir, o.UserConfigDir, o.HomeDir), o.Plugins...)
}

// Folder is one folder skills are read from.
type Folder = agentdefs.Folder

// Set is the skills of a session, by name.
type Set struct {
	skills []Skill // sorted by name
}

// Load reads every skill. A name found twice is taken from the first
// folder (see Folders), with a warning; a broken SKILL.md is skipped
// with a problem naming it.
func Load(o LoadOptions) (*Set, []agentdefs.Problem) {
	var (
		problems []agentdefs.Problem
		seen     = map[string]string{}
		set      = &Set{}
	)
	for _, f := range Folders(o) {
		entries, err := os.ReadDir(f.Path)
		if err != nil {
			continue
		}
		n := 0
		for _, e := range entries {
			dir := filepath.Join(f.Path, e.Name())
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			path := filepath.Join(dir, "SKILL.md")
			if _, err := os.Stat(path); err != nil {
				continue
			}
			if f.Scope == agentdefs.Project && f.Namespace == "" && !agentdefs.WithinReal(o.ProjectDir, path) {
				// Its text goes to the model: a repository's SKILL.md
				// linked outside it (to a key, say) would send that file.
				problems = append(problems, agentdefs.Problem{Path: path, Message: "SKILL.md leads outside the project (a symbolic link); not loaded"})
				continue
			}
			if n++; n > maxSkills {
				problems = append(problems, agentdefs.Problem{Path: f.Path, Warning: true, Message: fmt.Sprintf("more than %d skills; the rest are not read", maxSkills)})
				break
			}
			s, _, ps, err := ParseFile(path)
			problems = append(problems, ps...)
			if err != nil {
				problems = append(problems, asProblem(path, err))
				continue
			}
			s.Scope = f.Scope
			if f.Namespace != "" {
				s.Name = f.Namespace + ":" + s.Name
			}
			if f.Scope == agentdefs.Project && f.Namespace == "" {
				s.root = o.ProjectDir
			}
			if f.Scope == agentdefs.Project && f.Namespace == "" && !inside(o.ProjectDir, s.Dir) {
				// read_file may read a skill's folder anywhere: a
				// repository's skill linked outside it would open that.
				problems = append(problems, agentdefs.Problem{Path: path, Message: fmt.Sprintf("the skill's folder leads outside the project (to %s); not loaded", s.Dir)})
				continue
			}
			if first, ok := seen[s.Name]; ok {
				problems = append(problems, agentdefs.Problem{Path: path, Warning: true, Message: fmt.Sprintf("skill %q is also defined by %s, which wins", s.Name, first)})
				continue
			}
			seen[s.Name] = path
			set.skills = append(set.skills, s)
		}
	}
	sort.Slice(set.skills, func(i, j int) bool { return set.skills[i].Name < set.skills[j].Name })
	return set, problems
}

func asProblem(path string, err error) agentdefs.Problem {
	var p agentdefs.Problem
	if errors.As(err, &p) {
		return p
	}
	return agentdefs.Problem{Path: path, Message: err.Error()}
}

// ParseFile reads one SKILL.md: the skill and its body.
func ParseFile(path string) (Skill, string, []agentdefs.Problem, error) {
	data, err := safefile.Read(path, maxSkillFile)
	if err != nil {
		return Skill{}, "", nil, fmt.Errorf("read skill: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a skill from SKILL.md's content. name defaults to the
// folder's name, description to the body's first paragraph (as Claude
// Code does). Keys covey has no use for, and values it cannot use (a tool
// it lacks), load with quiet notes only --debug lists.
func Parse(path string, data []byte) (Skill, string, []agentdefs.Problem, error) {
	fm, err := agentdefs.ParseFrontmatter(path, data)
	if err != nil {
		return Skill{}, "", nil, err
	}
	dir := filepath.Dir(path)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	s := Skill{Dir: dir, Path: path, ModelInvocable: true, UserInvocable: true}
	for _, f := range fm.Fields {
		var ferr error
		switch strings.ReplaceAll(strings.ToLower(f.Key), "_", "-") {
		case "name":
			s.Name, err = fm.Text(f)
		case "description":
			s.Description, ferr = fm.Text(f)
		case "allowed-tools":
			s.AllowedTools = fm.ToolsAsClaude(f)
		case "model":
			s.Model, ferr = fm.Text(f)
			if strings.EqualFold(s.Model, "inherit") {
				s.Model = ""
			}
		case "argument-hint":
			s.ArgumentHint, ferr = fm.Text(f)
		case "disable-model-invocation":
			off, ok := fm.Bool(f)
			s.ModelInvocable = !(ok && off)
		case "user-invocable":
			on, ok := fm.Bool(f)
			s.UserInvocable = !ok || on
		case "context":
			v, _ := fm.Text(f)
			s.Fork = strings.EqualFold(v, "fork")
		case "agent":
			s.Agent, ferr = fm.Text(f)
		default:
			// effort, hooks (run when /name runs the skill), license,
			// metadata, version, when-to-use, ...: accepted.
			fm.Note(f, "key %q is accepted and has no effect on the skill tool", f.Key)
		}
		if err != nil {
			return Skill{}, "", nil, err
		}
		if ferr != nil {
			fm.Note(f, "%v; ignored", ferr)
		}
	}
	if s.Name == "" {
		s.Name = filepath.Base(filepath.Dir(path))
	}
	if strings.ContainsAny(s.Name, "\n\r\t") {
		return Skill{}, "", nil, agentdefs.Problem{Path: path, Field: "name", Message: fmt.Sprintf("name %q holds a control character", s.Name)}
	}
	body := strings.TrimSpace(fm.Body)
	if s.Description == "" {
		s.Description = firstParagraph(body)
	}
	if s.Description == "" {
		return Skill{}, "", nil, agentdefs.Problem{Path: path, Field: "description", Message: "no description and an empty body: nothing tells the model when to use this skill"}
	}
	return s, body, fm.Warnings, nil
}

// firstParagraph is the first paragraph of body that is no heading, on
// one line: what Claude Code offers a skill by when it has no
// description.
func firstParagraph(body string) string {
	var para []string
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "" && len(para) > 0:
			return strings.Join(para, " ")
		case t == "", strings.HasPrefix(t, "#") && len(para) == 0:
			continue
		default:
			para = append(para, t)
		}
	}
	return strings.Join(para, " ")
}

// All returns the skills sorted by name.
func (s *Set) All() []Skill {
	if s == nil {
		return nil
	}
	return append([]Skill(nil), s.skills...)
}

// Lookup finds a skill by name (exactly, else ignoring case).
func (s *Set) Lookup(name string) (Skill, bool) {
	if s == nil {
		return Skill{}, false
	}
	for _, k := range s.skills {
		if k.Name == name {
			return k, true
		}
	}
	for _, k := range s.skills {
		if strings.EqualFold(k.Name, name) {
			return k, true
		}
	}
	return Skill{}, false
}

// Only returns the skills named (an agent file's skills:), and the names
// no skill has.
func (s *Set) Only(names []string) (*Set, []string) {
	out := &Set{}
	var missing []string
	for _, n := range names {
		k, ok := s.Lookup(n)
		if !ok {
			missing = append(missing, n)
			continue
		}
		if _, dup := out.Lookup(k.Name); !dup {
			out.skills = append(out.skills, k)
		}
	}
	sort.Slice(out.skills, func(i, j int) bool { return out.skills[i].Name < out.skills[j].Name })
	return out, missing
}

// Readable reports whether abs is a file inside one of the skills'
// folders (by real path), which read_file may read wherever the folder
// is: a skill's instructions refer to its own files.
func (s *Set) Readable(abs string) bool {
	if s == nil || len(s.skills) == 0 {
		return false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false
	}
	for _, k := range s.skills {
		rel, err := filepath.Rel(k.Dir, real)
		if err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// inside reports whether the real path dir is inside root (resolved).
func inside(root, dir string) bool {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
