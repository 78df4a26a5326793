package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	Event string // the event: field, "" when the server named none
	Data  string // data: lines joined with "\n"
}

// maxSSELine bounds one line of the stream. A whole tool call (a file's
// content) can arrive in one chunk, so the bound is generous; it only stops a
// broken server from exhausting memory.
const maxSSELine = 32 << 20

// errSSELineTooLong is returned for a line longer than the reader's limit.
var errSSELineTooLong = errors.New("stream line too long")

// sseReader parses a text/event-stream body following the WHATWG rules, with
// what real servers need on top:
//   - lines end in LF, CRLF or a lone CR, and a last line without an end is
//     still read;
//   - comment lines (": keep-alive", ": OPENROUTER PROCESSING") are skipped
//     however many arrive: they are not events;
//   - "data:" with or without the space, several data lines joined by "\n";
//   - an "error:" line (old llama.cpp builds) becomes an event of type
//     "error" carrying its value as data;
//   - an event still pending when the body ends is dispatched, not dropped.
//
// It exists because go-openai's stream decoder drops exactly these cases
// (see OpenAI).
type sseReader struct {
	r          io.Reader
	buf        []byte
	start, end int  // unread bytes are buf[start:end]
	skipLF     bool // the last line ended in CR: an LF right after belongs to it
	bomChecked bool
	err        error // sticky error of r
	maxLine    int
	data       []byte // data of the event being assembled
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: r, buf: make([]byte, 32<<10), maxLine: maxSSELine}
}

// next returns the next event, or io.EOF once the body ended cleanly. Any
// other error comes from the underlying reader, wrapped.
func (s *sseReader) next() (sseEvent, error) {
	s.data = s.data[:0]
	hasData := false
	event := ""
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && (hasData || event == "error") {
				return sseEvent{Event: event, Data: string(s.data)}, nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if hasData || event == "error" {
				return sseEvent{Event: event, Data: string(s.data)}, nil
			}
			event = ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if (string(field) == "data" || string(field) == "error") && len(s.data)+len(value) > s.maxLine {
			// Many data lines make one event: bounded like one line.
			return sseEvent{}, fmt.Errorf("%w (an event over %d bytes)", errSSELineTooLong, s.maxLine)
		}
		switch string(field) {
		case "data":
			if hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			hasData = true
		case "event":
			event = string(value)
		case "error":
			event = "error"
			if hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			hasData = true
		}
		// id: and retry: are ignored: we never reconnect a completion.
	}
}

// readLine returns the next line without its end. The slice is valid until
// the next call. At the end of the body it returns io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	for {
		if s.skipLF && s.start < s.end {
			if s.buf[s.start] == '\n' {
				s.start++
			}
			s.skipLF = false
		}
		window := s.buf[s.start:s.end]
		if i := lineEnd(window); i >= 0 {
			if i > s.maxLine {
				return nil, fmt.Errorf("%w (over %d bytes)", errSSELineTooLong, s.maxLine)
			}
			s.skipLF = window[i] == '\r'
			s.start += i + 1
			return s.stripBOM(window[:i]), nil
		}
		if s.err != nil {
			if len(window) > 0 {
				s.start = s.end
				return s.stripBOM(window), nil
			}
			if errors.Is(s.err, io.EOF) {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("read stream: %w", s.err)
		}
		if len(window) >= s.maxLine {
			return nil, fmt.Errorf("%w (over %d bytes)", errSSELineTooLong, s.maxLine)
		}
		s.fill()
	}
}

// lineEnd finds the first CR or LF. Two IndexByte calls keep the common
// LF-only stream on the fast path.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	head := b
	if i >= 0 {
		head = b[:i]
	}
	if j := bytes.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

// fill reads more of the body, compacting or growing the buffer first.
func (s *sseReader) fill() {
	if s.start > 0 {
		n := copy(s.buf, s.buf[s.start:s.end])
		s.start, s.end = 0, n
	}
	if s.end == len(s.buf) {
		grown := make([]byte, min(2*len(s.buf), s.maxLine+1))
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
	n, err := s.r.Read(s.buf[s.end:])
	s.end += n
	if err != nil {
		s.err = err
	}
}

// stripBOM drops a UTF-8 byte order mark at the very start of the stream.
func (s *sseReader) stripBOM(line []byte) []byte {
	if s.bomChecked {
		return line
	}
	s.bomChecked = true
	return bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
}
