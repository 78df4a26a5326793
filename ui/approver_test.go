package ui

import (
	"context"
	"testing"
	"time"

	"covey/tools/toolname"

	"go.uber.org/goleak"

	"covey/agent"
	"covey/permission"
)

func TestApproverAsk(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	t.Run("an ended context refuses at once", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if v := NewApprover().Ask(ctx, bashRequest("ls")); v.Allowed || v.Reason != reasonCancelled {
			t.Errorf("verdict %+v", v)
		}
	})
	t.Run("nobody listening: the context ending refuses", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan permission.Verdict, 1)
		go func() { got <- NewApprover().Ask(ctx, bashRequest("ls")) }()
		cancel()
		if v := verdictOf(t, got); v.Reason != reasonCancelled {
			t.Errorf("verdict %+v", v)
		}
	})
	t.Run("the answer is returned, a second answer is ignored", func(t *testing.T) {
		a := NewApprover()
		got := make(chan permission.Verdict, 1)
		go func() { got <- a.Ask(context.Background(), bashRequest("ls")) }()
		p := <-a.asks
		p.settle(permission.Verdict{Allowed: true})
		p.settle(permission.Verdict{Reason: "late"}) // must neither block nor panic
		p.drop()
		if v := verdictOf(t, got); !v.Allowed {
			t.Errorf("verdict %+v", v)
		}
	})
	t.Run("the watcher reports a cancelled request and ends on an answer", func(t *testing.T) {
		a := NewApprover()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go a.Ask(ctx, bashRequest("ls"))
		p := <-a.asks
		watch := watchApproval(context.Background(), p)
		cancel()
		if msg, ok := watch().(approvalGoneMsg); !ok || msg.id != p.id {
			t.Errorf("watcher said %#v", msg)
		}

		go a.Ask(context.Background(), bashRequest("ls"))
		q := <-a.asks
		done := make(chan any, 1)
		go func() { done <- watchApproval(context.Background(), q)() }()
		q.settle(permission.Verdict{Allowed: true})
		select {
		case msg := <-done:
			if msg != nil {
				t.Errorf("watcher of an answered request said %#v", msg)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the watcher outlived the answer")
		}
	})
}

// TestEventPumpApprovalAfterItsEvents checks the ordering the inline
// approval relies on: a request never reaches the UI before the events its
// agent sent before asking.
func TestEventPumpApprovalAfterItsEvents(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for round := range 50 {
		in := make(chan agent.Event, 16)
		asks := make(chan *pendingApproval)
		p := newEventPump(in, time.Hour) // no frame ever falls due by itself
		p.asks = asks
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { p.run(ctx); close(done) }()

		for i := range 5 {
			in <- agent.ToolStarted{Source: mainSrc(), CallID: string(rune('a' + i)), Name: toolname.WriteFile}
		}
		ask := &pendingApproval{id: 1, req: bashRequest("ls")}
		asks <- ask
		var seen []string
	collect:
		for {
			select {
			case batch := <-p.out:
				for _, ev := range batch {
					if _, ok := ev.(approvalEvent); ok {
						break collect
					}
					seen = append(seen, ev.(agent.ToolStarted).CallID)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the approval never came out")
			}
		}
		if len(seen) != 5 {
			t.Fatalf("round %d: the approval came after %v, want all 5 earlier events", round, seen)
		}
		cancel()
		<-done
	}
}

func TestEventPumpApprovalsOnly(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	asks := make(chan *pendingApproval)
	p := newEventPump(nil, batchInterval)
	p.asks = asks
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.run(ctx); close(done) }()
	asks <- &pendingApproval{id: 7, req: bashRequest("ls")}
	select {
	case batch := <-p.out:
		if a, ok := batch[0].(approvalEvent); !ok || a.p.id != 7 {
			t.Errorf("batch %v", batch)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a pump without events did not deliver the approval")
	}
	cancel()
	<-done
}
