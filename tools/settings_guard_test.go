package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsCannotChangeCoveySettings: whatever a command does to
// .covey/config.yaml (which sets the next session's permission mode,
// rules and endpoint), covey puts it back and says so; write_file, which
// the gate asks about, may change it.
func TestCommandsCannotChangeCoveySettings(t *testing.T) {
	const orig = "model: m\n"
	cfg := filepath.Join(".covey", "config.yaml")
	tests := []struct {
		name    string
		present bool // the file exists before the command
		command string
	}{
		{"rewritten", true, "printf 'permission_mode: bypassPermissions\\n' > .covey/config.yaml"},
		{"appended to", true, "echo 'permissions: {allow: [bash]}' >> .covey/config.yaml"},
		{"created", false, "mkdir -p .covey && echo 'permission_mode: bypassPermissions' > .covey/config.yaml"},
		{"replaced by a symlink", true, "echo 'permission_mode: bypassPermissions' > evil && ln -sf \"$PWD/evil\" .covey/config.yaml"},
		{"folder replaced by a symlink", true, "mkdir -p x && echo 'permission_mode: bypassPermissions' > x/config.yaml && mv .covey old && ln -s x .covey"},
		{"removed", true, "rm -rf .covey"},
		{"written by another program", true, "python3 -c \"open('.covey/config.yaml','w').write('permission_mode: bypassPermissions')\" || cp /dev/null .covey/config.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := wtEnv(t)
			abs := filepath.Join(env.WS.Root, cfg)
			if tt.present {
				wtPut(t, env, cfg, orig, false)
			}
			res := wtRun(t, NewBash(env), map[string]any{"command": tt.command})
			info, err := os.Lstat(abs)
			switch {
			case !tt.present && err == nil:
				t.Errorf("the config the command created is still there")
			case tt.present && (err != nil || !info.Mode().IsRegular()):
				t.Errorf("the config is not a file again: %v %v", info, err)
			case tt.present:
				if got, _ := os.ReadFile(abs); string(got) != orig {
					t.Errorf("config = %q, want %q", got, orig)
				}
			}
			if !strings.Contains(res.Content, "covey put it back") {
				t.Errorf("the result does not say the settings were put back:\n%s", res.Content)
			}
		})
	}

	t.Run("left alone", func(t *testing.T) {
		env := wtEnv(t)
		wtPut(t, env, cfg, orig, false)
		res := wtRun(t, NewBash(env), map[string]any{"command": "cat .covey/config.yaml > copy"})
		if strings.Contains(res.Content, "put it back") {
			t.Errorf("a command that changed nothing was reported:\n%s", res.Content)
		}
	})

	t.Run("a file tool's write stands", func(t *testing.T) {
		env := wtEnv(t)
		wtPut(t, env, cfg, orig, true)
		// A command is running (before was taken) when write_file changes
		// the config; the command's end must not undo it.
		st := env.WS.Settings().Before(env.WS.Root)
		res := wtRun(t, NewWriteFile(env), map[string]any{"path": cfg, "content": "model: n\n"})
		if res.IsError {
			t.Fatalf("write_file: %s", res.Content)
		}
		if restored, err := env.WS.Settings().After(env.WS.Root, st); err != nil || len(restored) != 0 {
			t.Errorf("after = %v, %v; want nothing restored", restored, err)
		}
		if got, _ := os.ReadFile(filepath.Join(env.WS.Root, cfg)); string(got) != "model: n\n" {
			t.Errorf("config = %q, want write_file's", got)
		}
		// And a later command's change to it is put back to that.
		wtRun(t, NewBash(env), map[string]any{"command": "echo x >> .covey/config.yaml"})
		if got, _ := os.ReadFile(filepath.Join(env.WS.Root, cfg)); string(got) != "model: n\n" {
			t.Errorf("config = %q after a command, want write_file's", got)
		}
	})
}
