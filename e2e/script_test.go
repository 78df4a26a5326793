package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"covey/internal/scripted"
	"covey/subagent"
)

// mainPrompt is in the main agent's system prompt only (children have
// their type's prompt), so it matches the main agent's requests.
const mainPrompt = "You are covey"

// gate holds a scripted turn until the test opens it, so the test can look
// at the screen while a child is provably between two steps instead of
// racing a delay. Every gate opens at cleanup, so a failed test never
// leaves the server's handlers waiting.
type gate struct {
	once sync.Once
	ch   chan struct{}
}

func newGate(t testing.TB) *gate {
	g := &gate{ch: make(chan struct{})}
	t.Cleanup(g.open)
	return g
}

// open lets the held turn through; it may be called more than once.
func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

// hold returns turn, answered only once the gate is open.
func (g *gate) hold(turn scripted.Turn) scripted.Turn {
	return scripted.Turn{Func: func(scripted.Request) scripted.Turn {
		<-g.ch
		return turn
	}}
}

// child is one scripted Explore child: its marker (found in its prompt),
// description and turns.
type child struct {
	marker, description string
	turns               []scripted.Turn
}

// task is the task tool's entry for the child.
func (c child) task(question string) map[string]string {
	return map[string]string{"description": c.description, "subagent_type": "Explore", "prompt": c.marker + " " + question}
}

// conversation is the child's script.
func (c child) conversation() scripted.Conversation {
	return scripted.Conversation{Name: c.marker, Match: scripted.Match{FirstUser: c.marker}, Turns: c.turns}
}

// spawn is the main agent's first turn: text, then one task call with every
// child as a batch.
func spawn(text string, children ...child) scripted.Turn {
	tasks := make([]map[string]string, len(children))
	for i, c := range children {
		tasks[i] = c.task("Look around the workspace and report.")
	}
	return scripted.Turn{Text: text, ToolCalls: []scripted.Call{{Name: "task", Args: map[string]any{"tasks": tasks}}}}
}

// call is a tool call of a scripted turn.
func call(name string, args map[string]any) scripted.Call {
	return scripted.Call{Name: name, Args: args}
}

// paneHeader finds the header line of the pane with this description and
// returns it with the body lines under it ("│ ..."), gutter included.
func paneHeader(screen, description string) (header string, body []string, ok bool) {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if !paneRe(description).MatchString(l) {
			continue
		}
		for _, b := range lines[i+1:] {
			if !strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(b, "▌"), " "), "│") {
				break
			}
			body = append(body, b)
		}
		return l, body, true
	}
	return "", nil, false
}

// toolsRe matches a pane header whose stats show n tool calls.
func toolsRe(description string, n int) *regexp.Regexp {
	count := "1 tool"
	if n != 1 {
		count = strconv.Itoa(n) + " tools"
	}
	return regexp.MustCompile(paneRe(description).String() + `.*\b` + count + ` · `)
}

// paneRe matches the start of the header of an Explore pane with this
// description (see typedPaneRe).
func paneRe(description string) *regexp.Regexp { return typedPaneRe("Explore", description) }

// typedPaneRe matches the start of the header of a pane of this type with
// this description: "[type] description", or, when the child's name was
// made from the whole description (and so the header shows the name
// alone), "name [type]".
func typedPaneRe(typ, description string) *regexp.Regexp {
	name, _ := subagent.NameFrom(description)
	t := `\[` + regexp.QuoteMeta(typ) + `\]`
	return regexp.MustCompile(`(?:` + t + ` ` + regexp.QuoteMeta(description) + `|` +
		regexp.QuoteMeta(name) + ` ` + t + `)\s`)
}

// unansweredCalls lists the tool calls in msgs that no tool message
// answers (by tool_call_id): every provider rejects such a conversation.
func unansweredCalls(msgs []scripted.Message) (missing []string) {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == "tool" {
			answered[m.ToolCallID] = true
		}
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				missing = append(missing, c.Name+" "+c.ID)
			}
		}
	}
	return missing
}
