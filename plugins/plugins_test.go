package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// TestDiscover: the installed record in both of Claude Code's shapes; a
// plugin only the project enables is the project's, one the user enables
// is the user's; a manifest path out of the plugin breaks only it; hooks
// get the plugin's folder for ${CLAUDE_PLUGIN_ROOT}; an install made for
// another project is not this one's.
func TestDiscover(t *testing.T) {
	home, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	a, b, c, d := filepath.Join(home, "p/a"), filepath.Join(home, "p/b"), filepath.Join(home, "p/c"), filepath.Join(home, "p/d")
	write(t, filepath.Join(a, "hooks/hooks.json"), `{"hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/fmt.sh"}]}]}}`)
	write(t, filepath.Join(a, "commands/x.md"), "x")
	write(t, filepath.Join(a, ".claude-plugin/plugin.json"), `{"name": "alpha", "commands": "./extra/y.md", "lspServers": {"go": {"command": "gopls"}}}`)
	write(t, filepath.Join(a, "extra/y.md"), "y")
	write(t, filepath.Join(b, ".claude-plugin/plugin.json"), `{"name": "beta", "agents": "../../etc"}`)
	write(t, filepath.Join(c, "skills/s/SKILL.md"), "---\ndescription: s\n---\nbody")
	write(t, filepath.Join(d, "commands/z.md"), "z")
	write(t, filepath.Join(home, ".claude/plugins/installed_plugins.json"), `{"version": 2, "plugins": {
	"a@m": [{"scope": "user", "installPath": "`+a+`", "version": "1.0.0"}],
	"b@m": {"installPath": "`+b+`", "version": "0.1.0"},
	"c@m": [{"scope": "project", "projectPath": "`+ws+`", "installPath": "`+c+`"}],
	"d@m": [{"scope": "project", "projectPath": "`+other+`", "installPath": "`+d+`"}]}}`)
	write(t, filepath.Join(home, ".claude/settings.json"), `{"enabledPlugins": {"a@m": true}}`)
	write(t, filepath.Join(ws, ".claude/settings.json"), `{"enabledPlugins": {"a@m": true, "b@m": true, "c@m": true, "d@m": true}}`)
	all, err := Discover(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Plugin{}
	for _, p := range all {
		by[p.ID] = p
	}
	if _, ok := by["d@m"]; ok {
		t.Error("a plugin installed for another project loaded")
	}
	pa := by["a@m"]
	if pa.Err != nil || pa.Name != "alpha" || pa.Project || pa.EnabledBy != filepath.Join("~", ".claude", "settings.json") {
		t.Fatalf("a = %+v", pa)
	}
	if len(pa.Commands) != 2 || len(pa.LSPServers) != 1 {
		t.Errorf("a's commands %v, language servers %v", pa.Commands, pa.LSPServers)
	}
	if got := pa.Hooks["PostToolUse"][0].Hooks[0].Command; got != a+"/fmt.sh" {
		t.Errorf("hook command %q", got)
	}
	if pb := by["b@m"]; pb.Err == nil || !strings.Contains(pb.Err.Error(), "leads outside") || pb.State() != "broken" {
		t.Errorf("b = %+v", pb)
	}
	if pc := by["c@m"]; pc.Err != nil || !pc.Project || pc.State() != "enabled by the project" || len(pc.Skills) != 1 {
		t.Errorf("c = %+v", pc)
	}
	if got := len(Loaded(all)); got != 2 {
		t.Errorf("%d plugins load, want 2 (a, c)", got)
	}
}
