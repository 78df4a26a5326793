package picker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"covey/theme"
)

func sessionItems(n int) []SessionItem {
	out := make([]SessionItem, n)
	for i := range out {
		out[i] = SessionItem{ID: fmt.Sprintf("s%02d", i), Title: fmt.Sprintf("task number %d", i),
			Modified: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Detail: fmt.Sprintf("%d messages", i+2)}
	}
	return out
}

func TestPickerKeys(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	p := newPicker(sessionItems(30), &th.Styles)
	var m tea.Model = p
	m, _ = m.Update(tea.WindowSizeMsg{Width: 80, Height: 13}) // 4 items fit
	steps := []struct {
		name     string
		key      tea.KeyMsg
		sel, top int
	}{
		{"up at the top stays", tea.KeyMsg{Type: tea.KeyUp}, 0, 0},
		{"down", tea.KeyMsg{Type: tea.KeyDown}, 1, 0},
		{"down again", tea.KeyMsg{Type: tea.KeyDown}, 2, 0},
		{"page down scrolls", tea.KeyMsg{Type: tea.KeyPgDown}, 6, 3},
		{"end", tea.KeyMsg{Type: tea.KeyEnd}, 29, 26},
		{"down at the end stays", tea.KeyMsg{Type: tea.KeyDown}, 29, 26},
		{"up", tea.KeyMsg{Type: tea.KeyUp}, 28, 26},
		{"home", tea.KeyMsg{Type: tea.KeyHome}, 0, 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			m, _ = m.Update(s.key)
			got := m.(picker)
			if got.sel != s.sel || got.top != s.top {
				t.Errorf("sel %d top %d, want %d %d", got.sel, got.top, s.sel, s.top)
			}
			view := ansi.Strip(got.View())
			if n := strings.Count(view, "\n") + 1; n != 13 {
				t.Errorf("view has %d lines, want the screen's 13", n)
			}
			if !strings.Contains(view, "› "+got.items[got.shown[got.sel]].Title) {
				t.Errorf("the selection is not shown:\n%s", view)
			}
		})
	}
	t.Run("enter chooses, esc does not", func(t *testing.T) {
		m2, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		if !m2.(picker).chosen || cmd == nil {
			t.Error("enter did not choose and quit")
		}
		m3, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEsc})
		if m3.(picker).chosen || cmd == nil {
			t.Error("esc chose or did not quit")
		}
	})
	t.Run("an empty title still shows a line", func(t *testing.T) {
		e := newPicker([]SessionItem{{ID: "x"}}, &th.Styles)
		if v := ansi.Strip(e.View()); !strings.Contains(v, "(no messages)") || strings.Contains(v, "x ·") {
			t.Errorf("view:\n%s", v)
		}
	})
}

// TestPickSession runs the picker as a program fed with key bytes.
func TestPickSession(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    string
		wantErr error
	}{
		{"down twice and enter", "\x1b[B\x1b[Benter", "s02", nil},
		{"esc gives no choice", "\x1b", "", ErrNoChoice},
		{"ctrl+c gives no choice", "\x03", "", ErrNoChoice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.ReplaceAll(tt.input, "enter", "\r")
			var out bytes.Buffer
			id, err := pickSession(context.Background(), sessionItems(5), nil, tea.WithInput(strings.NewReader(in)), tea.WithOutput(&out))
			if !errors.Is(err, tt.wantErr) || id != tt.want {
				t.Errorf("pick = %q, %v; want %q, %v", id, err, tt.want, tt.wantErr)
			}
		})
	}
	t.Run("nothing to pick from", func(t *testing.T) {
		if _, err := PickSession(context.Background(), nil, nil); !errors.Is(err, ErrNoChoice) {
			t.Errorf("err = %v, want ErrNoChoice", err)
		}
	})
	t.Run("the context ending gives no choice", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		// Only the writer is closed: a program ended by its context does
		// not wait for its input reader, which may still be reading r when
		// the picker returns, so closing r here races with it (go test
		// -race saw it). Closing w ends that read with EOF; r is closed by
		// its finalizer once the reader has let go of it. r goes in
		// wrapped, not as an *os.File: Bubble Tea's epoll reader for files
		// races with its own shutdown (cancelreader's Close against its
		// read's Fd, which go test -race reports in the library).
		defer w.Close()
		done := make(chan error, 1)
		go func() {
			_, err := pickSession(ctx, sessionItems(3), nil, tea.WithInput(struct{ io.Reader }{r}), tea.WithOutput(&bytes.Buffer{}))
			done <- err
		}()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNoChoice) {
				t.Errorf("err = %v, want ErrNoChoice", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the picker did not end with its context")
		}
	})
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// TestPickerSearch: typing filters the sessions by title, id or detail
// (every word, any case), letters never move the cursor, backspace
// widens the filter again, esc clears it before it leaves, and enter
// resumes the session under the cursor among those shown.
func TestPickerSearch(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	items := []SessionItem{
		{ID: "a1", Title: "fix the flaky retry test", Detail: "4 messages · qwen"},
		{ID: "b2", Title: "Write the README", Detail: "12 messages · gpt"},
		{ID: "c3", Title: "refactor the retry loop", Detail: "3 messages · gpt"},
	}
	var m tea.Model = newPicker(items, &th.Styles)
	m, _ = m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	typeIn := func(s string) {
		for _, r := range s {
			if r == ' ' {
				m, _ = m.Update(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
				continue
			}
			m, _ = m.Update(runes(string(r)))
		}
	}
	shown := func() string {
		p := m.(picker)
		var ids []string
		for _, i := range p.shown {
			ids = append(ids, p.items[i].ID)
		}
		return strings.Join(ids, ",")
	}
	typeIn("RETRY")
	if got := shown(); got != "a1,c3" {
		t.Errorf("RETRY shows %s, want a1,c3", got)
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "search: RETRY") || !strings.Contains(view, "(2 of 3)") || strings.Contains(view, "README") {
		t.Errorf("the filtered view:\n%s", view)
	}
	typeIn(" gpt")
	if got := shown(); got != "c3" {
		t.Errorf("RETRY gpt shows %s, want c3", got)
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	if got := shown(); got != "a1,c3" {
		t.Errorf("after backspaces %s, want a1,c3 (query %q)", got, m.(picker).query)
	}
	typeIn("zzz")
	if v := ansi.Strip(m.View()); shown() != "" || !strings.Contains(v, "no session matches") {
		t.Errorf("no match:\n%s", v)
	}
	if m2, _ := m.Update(tea.KeyMsg{Type: tea.KeyEnter}); m2.(picker).chosen {
		t.Error("enter with nothing shown chose")
	}
	m, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if cmd != nil || m.(picker).query != "" || shown() != "a1,b2,c3" {
		t.Errorf("esc with a search did not just clear it: query %q, shown %s", m.(picker).query, shown())
	}
	typeIn("b2")
	m, cmd = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if p := m.(picker); !p.chosen || cmd == nil || p.items[p.shown[p.sel]].ID != "b2" {
		t.Errorf("enter after searching b2 did not choose it")
	}
}

// TestAgo: the picker says when a session changed as a person would.
func TestAgo(t *testing.T) {
	now := time.Date(2026, 12, 7, 15, 30, 0, 0, time.UTC)
	tests := []struct {
		t    time.Time
		want string
	}{
		{now.Add(-20 * time.Second), "just now"},
		{now.Add(-time.Minute), "1 minute ago"},
		{now.Add(-3 * time.Minute), "3 minutes ago"},
		{now.Add(-time.Hour), "1 hour ago"},
		{now.Add(-5 * time.Hour), "5 hours ago"},
		{time.Date(2026, 12, 6, 22, 10, 0, 0, time.UTC), "yesterday 22:10"},
		{now.Add(-15*time.Hour - 45*time.Minute), "yesterday 23:45"},
		{time.Date(2026, 12, 6, 9, 5, 0, 0, time.UTC), "yesterday 09:05"},
		{time.Date(2026, 12, 3, 9, 5, 0, 0, time.UTC), "4 days ago"},
		{time.Date(2026, 3, 12, 9, 5, 0, 0, time.UTC), "12 Mar"},
		{time.Date(2025, 3, 12, 9, 5, 0, 0, time.UTC), "12 Mar 2025"},
		{time.Time{}, ""},
	}
	for _, tc := range tests {
		if got := Ago(tc.t, now); got != tc.want {
			t.Errorf("Ago(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
