package sessionfile

import (
	"encoding/json"
	"unicode/utf8"

	"covey/agent"
)

// decodeMessage decodes a message as this package writes it,
// {"role":"…","content":"…",…}, taking the content, which may be megabytes,
// in one pass: encoding/json would scan it three times (validate, find its
// end, unquote). Any other shape, or a content it is unsure of (a \u
// escape, a control character, invalid UTF-8), is left to encoding/json,
// so the result is always what json.Unmarshal gives.
func decodeMessage(body []byte) (agent.Message, error) {
	if m, ok := fastMessage(body); ok {
		return m, nil
	}
	var m agent.Message
	err := json.Unmarshal(body, &m)
	return m, err
}

func fastMessage(body []byte) (agent.Message, bool) {
	const rolePrefix, contentKey = `{"role":"`, `","content":"`
	if len(body) < len(rolePrefix) || string(body[:len(rolePrefix)]) != rolePrefix {
		return agent.Message{}, false
	}
	rest := body[len(rolePrefix):]
	end := 0
	for end < len(rest) && rest[end] != '"' && rest[end] != '\\' {
		end++
	}
	role := string(rest[:end])
	if !validRole(role) || len(rest) < end+len(contentKey) || string(rest[end:end+len(contentKey)]) != contentKey {
		return agent.Message{}, false
	}
	content, n, ok := unquote(rest[end+len(contentKey):])
	if !ok {
		return agent.Message{}, false
	}
	tail := rest[end+len(contentKey)+n:]
	m := agent.Message{Role: role}
	switch {
	case len(tail) == 1 && tail[0] == '}':
	case len(tail) > 1 && tail[0] == ',':
		// The other fields (a tool call's ID and name, tool calls), small
		// beside the content: the generic way.
		small := make([]byte, 0, len(rolePrefix)+len(role)+len(tail)+1)
		small = append(append(append(small, rolePrefix...), role...), '"')
		if json.Unmarshal(append(small, tail...), &m) != nil || m.Role != role || m.Content != "" {
			return agent.Message{}, false
		}
	default:
		return agent.Message{}, false
	}
	m.Content = content
	return m, true
}

// unquote decodes the JSON string body at the start of b (after its
// opening quote) up to its closing quote, and returns it and how many
// bytes it took with the quote. ok is false where encoding/json should
// decide (see decodeMessage).
func unquote(b []byte) (s string, n int, ok bool) {
	// Plain bytes first: most content has an escape every line, and
	// copying runs between them keeps the loop to a compare per byte.
	out := make([]byte, 0, len(b))
	start := 0
	ascii := true
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			out = append(out, b[start:i]...)
			if !ascii && !utf8.Valid(out) {
				return "", 0, false
			}
			return string(out), i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return "", 0, false
			}
			out = append(out, b[start:i]...)
			var r byte
			switch b[i+1] {
			case '"', '\\', '/':
				r = b[i+1]
			case 'n':
				r = '\n'
			case 't':
				r = '\t'
			case 'r':
				r = '\r'
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			default: // \u and anything invalid
				return "", 0, false
			}
			out = append(out, r)
			i++
			start = i + 1
		case c < 0x20:
			return "", 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", 0, false
}
