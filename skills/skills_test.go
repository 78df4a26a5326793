package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/agentdefs"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadAndTool(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, ".claude/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: Fill in PDF forms.\nallowed-tools: Bash(python3:*), Read\n---\nRun scripts/fill.py.\n")
	write(t, filepath.Join(root, ".claude/skills/pdf/scripts/fill.py"), "print(1)")
	write(t, filepath.Join(home, ".claude/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: the user's\n---\nshadowed")
	write(t, filepath.Join(home, ".claude/skills/release/SKILL.md"), "---\ndescription: Cut a release.\n---\nTag it.")
	write(t, filepath.Join(home, ".claude/skills/broken/SKILL.md"), "---\nname: broken\n---\n")
	write(t, filepath.Join(home, ".claude/skills/plain/SKILL.md"), "---\nname: plain\nmodel: haiku\neffort: high\nuser-invocable: false\nallowed-tools: NotebookEdit\n---\n# Plain\n\nTidy the imports\nof a Go file.\n\nThen run gofmt.")
	write(t, filepath.Join(home, ".claude/skills/manual/SKILL.md"), "---\ndescription: Deploy to production.\ndisable-model-invocation: true\n---\nDeploy.")
	write(t, filepath.Join(home, ".claude/skills/long/SKILL.md"), "---\ndescription: "+strings.Repeat("word ", 400)+"\n---\nx")
	write(t, filepath.Join(home, ".claude/skills/notaskill/README.md"), "x")
	set, problems := Load(LoadOptions{ProjectDir: root, HomeDir: home})
	var names []string
	for _, s := range set.All() {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "long manual pdf plain release" {
		t.Fatalf("skills = %v", names)
	}
	pdf, _ := set.Lookup("PDF")
	if pdf.Scope != agentdefs.Project || strings.Join(pdf.AllowedTools.Sources(), ",") != "Bash(python3:*)" {
		t.Errorf("pdf = %+v", pdf)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "no description and an empty body") || !strings.Contains(all, "also defined by") {
		t.Errorf("problems:\n%s", all)
	}
	for _, p := range problems {
		if strings.Contains(p.Path, "plain") && !p.Quiet {
			t.Errorf("a valid Claude Code skill got a warning: %v", p)
		}
	}
	plain, _ := set.Lookup("plain")
	if plain.Description != "Tidy the imports of a Go file." || plain.Model != "haiku" || plain.UserInvocable || !plain.ModelInvocable || plain.AllowedTools.Names != nil {
		t.Errorf("plain = %+v", plain)
	}

	tool := set.Tool()
	desc := tool.Description()
	if !strings.Contains(desc, "- pdf: Fill in PDF forms.") || !strings.Contains(desc, "- release: Cut a release.") || strings.Contains(desc, "Run scripts") {
		t.Errorf("description:\n%s", desc)
	}
	if strings.Contains(desc, "manual") || !strings.Contains(desc, "- plain: Tidy the imports of a Go file.") {
		t.Errorf("a skill with disable-model-invocation is offered, or one without a description is not:\n%s", desc)
	}
	if !strings.Contains(desc, strings.Repeat("word ", 300)) || strings.Contains(desc, strings.Repeat("word ", 310)) {
		t.Errorf("a long description is not cut at 1,536 characters")
	}
	if again := set.Tool().Description(); again != desc {
		t.Error("the description is not byte-stable")
	}
	res := tool.Run(context.Background(), json.RawMessage(`{"name":"pdf"}`))
	if res.IsError || !strings.Contains(res.Content, "Run scripts/fill.py.") || !strings.Contains(res.Content, "scripts/fill.py") || strings.Contains(res.Content, "SKILL.md,") {
		t.Errorf("skill pdf:\n%s", res.Content)
	}
	if res := tool.Run(context.Background(), json.RawMessage(`{"name":"nope"}`)); !res.IsError || !strings.Contains(res.Content, "skills: long, pdf, plain, release") {
		t.Errorf("unknown skill: %+v", res)
	}

	if !set.Readable(filepath.Join(root, ".claude/skills/pdf/scripts/fill.py")) {
		t.Error("a skill's own file is not readable")
	}
	for _, p := range []string{filepath.Join(home, ".claude/skills/notaskill/README.md"), filepath.Join(root, ".claude/skills/pdf"), filepath.Join(home, ".claude/skills/broken/SKILL.md")} {
		if set.Readable(p) {
			t.Errorf("%s is readable", p)
		}
	}
	only, missing := set.Only([]string{"release", "ghost"})
	if len(only.All()) != 1 || only.All()[0].Name != "release" || strings.Join(missing, ",") != "ghost" {
		t.Errorf("Only = %v, missing %v", only.All(), missing)
	}
	if (&Set{}).Tool() != nil {
		t.Error("an empty set offers a tool")
	}
}

func TestProjectSkillLinkedOutside(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "SKILL.md"), "---\nname: away\ndescription: d\n---\nbody")
	write(t, filepath.Join(outside, "secret.txt"), "secret")
	if err := os.MkdirAll(filepath.Join(root, ".claude/skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".claude/skills/away")); err != nil {
		t.Fatal(err)
	}
	set, problems := Load(LoadOptions{ProjectDir: root})
	if len(set.All()) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Message, "leads outside the project") {
		t.Fatalf("skills %v, problems %v", set.All(), problems)
	}
	if set.Readable(filepath.Join(outside, "secret.txt")) {
		t.Error("a file outside the project became readable")
	}
}
