package ui

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
)

// panicEngine panics when a command reaches it from inside the program.
type panicEngine struct{ *fakeEngine }

func (p *panicEngine) SetModel(string) { panic("engine exploded") }

func TestRunProgram(t *testing.T) {
	tests := []struct {
		name    string
		opts    func() Options
		cancel  bool
		wantErr error
	}{
		{
			name:   "ends cleanly when the context ends",
			opts:   func() Options { return Options{Engine: newFakeEngine()} },
			cancel: true,
		},
		{
			name:   "/quit ends the program",
			opts:   func() Options { return Options{Engine: newFakeEngine(), InitialPrompt: "/quit"} },
			cancel: false,
		},
		{
			name: "a panic in Update becomes an error",
			opts: func() Options {
				return Options{Engine: &panicEngine{fakeEngine: newFakeEngine()}, InitialPrompt: "/model boom"}
			},
			wantErr: tea.ErrProgramPanic,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			events := make(chan agent.Event)
			opts := tt.opts()
			opts.Events = events
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() {
				done <- runProgram(ctx, opts, nil, tea.WithInput(strings.NewReader("")), tea.WithOutput(&out))
			}()
			if tt.cancel {
				cancel()
			}
			select {
			case err := <-done:
				if tt.wantErr == nil && err != nil {
					t.Fatalf("Run = %v, want nil", err)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Fatalf("Run = %v, want %v", err, tt.wantErr)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return")
			}
		})
	}
}

func TestModelPumpDeliversEvents(t *testing.T) {
	events := make(chan agent.Event, 8)
	eng := newFakeEngine()
	m := New(Options{Engine: eng, Events: events})
	m.clock = func() time.Time { return fixedNow }
	h := &harness{t: t, m: m, eng: eng, msgs: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.spawn(h.m.Init())
	events <- agent.TextDelta{Source: mainSrc(), Text: "from the pump"}
	h.send(await[eventsMsg](h))
	if !h.screenContains("from the pump") {
		t.Error("the pumped event did not reach the screen")
	}
	close(events)
	await[eventsClosedMsg](h)
	h.m.cancel()
}
