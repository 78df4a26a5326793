package sessionfile

import (
	"bytes"
	"fmt"

	"covey/agent"
)

// LostResult answers a tool call whose result was in a damaged line of the
// session file: the call ran, but what it returned is not known.
const LostResult = "[covey: this call's result was lost: its line in the session file is damaged]"

// lost handles the damaged line n: it says which line and what it held,
// and keeps the conversation's shape where the loss would break it (a
// lost user message or reply leaves a marked placeholder in its place, so
// the roles still alternate as providers need).
func (l *Loaded) lost(n int, raw []byte, complete bool, err error) {
	typ, inner := lostKind(raw)
	what := describeLost(typ, inner)
	if !complete {
		l.warnf("line %d: incomplete last line skipped (covey stopped while writing it): %s was lost", n, what)
	} else {
		l.warnf("line %d is damaged (%v): %s was lost", n, err, what)
	}
	if typ != typeMessage {
		return
	}
	var ph *agent.Message
	switch inner {
	case agent.RoleUser:
		ph = &agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("[covey: a message of the user was lost here: line %d of the session file is damaged]", n)}
	case agent.RoleAssistant:
		ph = &agent.Message{Role: agent.RoleAssistant, Content: fmt.Sprintf("[covey: a reply was lost here: line %d of the session file is damaged]", n)}
	case agent.RoleTool:
		l.lostResults++
	}
	if ph != nil {
		l.Messages = append(l.Messages, *ph)
		l.Replay = append(l.Replay, Record{Message: ph})
	}
}

// lostKind guesses from a damaged line what it held: its line type and,
// for a message, its role (for an event, the event's type). Either is ""
// when the damage took it.
func lostKind(raw []byte) (typ, inner string) {
	typ, rest := field(raw, `"type":"`)
	switch typ {
	case typeMessage, typeChildMessage:
		inner, _ = field(rest, `"role":"`)
	case typeEvent:
		inner, _ = field(rest, `"type":"`)
	}
	return typ, inner
}

// field finds key (`"name":"`) in b and returns its plain string value
// and what follows it.
func field(b []byte, key string) (string, []byte) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return "", nil
	}
	b = b[i+len(key):]
	j := bytes.IndexByte(b, '"')
	if j < 0 || j > 40 || bytes.IndexByte(b[:j], '\\') >= 0 {
		return "", nil
	}
	return string(b[:j]), b[j+1:]
}

// describeLost says in words what a damaged line held.
func describeLost(typ, inner string) string {
	switch typ {
	case typeMessage:
		switch inner {
		case agent.RoleUser:
			return "a message of the user"
		case agent.RoleAssistant:
			return "a reply of the model (with any tool calls in it)"
		case agent.RoleTool:
			return "a tool result"
		case agent.RoleSystem:
			return "a system message"
		}
		return "a message of the conversation"
	case typeChildMessage:
		return "a message of a subagent's conversation"
	case typeEvent:
		if inner != "" {
			return "a " + inner + " event (shown on screen, not sent to the model)"
		}
		return "an event (shown on screen, not sent to the model)"
	case typeModel:
		return "a model change"
	case typeClear:
		return "a /clear"
	}
	return "a line of unknown kind"
}

// alternate keeps the roles in the order providers need where a lost line
// broke it: a conversation does not start with a reply, and two replies
// never follow each other (a marked placeholder of the user goes between).
func alternate(msgs []agent.Message) []agent.Message {
	if !needsAlternation(msgs) {
		return msgs
	}
	out := make([]agent.Message, 0, len(msgs)+1)
	prev := ""
	for _, m := range msgs {
		if m.Role == agent.RoleAssistant && (prev == "" || prev == agent.RoleAssistant) {
			out = append(out, agent.Message{Role: agent.RoleUser, Content: "[covey: a message of the user was lost here (a damaged line of the session file)]"})
		}
		out = append(out, m)
		prev = roleAfter(m, prev)
	}
	return out
}

func needsAlternation(msgs []agent.Message) bool {
	prev := ""
	for _, m := range msgs {
		if m.Role == agent.RoleAssistant && (prev == "" || prev == agent.RoleAssistant) {
			return true
		}
		prev = roleAfter(m, prev)
	}
	return false
}

// roleAfter is the role that decides what may follow m: an assistant
// message with tool calls is followed by their results, after which a
// reply is fine; a system message changes nothing.
func roleAfter(m agent.Message, prev string) string {
	switch {
	case m.Role == agent.RoleSystem:
		return prev
	case m.Role == agent.RoleAssistant && len(m.ToolCalls) > 0:
		return agent.RoleTool
	}
	return m.Role
}
