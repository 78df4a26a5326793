//go:build unix

package slashcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

func TestParse(t *testing.T) {
	tests := map[string]struct {
		file    string
		want    Command
		rules   []string
		warns   []string
		wantErr string
	}{
		"no frontmatter": {file: "Review the diff.\n", want: Command{Body: "Review the diff."}},
		"claude code's keys": {
			file:  "---\ndescription: Make a commit\nargument-hint: [message]\nallowed-tools: Bash(git add:*), Bash(git commit:*), Read\nmodel: haiku\n---\nCommit: $ARGUMENTS\n",
			want:  Command{Description: "Make a commit", ArgumentHint: "[message]", Model: "haiku", Body: "Commit: $ARGUMENTS"},
			rules: []string{"Bash(git add:*)", "Bash(git commit:*)"},
		},
		"argument-hint of two lists":  {file: "---\nargument-hint: [pr] [priority]\n---\nx", want: Command{ArgumentHint: "[pr] [priority]", Body: "x"}},
		"unknown key is a quiet note": {file: "---\ncolour: red\n---\nx", want: Command{Body: "x"}, warns: []string{`"colour" is accepted`}},
		"empty body warns":            {file: "---\ndescription: d\n---\n", want: Command{Description: "d"}, warns: []string{"body is empty"}},
		"unclosed frontmatter":        {file: "---\ndescription: d\n", wantErr: "never closed"},
		"tools covey lacks":           {file: "---\nallowed-tools: NotebookEdit\n---\nx", want: Command{Body: "x"}, warns: []string{"covey has none of NotebookEdit"}},
		"description as a mapping":    {file: "---\ndescription: {{DESCRIPTION}}\n---\nx", want: Command{Body: "x"}, warns: []string{"description must be text"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, warns, err := Parse("/p/x.md", "x", []byte(tc.file))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range warns {
				if !w.Quiet && !strings.Contains(w.Message, "body is empty") {
					t.Errorf("a valid Claude Code file got a warning: %v", w)
				}
			}
			if c.Description != tc.want.Description || c.ArgumentHint != tc.want.ArgumentHint || c.Model != tc.want.Model || c.Body != tc.want.Body {
				t.Errorf("got %+v, want %+v", c, tc.want)
			}
			if got := strings.Join(c.AllowedTools.Sources(), ","); got != strings.Join(tc.rules, ",") {
				t.Errorf("rules = %q, want %q", got, tc.rules)
			}
			if len(warns) != len(tc.warns) {
				t.Fatalf("warnings = %v, want %v", warns, tc.warns)
			}
			for i, w := range tc.warns {
				if !strings.Contains(warns[i].Message, w) {
					t.Errorf("warning %q, want %q", warns[i].Message, w)
				}
			}
		})
	}
}

func TestLoadNamespacesAndPrecedence(t *testing.T) {
	root, home, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, ".claude/commands/frontend/Component.md"), "---\ndescription: make a component\n---\nMake $1")
	write(t, filepath.Join(root, ".claude/commands/review.md"), "project review")
	write(t, filepath.Join(home, ".claude/commands/review.md"), "user review")
	write(t, filepath.Join(home, ".claude/commands/mine.md"), "user's own")
	write(t, filepath.Join(cfg, "commands/help.md"), "shadowed by the built-in")
	write(t, filepath.Join(root, ".covey/commands/review.md"), "covey project review")
	write(t, filepath.Join(root, ".covey/commands/bad name.md"), "x")
	write(t, filepath.Join(root, ".claude/commands/git/commit:amend.md"), "Amend")
	write(t, filepath.Join(root, ".covey/commands/notes.txt"), "not a command")
	cmds, problems := Load(LoadOptions{ProjectDir: root, HomeDir: home, UserConfigDir: cfg, Reserved: []string{"help"}})
	got := map[string]Command{}
	var names []string
	for _, c := range cmds {
		got[c.Name] = c
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "frontend:component git:commit:amend mine review" {
		t.Fatalf("names = %v", names)
	}
	if got["review"].Body != "covey project review" || got["review"].Scope != agentdefs.Project {
		t.Errorf("review = %+v, want .covey's project file", got["review"])
	}
	if got["mine"].Scope != agentdefs.User {
		t.Errorf("mine's scope = %v", got["mine"].Scope)
	}
	if _, ok := got["git:commit:amend"]; !ok {
		t.Error("git/commit:amend.md is not /git:commit:amend, the name Claude Code gives it")
	}
	if got["frontend:component"].Summary() != "make a component" {
		t.Errorf("summary = %q", got["frontend:component"].Summary())
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"built-in commands, which wins", "/review is also defined by", "bad name"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if strings.Count(all, "/review is also defined") != 2 {
		t.Errorf("want two shadowed review files:\n%s", all)
	}
}

func TestExpand(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, "src/a.go"), "package a\n")
	write(t, filepath.Join(home, "notes.md"), "my notes")
	var ran []string
	x := Expander{Root: root, Home: home, SessionID: "sid-1",
		AllowRead: func(abs string) bool { return strings.HasPrefix(abs, root) },
		Run: func(_ context.Context, cmd string) (string, error) {
			ran = append(ran, cmd)
			if strings.HasPrefix(cmd, "rm") {
				return "", errors.New("the command was not allowed: deny rule")
			}
			return "out of " + cmd + "\n", nil
		},
	}
	tests := map[string]struct {
		body, args string
		want       []string
		not        []string
		ran        []string
		err        string
	}{
		"arguments":                 {body: "Fix issue $ARGUMENTS now", args: " 12 fast ", want: []string{"Fix issue 12 fast now"}},
		"positional":                {body: "a=$0 b=$1 c=$2 $10 $8", args: `one "two words"`, want: []string{"a=one b=two words c=$2 $10 $8"}},
		"positional as Claude Code": {body: "first=$ARGUMENTS[0] second=$ARGUMENTS[1] third=$ARGUMENTS[2] all=$ARGUMENTS", args: `it\'s 'a b'`, want: []string{"first=it's second=a b third=$ARGUMENTS[2] all=it\\'s 'a b'"}},
		"a price stays":             {body: "Raise $5M for $0", args: "us", want: []string{"Raise $5M for us"}, not: []string{"ARGUMENTS:"}},
		"missing index is no use":   {body: "Deploy $3", args: "x", want: []string{"Deploy $3\n\nARGUMENTS: x"}},
		"session and skill vars":    {body: "log ${CLAUDE_SESSION_ID}.log", want: []string{"log sid-1.log"}},
		"appended when unused":      {body: "Review the code.", args: "carefully", want: []string{"Review the code.\n\nARGUMENTS: carefully"}},
		"arguments not re-expanded": {body: "Say $ARGUMENTS", args: "$1 !`id` @src/a.go", want: []string{"Say $1 !`id` @src/a.go"}, not: []string{"<file"}},
		"command output":            {body: "Status: !`git status` and !`git log -n $0`", args: "3", want: []string{"Status: out of git status and out of git log -n 3"}, ran: []string{"git status", "git log -n 3"}},
		"refused command":           {body: "!`rm -rf x`", err: "did not run: !`rm -rf x`: the command was not allowed"},
		"inline code stays":         {body: "wow!`x` and `!not`", want: []string{"wow!`x` and `!not`"}},
		"quoted command is text":    {body: "Say \"!`id`\" or '!`id`' or (!`id`)", want: []string{"Say \"!`id`\" or '!`id`' or (!`id`)"}, ran: []string{}},
		"bracketed mention is text": {body: "Usage: /x [@FILE] and (@src/a.go)", want: []string{"[@FILE]"}, not: []string{"<file"}},
		"file attached":             {body: "Look at @src/a.go.", want: []string{"Look at @src/a.go.", "<file path=\"src/a.go\">\npackage a\n</file>"}},
		"positional file":           {body: "Look at @$0", args: "src/a.go", want: []string{"<file path=\"src/a.go\">"}},
		"outside refused":           {body: "see @~/notes.md", want: []string{"[@~/notes.md not attached: covey may not read it"}, not: []string{"my notes"}},
		"mention left alone":        {body: "ask @alice and mail a@b.c", want: []string{"ask @alice and mail a@b.c"}, not: []string{"<file", "not attached"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ran = nil
			got, err := Command{Body: tc.body}.Expand(context.Background(), tc.args, x)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrCommandRefused) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("expansion lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("expansion holds %q:\n%s", w, got)
				}
			}
			if tc.ran != nil && strings.Join(ran, "|") != strings.Join(tc.ran, "|") {
				t.Errorf("ran %q, want %q", ran, tc.ran)
			}
		})
	}
}

func TestExpandBoundsAttachments(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "big.txt"), strings.Repeat("x", maxAttachedFile+100))
	got, err := Command{Body: "@big.txt"}.Expand(context.Background(), "", Expander{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "cut: only the first 64 KB") || len(got) > maxAttachedFile+500 {
		t.Fatalf("a big file is not cut (%d bytes)", len(got))
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err == nil {
		got, err := Command{Body: "@fifo"}.Expand(context.Background(), "", Expander{Root: root})
		if err != nil || strings.Contains(got, "<file") {
			t.Fatalf("a FIFO was attached: %q %v", got, err)
		}
	}
}
