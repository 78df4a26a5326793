package agent

import "strings"

// Tags some servers (LM Studio, llama.cpp, Ollama with some templates) put
// around the model's thinking inside the content instead of sending it as
// reasoning_content.
const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter moves a leading <think>…</think> block of streamed content
// into reasoning, so thinking is never shown or printed as the answer,
// whichever way the server sends it. Tags split across deltas are held back
// until they can be told apart from text.
type thinkSplitter struct {
	state   thinkState
	pending string // text not yet emitted: maybe part of a tag
	trim    bool   // drop whitespace before the answer that follows </think>
}

type thinkState int

const (
	thinkUndecided thinkState = iota // nothing but whitespace seen yet
	thinkInside                      // inside <think>
	thinkPlain                       // ordinary content
)

// feed takes one content delta and returns what of it is answer text and
// what is reasoning.
func (s *thinkSplitter) feed(delta string) (text, reasoning string) {
	s.pending += delta
	for {
		switch s.state {
		case thinkUndecided:
			lead := strings.TrimLeft(s.pending, " \t\r\n")
			switch {
			case strings.HasPrefix(lead, thinkOpen):
				s.state, s.pending = thinkInside, lead[len(thinkOpen):]
				continue
			case lead == "" || strings.HasPrefix(thinkOpen, lead):
				return text, reasoning // maybe the start of <think>: wait
			}
			s.state = thinkPlain
			continue
		case thinkInside:
			if i := strings.Index(s.pending, thinkClose); i >= 0 {
				reasoning += s.pending[:i]
				s.state, s.pending, s.trim = thinkPlain, s.pending[i+len(thinkClose):], true
				continue
			}
			keep := partialSuffix(s.pending, thinkClose)
			reasoning += s.pending[:len(s.pending)-keep]
			s.pending = s.pending[len(s.pending)-keep:]
			return text, reasoning
		default:
			out := s.pending
			s.pending = ""
			if s.trim {
				out = strings.TrimLeft(out, " \t\r\n")
				s.trim = out == ""
			}
			return text + out, reasoning
		}
	}
}

// flush returns what is held back once the stream has ended: an unclosed
// think block is reasoning; anything else is text.
func (s *thinkSplitter) flush() (text, reasoning string) {
	p := s.pending
	s.pending = ""
	if s.state == thinkInside {
		return "", p
	}
	if s.trim {
		p = strings.TrimLeft(p, " \t\r\n")
	}
	return p, ""
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
