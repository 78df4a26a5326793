package painter

import (
	"os"
	"strings"
	"testing"
)

// benchPainter is a 120x40 painter writing to /dev/null, and the lines of
// testdata/scroll_frame.txt: the benchmark transcript's frame (ui's
// benchModel(b, 100, 0) rendered), kept as a file so the painter needs no
// model to be measured.
func benchPainter(b *testing.B) (*Painter, []string) {
	frame, err := os.ReadFile("testdata/scroll_frame.txt")
	if err != nil {
		b.Fatal(err)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { devnull.Close() })
	p := New(nil, devnull, 0)
	p.width, p.height, p.active = 120, 40, true
	return p, strings.Split(string(frame), "\n")
}

// paintEach paints frames in turn, b.N times in all.
func paintEach(b *testing.B, p *Painter, frames []string) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.mu.Lock()
		p.view = frames[i%len(frames)]
		p.paintLocked()
		p.mu.Unlock()
	}
}

// BenchmarkPaintScroll paints a frame in which every line changed,
// alternately rotated up and down by a line: half the frames scroll, the
// other half (a rotation down) are painted whole.
func BenchmarkPaintScroll(b *testing.B) {
	p, lines := benchPainter(b)
	shifted := strings.Join(append(lines[1:], lines[0]), "\n")
	paintEach(b, p, []string{strings.Join(lines, "\n"), shifted})
}

// BenchmarkPaintFollow paints a transcript that follows its end: each
// frame shows the 38 lines one further down a long answer, above the
// same input and status lines, as a streaming answer's frames do.
func BenchmarkPaintFollow(b *testing.B) {
	p, lines := benchPainter(b)
	body := append(append(lines, lines...), lines...) // a long answer
	frames := make([]string, len(body)-38)
	for i := range frames {
		frames[i] = strings.Join(append(append([]string(nil), body[i:i+38]...), "── input", "status"), "\n")
	}
	paintEach(b, p, frames)
}
