package termbg

import (
	"bytes"
	"os"
	"sync"
	"time"
)

// answerStart begins an OSC 11 answer.
var answerStart = []byte("\x1b]11;")

// maxAnswer bounds an answer held back while its end has not come: past
// it, the bytes are input after all.
const maxAnswer = 64

// waitAnswer is how long after the query a cut answer's start is held
// back for its end; after that the bytes are input as they come.
const waitAnswer = 3 * time.Second

// Input is the terminal's input with OSC 11 answers taken out: each is
// handed to OnAnswer (dark or not) and never reaches the program as keys
// (Bubble Tea would read one as alt+runes, and its BEL as ctrl+g). It is
// an *os.File to the program, so Bubble Tea sets its mode and cancels its
// reads as on the terminal itself.
type Input struct {
	*os.File
	// OnAnswer is called, on the reading goroutine, with each answer.
	OnAnswer func(dark bool)

	mu    sync.Mutex
	until time.Time // an answer may come until then (Asked)
	held  []byte    // the start of an answer whose end has not come yet
}

// Asked says the query was just sent: an answer cut across two reads is
// put together for a while.
func (in *Input) Asked() {
	in.mu.Lock()
	in.until = time.Now().Add(waitAnswer)
	in.mu.Unlock()
}

// Read reads from the terminal, without the answers. It reads no more
// than p holds with what it held back, so nothing is left over for a next
// Read (whose caller waits for the terminal first). It may return no
// bytes and no error: an answer, taken out.
func (in *Input) Read(p []byte) (int, error) {
	if len(p) <= len(in.held) {
		return 0, nil
	}
	buf := make([]byte, len(p)-len(in.held))
	n, err := in.File.Read(buf)
	data := append(in.held, buf[:n]...)
	in.held = nil
	return copy(p, in.strip(data)), err
}

// strip removes the complete answers from buf, keeping the start of an
// unfinished one in held while one is awaited, and returns the rest.
func (in *Input) strip(buf []byte) []byte {
	in.mu.Lock()
	awaited := time.Now().Before(in.until)
	in.mu.Unlock()
	var out []byte
	for {
		i := bytes.Index(buf, answerStart)
		if i < 0 {
			// An answer may be cut after "\x1b]" or "\x1b]1"; a lone ESC
			// is the esc key, never held.
			if k := partialStart(buf); awaited && k >= 0 && len(buf)-k >= 2 {
				in.held = append([]byte(nil), buf[k:]...)
				buf = buf[:k]
			}
			return append(out, buf...)
		}
		out = append(out, buf[:i]...)
		body := buf[i+len(answerStart):]
		end, width := answerEnd(body)
		if end < 0 {
			if awaited && len(buf)-i <= maxAnswer {
				in.held = append([]byte(nil), buf[i:]...)
				return out
			}
			return append(out, buf[i:]...) // not an answer after all: input
		}
		if dark, ok := ParseAnswer(string(body[:end])); ok && in.OnAnswer != nil {
			in.OnAnswer(dark)
		}
		buf = body[end+width:]
	}
}

// answerEnd finds the terminator of an answer's body: BEL, or ST
// (ESC \); -1 if it has not come.
func answerEnd(body []byte) (at, width int) {
	for i, c := range body {
		switch {
		case c == 0x07:
			return i, 1
		case c == 0x1b && i+1 < len(body) && body[i+1] == '\\':
			return i, 2
		case c == 0x1b && i+1 == len(body):
			return -1, 0
		}
	}
	return -1, 0
}

// partialStart is where buf ends with a proper prefix of answerStart, or -1.
func partialStart(buf []byte) int {
	for k := max(0, len(buf)-len(answerStart)+1); k < len(buf); k++ {
		if bytes.HasPrefix(answerStart, buf[k:]) {
			return k
		}
	}
	return -1
}
