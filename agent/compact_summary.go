package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SummaryPrompt is the system prompt of a summary request. It names what a
// summary must keep, so a session goes on after it as if nothing was lost.
const SummaryPrompt = `You are a conversation summariser for covey, a coding agent. You read part of a coding session between a user and a coding agent (with its tool calls and results) and write a summary that lets the agent continue the work without the original messages.

Keep, under these headings, everything that still matters:
## Goals and constraints: what the user wants, every constraint and preference they stated (quote them).
## Decisions: what was decided and why.
## Files: paths read, and paths changed (with what changed).
## Todos: what is still open, in order.
## Errors: errors met and how they were resolved (or not).
## Pending: approvals or answers still awaited.
## Crew: every subagent started (name, id, type), what it was asked, what it reported, and what is still running.
## Facts: specific facts, names, numbers and identifiers the user or tools gave that later work may need.
## Current state: where the work stands and the next step.

Write plainly and densely. Do not invent anything. Do not call tools.`

// summaryJob is what one compaction asks of the summariser.
type summaryJob struct {
	focus, extra string
	// limit is the window (or its stand-in) every summary request must fit.
	limit int
	// words bounds the summary's length.
	words int
}

// summaryOutcome is the summary and what it took.
type summaryOutcome struct {
	text           string
	pruned, pieces int
}

// maxSummaryAttempts bounds the retries of a summary request the server
// found too long (each halves the budget).
const maxSummaryAttempts = 3

// summarise asks the model to summarise msgs. Old tool results are pruned
// to one-line stubs until the request fits; a history still too long is
// summarised in pieces, each carrying the summary so far. A request the
// server refuses as too long is made again with half the budget.
func (a *Agent) summarise(ctx context.Context, msgs []Message, job summaryJob) (summaryOutcome, error) {
	entries := renderEntries(msgs)
	// Room for the transcript: the limit less the system prompt, the
	// instructions, the summary so far and the answer.
	budget := job.limit - EstimateTokens(SummaryPrompt) - EstimateTokens(job.focus+job.extra) - 2*job.words*4/3 - 200
	var lastErr error
	for attempt := 0; attempt < maxSummaryAttempts; attempt++ {
		if budget < 256 {
			budget = 256
		}
		out, err := a.summariseWithin(ctx, entries, job, budget)
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, ErrContextLength) {
			return summaryOutcome{}, err
		}
		lastErr = err
		budget /= 2
	}
	return summaryOutcome{}, lastErr
}

// summariseWithin prunes and splits entries to budget tokens per request.
func (a *Agent) summariseWithin(ctx context.Context, entries []entry, job summaryJob, budget int) (summaryOutcome, error) {
	es := append([]entry(nil), entries...)
	total := 0
	for _, e := range es {
		total += e.tokens()
	}
	var out summaryOutcome
	// Oldest tool results first: the newest are the likeliest to matter.
	for i := range es {
		if total <= budget {
			break
		}
		if es[i].stub == "" || es[i].pruned {
			continue
		}
		total -= es[i].tokens()
		es[i].pruned = true
		total += es[i].tokens()
		out.pruned++
	}
	// An entry larger than a piece is cut in the middle.
	for i := range es {
		if es[i].tokens() > budget {
			es[i].text = cutMiddle(es[i].text, budget*bytesPerToken*3/4)
		}
	}
	var pieces [][]entry
	var cur []entry
	size := 0
	for _, e := range es {
		if size+e.tokens() > budget && len(cur) > 0 {
			pieces = append(pieces, cur)
			cur, size = nil, 0
		}
		cur = append(cur, e)
		size += e.tokens()
	}
	if len(cur) > 0 {
		pieces = append(pieces, cur)
	}
	summary := ""
	for i, p := range pieces {
		s, err := a.summaryRequest(ctx, summaryInput(job, summary, p, i, len(pieces)))
		if err != nil {
			return summaryOutcome{}, err
		}
		summary = s
		out.pieces++
	}
	out.text = summary
	return out, nil
}

// summaryInput is the user message of one summary request.
func summaryInput(job summaryJob, sofar string, piece []entry, i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Summarise the conversation below in at most about %d words.", job.words)
	if job.focus != "" {
		fmt.Fprintf(&b, "\nThe user asks the summary to focus on: %s", job.focus)
	}
	if job.extra != "" {
		fmt.Fprintf(&b, "\n%s", job.extra)
	}
	if sofar != "" {
		fmt.Fprintf(&b, "\n\nThis is part %d of %d. The summary of the earlier parts, to merge into yours (keep everything it holds that still matters):\n<summary>\n%s\n</summary>", i+1, n, sofar)
	}
	b.WriteString("\n\n<conversation>\n")
	for _, e := range piece {
		b.WriteString(e.String())
		b.WriteString("\n")
	}
	b.WriteString("</conversation>")
	return b.String()
}

// summaryRequest makes one summary request and returns its text. Its
// tokens count as the agent's; its text is not streamed to the user.
func (a *Agent) summaryRequest(ctx context.Context, input string) (string, error) {
	req := Request{Model: a.Model(), Messages: []Message{
		{Role: RoleSystem, Content: SummaryPrompt},
		{Role: RoleUser, Content: input},
	}}
	if a.cfg.CacheKey != "" {
		// Its prefix is the summary prompt's, not the conversation's.
		req.CacheKey = a.cfg.CacheKey + "/summary"
	}
	comp, err := a.askSummary(ctx, req)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(comp.Message.Content)
	if text == "" {
		return "", errors.New("the model wrote an empty summary")
	}
	return text, nil
}

// askSummary sends a summary request; its tokens count as the agent's,
// its text is not streamed to the user, and its retries are told.
func (a *Agent) askSummary(ctx context.Context, req Request) (Completion, error) {
	src := a.cfg.Source
	comp, err := a.provider().Stream(ctx, req, StreamHandler{Retry: func(attempt int, wait time.Duration, reason string) {
		a.emit(Retrying{Source: src, Attempt: attempt, Wait: wait, Reason: "summary: " + reason})
	}})
	if comp.Usage != (Usage{}) {
		a.addUsage(comp.Usage)
		a.emit(UsageReported{Source: src, Usage: comp.Usage})
	}
	return comp, err
}

// prefixCacher is a Provider whose requests mark what the server caches
// (Anthropic's cache_control breakpoints), so a summary asked after the
// conversation itself, rather than of a transcript of it, reads the
// conversation from the cache.
type prefixCacher interface{ marksCachePrefix() }

// summariseOnPrefix asks for the summary of hist[:cut] after the
// conversation as the agent's turns send it (its system prompt, tools and
// messages, byte for byte), with the summary's instructions as the last
// user message: on a wire with cache breakpoints the whole conversation
// is read from the cache rather than sent afresh as a transcript. asked
// is false when it does not apply (another wire, a conversation that
// would not fit beside the summary, the server finding it too long, an
// answer without text): then the summary is asked of a transcript
// (summarise).
func (a *Agent) summariseOnPrefix(ctx context.Context, hist []Message, cut int, job summaryJob) (out summaryOutcome, asked bool, err error) {
	if _, ok := a.provider().(prefixCacher); !ok {
		return summaryOutcome{}, false, nil
	}
	question := prefixSummaryInput(job, hist, cut)
	if a.estimateRequest()+EstimateTokens(question)+2*job.words*4/3 > job.limit {
		return summaryOutcome{}, false, nil
	}
	req, n := a.requestMark()
	if n != len(hist) {
		return summaryOutcome{}, false, nil // the conversation moved on
	}
	req.Messages = append(req.Messages, Message{Role: RoleUser, Content: question})
	req.ReusePrefix = true
	comp, err := a.askSummary(ctx, req)
	switch {
	case errors.Is(err, ErrContextLength):
		return summaryOutcome{}, false, nil
	case err != nil:
		return summaryOutcome{}, true, err
	}
	text := strings.TrimSpace(comp.Message.Content)
	if text == "" {
		return summaryOutcome{}, false, nil // it called a tool, or wrote nothing
	}
	return summaryOutcome{text: text, pieces: 1}, true, nil
}

// prefixSummaryInput is the last user message of a summary asked after the
// conversation itself: the summariser's instructions, and where the part
// kept verbatim begins.
func prefixSummaryInput(job summaryJob, hist []Message, cut int) string {
	var b strings.Builder
	b.WriteString("Stop here: call no tool and do not go on with the task. The conversation above is about to be compacted: write its summary, which will replace it.\n\n")
	b.WriteString(strings.TrimPrefix(SummaryPrompt, "You are a conversation summariser for covey, a coding agent. You read part of a coding session between a user and a coding agent (with its tool calls and results) and write a summary that lets the agent continue the work without the original messages.\n\n"))
	fmt.Fprintf(&b, "\n\nSummarise in at most about %d words.", job.words)
	if kept := len(hist) - cut; kept > 0 {
		fmt.Fprintf(&b, " The last %d messages of the conversation (from %s) stay verbatim after the summary: summarise only what comes before them.", kept, messageStart(hist[cut]))
	}
	if job.focus != "" {
		fmt.Fprintf(&b, "\nThe user asks the summary to focus on: %s", job.focus)
	}
	if job.extra != "" {
		fmt.Fprintf(&b, "\n%s", job.extra)
	}
	return b.String()
}

// messageStart names a message by its role and first words, for the
// summariser to find it.
func messageStart(m Message) string {
	who := "the user's message"
	switch m.Role {
	case RoleAssistant:
		who = "your answer"
	case RoleTool:
		who = "the result of " + m.Name
	}
	return fmt.Sprintf("%s beginning %q", who, excerptWords(m.Content, 12))
}

// excerptWords is the first n words of s.
func excerptWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = append(f[:n], "…")
	}
	return strings.Join(f, " ")
}

// entry is one message of a summarised history, as text.
type entry struct {
	text string
	// stub replaces a tool result's text once pruned ("" for messages that
	// are never pruned).
	stub   string
	pruned bool
}

func (e entry) String() string {
	if e.pruned {
		return e.stub
	}
	return e.text
}

func (e entry) tokens() int { return EstimateTokens(e.String()) + 4 }

// renderEntries turns messages into transcript entries: each tool result
// names its call, so a pruned one can say what it was.
func renderEntries(msgs []Message) []entry {
	calls := map[string]ToolCall{}
	out := make([]entry, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			out = append(out, entry{text: "USER: " + m.Content})
		case RoleAssistant:
			var b strings.Builder
			b.WriteString("ASSISTANT: ")
			b.WriteString(strings.TrimSpace(m.Content))
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
				fmt.Fprintf(&b, "\n  -> %s %s", c.Name, c.Arguments)
			}
			out = append(out, entry{text: b.String()})
		case RoleTool:
			c, ok := calls[m.ToolCallID]
			name, args := m.Name, ""
			if ok {
				name, args = c.Name, c.Arguments
			}
			label := strings.TrimSpace(name + " " + cutMiddle(oneLine(args), 200))
			out = append(out, entry{
				text: fmt.Sprintf("RESULT of %s:\n%s", label, m.Content),
				stub: fmt.Sprintf("RESULT of %s: [pruned to fit the summary: %s dropped]", label, byteSize(len(m.Content))),
			})
		}
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
