package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The context window: what the model can hold in one request. The main
// agent and each child know their own model's window; 0 means unknown.
// Config (context_window), a server's own answer, a catalog of hosted
// models, or an overflow error that names the limit set it.

// ContextWindow returns the window in tokens of the agent's model, or 0
// when it is unknown.
func (a *Agent) ContextWindow() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.ContextWindow
}

// SetContextWindow records the window in tokens of the agent's model (0:
// unknown). It is safe to call while the agent runs; the next request
// uses it.
func (a *Agent) SetContextWindow(n int) {
	a.setWindow(n, "")
}

// LearnContextWindow records the window as SetContextWindow does, says
// where it came from ("server", "catalog", "overflow"...), and reports the
// new fill to the consumers (a ContextReported event).
func (a *Agent) LearnContextWindow(n int, from string) {
	a.setWindow(n, from)
	a.cfg.Emit(a.contextReport())
}

// MaxOutputTokens returns the part of the window kept for an answer (0:
// unknown).
func (a *Agent) MaxOutputTokens() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.MaxOutputTokens
}

// SetMaxOutputTokens records the part of the window kept for an answer.
func (a *Agent) SetMaxOutputTokens(n int) {
	a.mu.Lock()
	a.cfg.MaxOutputTokens = max(0, n)
	a.mu.Unlock()
}

// SetAnswerCap sets the max_tokens sent with each request (0: none).
func (a *Agent) SetAnswerCap(n int) {
	a.mu.Lock()
	a.cfg.AnswerCap = max(0, n)
	a.mu.Unlock()
}

// Limits is what is known of a model's room.
type Limits struct {
	// Window is the context window in tokens (0: unknown), From where it
	// came from.
	Window int
	From   string
	// MaxOutput is the part of the window kept for an answer; AnswerCap
	// is sent as max_tokens (see Config.AnswerCap).
	MaxOutput, AnswerCap int
}

// inputRoom is what a request may fill of window w: the window less the
// room kept for the answer, which is at most a quarter of it (a catalog's
// output figure can be most of a window).
func (a *Agent) inputRoom(w int) int {
	a.mu.Lock()
	out := a.cfg.MaxOutputTokens
	a.mu.Unlock()
	return w - min(out, w/4)
}

// ContextWindowFrom says where the window came from ("" when unknown or
// set without saying).
func (a *Agent) ContextWindowFrom() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.ContextWindowFrom
}

func (a *Agent) setWindow(n int, from string) {
	if n < 0 {
		n = 0
	}
	a.mu.Lock()
	a.cfg.ContextWindow, a.cfg.ContextWindowFrom = n, from
	a.mu.Unlock()
}

// WindowFromOverflow is the ContextWindowFrom of a window learned from a
// server's refusal of a request that passed it.
const WindowFromOverflow = "overflow"

// learnWindow takes the window an overflow error names as the model's for
// the rest of the session: the server's own word beats any configured or
// catalogued number.
func (a *Agent) learnWindow(err error) {
	var pe *ProviderError
	if !errors.As(err, &pe) || !errors.Is(pe.Kind, ErrContextLength) || pe.ContextLimit <= 0 {
		return
	}
	if a.ContextWindow() == pe.ContextLimit {
		return
	}
	a.LearnContextWindow(pe.ContextLimit, WindowFromOverflow)
}

// contextReport is the ContextReported event of the agent's fill now.
func (a *Agent) contextReport() ContextReported {
	tokens, window := a.ContextFill()
	return ContextReported{Source: a.cfg.Source, Model: a.Model(), Tokens: tokens, Window: window, WindowFrom: a.ContextWindowFrom()}
}

// bytesPerToken is the rough size of one token in English text and code,
// the estimate covey uses where no server has counted.
const bytesPerToken = 4

// EstimateTokens estimates the tokens of s, rounding up.
func EstimateTokens(s string) int {
	return (len(s) + bytesPerToken - 1) / bytesPerToken
}

// messageOverhead is what the chat template adds around each message (role
// markers, separators), in tokens: about what OpenAI's tokenizer counts.
const messageOverhead = 4

// EstimateMessage estimates the tokens one message takes in a request.
func EstimateMessage(m Message) int {
	n := messageOverhead + EstimateTokens(m.Content) + EstimateTokens(m.Reasoning)
	for _, c := range m.ToolCalls {
		n += messageOverhead + EstimateTokens(c.Name) + EstimateTokens(c.Arguments)
	}
	return n
}

// EstimateMessages sums EstimateMessage over msgs.
func EstimateMessages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateMessage(m)
	}
	return n
}

// EstimateToolSpec estimates the tokens one tool's definition takes in a
// request: its name, description and JSON schema.
func EstimateToolSpec(s ToolSpec) int {
	params, _ := json.Marshal(s.Parameters)
	return messageOverhead + EstimateTokens(s.Name) + EstimateTokens(s.Description) + EstimateTokens(string(params))
}

// promptCount is what the server counted for the last request that
// reported usage: its prompt tokens, and how many history messages that
// request carried, so what came after can be estimated on top.
type promptCount struct {
	tokens int // 0: none
	mark   int // len(history) when the request was built
}

// notePromptUsage records the prompt tokens the server counted for a
// request that carried the first mark messages of the history.
func (a *Agent) notePromptUsage(u Usage, mark int) {
	if u.InputTokens <= 0 {
		return
	}
	a.mu.Lock()
	a.counted = promptCount{tokens: u.InputTokens, mark: mark}
	a.mu.Unlock()
}

// ContextFill returns how many tokens the agent's next request will carry
// and the window they must fit in (0: unknown). When a server counted an
// earlier request of the same history, the fill is that count plus an
// estimate of the messages added since; otherwise it is an estimate of the
// whole request (system prompt, tools and history).
func (a *Agent) ContextFill() (tokens, window int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	window = a.cfg.ContextWindow
	if c := a.counted; c.tokens > 0 && c.mark <= len(a.history) {
		return c.tokens + EstimateMessages(a.history[c.mark:]), window
	}
	return a.estimateRequestLocked(), window
}

// estimateRequestLocked estimates the whole next request; a.mu is held.
func (a *Agent) estimateRequestLocked() int {
	n := 0
	if a.cfg.System != "" {
		n += EstimateMessage(Message{Role: RoleSystem, Content: a.cfg.System})
	}
	for _, t := range a.cfg.Tools.Tools() {
		n += EstimateToolSpec(ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	}
	return n + EstimateMessages(a.history)
}

// forgetPromptUsageLocked drops the server's count after the history was
// replaced or cut, so the fill is estimated afresh rather than from a
// count of messages that are gone; a.mu is held.
func (a *Agent) forgetPromptUsageLocked() { a.counted = promptCount{} }

// resultShare is the part of the window one tool result may take: eight
// results fill the window, so no single one can overflow it.
const resultShare = 8

// minResultBudget keeps results readable in a very small window.
const minResultBudget = 1 << 10

// ResultBudget is the most bytes one tool result may hold for this agent:
// an eighth of its model's window (at four bytes a token), at least 1 KB,
// and 0 when the window is unknown (the tools' own caps apply; 256 KB at
// most). The tools learn it from their call's context
// (tools.WithResultBudget).
func (a *Agent) ResultBudget() int {
	w := a.ContextWindow()
	if w <= 0 {
		return 0
	}
	return max(minResultBudget, w/resultShare*bytesPerToken)
}

// noteRoom is what the tools keep free under the budget for the note that
// says how to get the rest of a cut result.
const noteRoom = 256

// toolBudget is the budget handed to the tools: ResultBudget less room for
// their notes, so the agent's own cut never takes a tool's note away.
func (a *Agent) toolBudget() int {
	b := a.ResultBudget()
	if b <= 0 {
		return 0
	}
	return b - noteRoom
}

// capResult cuts a tool result that still passes the budget (a child's
// report, a tool without a cap of its own) at a rune boundary, saying so.
func (a *Agent) capResult(s string) string {
	limit := a.ResultBudget()
	if limit <= 0 || len(s) <= limit {
		return s
	}
	note := fmt.Sprintf("\n\n[result cut to %d of %d bytes: one result may take an eighth of this model's context window. Ask for less: a narrower path, pattern or range.]", limit, len(s))
	cut := max(0, limit-len(note))
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note
}

// ContextBreakdown is what the next request of an agent carries, part by
// part, in estimated tokens (/context shows it).
type ContextBreakdown struct {
	// Tokens is the fill as the gauge shows it (see ContextFill); Window
	// and WindowFrom the model's window and where it came from.
	Tokens, Window int
	WindowFrom     string
	// System is the system prompt without the memory files; Memory is the
	// memory files' part of it (the project's instructions), and
	// MemoryFiles their names.
	System, Memory int
	MemoryFiles    []string
	// BuiltinTools and MCPTools are the tool definitions offered, built-in
	// and from MCP servers, with their counts.
	BuiltinTools, MCPTools int
	Builtins, MCPs         int
	// Messages are the user's and the model's messages, ToolResults the
	// tool results, with their counts.
	Messages, ToolResults     int
	MessageCount, ResultCount int
	// Compactable is about what /compact would free: the history it
	// would summarise (planCompaction, as compact cuts it), less what
	// replaces it (the summary message, counted as compact writes it, with
	// a summary half as long as the one asked for). CompactMessages and
	// CompactTokens are that history, SummaryTokens the summary's length
	// asked for: the summary's real length moves the figure by at most
	// half of it. It is negative when the summary would take more than
	// the messages it replaces (a conversation too short to gain).
	Compactable                    int
	CompactMessages, CompactTokens int
	SummaryTokens                  int
}

// mcpToolPrefix starts the name of every tool an MCP server offers.
const mcpToolPrefix = "mcp__"

// ContextBreakdown breaks the next request down into its parts. memory is
// the part of the system prompt that comes from memory files (the session
// knows which), counted apart from the rest of it.
func (a *Agent) ContextBreakdown(memory string, memoryFiles []string) ContextBreakdown {
	b := ContextBreakdown{MemoryFiles: memoryFiles}
	b.Tokens, b.Window = a.ContextFill()
	b.WindowFrom = a.ContextWindowFrom()
	a.mu.Lock()
	system := a.cfg.System
	history := append([]Message(nil), a.history...)
	a.mu.Unlock()
	if system != "" {
		b.Memory = EstimateTokens(memory)
		b.System = max(0, EstimateMessage(Message{Content: system})-b.Memory)
	}
	for _, t := range a.cfg.Tools.Tools() {
		n := EstimateToolSpec(ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
		if strings.HasPrefix(t.Name(), mcpToolPrefix) {
			b.MCPTools += n
			b.MCPs++
		} else {
			b.BuiltinTools += n
			b.Builtins++
		}
	}
	p := a.planCompaction(history, CompactManual, 0)
	cut := p.cut
	old := 0
	for i, m := range history {
		n := EstimateMessage(m)
		if m.Role == RoleTool {
			b.ToolResults += n
			b.ResultCount++
		} else {
			b.Messages += n
			b.MessageCount++
		}
		if i < cut {
			old += n
		}
	}
	if cut > 0 {
		limit := p.limit
		head := a.summaryHead(strings.Repeat("x", p.ask/2*bytesPerToken), history, cut, CompactManual, limit)
		b.Compactable = old - EstimateMessages(head)
		b.CompactMessages, b.CompactTokens, b.SummaryTokens = cut, old, p.ask
	}
	return b
}

// messageShare is the part of the window the results of one assistant
// message may take together: however many calls run in parallel, their
// results leave the other half for the rest of the conversation.
const messageShare = 2

// toolResultsBudget is the bound on the results of one assistant message
// together (see fitToolResults): Config.ToolResultsBudget when set, else
// half the window (at four bytes a token), never more than
// DefaultToolResultsBudget, which also stands when the window is unknown.
func (a *Agent) toolResultsBudget() int {
	if a.cfg.ToolResultsBudget > 0 {
		return a.cfg.ToolResultsBudget
	}
	w := a.ContextWindow()
	if w <= 0 {
		return DefaultToolResultsBudget
	}
	return min(DefaultToolResultsBudget, max(4*minResultBudget, w/messageShare*bytesPerToken))
}
