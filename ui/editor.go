package ui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/internal/safefile"
	"covey/permission"
	"covey/ui/approval"
	"covey/ui/keys"
	"covey/ui/painter"
)

// This file is the `e` answer: the proposed content goes to a temp file,
// the user's $EDITOR runs on it (the TUI gives it the terminal), and what
// the file holds when the editor exits is allowed in place of the proposal.

// editReadyMsg reports the temp file holding request id's proposal.
type editReadyMsg struct {
	id   int64
	path string
	err  error
}

// editorExitedMsg reports that the editor on path exited (err is its exit
// status, nil for 0).
type editorExitedMsg struct {
	id       int64
	path     string
	proposed string
	err      error
}

// editResultMsg is the edited content read back.
type editResultMsg struct {
	id       int64
	content  string
	proposed string
	exitErr  error // the editor failed: the request stays pending
	err      error // the file could not be read back
}

// startEdit writes the shown request's proposal to a temp file, in a
// command (file I/O stays out of Update).
func (m *Model) startEdit() tea.Cmd {
	p, b := m.appr.cur, m.appr.block
	if p == nil || !b.Editable() {
		return nil
	}
	id, req := p.id, p.req
	return func() tea.Msg {
		path, err := writeEditFile(req)
		return editReadyMsg{id: id, path: path, err: err}
	}
}

// writeEditFile puts req's proposed content in a temp file named with the
// target's extension, so the editor highlights it.
func writeEditFile(req permission.Request) (string, error) {
	f, err := os.CreateTemp("", "covey-edit-*"+filepath.Ext(req.Path))
	if err != nil {
		return "", fmt.Errorf("create a file for the editor: %w", err)
	}
	_, werr := f.WriteString(req.Content)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write %s for the editor: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// editorCommand is the command that edits path: $EDITOR (run by the shell,
// so it may carry arguments, as git runs it) or vi.
func editorCommand(path string) *exec.Cmd {
	editor := strings.TrimSpace(os.Getenv("EDITOR"))
	if editor == "" {
		editor = "vi"
	}
	if runtime.GOOS == "windows" {
		fields := strings.Fields(editor)
		return exec.Command(fields[0], append(fields[1:], path)...) //nolint:gosec // the user's own editor
	}
	return exec.Command("sh", "-c", editor+` "$1"`, "covey-editor", path) //nolint:gosec // the user's own editor
}

// handleEditReady hands the terminal to the editor, or reports why it
// cannot.
func (m *Model) handleEditReady(msg editReadyMsg) tea.Cmd {
	p := m.appr.cur
	if p == nil || p.id != msg.id {
		if msg.path != "" {
			return removeFile(msg.path)
		}
		return nil
	}
	if msg.err != nil {
		m.appr.block.SetNote(msg.err.Error())
		return nil
	}
	id, path, proposed := msg.id, msg.path, p.req.Content
	return painter.ExecProcess(m.painter, editorCommand(path), func(err error) tea.Msg {
		return editorExitedMsg{id: id, path: path, proposed: proposed, err: err}
	})
}

// maxEditedSize bounds the text read back from $EDITOR.
const maxEditedSize = 16 << 20

// readEdit reads the edited file back and removes it.
func readEdit(msg editorExitedMsg) tea.Cmd {
	return func() tea.Msg {
		res := editResultMsg{id: msg.id, proposed: msg.proposed, exitErr: msg.err}
		// The editor wrote it; bounded all the same (a message, not a file).
		data, err := safefile.Read(msg.path, maxEditedSize)
		if err != nil {
			res.err = fmt.Errorf("read the edited file: %w", err)
		}
		res.content = string(data)
		_ = os.Remove(msg.path)
		return res
	}
}

func removeFile(path string) tea.Cmd {
	return func() tea.Msg {
		_ = os.Remove(path)
		return nil
	}
}

// handleEditResult allows the edited content; an unchanged file allows the
// proposal as it was, and a failed editor leaves the request waiting.
func (m *Model) handleEditResult(msg editResultMsg) {
	p, b := m.appr.cur, m.appr.block
	if p == nil || p.id != msg.id {
		return // cancelled while the editor ran
	}
	switch {
	case msg.exitErr != nil:
		b.SetNote(fmt.Sprintf("the editor failed (%v); the change still waits for your answer", msg.exitErr))
	case msg.err != nil:
		b.SetNote(msg.err.Error() + "; the change still waits for your answer")
	case msg.content == msg.proposed:
		m.answer(permission.Verdict{Allowed: true}, approval.OutcomeAllowed, "")
	default:
		edited := msg.content
		m.answer(permission.Verdict{Allowed: true, Content: &edited}, approval.OutcomeEdited, "")
	}
	if m.appr.block == b && m.focus == keys.FocusApproval {
		m.focusApproval() // the editor had the terminal; take the keys back
	}
}
