package painter

import (
	"os"
	"strings"
	"testing"
	"time"
)

// newTestPainter returns a painter writing to a temp file (no terminal:
// no raw mode) and a function reading what it wrote since the last call.
func newTestPainter(t *testing.T, interval time.Duration) (*Painter, func() string) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	p := New(nil, f, interval)
	p.width, p.height = 20, 5
	read := 0
	return p, func() string {
		data, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		out := string(data[read:])
		read = len(data)
		return out
	}
}

func TestPainterPaintsOnlyChangedLines(t *testing.T) {
	p, out := newTestPainter(t, time.Hour)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if got := out(); !strings.Contains(got, "\x1b[?1049h") || !strings.Contains(got, "\x1b[?1002h") {
		t.Errorf("start wrote %q, want the alternate screen and mouse modes", got)
	}
	tests := []struct {
		name, view string
		want       []string // substrings of what is written
		not        []string
	}{
		{"first frame is painted whole", "a\nb\nc", []string{"\x1b[1;1H\x1b[ma\x1b[K", "\x1b[2;1H\x1b[mb\x1b[K", "\x1b[3;1H\x1b[mc\x1b[K"}, nil},
		// The last line is drawn last, changed or not, so the cursor rests
		// after the frame.
		{"one changed line", "a\nB\nc", []string{"\x1b[2;1H\x1b[mB\x1b[K\x1b[3;1H\x1b[mc\x1b[K\x1b[?2026l"}, []string{"\x1b[1;1H"}},
		{"a shorter frame clears below", "a\nB", []string{"\x1b[3;1H\x1b[m\x1b[J\x1b[2;1H\x1b[mB\x1b[K\x1b[?2026l"}, []string{"\x1b[1;1H"}},
		// A full-width line is not followed by an erase, which would
		// erase its last cell.
		{"a line wider than the terminal is cut", "a\nB\n" + strings.Repeat("x", 30), []string{"\x1b[3;1H\x1b[m" + strings.Repeat("x", 20) + "\x1b[?2026l"}, nil},
		{"a taller frame keeps its last lines", "1\n2\n3\n4\n5\n6", []string{"\x1b[1;1H\x1b[m2\x1b[K", "\x1b[5;1H\x1b[m6\x1b[K"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.mu.Lock()
			p.view = tt.view
			p.mu.Unlock()
			p.paint()
			got := out()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("painted %q, want it to hold %q", got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("painted %q, which holds %q", got, n)
				}
			}
		})
	}
	t.Run("an unchanged frame paints nothing", func(t *testing.T) {
		n := p.paints
		p.paint()
		if got := out(); got != "" || p.paints != n {
			t.Errorf("painted %q again", got)
		}
	})
	p.Stop()
	if got := out(); !strings.Contains(got, "\x1b[?1049l") || !strings.Contains(got, "\x1b[?25h") {
		t.Errorf("stop wrote %q, want the normal screen and the cursor back", got)
	}
}

// TestPainterCoalescesFrames writes many frames inside one interval: the
// first is painted at once, the rest wait, and only the newest is painted.
func TestPainterCoalescesFrames(t *testing.T) {
	p, out := newTestPainter(t, 50*time.Millisecond)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	out()
	for i := range 20 {
		p.Write("frame " + strings.Repeat("x", i))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.Lock()
		painted := p.painted
		paints := p.paints
		p.mu.Unlock()
		if painted == "frame "+strings.Repeat("x", 19) {
			if paints > 2 {
				t.Errorf("20 frames in one interval were painted %d times, want at most 2", paints)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the newest frame was not painted; painted %q", painted)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := out(); strings.Count(got, "\x1b[?2026h") != p.paints {
		t.Errorf("%d paints wrote %d synchronized frames", p.paints, strings.Count(got, "\x1b[?2026h"))
	}
}
