package agentdefs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
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
				Tools: []string{"read_file", "grep", "glob"}, DisallowedTools: []string{"grep"},
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
				Tools:           []string{"read_file", "write_file", "edit_file", "bash", "grep", "glob", "list_dir", "todo_write"},
				DisallowedTools: []string{"bash"},
				Model:           "sonnet", MaxTurns: 3, Prompt: "Write things.", Source: "a.md",
			},
		},
		"claude list tools with Task and Agent forms": {
			file: "---\nname: boss\ndescription: Delegates.\ntools:\n  - Read\n  - Task\n  - Agent(worker)\n---\nDelegate.\n",
			want: Definition{
				Name: "boss", Description: "Delegates.", Tools: []string{"read_file", "task"},
				Model: "inherit", Prompt: "Delegate.", Source: "a.md", ReadOnly: true,
			},
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
				if !strings.Contains(w.Message, "Agent(worker)") {
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
		"unavailable claude tools are dropped with their line": {
			file:  "---\nname: web\ndescription: d\ntools:\n  - Read\n  - WebFetch\n  - mcp__github__search\n---\np\n",
			tools: []string{"read_file"},
			want: []Problem{
				{Line: 6, Message: `tool "WebFetch" dropped`, Warning: true},
				{Line: 7, Message: "MCP", Warning: true},
			},
		},
		"comma string drop points at the tools line": {
			file:  "---\nname: web\ndescription: d\ntools: Read, WebSearch, Bash(git:*)\n---\np\n",
			tools: []string{"read_file", "bash"},
			want: []Problem{
				{Line: 4, Message: `tool "WebSearch" dropped`, Warning: true},
				{Line: 4, Message: "arguments (git:*) are ignored", Warning: true},
			},
		},
		"unknown and claude-only keys": {
			file: "---\nname: k\ndescription: d\nfavourite: tea\npermissionMode: plan\n---\np\n",
			want: []Problem{
				{Line: 4, Message: `unknown key "favourite"`, Warning: true},
				{Line: 5, Message: "Claude Code setting", Warning: true},
			},
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
				if got.Path != "w.md" || got.Line != w.Line || !got.Warning || !strings.Contains(got.Message, w.Message) {
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
		"no frontmatter":          {"# Just markdown\n", 1, "no YAML frontmatter"},
		"empty file":              {"", 1, "file is empty"},
		"unclosed frontmatter":    {"\n---\nname: a\n", 2, "never closed"},
		"bad YAML indentation":    {"---\nname: a\ndescription: d\n  tools: x: y\n---\np\n", 4, "invalid YAML"},
		"bad YAML unclosed quote": {"---\nname: a\ndescription: d\nmodel: \"open\n---\np\n", 4, "invalid YAML"},
		"bad YAML unclosed list":  {"---\nname: a\ndescription: d\ntools: [Read\n---\np\n", 4, "expected ',' or ']'"},
		"bad YAML list at end":    {"---\nname: a\ndescription: d\ntools: [Read, \n\n---\np\n", 4, "invalid YAML"},
		"bad YAML on first line":  {"---\n[name: a\n---\np\n", 2, "invalid YAML"},
		"tab indentation":         {"---\nname: a\ndescription: d\ntools:\n\t- Read\n---\np\n", 5, "tabs"},
		"missing description":     {"---\nname: a\n---\np\n", 1, "missing required key description"},
		"missing name":            {"\n---\ndescription: d\n---\np\n", 2, "missing required key name"},
		"empty frontmatter":       {"---\n---\np\n", 1, "missing required key name"},
		"frontmatter is a list":   {"---\n- a\n- b\n---\np\n", 2, "it is a list"},
		"max_turns wrong type":    {"---\nname: a\ndescription: d\nmax_turns: \"lots\"\n---\np\n", 4, `max_turns must be a whole number, got "lots"`},
		"maxTurns negative":       {"---\nname: a\ndescription: d\nmaxTurns: -2\n---\np\n", 4, "must not be negative"},
		"timeout wrong":           {"---\nname: a\ndescription: d\ntimeout: soon\n---\np\n", 4, "timeout must be a duration"},
		"timeout negative":        {"---\nname: a\ndescription: d\ntimeout: -5s\n---\np\n", 4, "must not be negative"},
		"timeout huge":            {"---\nname: a\ndescription: d\ntimeout: 1e300\n---\np\n", 4, "too large"},
		"description is a list":   {"---\nname: a\ndescription: [x]\n---\np\n", 3, "description must be text"},
		"tools is a mapping":      {"---\nname: a\ndescription: d\ntools: {Read: true}\n---\np\n", 4, "tools must be a list"},
		"tools entry is a list":   {"---\nname: a\ndescription: d\ntools:\n  - [Read]\n---\np\n", 5, "must be a tool name"},
		"bad glob":                {"---\nname: a\ndescription: d\nallowed_paths: [\"src/[\"]\n---\np\n", 4, "not a valid glob"},
		"name with space":         {"---\nname: my agent\ndescription: d\n---\np\n", 2, "is not valid"},
		"name with slash":         {"---\nname: a/b\ndescription: d\n---\np\n", 2, "is not valid"},
		"name too long":           {"---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\np\n", 2, "longer than"},
		"isolation unknown":       {"---\nname: a\ndescription: d\nisolation: container\n---\np\n", 4, `isolation must be "worktree"`},
		"key given twice":         {"---\nname: a\ndescription: d\nmax_turns: 1\nmaxTurns: 2\n---\np\n", 5, "given twice"},
		"file too large":          {"---\nname: a\ndescription: d\n---\n" + strings.Repeat("x", maxFileSize), 0, "limited to"},
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
