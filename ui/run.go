package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"covey/internal/termbg"
	"covey/ui/painter"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
)

// Run shows the TUI until the user quits or ctx ends. The terminal is
// restored on every way out, a panic included: a panic is turned into an
// error carrying its stack, so the caller can print it on a sane terminal.
//
// Signals are the caller's: ctx ends on SIGINT or SIGTERM. Bubble Tea's own
// handler is off, since two listeners raced: when ctx ended the program
// first, Bubble Tea's handler was left sending a quit message nobody read,
// and the program hung on its way out.
func Run(ctx context.Context, opts Options) error {
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return runProgram(ctx, opts, nil, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithReportFocus(), tea.WithoutSignalHandler())
	}
	scr := painter.New(os.Stdin, os.Stdout, frameInterval)
	var popts []tea.ProgramOption
	if opts.OnBackground != nil {
		// Asked after the first frame; the answer is taken out of the
		// keys whenever it comes.
		// The answer is kept, and switches the palette live if it differs
		// from the one the first frame was drawn with.
		relay, remember := &msgRelay{}, opts.OnBackground
		opts.relay = relay
		in := &termbg.Input{File: os.Stdin, OnAnswer: func(dark bool) {
			remember(dark)
			relay.Send(backgroundMsg{dark: dark})
		}}
		scr.AfterFirstPaint(termbg.Query, in.Asked)
		popts = append(popts, tea.WithInput(in))
	}
	if err := scr.Start(); err != nil {
		return fmt.Errorf("run ui: %w", err)
	}
	defer scr.Stop()
	opts.Notify.SetWriter(scr.Signal)
	defer opts.Notify.SetWriter(nil)
	return runProgram(ctx, opts, scr, append(popts, tea.WithoutRenderer(), tea.WithoutSignalHandler())...)
}

// runProgram is Run with the program's options open, so tests can give it
// an input and output that are not a terminal. With a screen, the frames
// go to it (and popts should turn Bubble Tea's renderer off).
func runProgram(ctx context.Context, opts Options, scr *painter.Painter, popts ...tea.ProgramOption) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var p *tea.Program
	defer func() {
		if r := recover(); r != nil {
			// bubbletea restores the terminal after panics in Update,
			// View and commands; this catches the rest (building the
			// model) and makes sure of it.
			if p != nil {
				_ = p.ReleaseTerminal()
			}
			err = fmt.Errorf("ui panic: %v\n%s", r, debug.Stack())
		}
	}()
	m := newModel(ctx, opts)
	spin := &spinTimer{} // its Send is set once the program exists
	m.spin = spin
	defer spin.stop()
	var root tea.Model = m
	if scr != nil {
		m.painter = scr
		root = &painterModel{m: &m, scr: scr}
	}
	p = tea.NewProgram(root, append(popts, tea.WithContext(ctx))...)
	if m.pump != nil {
		m.pump.send = p.Send
	}
	spin.send = p.Send
	if opts.relay != nil {
		opts.relay.set(p.Send)
	}
	if scr != nil {
		scr.WatchSize(p)
	}
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

// painterModel hands the model's frames to the painter; Bubble Tea runs it
// without a renderer of its own. It holds the Model by pointer, so a
// message costs no copy of it (see Model.step).
type painterModel struct {
	m   *Model
	scr *painter.Painter
}

func (p *painterModel) Init() tea.Cmd { return p.m.Init() }

func (p *painterModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	return p, p.m.step(msg)
}

func (p *painterModel) View() string {
	if !p.m.idleTick {
		p.scr.Write(p.m.render())
	}
	return ""
}
