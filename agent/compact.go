package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Compaction: when the conversation nears the model's context window (or a
// server says it is over), the older part of the history is summarised by
// the model and replaced by that summary, while the last user turns and the
// most recent tool results stay verbatim. covey's own records of the crew
// (CrewNote) are added to the summary as they are, so a child's name and id
// survive whatever the model chose to keep.

// Triggers of a compaction (Compacted.Trigger).
const (
	// CompactAuto: the next request would pass Config.AutoCompact of the window.
	CompactAuto = "auto"
	// CompactManual: the user asked (/compact).
	CompactManual = "manual"
	// CompactOverflow: the server answered that the request is over the window.
	CompactOverflow = "overflow"
)

// DefaultAutoCompact is the share of the window past which a request is
// compacted first (config auto_compact).
const DefaultAutoCompact = 0.85

// CompactedMarker starts the user-role message that carries a summary.
const CompactedMarker = "[covey: the conversation so far was compacted to fit the model's context window; this summary replaces the earlier messages]"

// ErrNothingToCompact is returned by Compact when no message could be
// summarised (an empty conversation, or one the kept tail already holds).
var ErrNothingToCompact = errors.New("nothing to compact yet")

// Compacted reports a compaction of an agent's history. The session file
// keeps it: loading replaces the history before it by Messages followed by
// the last Kept messages it had.
type Compacted struct {
	Source
	// Trigger is CompactAuto, CompactManual or CompactOverflow.
	Trigger string `json:"trigger"`
	// Focus is what the user asked the summary to dwell on (/compact FOCUS).
	Focus string `json:"focus,omitempty"`
	// TokensBefore and TokensAfter estimate the next request before and
	// after.
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	// Summary is the summary the model wrote, with covey's crew record.
	Summary string `json:"summary"`
	// Messages replace the summarised part of the history: the summary as
	// a user-role message (and a short assistant acknowledgement when a
	// user message follows).
	Messages []Message `json:"messages"`
	// Kept is how many messages at the end of the earlier history stay
	// verbatim after Messages; Summarised how many the summary replaced.
	Kept       int `json:"kept"`
	Summarised int `json:"summarised"`
	// Pruned is how many old tool results the summary request carried as
	// one-line stubs; Pieces how many summary requests it took.
	Pruned int `json:"pruned,omitempty"`
	Pieces int `json:"pieces,omitempty"`
	// Error says why the compaction failed; the history is then as it
	// was (Messages is empty and nothing was replaced).
	Error string `json:"error,omitempty"`
}

// Kind implements Event.
func (Compacted) Kind() string { return "compaction" }

// Compacting reports a compaction starting: the summary is being written.
// A Compacted event always follows (with Error when it failed).
type Compacting struct {
	Source
	Trigger      string `json:"trigger"`
	TokensBefore int    `json:"tokens_before"`
}

// Kind implements Event.
func (Compacting) Kind() string { return "compacting" }

// Compact summarises the conversation now, as /compact does; focus (may be
// empty) tells the summary what to dwell on. It fails with ErrBusy while a
// turn runs and with ErrNothingToCompact when there is nothing to
// summarise.
func (a *Agent) Compact(ctx context.Context, focus string) (Compacted, error) {
	if err := a.begin(); err != nil {
		return Compacted{}, err
	}
	defer a.end()
	return a.compact(ctx, CompactManual, strings.TrimSpace(focus), 0)
}

// Compaction sizes, as shares of the limit the compaction works against.
const (
	// tailShare bounds the request right after a compaction: system
	// prompt, tools, summary and the verbatim tail.
	tailShare = 0.45
	// keepTurns is how many of the last user turns may stay verbatim.
	keepTurns = 2
	// minSummaryTokens and maxSummaryTokens bound the summary asked for.
	minSummaryTokens = 400
	maxSummaryTokens = 4096
	// latestShare bounds the user's latest request copied verbatim into
	// the summary message when it is not in the tail.
	latestShare = 0.15
	// minLimit is the smallest limit assumed when nothing better is known.
	minLimit = 4096
	// historyTailShare is the most of the history /compact keeps verbatim
	// (and any compaction without a known window).
	historyTailShare = 0.3
)

// compact replaces the older history by a summary. overflowAt is the
// estimated size of a request the server refused as too long (0 for the
// other triggers).
func (a *Agent) compact(ctx context.Context, trigger, focus string, overflowAt int) (Compacted, error) {
	hist := a.History()
	p := a.planCompaction(hist, trigger, overflowAt)
	limit, cut := p.limit, p.cut
	if cut == 0 {
		return Compacted{}, ErrNothingToCompact
	}
	// Before is the fill the gauge and /context show. The server's count
	// in it holds more than covey's estimate of the same request (the
	// request's JSON, the chat template): that excess is mostly the part a
	// compaction leaves alone (system prompt, tools), so after is the
	// estimate of the new request plus the same excess, and what the
	// compaction says it freed is what the summary replaced, like with
	// like.
	before, excess := a.fillAndExcess()
	a.emit(Compacting{Source: a.cfg.Source, Trigger: trigger, TokensBefore: before})
	// From here every way out says how it ended, so a consumer that showed
	// the compaction starting sees it end.
	failed := func(err error) (Compacted, error) {
		why := err.Error()
		if isCancel(ctx, err) {
			why = CancelledResult
		}
		a.emit(Compacted{Source: a.cfg.Source, Trigger: trigger, Focus: focus, TokensBefore: before, TokensAfter: before, Error: why})
		return Compacted{}, err
	}
	var extra string
	if a.cfg.BeforeCompact != nil {
		var err error
		if extra, err = a.cfg.BeforeCompact(ctx, trigger, focus); err != nil {
			return failed(fmt.Errorf("before compacting: %w", err))
		}
	}
	job := summaryJob{focus: focus, extra: extra, limit: limit, words: p.ask * 3 / 4}
	s, asked, err := a.summariseOnPrefix(ctx, hist, cut, job)
	if !asked {
		s, err = a.summarise(ctx, hist[:cut], job)
	}
	if err != nil {
		return failed(fmt.Errorf("compact: %w", err))
	}
	head := a.summaryHead(s.text, hist, cut, trigger, limit)
	a.mu.Lock()
	if len(a.history) != len(hist) {
		a.mu.Unlock()
		return failed(errors.New("compact: the conversation changed while it was summarised"))
	}
	a.history = append(head, hist[cut:]...)
	a.compacted = len(a.history)
	after := max(a.estimateRequestLocked()+excess, 0)
	a.counted = promptCount{}
	if excess != 0 {
		// The gauge goes on from the figure the divider shows, until the
		// server counts the next request.
		a.counted = promptCount{tokens: after, mark: len(a.history)}
	}
	a.mu.Unlock()
	ev := Compacted{Source: a.cfg.Source, Trigger: trigger, Focus: focus, TokensBefore: before, TokensAfter: after,
		Summary: head[0].Content, Messages: head, Kept: len(hist) - cut, Summarised: cut, Pruned: s.pruned, Pieces: s.pieces}
	a.emit(ev)
	a.cfg.Emit(a.contextReport()) // the gauge drops at once
	return ev, nil
}

// fillAndExcess returns the next request's fill as the gauge shows it and
// how much it exceeds covey's own estimate of that request (0 when no
// server counted it).
func (a *Agent) fillAndExcess() (fill, excess int) {
	fill, _ = a.ContextFill()
	return fill, fill - a.estimateRequest()
}

// summaryHead is what replaces hist[:cut]: the summary message and, when a
// user message would follow it, an acknowledgement between.
func (a *Agent) summaryHead(summary string, hist []Message, cut int, trigger string, limit int) []Message {
	body := a.summaryMessage(summary, hist, cut, int(float64(limit)*latestShare))
	head := []Message{{Role: RoleUser, Content: body}}
	// Two user messages in a row upset some servers: a user message after
	// the summary (the tail's, or the next prompt after /compact) gets an
	// acknowledgement between. Mid-turn with nothing kept, the summary is
	// the last message and the model answers it.
	if (cut < len(hist) && hist[cut].Role == RoleUser) || (cut == len(hist) && trigger == CompactManual) {
		head = append(head, Message{Role: RoleAssistant, Content: "Understood: I have the summary and will go on from it."})
	}
	return head
}

// compactionPlan is what a compaction of a history would do: the limit it
// works against, the summary's size it makes room for, where the verbatim
// tail starts (0: nothing to compact), and the summary's length asked for
// (at most summaryTokens, and a quarter of what it replaces: a short
// conversation gets a short summary, or compacting it would free
// nothing).
type compactionPlan struct {
	limit, summaryTokens, cut, ask int
}

// minSummaryAsk is the shortest summary asked for, in tokens.
const minSummaryAsk = 100

// planCompaction plans a compaction of hist; compact follows it, and
// ContextBreakdown estimates from it what /compact would free, so the two
// never disagree.
func (a *Agent) planCompaction(hist []Message, trigger string, overflowAt int) compactionPlan {
	before := a.estimateFill()
	limit := a.compactLimit(before, overflowAt)
	fixed := a.fixedTokens()
	summaryTokens := min(max(limit/8, minSummaryTokens), maxSummaryTokens)
	tail := int(float64(limit)*tailShare) - fixed - summaryTokens
	share := int(float64(before-fixed) * historyTailShare)
	switch {
	case a.ContextWindow() == 0 && overflowAt == 0:
		// No window to measure against (/compact on an unknown model):
		// the tail keeps a share of what the history holds now.
		tail = share
	case trigger == CompactManual:
		// Asked for, a compaction frees room even when the window is far.
		tail = min(tail, share)
	}
	cut := tailStart(hist, tail)
	ask := min(summaryTokens, max(EstimateMessages(hist[:cut])/4, minSummaryAsk))
	return compactionPlan{limit: limit, summaryTokens: summaryTokens, cut: cut, ask: ask}
}

// compactLimit is the size the compaction works against: the window when
// it is known and not shown wrong by an overflow, else the refused
// request's size, else the current fill.
func (a *Agent) compactLimit(fill, overflowAt int) int {
	w := a.ContextWindow()
	switch {
	case overflowAt > 0 && (w == 0 || w >= overflowAt):
		return max(overflowAt*9/10, minLimit)
	case w > 0:
		return a.inputRoom(w)
	}
	return max(fill, minLimit)
}

// tailStart returns where the verbatim tail begins: the earliest message
// such that the tail fits budget tokens, holds at most keepTurns user
// messages and starts with a user or assistant message (never a tool
// result without its call). It is at least 1 (the first message is always
// summarised), and 0 only for an empty history.
func tailStart(h []Message, budget int) int {
	if len(h) == 0 {
		return 0
	}
	// A tail that starts with a user message keeps whole turns; one that
	// starts with an answer or a call is taken only when no whole turn
	// fits (a long turn under way).
	best, bestTurn, size, users := len(h), 0, 0, 0
	for i := len(h) - 1; i >= 1; i-- {
		size += EstimateMessage(h[i])
		if h[i].Role == RoleUser {
			users++
		}
		if size > budget || users > keepTurns {
			break
		}
		switch h[i].Role {
		case RoleUser:
			best, bestTurn = i, i
		case RoleAssistant:
			if bestTurn == 0 {
				best = i
			}
		}
	}
	return best
}

// maybeCompact compacts before a request that would pass the threshold of
// a known window. It returns an error only when the request would still be
// over the window (or is, with compaction off): such a request is never
// sent.
func (a *Agent) maybeCompact(ctx context.Context) error {
	w := a.ContextWindow()
	th := a.cfg.AutoCompact
	if w <= 0 {
		return nil
	}
	w = a.inputRoom(w) // the answer needs its room too
	fill := a.estimateFill()
	if th <= 0 {
		if fill > w {
			return fmt.Errorf("%w: the next request needs about %d tokens of a %d-token window; automatic compaction is off (auto_compact: false): /compact or /clear", ErrContextLength, fill, w)
		}
		return nil
	}
	if float64(fill) < th*float64(w) {
		return nil
	}
	var err error
	if a.newSinceCompaction() {
		_, err = a.compact(ctx, CompactAuto, "", 0)
	}
	if err != nil && isCancel(ctx, err) {
		return err
	}
	if after := a.estimateFill(); after > w {
		if err == nil {
			err = fmt.Errorf("%d tokens are left after compacting", after)
		}
		return fmt.Errorf("%w: the next request needs about %d tokens of a %d-token window and could not be compacted (%w)", ErrContextLength, after, w, err)
	}
	return nil
}

// newSinceCompaction reports whether messages entered the history since
// the last compaction (a summary of a summary alone frees nothing).
func (a *Agent) newSinceCompaction() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.compacted == 0 || len(a.history) != a.compacted || !strings.HasPrefix(a.history[0].Content, CompactedMarker)
}

// summaryMessage builds the user-role message that replaces the history
// before cut: the model's summary, covey's crew record, and the user's
// latest request verbatim when the tail does not hold it.
func (a *Agent) summaryMessage(summary string, h []Message, cut, latestTokens int) string {
	var b strings.Builder
	b.WriteString(CompactedMarker)
	b.WriteString("\n\n")
	b.WriteString(strings.TrimSpace(summary))
	if a.cfg.CrewNote != nil {
		if crew := strings.TrimSpace(a.cfg.CrewNote()); crew != "" {
			b.WriteString("\n\n## Crew (covey's own record of your subagents)\n")
			b.WriteString(crew)
		}
	}
	tailHasUser := false
	for _, m := range h[cut:] {
		tailHasUser = tailHasUser || m.Role == RoleUser
	}
	// Only a turn still under way (its last message is not a final
	// answer) needs the request it works on restated.
	last := h[len(h)-1]
	answered := last.Role == RoleAssistant && len(last.ToolCalls) == 0
	if !tailHasUser && !answered {
		for i := cut - 1; i >= 0; i-- {
			if h[i].Role == RoleUser {
				b.WriteString("\n\n## The user's latest message (verbatim)\n")
				b.WriteString(cutMiddle(h[i].Content, latestTokens*bytesPerToken))
				b.WriteString("\n\nGo on with the work it asks for, from where the summary leaves off.")
				break
			}
		}
	}
	return b.String()
}

// cutMiddle keeps the start and end of s within about n bytes, saying how
// much was left out.
func cutMiddle(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	half := n / 2
	return s[:half] + fmt.Sprintf("\n[... %s left out ...]\n", byteSize(len(s)-2*half)) + s[len(s)-half:]
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// recoverOverflow compacts after the server refused a request as over the
// window, when compaction is on, learning the window when the error names
// it. It reports whether the request may be made again, or why the
// compaction failed.
func (a *Agent) recoverOverflow(ctx context.Context, err error) (bool, error) {
	if a.cfg.AutoCompact <= 0 || !errors.Is(err, ErrContextLength) {
		return false, nil
	}
	size := a.estimateFill()
	a.learnWindow(err)
	if _, cerr := a.compact(ctx, CompactOverflow, "", size); cerr != nil {
		return false, cerr
	}
	return true, nil
}

// CompactionNote says in a line what a compaction did, for the user.
func CompactionNote(c Compacted) string {
	if c.Error != "" {
		return "compaction failed: " + c.Error
	}
	sizes := FormatTokens(c.TokensBefore) + " → " + FormatTokens(c.TokensAfter) + " tokens"
	switch c.Trigger {
	case CompactManual:
		return "context compacted: " + sizes
	case CompactOverflow:
		return "request over the model's window: compacted " + sizes + ", sent again"
	}
	return "context compacted near the model's window: " + sizes
}
