package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/ui/transcript"
)

// This file holds what the root model does for the input's conveniences:
// "!command" runs a shell command, "@path" completion lists the files.

// ShellRunner is implemented by an Engine that runs the user's own shell
// commands ("!make test"): through the bash tool's gate and sandbox, shown
// as a bash call of the main agent, and told to the model in its next
// request.
type ShellRunner interface {
	RunUserShell(ctx context.Context, command string) error
}

// shellCommand is the command of a "!command" input; ok is false for any
// other input.
func shellCommand(text string) (command string, ok bool) {
	if !strings.HasPrefix(text, "!") {
		return "", false
	}
	return strings.TrimSpace(text[1:]), true
}

// runShell runs a "!command" as a turn of its own: the status shows it
// running, the cancel key stops it, and messages typed meanwhile wait.
func (m *Model) runShell(command string) tea.Cmd {
	if command == "" {
		m.notice(transcript.NoticeError, "type a command after !, e.g. !git status")
		return nil
	}
	runner, ok := m.engine.(ShellRunner)
	if !ok {
		m.notice(transcript.NoticeError, "this session cannot run shell commands")
		return nil
	}
	if m.turn != nil || m.clearing {
		m.input.Enqueue("!" + command)
		return nil
	}
	return m.runTurn(func(ctx context.Context, _ Engine) error {
		err := runner.RunUserShell(ctx, command)
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("!%s: %w", command, err)
		}
		return err
	})
}

// startQueued starts a message that waited for a turn to end: a
// "!command" runs, anything else goes to the model.
func (m *Model) startQueued(text string) tea.Cmd {
	if command, ok := shellCommand(text); ok {
		return m.runShell(command)
	}
	return m.startTurn(text)
}

// listFilesIfWanted lists the workspace's files when an "@" word is
// being completed and the listing is missing or old.
func (m *Model) listFilesIfWanted() tea.Cmd {
	lister, ok := m.engine.(FileLister)
	if !ok || !m.comp.WantsFiles(m.clock()) {
		return nil
	}
	m.comp.ListingFiles()
	return listFiles(m.ctx, lister)
}

// updateInputExtras handles the input's own messages; ok is false for
// any other message.
func (m *Model) updateInputExtras(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case clipboardMsg:
		m.handleClipboard(msg)
		return nil, true
	case filesListedMsg:
		m.comp.SetFiles(msg.files, msg.err, m.clock())
		if msg.err == nil {
			m.comp.Filter(m.input.Value())
		}
		return nil, true
	}
	return nil, false
}
