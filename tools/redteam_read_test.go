package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"

	"covey/permission"
)

// TestRedteamReads tries to read denied files (read_file(.env),
// read_file(secrets/**), Read(**/*.pem)) and files outside the workspace
// through every reading tool, with spellings the gate's own read test does
// not hold: path tricks, symlinks inside the workspace to denied files and
// folders, links to /etc and to a folder outside, chains of links, /proc
// paths, and grep, glob and list_dir over them; in every mode (deny rules
// hold in bypassPermissions too).
func TestRedteamReads(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	files := map[string]string{
		".env": "TOKEN=hunter2\n", "secrets/key": "hunter2 key\n", "deep/a/b/id.pem": "hunter2 pem\n",
		"ok.txt": "fine\n", "sub/ok.txt": "fine\n",
	}
	for name, body := range files {
		writeRedFile(t, root, name, body)
	}
	if err := os.WriteFile(filepath.Join(outside, "passwd"), []byte("hunter2 outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"envlink":        ".env",                            // relative, to a denied file
		"sub/up":         "../.env",                         // from a folder, up
		"chain1":         "chain2",                          // a chain of links
		"chain2":         "envlink",                         //
		"sec":            "secrets",                         // a folder link to a denied folder
		"abs-env":        filepath.Join(root, ".env"),       // absolute, to a denied file
		"etc":            "/etc",                            // out to /etc
		"outdir":         outside,                           // out to a folder
		"outfile":        filepath.Join(outside, "passwd"),  // out to a file
		"sub/rel-out":    "../../" + filepath.Base(outside), // relative, out (both are in the same temp folder only by chance)
		"pemlink.txt":    filepath.Join("deep/a/b/id.pem"),  // a name the rule's glob does not match
		"sub/deep-alias": "../deep",                         // a folder link to a folder holding a denied file
		"root-alias":     ".",                               // the workspace itself, again
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := permission.ParseRules(nil, []string{"read_file(.env)", "read_file(secrets/**)", "Read(**/*.pem)"})
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		tool string
		args map[string]any
	}
	refused := []call{
		{toolname.ReadFile, map[string]any{"path": ".//.env"}},
		{toolname.ReadFile, map[string]any{"path": "sub/../.env"}},
		{toolname.ReadFile, map[string]any{"path": filepath.Join(root, ".env")}},
		{toolname.ReadFile, map[string]any{"path": "/proc/self/root" + filepath.Join(root, ".env")}},
		{toolname.ReadFile, map[string]any{"path": filepath.Join(root, "sub", "..", ".env")}},
		{toolname.ReadFile, map[string]any{"path": "secrets//key"}},
		{toolname.ReadFile, map[string]any{"path": "secrets/./key"}},
		{toolname.ReadFile, map[string]any{"path": "./deep/a/b/id.pem"}},
		{toolname.ReadFile, map[string]any{"path": "envlink"}},
		{toolname.ReadFile, map[string]any{"path": "sub/up"}},
		{toolname.ReadFile, map[string]any{"path": "chain1"}},
		{toolname.ReadFile, map[string]any{"path": "sec/key"}},
		{toolname.ReadFile, map[string]any{"path": "abs-env"}},
		{toolname.ReadFile, map[string]any{"path": "pemlink.txt"}},
		{toolname.ReadFile, map[string]any{"path": "sub/deep-alias/a/b/id.pem"}},
		{toolname.ReadFile, map[string]any{"path": "root-alias/.env"}},
		{toolname.ReadFile, map[string]any{"path": "root-alias/root-alias/secrets/key"}},
		{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "envlink"}},
		{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "sec"}},
		{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "chain1"}},
		{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "sub/up"}},
		{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "./secrets/"}},
		{toolname.ListDir, map[string]any{"path": "sec"}},
		{toolname.ListDir, map[string]any{"path": "secrets/."}},
	}
	outsideReads := []call{
		{toolname.ReadFile, map[string]any{"path": "etc/passwd"}},
		{toolname.ReadFile, map[string]any{"path": "outfile"}},
		{toolname.ReadFile, map[string]any{"path": "outdir/passwd"}},
		{toolname.ReadFile, map[string]any{"path": "../" + filepath.Base(outside) + "/passwd"}},
		{toolname.ReadFile, map[string]any{"path": "sub/../../" + filepath.Base(outside) + "/passwd"}},
		{toolname.ReadFile, map[string]any{"path": "~/../../etc/passwd"}},
		{toolname.Grep, map[string]any{"pattern": "root", "path": "etc"}},
		{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "outfile"}},
		{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "sub/rel-out"}},
		{toolname.Glob, map[string]any{"pattern": "*", "path": "etc"}},
		{toolname.Glob, map[string]any{"pattern": "**/passwd", "path": "outdir"}},
		{toolname.ListDir, map[string]any{"path": "etc"}},
		{toolname.ListDir, map[string]any{"path": "sub/rel-out"}},
		{toolname.ListDir, map[string]any{"path": ".."}},
	}
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeBypass} {
		t.Run(string(mode), func(t *testing.T) {
			p := permission.NewPolicy(mode, rules, nil)
			p.SetWorkspace(root)
			ws, err := workspace.NewWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			env := &Env{WS: ws, AllowRead: p.AllowRead, AllowFound: p.AllowReadFound}
			tools := map[string]tool.Tool{toolname.ReadFile: NewReadFile(env), toolname.Grep: NewGrep(env), toolname.Glob: NewGlob(env), toolname.ListDir: NewListDir(env)}
			run := func(c call) tool.Result {
				b, _ := json.Marshal(c.args)
				return tools[c.tool].Run(context.Background(), b)
			}
			want := refused
			if mode != permission.ModeBypass { // bypassPermissions reads outside the workspace by design
				want = append(append([]call{}, refused...), outsideReads...)
			}
			for _, c := range want {
				if r := run(c); !r.IsError || strings.Contains(r.Content, "hunter2") || strings.Contains(r.Content, "root:x:0") {
					t.Errorf("%s %v was not refused: %.300s", c.tool, c.args, r.Content)
				}
			}
			// Searches of the whole workspace skip what may not be read.
			for _, c := range []call{
				{toolname.Grep, map[string]any{"pattern": "hunter2"}},
				{toolname.Grep, map[string]any{"pattern": "hunter2", "output_mode": "content"}},
				{toolname.Grep, map[string]any{"pattern": "hunter2", "output_mode": "count"}},
				{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "sub"}},
				{toolname.Grep, map[string]any{"pattern": "hunter2", toolname.Glob: "*env*"}},
				{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "root-alias"}},
				{toolname.Grep, map[string]any{"pattern": "hunter2", "path": "sub/deep-alias"}},
			} {
				r := run(c)
				leaks := []string{"TOKEN=", "hunter2 key", "hunter2 pem", ".env", "envlink", "chain", "sec/", "secrets/", "id.pem", "up:"}
				if mode != permission.ModeBypass {
					leaks = append(leaks, "hunter2 outside", "outfile", "rel-out")
				}
				for _, leak := range leaks {
					if strings.Contains(r.Content, leak) {
						t.Errorf("grep %v shows %q: %.300s", c.args, leak, r.Content)
					}
				}
			}
			for _, c := range []call{{toolname.ReadFile, map[string]any{"path": "ok.txt"}}, {toolname.ReadFile, map[string]any{"path": "sub/ok.txt"}}, {toolname.ListDir, map[string]any{"path": "."}}} {
				if r := run(c); r.IsError {
					t.Errorf("%s %v was refused: %s", c.tool, c.args, r.Content)
				}
			}
		})
	}
}
