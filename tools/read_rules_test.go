package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/permission"
	"covey/tools/tool"
	"covey/tools/workspace"
)

// TestReadRulesHoldForEveryReadingTool: read deny rules inside the
// workspace and symlinks leading out of it hold for read_file, grep
// (its output too), glob and list_dir, with a real Policy behind them.
func TestReadRulesHoldForEveryReadingTool(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	files := map[string]string{
		"ok.txt": "SECRET-free line mentions SECRET word\n", ".env": "SECRET=hunter2\n",
		"secrets/key.pem": "SECRET key\n", "src/main.go": "// SECRET in code is fine\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "passwd"), []byte("SECRET outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link.txt": filepath.Join(outside, "passwd"), "linkdir": outside} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := permission.ParseRules(nil, []string{"read_file(.env)", "Read(secrets/**)"})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits} {
		t.Run(string(mode), func(t *testing.T) {
			p := permission.NewPolicy(mode, rules, nil)
			p.SetWorkspace(root)
			ws, err := workspace.NewWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			env := &Env{WS: ws, AllowRead: p.AllowRead, AllowFound: p.AllowReadFound}
			run := func(tool tool.Tool, args map[string]any) tool.Result {
				b, _ := json.Marshal(args)
				return tool.Run(context.Background(), b)
			}
			refused := []struct {
				tool tool.Tool
				args map[string]any
			}{
				{NewReadFile(env), map[string]any{"path": ".env"}},
				{NewReadFile(env), map[string]any{"path": "./secrets/../.env"}},
				{NewReadFile(env), map[string]any{"path": "secrets/key.pem"}},
				{NewReadFile(env), map[string]any{"path": "link.txt"}},
				{NewReadFile(env), map[string]any{"path": "linkdir/passwd"}},
				{NewGrep(env), map[string]any{"pattern": "SECRET", "path": ".env"}},
				{NewGrep(env), map[string]any{"pattern": "SECRET", "path": "linkdir"}},
				{NewGlob(env), map[string]any{"pattern": "*", "path": "linkdir"}},
				{NewListDir(env), map[string]any{"path": "linkdir"}},
				{NewListDir(env), map[string]any{"path": "secrets"}},
			}
			for _, c := range refused {
				if r := run(c.tool, c.args); !r.IsError || strings.Contains(r.Content, "hunter2") || strings.Contains(r.Content, "SECRET outside") || strings.Contains(r.Content, "SECRET key") {
					t.Errorf("%s %v was not refused: %s", c.tool.Name(), c.args, r.Content)
				}
			}
			if r := run(NewReadFile(env), map[string]any{"path": "ok.txt"}); r.IsError {
				t.Errorf("a plain read was refused: %s", r.Content)
			}
			for _, mode := range []string{"content", "files_with_matches", "count"} {
				r := run(NewGrep(env), map[string]any{"pattern": "SECRET", "output_mode": mode})
				if r.IsError || !strings.Contains(r.Content, "ok.txt") || !strings.Contains(r.Content, "main.go") {
					t.Errorf("grep %s lost the allowed files: %s", mode, r.Content)
				}
				for _, leak := range []string{".env", "hunter2", "key.pem", "link.txt", "SECRET outside"} {
					if strings.Contains(r.Content, leak) {
						t.Errorf("grep %s shows %q:\n%s", mode, leak, r.Content)
					}
				}
			}
		})
	}
}
