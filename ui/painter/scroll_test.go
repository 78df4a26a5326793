package painter

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// screen is a terminal as small as the painter's output needs: cursor
// moves, erases, a scroll region and scrolling up; other sequences (modes,
// colours) change no text.
type screen struct {
	rows          [][]rune
	row, col      int
	top, bot      int // the scroll region, rows top..bot-1
	width, height int
}

func newScreen(width, height int) *screen {
	s := &screen{width: width, height: height, top: 0, bot: height}
	s.rows = make([][]rune, height)
	for i := range s.rows {
		s.rows[i] = []rune(strings.Repeat(" ", width))
	}
	return s
}

func (s *screen) blank() []rune { return []rune(strings.Repeat(" ", s.width)) }

func (s *screen) feed(t *testing.T, out string) {
	t.Helper()
	for i := 0; i < len(out); {
		if out[i] != 0x1b {
			r := []rune(out[i:])[0]
			if s.col < s.width {
				s.rows[s.row][s.col] = r
				s.col++
			}
			i += len(string(r))
			continue
		}
		if i+1 >= len(out) || out[i+1] != '[' {
			t.Fatalf("an escape the test screen does not know at %d: %q", i, out[i:])
		}
		j := i + 2
		for j < len(out) && (out[j] < 0x40 || out[j] > 0x7e) {
			j++
		}
		params, final := out[i+2:j], out[j]
		i = j + 1
		if strings.HasPrefix(params, "?") || final == 'm' {
			continue // modes and colours
		}
		nums := []int{}
		for _, p := range strings.Split(params, ";") {
			if p == "" {
				nums = append(nums, 0)
				continue
			}
			v, err := strconv.Atoi(p)
			if err != nil {
				t.Fatalf("bad parameter %q", params)
			}
			nums = append(nums, v)
		}
		switch final {
		case 'H':
			s.row, s.col = max(nums[0], 1)-1, max(nums[len(nums)-1], 1)-1
		case 'K':
			for c := s.col; c < s.width; c++ {
				s.rows[s.row][c] = ' '
			}
		case 'J':
			switch nums[0] {
			case 2:
				for r := range s.rows {
					s.rows[r] = s.blank()
				}
			default:
				for c := s.col; c < s.width; c++ {
					s.rows[s.row][c] = ' '
				}
				for r := s.row + 1; r < s.height; r++ {
					s.rows[r] = s.blank()
				}
			}
		case 'r':
			s.top, s.bot = 0, s.height
			if len(nums) == 2 {
				s.top, s.bot = nums[0]-1, nums[1]
			}
			s.row, s.col = 0, 0
		case 'S':
			k := max(nums[0], 1)
			for range k {
				copy(s.rows[s.top:s.bot-1], s.rows[s.top+1:s.bot])
				s.rows[s.bot-1] = s.blank()
			}
		default:
			t.Fatalf("a sequence the test screen does not know: %q", out[i-len(params)-3:i])
		}
	}
}

func (s *screen) text() []string {
	out := make([]string, len(s.rows))
	for i, r := range s.rows {
		out[i] = strings.TrimRight(string(r), " ")
	}
	return out
}

// TestPainterScrollsLikeRepainting paints random frames, most of them a
// transcript following its end, onto a test screen: whatever the painter
// scrolls instead of rewriting, the screen must show each frame exactly,
// and a frame that only scrolled must cost a fraction of the bytes.
func TestPainterScrollsLikeRepainting(t *testing.T) {
	const width, height = 30, 12
	p, out := newTestPainter(t, time.Hour)
	p.width, p.height = width, height
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	scr := newScreen(width, height)
	scr.feed(t, out())
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		switch rng.IntN(6) {
		case 0:
			return "" // blank lines, as between a transcript's blocks
		case 1:
			return "│ same" // lines that repeat, as a pane's border does
		}
		return fmt.Sprintf("line %d %s", rng.IntN(1000), strings.Repeat("x", rng.IntN(15)))
	}
	body := make([]string, height-2)
	for i := range body {
		body[i] = word()
	}
	scrolled, scrolledBytes, whole := 0, 0, 0
	for step := range 400 {
		var frame []string
		op := rng.IntN(10)
		switch {
		case op < 6: // the transcript moves up by a line or a few
			k := 1 + rng.IntN(3)
			if rng.IntN(8) == 0 {
				k = 1 + rng.IntN(len(body)) // a page
			}
			for range k {
				body = append(body[1:], word())
			}
		case op < 8: // a line in place changes (a spinner, a count)
			body[rng.IntN(len(body))] = word()
		case op < 9: // the frame is shorter for a moment (a resize of the view)
			frame = append(frame, body[:len(body)/2]...)
		}
		if frame == nil {
			frame = append(append(frame, body...), "── input", fmt.Sprintf("status %d", step))
		}
		p.mu.Lock()
		p.view = strings.Join(frame, "\n")
		p.mu.Unlock()
		p.paint()
		written := out()
		scr.feed(t, written)
		got := scr.text()
		for i := range height {
			want := ""
			if i < len(frame) {
				want = strings.TrimRight(frame[i], " ")
			}
			if got[i] != want {
				t.Fatalf("step %d: row %d shows %q, want %q\nwritten %q", step, i, got[i], want, written)
			}
		}
		if strings.Contains(written, "S\x1b[r") {
			scrolled++
			scrolledBytes += len(written)
		} else if op < 6 {
			whole += len(written)
		}
	}
	if scrolled < 100 {
		t.Fatalf("only %d of 400 frames scrolled", scrolled)
	}
	if avg := scrolledBytes / scrolled; avg > 200 {
		t.Errorf("a scrolled frame wrote %d bytes on average", avg)
	}
}
