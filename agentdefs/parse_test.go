package agentdefs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
)

func TestParseValid(t *testing.T) {
	tests := map[string]struct {
		file string
		want Definition
	}{
		"covey format with every key": {
			file: `---
name: code-reviewer
description: Reviews diffs for bugs.
tools: [read_file, grep, glob]
disallowed_tools: [grep]
model: qwen3-coder
provider: local
max_turns: 8
timeout: 90s
allowed_paths: ["docs/**", "*.{md,txt}"]
color: blue
---

You review code.
`,
			want: Definition{
				Name: "code-reviewer", Description: "Reviews diffs for bugs.",
				Tools: []string{toolname.ReadFile, toolname.Grep, toolname.Glob}, DisallowedTools: []string{toolname.Grep},
				Model: "qwen3-coder", Provider: "local", MaxTurns: 8, Timeout: 90 * time.Second,
				AllowedPaths: []string{"docs/**", "*.{md,txt}"}, Color: "blue",
				Prompt: "You review code.", Source: "a.md", ReadOnly: true,
			},
		},
		"claude comma string with aliases and camelCase keys": {
			file: "---\nname: writer\ndescription: Writes.\ntools: Read, Write, Edit, MultiEdit, Bash, Grep, Glob, LS, TodoWrite\n" +
				"disallowedTools: Bash\nmaxTurns: 3\nmodel: sonnet\n---\nWrite things.\n",
			want: Definition{
				Name: "writer", Description: "Writes.",
				Tools:           []string{toolname.ReadFile, toolname.WriteFile, toolname.EditFile, toolname.Bash, toolname.Grep, toolname.Glob, toolname.ListDir, toolname.TodoWrite},
				DisallowedTools: []string{toolname.Bash},
				Model:           "sonnet", MaxTurns: 3, Prompt: "Write things.", Source: "a.md",
			},
		},
		"claude list tools with Task and Agent forms": {
			file: "---\nname: boss\ndescription: Delegates.\ntools:\n  - Read\n  - Task\n  - Agent(worker)\n---\nDelegate.\n",
			want: Definition{
				Name: "boss", Description: "Delegates.", Tools: []string{toolname.ReadFile, toolname.Task},
				Model: "inherit", Prompt: "Delegate.", Source: "a.md", ReadOnly: true,
			},
		},
		"budgets in both spellings": {
			file: "---\nname: thrifty\ndescription: d\nmax_tokens: 20000\nmaxCost: 0.25\n---\np\n",
			want: Definition{Name: "thrifty", Description: "d", Model: "inherit", MaxTokens: 20000, MaxCost: 0.25, Prompt: "p", Source: "a.md"},
		},
		"omitted tools means no allowlist and not read-only": {
			file: "---\nname: any\ndescription: d\n---\np\n",
			want: Definition{Name: "any", Description: "d", Model: "inherit", Prompt: "p", Source: "a.md"},
		},
		"empty tools list means no tools": {
			file: "---\nname: none\ndescription: d\ntools: []\n---\np\n",
			want: Definition{Name: "none", Description: "d", Tools: []string{}, Model: "inherit", Prompt: "p", Source: "a.md", ReadOnly: true},
		},
		"star means no allowlist": {
			file: "---\nname: star\ndescription: d\ntools: \"*\"\n---\np\n",
			want: Definition{Name: "star", Description: "d", Model: "inherit", Prompt: "p", Source: "a.md"},
		},
		"timeout as seconds, quoted count, CRLF and BOM": {
			file: "\ufeff---\r\nname: t\r\ndescription: d\r\ntimeout: 1.5\r\nmax_turns: \"4\"\r\n---\r\np\r\n",
			want: Definition{Name: "t", Description: "d", Model: "inherit", Timeout: 1500 * time.Millisecond, MaxTurns: 4, Prompt: "p", Source: "a.md"},
		},
		"blank-separated tools and an empty tools key": {
			file: "---\nname: b\ndescription: d\ntools: Read Grep\tGlob\n---\np\n",
			want: Definition{Name: "b", Description: "d", Tools: []string{toolname.ReadFile, toolname.Grep, toolname.Glob}, Model: "inherit", Prompt: "p", Source: "a.md", ReadOnly: true},
		},
		"present but empty tools means no tools": {
			file: "---\nname: e\ndescription: d\ntools:\n---\np\n",
			want: Definition{Name: "e", Description: "d", Tools: []string{}, Model: "inherit", Prompt: "p", Source: "a.md", ReadOnly: true},
		},
		"rules, spawn limits and Claude-only settings": {
			file: "---\nname: r\ndescription: d\ntools: Read(src/**), Bash(git diff:*), Edit(docs/**), Agent(Explore, Code Reviewer), TaskCreate, WebFetch, mcp__github__search\n" +
				"permissionMode: acceptEdits\nisolation: worktree\nbackground: true\nmcpServers: [github]\ncolor: Purple\n---\np\n",
			want: Definition{
				Name: "r", Description: "d",
				Tools: []string{toolname.ReadFile, toolname.Bash, toolname.EditFile, toolname.Task, toolname.TodoWrite, toolname.WebFetch, "mcp__github__search"},
				ToolRules: []ToolRule{
					{Tool: toolname.ReadFile, Pattern: "src/**", Source: "Read(src/**)"},
					{Tool: toolname.Bash, Pattern: "git diff:*", Source: "Bash(git diff:*)"},
					{Tool: toolname.EditFile, Pattern: "docs/**", Source: "Edit(docs/**)"},
				},
				SpawnTypes: []string{"Explore", "Code Reviewer"}, PermissionMode: "acceptEdits", Isolation: "worktree", Background: true,
				MCPServers: []string{"github"}, Color: "purple", Model: "inherit", Prompt: "p", Source: "a.md",
			},
		},
		"Agent(types) alone limits the types": {
			file: "---\nname: boss\ndescription: Delegates.\ntools: Read, Task(worker, Code Reviewer)\n---\nDelegate.\n",
			want: Definition{
				Name: "boss", Description: "Delegates.", Tools: []string{toolname.ReadFile, toolname.Task}, SpawnTypes: []string{"worker", "Code Reviewer"},
				Model: "inherit", Prompt: "Delegate.", Source: "a.md", ReadOnly: true,
			},
		},
		"names with spaces are kept as written": {
			file: "---\nname: Code Reviewer\ndescription: d\n---\np\n",
			want: Definition{Name: "Code Reviewer", Description: "d", Model: "inherit", Prompt: "p", Source: "a.md"},
		},
		"claude description that is not strict YAML": {
			file: "---\nname: reviewer\ndescription: Use this agent after code changes. Examples: <example>Context: a change\\nuser: review</example>\n---\np\n",
			want: Definition{
				Name: "reviewer", Description: `Use this agent after code changes. Examples: <example>Context: a change\nuser: review</example>`,
				Model: "inherit", Prompt: "p", Source: "a.md",
			},
		},
		"claude isolation: worktree": {
			file: "---\nname: w\ndescription: d\nisolation: Worktree\n---\np\n",
			want: Definition{Name: "w", Description: "d", Model: "inherit", Isolation: IsolationWorktree, Prompt: "p", Source: "a.md"},
		},
		"leading blank lines and comments only around keys": {
			file: "\n\n---\n# a comment\nname: c\ndescription: d # trailing\n---\np\n",
			want: Definition{Name: "c", Description: "d", Model: "inherit", Prompt: "p", Source: "a.md"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, warnings, err := Parse("a.md", []byte(tc.file))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			for _, w := range warnings {
				if !strings.Contains(w.Message, "line by line") {
					t.Errorf("unexpected warning %v", w)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseWarnings(t *testing.T) {
	tests := map[string]struct {
		file  string
		tools []string
		want  []Problem // Message is matched as a substring
	}{
		"unknown tools: one warning naming all, at the first one's line": {
			file:  "---\nname: web\ndescription: d\ntools:\n  - Read\n  - NotebookEdit\n  - ExitPlanMode\n---\np\n",
			tools: []string{toolname.ReadFile},
			want:  []Problem{{Line: 6, Field: "tools", Message: "covey has no NotebookEdit, ExitPlanMode; dropped", Warning: true}},
		},
		"Claude's BashOutput and KillShell come with Bash": {
			file:  "---\nname: srv\ndescription: d\ntools: Read, Bash, BashOutput, KillShell\n---\np\n",
			tools: []string{toolname.ReadFile, toolname.Bash},
		},
		"BashOutput without Bash grants nothing": {
			file:  "---\nname: srv\ndescription: d\ntools: Read, BashOutput\n---\np\n",
			tools: []string{toolname.ReadFile},
			want:  []Problem{{Line: 4, Field: "tools", Message: "covey has no BashOutput (it comes with Bash); dropped", Warning: true}},
		},
		"a pattern covey cannot enforce drops the tool": {
			file:  "---\nname: web\ndescription: d\ntools: Read, Grep(TODO), Bash(git:*)\n---\np\n",
			tools: []string{toolname.ReadFile, toolname.Bash},
			want:  []Problem{{Line: 4, Field: "tools", Message: `"Grep(TODO)" dropped`, Warning: true}},
		},
		"a malformed bash pattern drops bash rather than grant all of it": {
			file:  "---\nname: web\ndescription: d\ntools: Read, Bash(rm * -rf)\n---\np\n",
			tools: []string{toolname.ReadFile},
			want:  []Problem{{Line: 4, Field: "tools", Message: `"Bash(rm * -rf)" dropped`, Warning: true}},
		},
		"unknown and unsupported keys": {
			file: "---\nname: k\ndescription: d\nfavourite: tea\nskills: [a]\nhooks: {}\nmemory: user\n---\np\n",
			want: []Problem{
				{Line: 4, Field: "favourite", Message: `unknown key "favourite"`, Warning: true},
				{Line: 7, Field: "memory", Message: "memory is not supported yet", Warning: true},
			},
		},
		"hooks that do not validate warn and the rest load": {
			file: "---\nname: k\ndescription: d\nhooks:\n  Stop:\n    - hooks: [{type: command, command: ''}]\n  Sometime: []\n---\np\n",
			want: []Problem{{Line: 5, Field: "hooks", Message: `unknown hook event "Sometime"`, Warning: true}},
		},
		"invalid optional fields load with a warning": {
			file: "---\nname: k\ndescription: d\nmaxTurns: many\ntimeout: soon\nmax_turns: -2\ncolor: mauve\npermissionMode: yolo\nbackground: maybe\n---\np\n",
			want: []Problem{
				{Line: 4, Field: "maxTurns", Message: "given again at line 6", Warning: true},
				{Line: 5, Field: "timeout", Message: `timeout must be a duration`, Warning: true},
				{Line: 6, Field: "max_turns", Message: "must not be negative", Warning: true},
				{Line: 7, Field: "color", Message: `color "mauve" is not one of`, Warning: true},
				{Line: 8, Field: "permissionMode", Message: `permissionMode "yolo"`, Warning: true},
				{Line: 9, Field: "background", Message: `background must be true or false, got "maybe"; ignored`, Warning: true},
			},
		},
		"name longer than 64 characters": {
			file: "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\np\n",
			want: []Problem{{Line: 2, Field: "name", Message: "65 characters long", Warning: true}},
		},
		"empty body": {
			file: "---\nname: k\ndescription: d\n---\n\n",
			want: []Problem{{Line: 4, Message: "no system prompt", Warning: true}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, warnings, err := Parse("w.md", []byte(tc.file))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tc.tools != nil && !reflect.DeepEqual(d.Tools, tc.tools) {
				t.Errorf("Tools = %v, want %v", d.Tools, tc.tools)
			}
			if len(warnings) != len(tc.want) {
				t.Fatalf("warnings = %v, want %d", warnings, len(tc.want))
			}
			for i, w := range tc.want {
				got := warnings[i]
				if got.Path != "w.md" || got.Line != w.Line || !got.Warning || got.Field != w.Field || !strings.Contains(got.Message, w.Message) {
					t.Errorf("warning %d = %+v, want line %d containing %q", i, got, w.Line, w.Message)
				}
			}
		})
	}
}

func TestParseBroken(t *testing.T) {
	tests := map[string]struct {
		file string
		line int
		msg  string
	}{
		"no frontmatter":                {"# Just markdown\n", 1, "no YAML frontmatter"},
		"empty file":                    {"", 1, "file is empty"},
		"unclosed frontmatter":          {"\n---\nname: a\n", 2, "never closed"},
		"bad YAML on first line":        {"---\n[name: a\n---\np\n", 2, "invalid YAML"},
		"missing description":           {"---\nname: a\n---\np\n", 1, "missing required key description"},
		"missing name":                  {"\n---\ndescription: d\n---\np\n", 2, "missing required key name"},
		"empty frontmatter":             {"---\n---\np\n", 1, "missing required key name"},
		"frontmatter is a list":         {"---\n- a\n- b\n---\np\n", 2, "it is a list"},
		"description is a list":         {"---\nname: a\ndescription: [x]\n---\np\n", 3, "description must be text"},
		"tools is a mapping":            {"---\nname: a\ndescription: d\ntools: {Read: true}\n---\np\n", 4, "tools must be a list"},
		"tools entry is a list":         {"---\nname: a\ndescription: d\ntools:\n  - [Read]\n---\np\n", 5, "must be a tool name"},
		"bad glob":                      {"---\nname: a\ndescription: d\nallowed_paths: [\"src/[\"]\n---\np\n", 4, "not a valid glob"},
		"name with a control character": {"---\nname: \"a\\x01b\"\ndescription: d\n---\np\n", 2, "control character"},
		"tools all unknown":             {"---\nname: a\ndescription: d\ntools: NotebookEdit, ExitPlanMode\n---\np\n", 4, "would have no tools at all"},
		"tools all unenforceable":       {"---\nname: a\ndescription: d\ntools: Grep(foo)\n---\np\n", 4, "would have no tools at all"},
		"isolation unknown":             {"---\nname: a\ndescription: d\nisolation: container\n---\np\n", 4, `isolation must be "worktree"`},
		"file too large":                {"---\nname: a\ndescription: d\n---\n" + strings.Repeat("x", maxFileSize), 0, "limited to"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, warnings, err := Parse("dir/b.md", []byte(tc.file))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if len(warnings) != 0 {
				t.Errorf("warnings = %v, want none beside the error", warnings)
			}
			var p Problem
			if !errors.As(err, &p) {
				t.Fatalf("error %T is not a Problem", err)
			}
			if p.Path != "dir/b.md" || p.Line != tc.line || p.Warning || !strings.Contains(p.Message, tc.msg) {
				t.Errorf("problem = %+v, want line %d containing %q", p, tc.line, tc.msg)
			}
		})
	}
}

func TestProblemError(t *testing.T) {
	tests := map[string]struct {
		p    Problem
		want string
	}{
		"with line":    {Problem{Path: "a.md", Line: 3, Message: "bad"}, "a.md:3: bad"},
		"without line": {Problem{Path: "a.md", Message: "bad"}, "a.md: bad"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.p.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"---\n---\n",
		"---\nname: a\ndescription: d\ntools: Read, Agent(x, y), WebFetch\nmax_turns: 3\ntimeout: 90s\n---\nbody\n",
		"---\nname: a\ndescription: d\ntools: [read_file, {x: 1}]\n---\n",
		"---\nname: &a a\ndescription: *a\nallowed_paths: [\"**/*.go\"]\n---\n",
		"---\nname: a\ndescription: x: y: z\n---\n",
		"---\n\t- a\n---\n",
		"---\nname: a\ndescription: d\ntimeout: 1e400\nmaxTurns: 0x10\n---\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, file string) {
		d, warnings, err := Parse("f.md", []byte(file))
		breaks := strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n")
		lines := strings.Count(breaks.Replace(file), "\n") + 1
		check := func(p Problem) {
			if p.Path != "f.md" || p.Line < 0 || p.Line > lines || p.Message == "" {
				t.Errorf("bad problem %+v (file has %d lines)", p, lines)
			}
		}
		for _, w := range warnings {
			check(w)
		}
		if err != nil {
			var p Problem
			if !errors.As(err, &p) {
				t.Fatalf("error %T is not a Problem", err)
			}
			check(p)
			return
		}
		if ValidName(d.Name) != nil || d.Description == "" || d.MaxTurns < 0 || d.Timeout < 0 {
			t.Errorf("Parse accepted an invalid definition %+v", d)
		}
	})
}

func TestParseSkills(t *testing.T) {
	for file, want := range map[string]string{
		"---\nname: k\ndescription: d\nskills: [pdf, release]\n---\np\n": "pdf,release",
		"---\nname: k\ndescription: d\nskills: pdf, release\n---\np\n":   "pdf,release",
		"---\nname: k\ndescription: d\n---\np\n":                         "",
	} {
		d, warns, err := Parse("/p/a.md", []byte(file))
		if err != nil || len(warns) != 0 {
			t.Fatalf("%q: %v %v", file, err, warns)
		}
		if got := strings.Join(d.Skills, ","); got != want {
			t.Errorf("%q: skills %q, want %q", file, got, want)
		}
	}
}
