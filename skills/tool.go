package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"covey/agentdefs"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// maxListedDescription bounds one skill's description in the tool's
// description (every request carries it): Claude Code's bound.
const maxListedDescription = 1536

// maxListedFiles bounds the folder listing a loaded skill comes with.
const maxListedFiles = 50

// Tool returns the skill tool for the set's skills the model may load
// (not those with disable-model-invocation), nil when there is none (no
// tool is offered then, so nothing is spent on it).
func (s *Set) Tool() tool.Tool {
	if s == nil {
		return nil
	}
	offered := &Set{}
	for _, k := range s.skills {
		if k.ModelInvocable {
			offered.skills = append(offered.skills, k)
		}
	}
	if len(offered.skills) == 0 {
		return nil
	}
	return &skillTool{set: offered, desc: describe(offered.skills)}
}

// describe builds the tool's description once: the same skills give the
// same bytes, so the request's cached prefix stays stable.
func describe(all []Skill) string {
	var b strings.Builder
	b.WriteString("Load a skill: instructions (and files) for one kind of task. When a task matches a skill's description, " +
		"call this first with its name, then follow what it returns; its folder's files can be read with read_file.\nSkills:")
	for _, k := range all {
		d := strings.Join(strings.Fields(k.Description), " ")
		if r := []rune(d); len(r) > maxListedDescription {
			d = string(r[:maxListedDescription-1]) + "…"
		}
		fmt.Fprintf(&b, "\n- %s: %s", k.Name, d)
	}
	return b.String()
}

type skillTool struct {
	set  *Set
	desc string
}

func (t *skillTool) Name() string        { return toolname.Skill }
func (t *skillTool) Description() string { return t.desc }
func (t *skillTool) ReadOnly() bool      { return true }

func (t *skillTool) Schema() map[string]any { return skillSchema() }

var skillSchema = tool.ArgsSchema[skillArgs](tool.SchemaClosed)

// skillArgs are the skill tool's arguments.
type skillArgs struct {
	Name string `json:"name" jsonschema:"The skill's name, as listed."`
}

func (t *skillTool) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	var a skillArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Errorf("skill: invalid arguments: %v", err)
	}
	a.Name = strings.TrimSpace(a.Name)
	k, ok := t.set.Lookup(a.Name)
	if !ok {
		var names []string
		for _, s := range t.set.skills {
			names = append(names, s.Name)
		}
		return tool.Errorf("skill: no skill is named %q; skills: %s", a.Name, strings.Join(names, ", "))
	}
	if err := ctx.Err(); err != nil {
		return tool.Errorf("skill: %v", err)
	}
	// Read now, not at start: the file may have been edited since, or
	// replaced by a symbolic link out of the project.
	if k.root != "" && !agentdefs.WithinReal(k.root, k.Path) {
		return tool.Errorf("skill %s: its SKILL.md now leads outside the project (a symbolic link); not read", k.Name)
	}
	_, body, _, err := ParseFile(k.Path)
	if err != nil {
		return tool.Errorf("skill %s: %v", k.Name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Skill: %s\n\n%s\n\n[skill folder: %s", k.Name, body, k.Dir)
	if files := folderFiles(k.Dir); len(files) > 0 {
		fmt.Fprintf(&b, "; its files, readable with read_file: %s", strings.Join(files, ", "))
	}
	b.WriteString("]")
	return tool.Result{Content: b.String(), Summary: "loaded " + k.Name}
}

// folderFiles lists the files of a skill's folder besides SKILL.md,
// relative to it, at most maxListedFiles.
func folderFiles(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // an unreadable entry is left out of the listing
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == "SKILL.md" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if len(out) == maxListedFiles {
			out = append(out, "…")
			return fs.SkipAll
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}
