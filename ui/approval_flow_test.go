package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"covey/tools/toolname"
	"covey/ui/approval"
	"covey/ui/keys"
	"covey/ui/transcript"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/agent"
	"covey/permission"
	"covey/theme"
	"covey/tools/tool"
)

// fakePerms records what the UI asks of the permission policy.
type fakePerms struct {
	mu     sync.Mutex
	mode   permission.Mode
	set    []permission.Mode
	grants []permission.Request
}

func (p *fakePerms) Mode() permission.Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

func (p *fakePerms) CycleMode() permission.Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = p.mode.Next()
	p.set = append(p.set, p.mode)
	return p.mode
}

func (p *fakePerms) SetMode(m permission.Mode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	p.set = append(p.set, m)
}

func (p *fakePerms) Grant(req permission.Request) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grants = append(p.grants, req)
	return permission.SessionGrantRules(req)
}

// approvalHarness is a harness whose model has an Approver, a policy and a
// running event pump, as in the real program.
type approvalHarness struct {
	*harness
	ap     *Approver
	events chan agent.Event
	perms  *fakePerms
}

func newApprovalHarness(t *testing.T, width, height int) *approvalHarness {
	t.Helper()
	eng := newFakeEngine()
	ap := NewApprover()
	perms := &fakePerms{mode: permission.ModeDefault}
	events := make(chan agent.Event, 64)
	m := New(Options{
		Engine:        eng,
		Events:        events,
		Approver:      ap,
		Permissions:   perms,
		Theme:         theme.New(theme.ModeDark, true, false),
		Workspace:     "/work/project",
		MarkdownStyle: "ascii",
	})
	m.clock = func() time.Time { return fixedNow }
	m.kx.graceFor = 0 // answer at once; TestApprovalGrace tests the grace
	h := &harness{t: t, m: m, eng: eng, msgs: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: width, Height: height})
	h.spawn(h.m.Init())
	t.Cleanup(func() { h.m.cancel() })
	return &approvalHarness{harness: h, ap: ap, events: events, perms: perms}
}

// ask calls Ask in a goroutine, as the policy does, and returns where its
// verdict will arrive.
func (h *approvalHarness) ask(ctx context.Context, req permission.Request) <-chan permission.Verdict {
	out := make(chan permission.Verdict, 1)
	go func() { out <- h.ap.Ask(ctx, req) }()
	return out
}

// deliver hands the UI event batches until the request shown (or queued)
// is the n-th the UI has received.
func (h *approvalHarness) deliver(n int) {
	h.t.Helper()
	for h.received() < n {
		h.send(await[eventsMsg](h.harness))
	}
}

func (h *approvalHarness) received() int {
	n := len(h.m.appr.queue)
	if h.m.appr.cur != nil {
		n++
	}
	for _, b := range h.m.tr.Blocks() {
		if ab, ok := b.(*approval.Block); ok && !ab.Pending() {
			n++
		}
	}
	return n
}

func verdictOf(t *testing.T, ch <-chan permission.Verdict) permission.Verdict {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("Ask did not return")
		return permission.Verdict{}
	}
}

// approvalBlocks lists the approval blocks in the transcript.
func approvalBlocks(m Model) []*approval.Block {
	var out []*approval.Block
	for _, b := range m.tr.Blocks() {
		if ab, ok := b.(*approval.Block); ok {
			out = append(out, ab)
		}
	}
	return out
}

func TestApprovalAnswers(t *testing.T) {
	req := editRequest("docs/guide.md", "old\n", "new\n")
	tests := []struct {
		name       string
		keys       []tea.KeyMsg
		want       permission.Verdict
		record     string
		wantGrants int
	}{
		{"y allows once", []tea.KeyMsg{runes("y")}, permission.Verdict{Allowed: true}, "✓ allowed  edit_file docs/guide.md", 0},
		{"a grants for the session, then allows", []tea.KeyMsg{runes("a")}, permission.Verdict{Allowed: true},
			"✓ allowed for this session: edit_file(docs/guide.md)", 1},
		{"n denies", []tea.KeyMsg{runes("n")}, permission.Verdict{Reason: reasonDenied}, "✗ denied  edit_file docs/guide.md", 0},
		{"d sends the typed feedback", []tea.KeyMsg{runes("d"), runes("use the v2 api"), {Type: tea.KeyEnter}},
			permission.Verdict{Reason: "the user denied this: use the v2 api"}, "✗ denied: use the v2 api  edit_file docs/guide.md", 0},
		{"d with nothing typed is a plain denial", []tea.KeyMsg{runes("d"), {Type: tea.KeyEnter}},
			permission.Verdict{Reason: reasonDenied}, "✗ denied  edit_file docs/guide.md", 0},
		{"esc leaves the feedback, y still allows", []tea.KeyMsg{runes("d"), runes("hm"), {Type: tea.KeyEsc}, runes("y")},
			permission.Verdict{Allowed: true}, "✓ allowed  edit_file docs/guide.md", 0},
		{"feedback keys do not answer", []tea.KeyMsg{runes("d"), runes("y"), runes("n"), {Type: tea.KeyEnter}},
			permission.Verdict{Reason: "the user denied this: yn"}, "✗ denied: yn  edit_file docs/guide.md", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, 100, 40)
			got := h.ask(context.Background(), req)
			h.deliver(1)
			if h.m.focus != keys.FocusApproval {
				t.Fatal("the approval did not take the keyboard")
			}
			for _, k := range tt.keys {
				h.send(k)
			}
			v := verdictOf(t, got)
			if v.Allowed != tt.want.Allowed || v.Reason != tt.want.Reason || v.Content != nil {
				t.Errorf("verdict %+v, want %+v", v, tt.want)
			}
			if n := len(h.perms.grants); n != tt.wantGrants {
				t.Errorf("Grant called %d times, want %d", n, tt.wantGrants)
			}
			bs := approvalBlocks(h.m)
			if len(bs) != 1 || bs[0].Pending() {
				t.Fatalf("want one answered approval block, have %d", len(bs))
			}
			if rec := ansi.Strip(bs[0].Lines(approvalCtx(100))[0]); rec != tt.record {
				t.Errorf("record %q, want %q", rec, tt.record)
			}
			if h.m.focus == keys.FocusApproval || h.m.input.Value() != "" {
				t.Errorf("after the answer: approval focus %v, input %q; want the empty input focused", h.m.focus == keys.FocusApproval, h.m.input.Value())
			}
		})
	}
}

func TestApprovalPlacement(t *testing.T) {
	t.Run("under the main agent's asking tool call", func(t *testing.T) {
		h := newApprovalHarness(t, 100, 40)
		m := mainSrc()
		h.events <- toolStarted(m, "t1", toolname.WriteFile, "a.go")
		h.events <- agent.ToolFinished{Source: m, CallID: "t1", Name: toolname.WriteFile, Result: tool.Result{Summary: "ok"}}
		h.events <- agent.ToolStarted{Source: m, CallID: "t2", Name: toolname.Bash, KeyArg: "ls -la"}
		// An absolute path in the call, a workspace-relative one in the request.
		h.events <- toolStarted(m, "t3", toolname.WriteFile, "/work/project/a.go")
		got := h.ask(context.Background(), writeRequest("a.go", "x\n"))
		// The pump hands the request over only after the events sent
		// before it, so the tool call it belongs to is already there.
		h.deliver(1)
		blocks := h.m.tr.Blocks()
		i := h.m.tr.IndexOf(h.m.appr.block)
		if i < 1 {
			t.Fatalf("approval at %d", i)
		}
		if tb, ok := blocks[i-1].(*transcript.ToolBlock); !ok || tb.CallID() != "t3" {
			t.Errorf("approval follows %T %v, want the running write_file call t3", blocks[i-1], blocks[i-1])
		}
		h.send(runes("y"))
		verdictOf(t, got)

		got = h.ask(context.Background(), bashRequest("ls -la"))
		h.deliver(2)
		i = h.m.tr.IndexOf(h.m.appr.block)
		if tb, ok := h.m.tr.Blocks()[i-1].(*transcript.ToolBlock); !ok || tb.CallID() != "t2" {
			t.Errorf("the bash approval follows %T, want the bash call t2", h.m.tr.Blocks()[i-1])
		}
		h.send(runes("n"))
		verdictOf(t, got)
	})
	t.Run("a child's request under its pane, labelled, the pane waiting", func(t *testing.T) {
		h := newApprovalHarness(t, 120, 50)
		_, kids := withPanes(h.harness)
		req := editRequest("handlers.go", "a\n", "b\n")
		req.Agent, req.AgentID = "[general-purpose] update handlers", kids[1].AgentID
		got := h.ask(context.Background(), req)
		h.deliver(1)
		pane := h.m.rt.children[kids[1].AgentID]
		i := h.m.tr.IndexOf(h.m.appr.block)
		if h.m.tr.Blocks()[i-1] != transcript.Block(pane) {
			t.Errorf("approval at %d does not follow the pane of %s", i, kids[1].AgentID)
		}
		if !pane.Waiting() {
			t.Error("the child's pane does not show it waits for approval")
		}
		for _, want := range []string{"[general-purpose] update handlers asks:", "awaiting approval", "? Allow edit_file handlers.go"} {
			if !h.screenContains(want) {
				t.Errorf("screen lacks %q:\n%s", want, ansi.Strip(h.m.View()))
			}
		}
		h.send(runes("y"))
		if v := verdictOf(t, got); !v.Allowed {
			t.Errorf("verdict %+v, want allowed", v)
		}
		if pane.Waiting() {
			t.Error("the pane still waits after the answer")
		}
	})
}

func TestApprovalCancelled(t *testing.T) {
	t.Run("the request's context ends", func(t *testing.T) {
		h := newApprovalHarness(t, 100, 40)
		ctx, cancel := context.WithCancel(context.Background())
		got := h.ask(ctx, bashRequest("make"))
		h.deliver(1)
		cancel()
		if v := verdictOf(t, got); v.Allowed || v.Reason != "cancelled by the user" {
			t.Errorf("verdict %+v, want cancelled by the user", v)
		}
		h.send(await[approvalGoneMsg](h.harness))
		if bs := approvalBlocks(h.m); len(bs) != 0 {
			t.Errorf("%d approval blocks left on screen", len(bs))
		}
		if h.m.focus == keys.FocusApproval || h.m.appr.cur != nil || h.screenContains("Allow bash") {
			t.Error("the cancelled request still holds the screen or the keyboard")
		}
	})
	t.Run("esc cancels the turn that asks", func(t *testing.T) {
		h := newApprovalHarness(t, 100, 40)
		h.startTurn("build it")
		_, ctxs, _ := h.eng.snapshot()
		got := h.ask(ctxs[0], bashRequest("make"))
		h.deliver(1)
		h.key(tea.KeyEsc)
		if v := verdictOf(t, got); v.Reason != "cancelled by the user" {
			t.Errorf("verdict %+v, want cancelled by the user", v)
		}
		h.send(await[approvalGoneMsg](h.harness))
		if bs := approvalBlocks(h.m); len(bs) != 0 {
			t.Errorf("%d approval blocks left on screen", len(bs))
		}
	})
	t.Run("a request cancelled while queued leaves the queue", func(t *testing.T) {
		h := newApprovalHarness(t, 100, 40)
		first := h.ask(context.Background(), bashRequest("one"))
		h.deliver(1)
		ctx, cancel := context.WithCancel(context.Background())
		second := h.ask(ctx, bashRequest("two"))
		h.deliver(2)
		if !h.screenContains("1 more waiting") {
			t.Error("the queue is not shown")
		}
		cancel()
		verdictOf(t, second)
		h.send(await[approvalGoneMsg](h.harness))
		if len(h.m.appr.queue) != 0 || h.screenContains("more waiting") {
			t.Error("the cancelled request is still queued")
		}
		h.send(runes("y"))
		verdictOf(t, first)
		if h.m.appr.cur != nil {
			t.Error("a request is shown after the queue emptied")
		}
	})
}

func TestApprovalQueue(t *testing.T) {
	h := newApprovalHarness(t, 100, 40)
	first := h.ask(context.Background(), bashRequest("go build"))
	h.deliver(1)
	second := h.ask(context.Background(), writeRequest("b.txt", "b\n"))
	h.deliver(2)
	if got := h.m.appr.block.Request().Command; got != "go build" {
		t.Fatalf("shown first: %q", got)
	}
	if !h.screenContains("1 more waiting") || h.screenContains("Allow write_file") {
		t.Errorf("the second request is not waiting its turn:\n%s", ansi.Strip(h.m.View()))
	}
	h.send(runes("y"))
	if v := verdictOf(t, first); !v.Allowed {
		t.Errorf("first verdict %+v", v)
	}
	if h.m.appr.block == nil || h.m.appr.block.Request().Path != "b.txt" || h.m.focus != keys.FocusApproval {
		t.Fatal("the second request was not shown with the keyboard after the first was answered")
	}
	if h.screenContains("more waiting") {
		t.Error("still says more are waiting")
	}
	h.send(runes("n"))
	if v := verdictOf(t, second); v.Allowed {
		t.Errorf("second verdict %+v, want denied", v)
	}
}

func TestApprovalFocus(t *testing.T) {
	h := newApprovalHarness(t, 100, 30)
	got := h.ask(context.Background(), writeRequest("long.txt", numberedLines(200)))
	h.deliver(1)
	b := h.m.appr.block

	h.send(runes("x"))
	if h.m.input.Value() != "" {
		t.Errorf("a key meant for nobody reached the input: %q", h.m.input.Value())
	}
	steps := []struct {
		name   string
		key    tea.KeyMsg
		offset int
	}{
		{"j scrolls the diff", runes("j"), 1},
		{"down scrolls the diff", tea.KeyMsg{Type: tea.KeyDown}, 2},
		{"pgdown pages the diff", tea.KeyMsg{Type: tea.KeyPgDown}, 2 + b.Rows() - 1},
		{"k scrolls back", runes("k"), 1 + b.Rows() - 1},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			h.send(s.key)
			if b.Offset() != s.offset {
				t.Errorf("offset %d, want %d", b.Offset(), s.offset)
			}
		})
	}
	t.Run("tab lets the user type, and tab comes back", func(t *testing.T) {
		h.key(tea.KeyTab)
		if h.m.focus == keys.FocusApproval {
			t.Fatal("tab did not give the keyboard to the input")
		}
		if !h.screenContains("tab answer this request") {
			t.Error("no hint on how to come back")
		}
		h.send(runes("y"))
		if h.m.input.Value() != "y" || !b.Pending() {
			t.Fatalf("input %q, pending %v: typing answered the request", h.m.input.Value(), b.Pending())
		}
		h.key(tea.KeyTab)
		if h.m.focus != keys.FocusApproval {
			t.Fatal("tab from the input did not return to the request")
		}
		h.send(runes("y"))
		if v := verdictOf(t, got); !v.Allowed {
			t.Errorf("verdict %+v", v)
		}
		if h.m.input.Value() != "y" {
			t.Errorf("the draft was lost: %q", h.m.input.Value())
		}
	})
}

func TestApprovalHelpShowsKeys(t *testing.T) {
	h := newApprovalHarness(t, 160, 30)
	h.ask(context.Background(), writeRequest("a.txt", "a\n"))
	h.deliver(1)
	help := ansi.Strip(h.screenLines()[len(h.screenLines())-1])
	for _, want := range []string{"y allow", "a allow for this session", "n deny", "d deny with feedback", "e edit in $EDITOR"} {
		if !strings.Contains(help, want) {
			t.Errorf("help line %q lacks %q", help, want)
		}
	}
	if strings.Contains(help, "enter send") {
		t.Errorf("help line offers the input's keys while the approval has the keyboard: %q", help)
	}
}

// TestApprovalKeysStayOnScreen: a two-hunk edit at 80x24 wraps its keys to
// three lines; the diff gives up rows for them, so the last line of keys
// ("esc cancel turn") is not cut off under the input.
func TestApprovalKeysStayOnScreen(t *testing.T) {
	h := newApprovalHarness(t, 80, 24)
	var old, new strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&old, "line %d of the big file\n", i)
		switch i {
		case 3:
			new.WriteString("LINE THREE of the big file, now much much longer than before so that it is cut\n")
		case 30:
			new.WriteString("LINE THIRTY\n")
		default:
			fmt.Fprintf(&new, "line %d of the big file\n", i)
		}
	}
	// The call's line stands above the request, a blank line between.
	h.harness.events(toolStarted(mainSrc(), "call_1", toolname.EditFile, `{"path":"big.txt"}`))
	h.ask(context.Background(), editRequest("big.txt", old.String(), new.String()))
	h.deliver(1)
	screen := ansi.Strip(h.m.View())
	for _, want := range []string{"? Allow edit_file big.txt", "esc cancel turn"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
}

// TestAnsweredRequestGivesTheEndBack: a request shown above the end (under
// its child's pane, or under its tool call with later blocks below it) or
// taller than the transcript scrolls the transcript away from its end;
// once answered, a transcript that followed its end before follows it
// again, so the output after the answer shows. One scrolled up by the user
// stays where it was put.
func TestAnsweredRequestGivesTheEndBack(t *testing.T) {
	tests := []struct {
		name     string
		size     [2]int
		child    bool // the request is a child's, shown under its pane
		later    bool // a later tool call of the main agent stands below the asking one
		answer   func(h *approvalHarness)
		scrolled bool // the user scrolled up before the request came
	}{
		{name: "a child's request under its pane", size: [2]int{80, 24}, child: true},
		{name: "a call's request with a later call below", size: [2]int{80, 24}, later: true},
		{name: "a request taller than the transcript", size: [2]int{60, 12}},
		{name: "denied with feedback", size: [2]int{80, 24}, child: true, answer: func(h *approvalHarness) {
			h.typeText("d")
			h.typeText("not this way")
			h.key(tea.KeyEnter)
		}},
		{name: "two requests in a row", size: [2]int{80, 24}, child: true, answer: func(h *approvalHarness) {
			h.typeText("n")
			h.typeText("n")
		}},
		{name: "scrolled up by the user", size: [2]int{80, 24}, child: true, scrolled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, tt.size[0], tt.size[1])
			for i := range 30 {
				h.harness.events(agent.TextDelta{Source: mainSrc(), Text: fmt.Sprintf("filler paragraph %d\n\n", i)})
			}
			_, kids := withPanes(h.harness)
			req := editRequest("f.txt", hunkFile, hunkEdit)
			if tt.child {
				req.AgentID = kids[0].AgentID
			}
			if tt.later {
				h.harness.events(toolStarted(mainSrc(), "call_a", toolname.EditFile, "f.txt"),
					toolStarted(mainSrc(), "call_b", toolname.ReadFile, "g.txt"))
			}
			if tt.scrolled {
				h.m.tr.ScrollBy(-5)
			}
			h.ask(context.Background(), req)
			h.deliver(1)
			if strings.HasPrefix(tt.name, "two") {
				h.ask(context.Background(), req)
				h.deliver(2)
			}
			if h.m.tr.Following() {
				t.Fatal("the request did not scroll the transcript away from its end: the case tests nothing")
			}
			if tt.answer != nil {
				tt.answer(h)
			} else {
				h.typeText("n")
			}
			h.harness.events(agent.TextDelta{Source: mainSrc(), Text: "the answer after the request"})
			shown := h.screenContains("the answer after the request")
			if shown == tt.scrolled {
				t.Errorf("following %v, the end shown %v (scrolled up before: %v):\n%s",
					h.m.tr.Following(), shown, tt.scrolled, strings.Join(h.screenLines(), "\n"))
			}
		})
	}
}
