package agentdefs

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"covey/tools/toolname"
)

// writeTree creates files (path relative to root → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// agentFile is a minimal valid definition whose description tells where it
// came from, so precedence tests can see who won.
func agentFile(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nPrompt of " + desc + ".\n"
}

// treeOpts lays out the four folders under one temp root.
func treeOpts(root string) LoadOptions {
	return LoadOptions{
		UserConfigDir: filepath.Join(root, "config", "covey"),
		HomeDir:       filepath.Join(root, "home"),
		ProjectDir:    filepath.Join(root, "proj"),
	}
}

const (
	projCovey  = "proj/.covey/agents/"
	projClaude = "proj/.claude/agents/"
	userCovey  = "config/covey/agents/"
	userClaude = "home/.claude/agents/"
)

func TestLoadPrecedence(t *testing.T) {
	tests := map[string]struct {
		files    map[string]string
		want     map[string]string // name → winning description
		shadowed []string          // "name:description" of losers, in Shadowed order
	}{
		"no folders gives the built-ins": {
			want: map[string]string{"Explore": "", "Plan": "", "general-purpose": ""},
		},
		"each folder alone loads": {
			files: map[string]string{
				projCovey + "a.md":       agentFile("a", "project covey"),
				projClaude + "b.md":      agentFile("b", "project claude"),
				userCovey + "c.md":       agentFile("c", "user covey"),
				userClaude + "sub/d.md":  agentFile("d", "user claude nested"),
				userClaude + "notes.txt": "not an agent",
			},
			want: map[string]string{"a": "project covey", "b": "project claude", "c": "user covey", "d": "user claude nested"},
		},
		"project covey beats project claude beats user covey beats user claude beats built-in": {
			files: map[string]string{
				projCovey + "x.md":  agentFile("Explore", "project covey"),
				projClaude + "x.md": agentFile("Explore", "project claude"),
				userCovey + "x.md":  agentFile("Explore", "user covey"),
				userClaude + "x.md": agentFile("Explore", "user claude"),
			},
			want: map[string]string{"Explore": "project covey"},
			shadowed: []string{
				"Explore:project claude", "Explore:user covey", "Explore:user claude", "Explore:" + Builtins()[0].Description,
			},
		},
		"project claude beats user covey": {
			files: map[string]string{
				projClaude + "p.md": agentFile("p", "project claude"),
				userCovey + "p.md":  agentFile("p", "user covey"),
			},
			want:     map[string]string{"p": "project claude"},
			shadowed: []string{"p:user covey"},
		},
		"user covey beats user claude": {
			files: map[string]string{
				userClaude + "u.md": agentFile("u", "user claude"),
				userCovey + "u.md":  agentFile("u", "user covey"),
			},
			want:     map[string]string{"u": "user covey"},
			shadowed: []string{"u:user claude"},
		},
		"user claude beats built-in": {
			files:    map[string]string{userClaude + "plan.md": agentFile("Plan", "my plan")},
			want:     map[string]string{"Plan": "my plan"},
			shadowed: []string{"Plan:" + Builtins()[2].Description},
		},
		"identity is the name field, not the file name": {
			files: map[string]string{
				projCovey + "one.md": agentFile("same", "from one"),
				userCovey + "two.md": agentFile("same", "from two"),
			},
			want:     map[string]string{"same": "from one"},
			shadowed: []string{"same:from two"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.files)
			s, problems := Load(treeOpts(root))
			if len(problems) != 0 {
				t.Fatalf("problems: %v", problems)
			}
			for n, desc := range tc.want {
				d, ok := s.Get(n)
				if !ok {
					t.Errorf("Get(%q) missing", n)
					continue
				}
				if desc != "" && d.Description != desc {
					t.Errorf("Get(%q) = %q, want %q", n, d.Description, desc)
				}
			}
			var shadowed []string
			for _, d := range s.Shadowed() {
				shadowed = append(shadowed, d.Name+":"+d.Description)
			}
			if !reflect.DeepEqual(shadowed, tc.shadowed) {
				t.Errorf("Shadowed = %q, want %q", shadowed, tc.shadowed)
			}
		})
	}
}

func TestLoadScopesAndSources(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		projClaude + "p.md": agentFile("p", "d"),
		userClaude + "u.md": agentFile("u", "d"),
	})
	s, _ := Load(treeOpts(root))
	tests := map[string]struct {
		scope  Scope
		source string
	}{
		"p":       {Project, filepath.Join(root, projClaude, "p.md")},
		"u":       {User, filepath.Join(root, userClaude, "u.md")},
		"Explore": {BuiltIn, SourceBuiltIn},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, ok := s.Get(name)
			if !ok || d.Scope != tc.scope || d.Source != tc.source {
				t.Errorf("Get(%q) = scope %v source %q, want %v %q", name, d.Scope, d.Source, tc.scope, tc.source)
			}
		})
	}
}

func TestLoadBrokenFilesLeaveTheRest(t *testing.T) {
	tests := map[string]struct {
		file string
		line int
		msg  string
	}{
		"frontmatter a list":  {"---\n- name: bad\n---\np\n", 2, "it is a list"},
		"missing description": {"---\nname: bad\n---\np\n", 1, "missing required key description"},
		"tools not a list":    {"---\nname: bad\ndescription: d\ntools: {Read: yes}\n---\np\n", 4, "tools must be a list"},
		"no frontmatter":      {"just text\n", 1, "no YAML frontmatter"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{
				projClaude + "a-good.md": agentFile("good-one", "fine"),
				projClaude + "bad.md":    tc.file,
				projClaude + "z-good.md": agentFile("good-two", "fine"),
			})
			s, problems := Load(treeOpts(root))
			if len(problems) != 1 {
				t.Fatalf("problems = %v, want exactly one", problems)
			}
			p := problems[0]
			if want := filepath.Join(root, projClaude, "bad.md"); p.Path != want || p.Line != tc.line || p.Warning || !strings.Contains(p.Message, tc.msg) {
				t.Errorf("problem = %+v, want %s:%d containing %q", p, want, tc.line, tc.msg)
			}
			for _, n := range []string{"good-one", "good-two", "Explore"} {
				if _, ok := s.Get(n); !ok {
					t.Errorf("%s did not load", n)
				}
			}
			if _, ok := s.Get("bad"); ok {
				t.Error("the broken definition loaded")
			}
		})
	}
}

func TestLoadSameNameInOneFolder(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		userCovey + "b.md": "---\ndescription: second\nname: twin\n---\np\n",
		userCovey + "a.md": agentFile("twin", "first"),
	})
	s, problems := Load(treeOpts(root))
	d, _ := s.Get("twin")
	if d.Description != "second" {
		t.Errorf("winner = %q, want the later file by name, as in Claude Code", d.Description)
	}
	if len(s.Shadowed()) != 0 {
		t.Errorf("Shadowed = %v, want none (a same-folder duplicate is a warning)", s.Shadowed())
	}
	if len(problems) != 1 || problems[0].Line != 3 || !problems[0].Warning || !strings.HasSuffix(problems[0].Path, "b.md") ||
		!strings.Contains(problems[0].Message, filepath.Join(root, userCovey, "a.md")) {
		t.Errorf("problems = %v, want one warning at b.md:3 naming a.md", problems)
	}
}

func TestLoadToolNamesInEveryFolder(t *testing.T) {
	tests := map[string]struct {
		path     string
		tools    string
		want     []string
		warnings int
	}{
		"claude names in claude folder, ExitPlanMode dropped": {projClaude + "x.md", "Read, Grep, ExitPlanMode", []string{toolname.ReadFile, toolname.Grep}, 1},
		"covey names in claude folder":                        {userClaude + "x.md", "[read_file, bash]", []string{toolname.ReadFile, toolname.Bash}, 0},
		"claude names in covey folder":                        {projCovey + "x.md", "[LS, Edit, TodoWrite]", []string{toolname.ListDir, toolname.EditFile, toolname.TodoWrite}, 0},
		"mixed list in user covey folder":                     {userCovey + "x.md", "[Glob, write_file, Agent]", []string{toolname.Glob, toolname.WriteFile, toolname.Task}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{tc.path: "---\nname: x\ndescription: d\ntools: " + tc.tools + "\n---\np\n"})
			s, problems := Load(treeOpts(root))
			d, ok := s.Get("x")
			if !ok || !reflect.DeepEqual(d.Tools, tc.want) {
				t.Errorf("x = %+v, want tools %v", d, tc.want)
			}
			if len(problems) != tc.warnings {
				t.Fatalf("problems = %v, want %d", problems, tc.warnings)
			}
			for _, p := range problems {
				if !p.Warning || p.Line != 4 || !strings.Contains(p.Message, "ExitPlanMode") {
					t.Errorf("problem = %+v, want a ExitPlanMode warning at line 4", p)
				}
			}
		})
	}
}

func TestLoadFolderEdgeCases(t *testing.T) {
	t.Run("project is home: claude folder read once", func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, map[string]string{".claude/agents/a.md": agentFile("a", "d")})
		s, problems := Load(LoadOptions{HomeDir: root, ProjectDir: root})
		if len(problems) != 0 || len(s.Shadowed()) != 0 {
			t.Errorf("problems %v, shadowed %v; want none", problems, s.Shadowed())
		}
		if d, _ := s.Get("a"); d.Scope != Project {
			t.Errorf("scope = %v, want project", d.Scope)
		}
	})
	t.Run("symlinked agents folder and file", func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, map[string]string{
			"dotfiles/agents/a.md": agentFile("a", "linked folder"),
			"shared/b.md":          agentFile("b", "linked file"),
		})
		if err := os.MkdirAll(filepath.Join(root, "home", ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(root, "home", ".claude", "agents")
		if err := os.Symlink(filepath.Join(root, "dotfiles", "agents"), link); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
		if err := os.Symlink(filepath.Join(root, "shared", "b.md"), filepath.Join(root, "dotfiles", "agents", "b.md")); err != nil {
			t.Fatal(err)
		}
		s, problems := Load(LoadOptions{HomeDir: filepath.Join(root, "home")})
		if len(problems) != 0 {
			t.Fatalf("problems: %v", problems)
		}
		for _, n := range []string{"a", "b"} {
			d, ok := s.Get(n)
			if !ok || !strings.HasPrefix(d.Source, link) {
				t.Errorf("Get(%q) = %v %q, want a source under %s", n, ok, d.Source, link)
			}
		}
	})
	t.Run("agents path is a file", func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, map[string]string{"config/covey/agents": "oops"})
		_, problems := Load(treeOpts(root))
		if len(problems) != 1 || !strings.Contains(problems[0].Message, "not a folder") {
			t.Errorf("problems = %v, want one saying it is not a folder", problems)
		}
	})
	t.Run("hidden subfolders are skipped", func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, map[string]string{userCovey + ".git/x.md": "broken"})
		if _, problems := Load(treeOpts(root)); len(problems) != 0 {
			t.Errorf("problems = %v, want none", problems)
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{}
	for i := range 50 {
		files[projClaude+"agent"+strconv.Itoa(i)+".md"] = "---\nname: agent" + strconv.Itoa(i) +
			"\ndescription: Benchmark agent.\ntools: Read, Grep, Glob, Bash\nmaxTurns: 5\n---\n" +
			strings.Repeat("A line of system prompt.\n", 40)
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	opts := treeOpts(root)
	b.ReportAllocs()
	for b.Loop() {
		if s, problems := Load(opts); len(problems) != 0 || len(s.All()) != 53 {
			b.Fatalf("problems %v, %d agents", problems, len(s.All()))
		}
	}
}

func TestLoadResolvesSpawnTypes(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		projClaude + "lead.md":     "---\nname: lead\ndescription: d\ntools: Read, Agent(explore, code reviewer, ghost)\n---\np\n",
		projClaude + "reviewer.md": agentFile("Code Reviewer", "reviews"),
		projClaude + "none.md":     "---\nname: none\ndescription: d\ntools: Read, Agent(ghost)\n---\np\n",
	})
	s, problems := Load(treeOpts(root))
	lead, _ := s.Get("lead")
	if !reflect.DeepEqual(lead.SpawnTypes, []string{"Explore", "Code Reviewer"}) {
		t.Errorf("lead may start %q, want Explore and Code Reviewer", lead.SpawnTypes)
	}
	none, _ := s.Get("none")
	if none.SpawnTypes == nil || len(none.SpawnTypes) != 0 {
		t.Errorf("none may start %#v, want no type (not any)", none.SpawnTypes)
	}
	if len(problems) != 2 || !strings.Contains(problems[0].Message, `"ghost"`) || !problems[0].Warning {
		t.Errorf("problems = %v, want one warning per unknown type", problems)
	}
	if got := s.Only(lead.SpawnTypes).All(); len(got) != 2 {
		t.Errorf("Only = %v, want the two types", got)
	}
}
