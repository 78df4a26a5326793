package toolname

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoToolNameLiterals keeps the one list the one list: code outside this
// package that compares, stores or calls a tool by name uses the constants,
// so renaming a tool cannot leave a stale copy behind. Prose (help texts,
// error messages) may say a tool's name; the patterns below are the places
// a name is used as an identity.
func TestNoToolNameLiterals(t *testing.T) {
	names := append(All(), SendMessage, StopAgent, CrewStatus, MergeWorktree, Skill, BashOutput, KillShell, PickAttempt, AskUser, ExitPlanMode)
	quoted := `"(` + strings.Join(names, "|") + `)"`
	identity := regexp.MustCompile(`(==|!=|\bName:|\btool:|\bTool:)\s*` + quoted + `|\bcase\s+` + quoted + `\s*[:,]`)
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "toolname", ".cache":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := identity.FindString(line); m != "" {
				t.Errorf("%s:%d: %s: use the toolname constant", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
