package ui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A new tick id replaces the pending tick: only the newest id arrives.
func TestSpinTimerDeliversTheNewestTick(t *testing.T) {
	got := make(chan tea.Msg, 4)
	s := &spinTimer{send: func(m tea.Msg) { got <- m }}
	s.arm(1, time.Hour)
	s.arm(2, 0)
	select {
	case m := <-got:
		if tm, ok := m.(tickMsg); !ok || tm.id != 2 {
			t.Fatalf("delivered %#v, want tickMsg{id: 2}", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no tick delivered")
	}
	s.stop()
	if len(got) != 0 {
		t.Fatalf("a replaced tick was delivered too: %v", <-got)
	}
}

// putOff pushes a pending tick back and leaves a fired one alone, so a
// batch never starts a tick chain of its own.
func TestSpinTimerPutOff(t *testing.T) {
	got := make(chan tea.Msg, 4)
	s := &spinTimer{send: func(m tea.Msg) { got <- m }}
	s.arm(1, time.Hour)
	s.putOff(time.Hour)
	if !s.timer.Stop() {
		t.Fatal("putOff dropped a pending tick")
	}
	s.arm(1, 0)
	<-got
	s.putOff(time.Hour) // fired already: its handling arms the next
	if s.timer.Stop() {
		t.Fatal("putOff re-armed a fired tick")
	}
	var none *spinTimer
	none.putOff(time.Second) // tests run the model without one
	none.stop()
}
