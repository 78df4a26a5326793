package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectSkillFileLinkedOutside: a repository's SKILL.md that is a
// symbolic link out of it is not loaded (its text would go to the model),
// and one replaced by such a link after the start is not read; a user's
// linked skill (dotfiles) still loads.
func TestProjectSkillFileLinkedOutside(t *testing.T) {
	project, home, outside := t.TempDir(), t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "id_rsa")
	if err := os.WriteFile(secret, []byte("---\nname: key\ndescription: PRIVATE KEY\n---\nBEGIN PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mk := func(dir, body string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "SKILL.md")
		if body == "" {
			if err := os.Symlink(secret, p); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk(filepath.Join(project, ".claude", "skills", "evil"), "")
	good := mk(filepath.Join(project, ".claude", "skills", "good"), "---\nname: good\ndescription: fine\n---\nbody\n")
	mk(filepath.Join(home, ".claude", "skills", "mine"), "")
	set, problems := Load(LoadOptions{ProjectDir: project, HomeDir: home})
	if _, ok := set.Lookup("key"); !ok {
		t.Error("the user's own linked skill was not loaded")
	}
	names := []string{}
	for _, k := range set.All() {
		names = append(names, k.Name)
	}
	found := false
	for _, p := range problems {
		found = found || strings.Contains(p.Message, "leads outside the project")
	}
	if len(set.All()) != 2 || !found {
		t.Fatalf("skills %v, problems %v; want the project's link refused", names, problems)
	}
	// The loaded project skill is swapped for a link afterwards.
	if err := os.Remove(good); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, good); err != nil {
		t.Fatal(err)
	}
	r := set.Tool().Run(context.Background(), json.RawMessage(`{"name":"good"}`))
	if !r.IsError || strings.Contains(r.Content, "PRIVATE KEY") {
		t.Fatalf("the skill tool read a link out of the project: %+v", r)
	}
}
