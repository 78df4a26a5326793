package transcript

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"covey/agent"
)

func TestCompactionBlock(t *testing.T) {
	ev := agent.Compacted{Source: agent.Source{AgentID: agent.MainAgentID}, Trigger: agent.CompactOverflow, TokensBefore: 41200, TokensAfter: 6100,
		Summary: agent.CompactedMarker + "\n\n## Goals\nFix the parser; keep FACT-1."}
	for _, width := range []int{100, 30, 3} {
		b := NewCompactionBlock(ev)
		if !b.Focusable() || b.Expanded() || b.Live() {
			t.Fatal("a compaction divider is a focusable, static block")
		}
		short := b.Lines(blockCtx(t, width))
		b.SetExpanded(true)
		long := b.Lines(blockCtx(t, width))
		for _, l := range append(append([]string(nil), short...), long...) {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: line %q is %d cells", width, ansi.Strip(l), w)
			}
		}
		if len(short) != 1 || len(long) <= len(short) {
			t.Errorf("width %d: %d lines collapsed, %d expanded", width, len(short), len(long))
		}
		if width == 100 {
			if s := ansi.Strip(short[0]); !strings.Contains(s, "request over the model's window: compacted 41.2k → 6.1k tokens, sent again") || !strings.Contains(s, ": summary") {
				t.Errorf("divider = %q", s)
			}
			if all := ansi.Strip(strings.Join(long, "\n")); !strings.Contains(all, "keep FACT-1.") {
				t.Errorf("expanded divider lacks the summary:\n%s", all)
			}
		}
	}
}

// TestCompactionBlockPending: the divider says "compacting…" until the
// compaction ends, then what it did; a failure says why and has no summary.
func TestCompactionBlockPending(t *testing.T) {
	src := agent.Source{AgentID: agent.MainAgentID}
	for name, tc := range map[string]struct {
		end       agent.Compacted
		want      string
		focusable bool
	}{
		"done":   {agent.Compacted{Source: src, Trigger: agent.CompactAuto, TokensBefore: 14000, TokensAfter: 3000, Summary: "S"}, "context compacted near the model's window: 14k → 3k tokens", true},
		"failed": {agent.Compacted{Source: src, Trigger: agent.CompactAuto, TokensBefore: 14000, Error: "compact: server error"}, "compaction failed: compact: server error", false},
	} {
		t.Run(name, func(t *testing.T) {
			b := NewCompactingBlock(agent.Compacting{Source: src, Trigger: agent.CompactAuto, TokensBefore: 14000})
			if got := ansi.Strip(b.Lines(blockCtx(t, 100))[0]); !strings.Contains(got, "compacting the conversation (14k tokens)…") || b.Focusable() {
				t.Fatalf("pending divider = %q (focusable %v)", got, b.Focusable())
			}
			b.Finish(tc.end)
			if got := ansi.Strip(b.Lines(blockCtx(t, 100))[0]); !strings.Contains(got, tc.want) {
				t.Errorf("finished divider = %q, want %q", got, tc.want)
			}
			if b.Focusable() != tc.focusable {
				t.Errorf("focusable %v, want %v", b.Focusable(), tc.focusable)
			}
		})
	}
}

// TestSubagentPaneShowsCompaction: a child's compaction is a line of its
// pane.
func TestSubagentPaneShowsCompaction(t *testing.T) {
	b := newTestPane()
	b.Apply(agent.Compacted{Source: childSource, Trigger: agent.CompactOverflow, TokensBefore: 9400, TokensAfter: 2100})
	all := ansi.Strip(strings.Join(b.Lines(blockCtx(t, 100)), "\n"))
	if !strings.Contains(all, "request over the model's window: compacted 9.4k → 2.1k tokens, sent again") {
		t.Errorf("the pane does not show the compaction:\n%s", all)
	}
}
