package ui

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
	"covey/ui/keys"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/permission"
	"covey/theme"
)

// probe wraps the model in a real program and signals once the model
// reaches the state a test waits for (set with setWhenMsg, since the
// program's model is a value the test cannot reach).
type probe struct {
	Model
	when  func(Model) bool
	ready chan struct{}
}

// setWhenMsg sets what the probe waits for.
type setWhenMsg struct {
	when  func(Model) bool
	ready chan struct{}
}

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if s, ok := msg.(setWhenMsg); ok {
		p.when, p.ready = s.when, s.ready
	} else {
		var nm tea.Model
		nm, cmd = p.Model.Update(msg)
		p.Model = nm.(Model)
	}
	if p.when != nil && p.when(p.Model) {
		close(p.ready)
		p.when = nil
	}
	return p, cmd
}

// waitFor makes the running program signal once when(model) holds.
func waitFor(t *testing.T, prog *tea.Program, when func(Model) bool) {
	t.Helper()
	ready := make(chan struct{})
	prog.Send(setWhenMsg{when: when, ready: ready})
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the program never reached the awaited state")
	}
}

// editorScript writes a shell script that acts as $EDITOR.
func editorScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEditorFlow runs the `e` answer for real: a tea.Program whose
// ExecProcess starts $EDITOR (a script) on the temp file.
func TestEditorFlow(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the editor is run by sh")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	proposed := "package main\n"
	tests := []struct {
		name        string
		script      string
		wantAllowed bool
		wantContent *string
		wantRecord  string
		pending     bool // the editor failed: the request still waits
	}{
		{name: "an edited file is allowed with the edits", script: `printf 'edited\n' > "$1"`,
			wantAllowed: true, wantContent: strPtr("edited\n"), wantRecord: "✎ allowed with your edits"},
		{name: "an unchanged file is allowed as proposed", script: `test -f "$1" && grep -q 'package main' "$1"`,
			wantAllowed: true, wantRecord: "✓ allowed"},
		{name: "a failing editor leaves the request waiting", script: `printf 'half\n' > "$1"; exit 3`,
			pending: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("EDITOR", editorScript(t, tt.script))
			ap := NewApprover()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := newModel(ctx, Options{Engine: newFakeEngine(), Approver: ap,
				Theme: theme.New(theme.ModeDark, true, false), MarkdownStyle: "ascii"})
			m.kx.graceFor = 0 // the editor key at once; TestApprovalGrace tests the grace
			var out bytes.Buffer
			// An input that never yields. It must be a file: bubbletea
			// re-opens its input after the editor (a nil one panics), and
			// exec copies any other reader into the editor until EOF.
			in, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			defer inW.Close()
			prog := tea.NewProgram(probe{Model: m}, tea.WithInput(in), tea.WithOutput(&out),
				tea.WithContext(ctx), tea.WithoutSignalHandler())
			done := make(chan error, 1)
			go func() { _, err := prog.Run(); done <- err }()

			verdict := make(chan permission.Verdict, 1)
			req := permission.Request{Tool: toolname.WriteFile, Path: "cmd/main.go", Content: proposed}
			go func() { verdict <- ap.Ask(ctx, req) }()
			waitFor(t, prog, func(m Model) bool { return m.focus == keys.FocusApproval })
			prog.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("e")})

			if tt.pending {
				waitFor(t, prog, func(m Model) bool { return m.appr.block != nil && m.appr.block.Note() != "" })
				select {
				case v := <-verdict:
					t.Fatalf("answered %+v after the editor failed", v)
				default:
				}
				prog.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")})
			}
			var v permission.Verdict
			select {
			case v = <-verdict:
			case <-time.After(10 * time.Second):
				t.Fatal("no verdict")
			}
			if tt.pending {
				if v.Allowed {
					t.Errorf("verdict %+v, want the later denial", v)
				}
			} else {
				if v.Allowed != tt.wantAllowed || (v.Content == nil) != (tt.wantContent == nil) ||
					(v.Content != nil && *v.Content != *tt.wantContent) {
					t.Errorf("verdict %+v (content %v), want allowed %v content %v", v, deref(v.Content), tt.wantAllowed, deref(tt.wantContent))
				}
				waitFor(t, prog, func(m Model) bool {
					bs := approvalBlocks(m)
					return len(bs) == 1 && !bs[0].Pending() &&
						strings.HasPrefix(ansi.Strip(bs[0].Lines(approvalCtx(100))[0]), tt.wantRecord)
				})
			}
			prog.Quit()
			if err := <-done; err != nil {
				t.Fatalf("program: %v", err)
			}
		})
	}
}

func strPtr(s string) *string { return &s }

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestEditFile(t *testing.T) {
	t.Run("the temp file holds the proposal, named with its extension", func(t *testing.T) {
		path, err := writeEditFile(permission.Request{Tool: toolname.WriteFile, Path: "web/app.tsx", Content: "x"})
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		data, err := os.ReadFile(path)
		if err != nil || string(data) != "x" || filepath.Ext(path) != ".tsx" {
			t.Errorf("file %s holds %q (%v)", path, data, err)
		}
	})
	t.Run("reading back removes the file", func(t *testing.T) {
		path, err := writeEditFile(permission.Request{Tool: toolname.WriteFile, Path: "a.txt", Content: "y"})
		if err != nil {
			t.Fatal(err)
		}
		res := readEdit(editorExitedMsg{id: 1, path: path, proposed: "y"})().(editResultMsg)
		if res.err != nil || res.content != "y" {
			t.Errorf("result %+v", res)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("temp file left behind: %v", err)
		}
	})
	t.Run("a vanished file is an error, not a panic", func(t *testing.T) {
		res := readEdit(editorExitedMsg{id: 1, path: filepath.Join(t.TempDir(), "gone")})().(editResultMsg)
		if res.err == nil {
			t.Error("no error for a missing file")
		}
	})
}
