package painter

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkPaintScroll paints a 120x40 frame of the benchmark transcript
// in which every line changed, as when a followed answer scrolls by a line.
// testdata/scroll_frame.txt is that frame (ui's benchModel(b, 100, 0)
// rendered), kept as a file so the painter needs no model to be measured.
func BenchmarkPaintScroll(b *testing.B) {
	frame, err := os.ReadFile("testdata/scroll_frame.txt")
	if err != nil {
		b.Fatal(err)
	}
	view := string(frame)
	lines := strings.Split(view, "\n")
	shifted := strings.Join(append(lines[1:], lines[0]), "\n")
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	p := New(nil, devnull, 0)
	p.width, p.height, p.active = 120, 40, true
	frames := [2]string{view, shifted}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.mu.Lock()
		p.view = frames[i%2]
		p.paintLocked()
		p.mu.Unlock()
	}
}

// BenchmarkPaintFollow paints a transcript that follows its end: each
// frame shows the 38 lines one further down a long answer, above the
// same input and status lines, as a streaming answer's frames do.
func BenchmarkPaintFollow(b *testing.B) {
	frame, err := os.ReadFile("testdata/scroll_frame.txt")
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Split(string(frame), "\n")
	body = append(append(body, body...), body...) // a long answer
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	p := New(nil, devnull, 0)
	p.width, p.height, p.active = 120, 40, true
	frames := make([]string, len(body)-38)
	for i := range frames {
		frames[i] = strings.Join(append(append([]string(nil), body[i:i+38]...), "── input", "status"), "\n")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.mu.Lock()
		p.view = frames[i%len(frames)]
		p.paintLocked()
		p.mu.Unlock()
	}
}
