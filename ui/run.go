package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	tea "github.com/charmbracelet/bubbletea"
)

// Run shows the TUI until the user quits or ctx ends. The terminal is
// restored on every way out, a panic included: a panic in the UI is turned
// into an error carrying its stack, so the caller can print it on a sane
// terminal.
func Run(ctx context.Context, opts Options) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := tea.NewProgram(newModel(ctx, opts),
		tea.WithAltScreen(),
		tea.WithMouseCellMotion(),
		tea.WithContext(ctx),
	)
	defer func() {
		if r := recover(); r != nil {
			// bubbletea restores the terminal for panics in its own
			// goroutines; this catches the rest and makes sure of it.
			_ = p.ReleaseTerminal()
			err = fmt.Errorf("ui panic: %v\n%s", r, debug.Stack())
		}
	}()
	_, err = p.Run()
	switch {
	case errors.Is(err, tea.ErrProgramPanic):
		return fmt.Errorf("ui: %w", err)
	case err == nil, errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return nil
	default:
		return fmt.Errorf("run ui: %w", err)
	}
}
