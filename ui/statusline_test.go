package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"covey/statusline"
	"covey/ui/cells"
)

type fakeLiner struct {
	runs int
	out  string
	err  error
}

func (f *fakeLiner) StatusLines() (*statusline.Setting, *statusline.Setting) {
	return &statusline.Setting{Command: "x"}, nil
}

func (f *fakeLiner) RunStatusLine(context.Context, statusline.Setting, statusline.Input) (string, error) {
	f.runs++
	return f.out, f.err
}

// TestStatusLineRuns: one run at a time; a change during a run runs it
// again after; the same state runs nothing; a failure keeps the last line
// and tries again later; the line keeps its colours, loses other escapes
// and is cut to the width.
func TestStatusLineRuns(t *testing.T) {
	f := &fakeLiner{out: "\x1b[31mred\x1b[0m \x1b]0;title\a\x1b[2Jtext that is long"}
	now := time.Unix(1000, 0)
	sl := newStatusLine(f, now)
	a := statusline.Input{Model: statusline.Model{ID: "a"}}
	cmd := sl.set(a, now)
	if cmd == nil {
		t.Fatal("the first state runs nothing")
	}
	if sl.set(statusline.Input{Model: statusline.Model{ID: "b"}}, now) != nil {
		t.Fatal("a second run started while one runs")
	}
	msg := cmd().(statusLineMsg)
	again := sl.done(msg, now.Add(time.Second))
	if again == nil {
		t.Fatal("the change during the run did not run it again")
	}
	_ = sl.done(again().(statusLineMsg), now.Add(2*time.Second))
	if sl.set(statusline.Input{Model: statusline.Model{ID: "b"}}, now.Add(3*time.Second)) != nil {
		t.Error("the same state ran again")
	}
	if f.runs != 2 {
		t.Errorf("%d runs, want 2", f.runs)
	}
	got := sl.view(12)
	if !strings.Contains(got, "\x1b[31m") || strings.Contains(got, "\x1b]") || strings.Contains(got, "\x1b[2J") {
		t.Errorf("escapes: %q", got)
	}
	if w := cells.StyledWidth(got); w > 12 {
		t.Errorf("width %d > 12: %q", w, got)
	}
	f.err = errors.New("boom")
	cmd = sl.set(statusline.Input{Model: statusline.Model{ID: "c"}}, now.Add(4*time.Second))
	if retry := sl.done(cmd().(statusLineMsg), now.Add(4*time.Second)); retry == nil || !strings.Contains(sl.view(80), "red") {
		t.Errorf("a failure lost the line or is never tried again: %q", sl.view(80))
	}
}
