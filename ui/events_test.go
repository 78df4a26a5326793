package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"covey/agent"
)

func TestBatcherCoalesces(t *testing.T) {
	tests := []struct {
		name       string
		events     int
		spacing    time.Duration // between arrivals, on a simulated clock
		interval   time.Duration
		maxBatches int
	}{
		{"a burst is one batch after the first", 100, 0, 25 * time.Millisecond, 2},
		{"a stream at 1 ms is one batch per frame", 100, time.Millisecond, 25 * time.Millisecond, 100/25 + 2},
		{"a slow stream is delivered event by event", 10, 50 * time.Millisecond, 25 * time.Millisecond, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := batcher{interval: tt.interval}
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var got []agent.Event
			batches := 0
			for i := range tt.events {
				// Distinct tool calls never merge, so every event is
				// counted.
				b.add(agent.ToolStarted{Source: mainSrc(), CallID: fmt.Sprint(i)})
				if b.ready(now) {
					got = append(got, b.take(now)...)
					batches++
				}
				now = now.Add(tt.spacing)
			}
			now = b.due()
			if b.ready(now) {
				got = append(got, b.take(now)...)
				batches++
			}
			if batches > tt.maxBatches {
				t.Errorf("%d batches for %d events, want at most %d", batches, tt.events, tt.maxBatches)
			}
			if len(got) != tt.events {
				t.Fatalf("delivered %d events, want %d", len(got), tt.events)
			}
			for i, ev := range got {
				if id := ev.(agent.ToolStarted).CallID; id != fmt.Sprint(i) {
					t.Fatalf("event %d is call %s: order lost", i, id)
				}
			}
		})
	}
}

func TestBatcherMergesDeltas(t *testing.T) {
	a, c := mainSrc(), childSrc("c1", "t", "Explore", "x")
	b := batcher{interval: time.Second}
	b.add(agent.TextDelta{Source: a, Text: "Hel"})
	b.add(agent.TextDelta{Source: a, Text: "lo"})
	b.add(agent.TextDelta{Source: c, Text: "child"})
	b.add(agent.ReasoningDelta{Source: c, Text: "th"})
	b.add(agent.ReasoningDelta{Source: c, Text: "ink"})
	b.add(agent.TextDelta{Source: c, Text: " more"})
	b.add(agent.TextDelta{Source: c, Text: "!"})
	got := b.take(time.Now())
	want := []string{"text main Hello", "text c1 child", "reasoning c1 think", "text c1  more!"}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d: %v", len(got), len(want), got)
	}
	for i, ev := range got {
		var text string
		switch e := ev.(type) {
		case agent.TextDelta:
			text = e.Text
		case agent.ReasoningDelta:
			text = e.Text
		}
		if s := ev.Kind() + " " + ev.From().AgentID + " " + text; s != want[i] {
			t.Errorf("event %d = %q, want %q", i, s, want[i])
		}
	}
}

func TestEventPumpDeliversEverythingInOrder(t *testing.T) {
	in := make(chan agent.Event, 500)
	var want strings.Builder
	for i := range 500 {
		s := fmt.Sprintf("%d,", i)
		want.WriteString(s)
		in <- agent.TextDelta{Source: mainSrc(), Text: s}
	}
	close(in)
	p := newEventPump(in, time.Millisecond)
	go p.run(context.Background())
	var got strings.Builder
	batches := 0
	for {
		msg := waitForEvents(p.out)()
		if _, ok := msg.(eventsClosedMsg); ok {
			break
		}
		batches++
		for _, ev := range msg.(eventsMsg).events {
			got.WriteString(ev.(agent.TextDelta).Text)
		}
	}
	if got.String() != want.String() {
		t.Errorf("text arrived out of order or incomplete")
	}
	if batches >= 500 {
		t.Errorf("%d batches for 500 queued deltas: nothing was coalesced", batches)
	}
}

func TestEventPumpStopsWithContext(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	in := make(chan agent.Event) // never closed
	p := newEventPump(in, time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.run(ctx); close(done) }()
	cancel()
	<-done
	if _, ok := waitForEvents(p.out)().(eventsClosedMsg); !ok {
		t.Error("waitForEvents did not report the closed pump")
	}
}

// TestPumpEndsTheTurnAfterItsEvents: a turn's end goes through the pump
// behind every event the engine emitted before Run returned, so its answer
// and its error are drawn before the turn is over (and shown once).
func TestPumpEndsTheTurnAfterItsEvents(t *testing.T) {
	in := make(chan agent.Event, 16)
	p := newEventPump(in, time.Hour) // frames so long that only the turn's end flushes
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go p.run(ctx)
	main := agent.Source{AgentID: agent.MainAgentID}
	in <- agent.TextDelta{Source: main, Text: "a"}
	if first := <-p.out; len(first) != 1 {
		t.Fatalf("first batch %v, want the lone delta at once", first)
	}
	in <- agent.TextDelta{Source: main, Text: "b"}
	in <- agent.ErrorEvent{Source: main, Message: "boom"}
	if !p.endTurn(turnDoneMsg{id: 7}) {
		t.Fatal("the running pump refused the turn's end")
	}
	var kinds []string
	for len(kinds) == 0 || kinds[len(kinds)-1] != "turn_done" {
		for _, ev := range <-p.out {
			kinds = append(kinds, ev.Kind())
		}
	}
	if got := strings.Join(kinds, ","); got != "text,error,turn_done" {
		t.Fatalf("delivered %s, want text,error,turn_done", got)
	}
	cancel()
	for range p.out {
	}
	if p.endTurn(turnDoneMsg{id: 8}) {
		t.Fatal("a stopped pump took a turn's end")
	}
}
