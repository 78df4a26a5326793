package scriptedtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"covey/internal/scripted"
)

// LongSession plays a model with a context window through a long session
// of fact-gathering turns, for the compaction tests:
//   - a request over Window tokens (CountTokens) is refused with OpenAI's
//     HTTP 400 context_length_exceeded, naming the window when NameWindow;
//   - a prompt holding "[long" makes it call Tool with Args, then answer
//     "Noted." once the result is back;
//   - a prompt holding "[long question]" is answered "FACTS:" and every
//     FACT-n the request carries, so a test sees what survived;
//   - a summary request (its system prompt holds SummaryMarker) is answered
//     with a summary listing every FACT-n and every agent id (explore-n)
//     the request carries.
//
// It records the largest request it received and how many it refused.
type LongSession struct {
	Window        int
	NameWindow    bool
	Tool          string
	Args          map[string]any
	SummaryMarker string

	mu        sync.Mutex
	peak      int
	refused   int
	summaries int
	requests  int
}

// Stats returns the largest request received (in CountTokens), how many
// requests were refused as over the window, how many were summary
// requests, and how many requests arrived in all.
func (l *LongSession) Stats() (peak, refused, summaries, requests int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.peak, l.refused, l.summaries, l.requests
}

// Conversations returns the two conversations to add to a server: the
// main one (matched by match) and the summariser. Each serves up to turns
// requests per first user message.
func (l *LongSession) Conversations(match scripted.Match, turns int) []scripted.Conversation {
	serve := make([]scripted.Turn, turns)
	for i := range serve {
		serve[i] = scripted.Turn{Func: l.answer}
	}
	sum := match
	sum.SystemContains = l.SummaryMarker
	sum.FirstUser = ""
	return []scripted.Conversation{
		{Name: "long-main", Match: match, Turns: serve},
		{Name: "long-summary", Match: sum, Turns: serve},
	}
}

var (
	factRE  = regexp.MustCompile(`FACT-[0-9]+`)
	childRE = regexp.MustCompile(`explore-[0-9]+`)
)

// Facts returns the distinct FACT-n of s, sorted.
func Facts(s string) []string {
	fs := factRE.FindAllString(s, -1)
	slices.Sort(fs)
	return slices.Compact(fs)
}

func (l *LongSession) answer(r scripted.Request) scripted.Turn {
	n := CountTokens(r.Entry)
	summary := l.SummaryMarker != "" && strings.Contains(r.System, l.SummaryMarker)
	l.mu.Lock()
	l.requests++
	l.peak = max(l.peak, n)
	over := l.Window > 0 && n > l.Window
	if over {
		l.refused++
	}
	if summary && !over {
		l.summaries++
	}
	l.mu.Unlock()
	if over {
		msg := "The request is too long for this model."
		if l.NameWindow {
			msg = fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", l.Window, n)
		}
		body, _ := json.Marshal(map[string]any{"error": map[string]any{
			"message": msg, "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
		}})
		return scripted.Turn{Status: 400, Body: string(body)}
	}
	all := allText(r.Entry)
	if summary {
		ids := childRE.FindAllString(all, -1)
		slices.Sort(ids)
		return scripted.Turn{Text: "Summary of the session. Facts: " + strings.Join(Facts(all), " ") + ". Agents: " + strings.Join(slices.Compact(ids), " ") + "."}
	}
	last := r.LastMessage()
	switch {
	case last.Role == "tool":
		return scripted.Turn{Text: "Noted."}
	case strings.Contains(last.Content, "[long question]"):
		return scripted.Turn{Text: "FACTS: " + strings.Join(Facts(all), " ")}
	case strings.Contains(last.Content, "[long"):
		return scripted.Turn{ToolCalls: []scripted.Call{{Name: l.Tool, Args: l.Args}}}
	}
	return scripted.Turn{Text: "Noted."}
}

// allText joins every message's text and call arguments.
func allText(e scripted.Entry) string {
	var b strings.Builder
	for _, m := range e.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "%v\n", c.Args)
		}
	}
	return b.String()
}

// CountTokens is the scripted model's count of a request's tokens: four
// bytes of text (contents, thinking, call names and arguments) per token,
// four more per message, and the tools' definitions at four bytes a token.
func CountTokens(e scripted.Entry) int {
	n := 0
	for _, m := range e.Messages {
		n += 4 + (len(m.Content)+len(m.Reasoning)+3)/4
		for _, c := range m.ToolCalls {
			n += 4 + (len(c.Name)+len(fmt.Sprint(c.Args))+3)/4
		}
	}
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(e.Body, &body) == nil {
		n += len(body.Tools) / 4
	}
	return n
}
