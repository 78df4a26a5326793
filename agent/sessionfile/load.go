package sessionfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"covey/agent"
)

// Loaded is a session read back from its file.
type Loaded struct {
	Header Header
	// Model is the model in use at the end: the header's, or the last
	// SetModel's.
	Model string
	// Wire is Model with the wire it was spoken to in and where, as the
	// header or the last SetWire recorded them (API and BaseURL empty in
	// older files and after a SetModel).
	Wire Wire
	// Messages is the history after the last clear, repaired so that every
	// tool call has its result (InterruptedResult where the process died
	// first): ready for agent.Agent.SetHistory.
	Messages []agent.Message
	// Replay is every message and event after the last clear, in file
	// order, for the TUI to rebuild the transcript (user messages are not
	// events, so it needs both). If the writer died mid-turn it ends with
	// finishing events (ToolFinished, ChildFinished, Done, all marked
	// interrupted) and the repaired tool results, so no block is left
	// running.
	Replay []Record
	// Children are the subagents of the session after the last clear, in
	// the order they started, with their histories: a finished one can be
	// resumed. One still running when the writer died is Interrupted.
	Children []Child
	// Warnings describe lines that were skipped or repaired.
	Warnings []string
	// Checkpoints are the points before the user's turns in effect, oldest
	// first (a /clear does not hide them: /rewind can go back past it);
	// Rewinds every /rewind of the file, the branches redo goes to.
	Checkpoints []Checkpoint
	Rewinds     []Rewind
	// Timeline is every turn's and rewind's start and end in the order
	// they happened, on every branch: what tells covey's changes to the
	// files from the user's.
	Timeline []Mark

	// fix is the repaired end, in order, which Open appends to the file.
	fix []Record
	// lostResults counts damaged lines that held a tool result, so
	// repair answers their calls as lost, not interrupted.
	lostResults int
	// placeholders counts the messages alternate put in the history
	// (they are not in the replay).
	placeholders int
	// userAt is the time of the last checkpoint line, which the user
	// message after it takes.
	userAt time.Time
}

// Events returns the replay as events alone, for a consumer that only
// takes events (the TUI): each user message becomes an agent.UserMessage of
// the main agent where it was sent, and the other messages, whose content
// the events already carry, are left out. So is the user-role message that
// delivered background children's outcomes: their BackgroundResult events
// just before it show them, as they did live.
func (l *Loaded) Events() []agent.Event {
	out := make([]agent.Event, 0, len(l.Replay))
	l.eachEvent(func(e agent.Event, _ time.Time) { out = append(out, e) })
	return out
}

// Timed is one event of a session's replay and when it happened (zero
// when the file does not say: text, and files from before events were
// timed).
type Timed struct {
	Event agent.Event
	At    time.Time
}

// TimedEvents is Events with each event's time, for covey replay.
func (l *Loaded) TimedEvents() []Timed {
	out := make([]Timed, 0, len(l.Replay))
	l.eachEvent(func(e agent.Event, at time.Time) { out = append(out, Timed{Event: e, At: at}) })
	return out
}

// eachEvent calls f with each event of Events in order, and its time.
func (l *Loaded) eachEvent(f func(agent.Event, time.Time)) {
	delivering := false // BackgroundResult events came; their message follows
	for _, rec := range l.Replay {
		switch {
		case rec.Event != nil:
			if _, ok := rec.Event.(agent.BackgroundResult); ok {
				delivering = true
			}
			f(rec.Event, rec.At)
		case rec.Message.Role == agent.RoleUser:
			if delivering && strings.HasPrefix(rec.Message.Content, backgroundNoticePrefix) {
				delivering = false
				continue
			}
			delivering = false
			f(agent.UserMessage{Source: agent.Source{AgentID: agent.MainAgentID}, Text: rec.Message.Content}, rec.At)
		}
	}
}

// backgroundNoticePrefix starts the message that delivers background
// children's outcomes (subagent.NoticeText).
const backgroundNoticePrefix = "[background agent "

// Child is one subagent as the session file kept it.
type Child struct {
	Source agent.Source
	Model  string
	// Messages is its history, repaired like the main one.
	Messages []agent.Message
	// Reason is its last ChildFinished's reason ("" if none was written).
	Reason      string
	Interrupted bool
	// Usage and Elapsed are its last ChildFinished's: its lifetime tokens
	// and working time, so a resumed child goes on counting (and against
	// its budget) from there.
	Usage   agent.Usage
	Elapsed time.Duration
	// Isolated is set when it worked in its own git worktree, so a resumed
	// child works in one again.
	Isolated bool
}

// child returns the entry of AgentID id, adding one for src if new.
func (l *Loaded) child(src agent.Source) *Child {
	for i := range l.Children {
		if l.Children[i].Source.AgentID == src.AgentID {
			return &l.Children[i]
		}
	}
	l.Children = append(l.Children, Child{Source: src})
	return &l.Children[len(l.Children)-1]
}

// noteChild keeps what an event says about a child.
func (l *Loaded) noteChild(e agent.Event) {
	switch ev := e.(type) {
	case agent.ChildStarted:
		c := l.child(ev.Source)
		c.Source, c.Model, c.Isolated = ev.Source, ev.Model, ev.Worktree != nil
	case agent.ChildFinished:
		c := l.child(ev.Source)
		c.Reason, c.Interrupted = ev.Reason, ev.Error == interruptedReason
		c.Usage, c.Elapsed = ev.Usage, ev.Elapsed
	case agent.ChildState:
		if ev.State == agent.StateRunning {
			l.child(ev.Source).Reason = "" // resumed: running again
		}
	}
}

// noteCompaction replaces the history of the agent that compacted by what
// its agent had after: the summary, then the messages it kept.
func (l *Loaded) noteCompaction(c agent.Compacted) {
	if !c.IsChild() {
		l.Messages = compacted(l.Messages, c)
		return
	}
	ch := l.child(c.Source)
	ch.Messages = compacted(ch.Messages, c)
}

// compacted is h after compaction c.
func compacted(h []agent.Message, c agent.Compacted) []agent.Message {
	kept := min(max(c.Kept, 0), len(h))
	out := make([]agent.Message, 0, len(c.Messages)+kept)
	out = append(out, c.Messages...)
	return append(out, h[len(h)-kept:]...)
}

// Record is one replayable line: exactly one of Message and Event is set.
type Record struct {
	// childSrc is set on a child's message while reading.
	childSrc agent.Source
	Message  *agent.Message
	// Event is decoded to its concrete type (see DecodeEvent), a value as
	// the agent emits it, ready to feed to the TUI.
	Event agent.Event
	// At is when the event was recorded, or when the user sent a user
	// message (the time of the checkpoint before it); zero for other
	// messages, text deltas and lines of files written before events
	// were timed.
	At time.Time
}

// line is the generic form of every line but the header.
type line struct {
	Type    string          `json:"type"`
	Message *agent.Message  `json:"message"`
	Event   json.RawMessage `json:"event"`
	Model   string          `json:"model"`
	API     string          `json:"api"`
	BaseURL string          `json:"base_url"`
	Agent   *agent.Source   `json:"agent"`
	At      int64           `json:"at"`
}

var (
	prefixMessage = []byte(`{"type":"message","message":`)
	prefixEvent   = []byte(`{"type":"event","event":`)
)

// Read parses a session file. Lines that do not parse (a torn last line, a
// line spliced by a crash) are skipped with a warning; only a missing or
// foreign header is an error.
func Read(r io.Reader) (*Loaded, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	return parse(data)
}

// readSized reads all of r, which holds about size bytes, in one buffer
// (io.ReadAll would grow and copy it a dozen times for a large session).
func readSized(r io.Reader, size int64) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, max(size, 0)+bytes.MinRead))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// parse reads a session file's bytes (see Read).
func parse(data []byte) (*Loaded, error) {
	l := &Loaded{Timeline: timeline(data)}
	if bytes.Contains(data, rewindMark) {
		data, l.Rewinds = splice(data)
	}
	n := 0
	header := false
	for len(data) > 0 {
		n++
		raw, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if !header {
			if err := l.readHeader(raw); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			header = true
			continue
		}
		rec, typ, wire, err := parseLine(raw)
		if err != nil {
			l.lost(n, raw, complete, err)
			continue
		}
		switch typ {
		case typeMessage, typeEvent:
			if rec.Message != nil && rec.Message.Role == agent.RoleUser && !l.userAt.IsZero() {
				rec.At, l.userAt = l.userAt, time.Time{}
			}
			l.Replay = append(l.Replay, rec)
			if rec.Message != nil {
				l.Messages = append(l.Messages, *rec.Message)
			}
		case typeModel:
			l.Model, l.Wire = wire.Model, wire
		case typeClear:
			l.Messages, l.Replay, l.Children = nil, nil, nil
		case typeCheckpoint, typeTurnEnd:
			l.noteRewindLine(typ, raw)
		case typeChildMessage:
			c := l.child(rec.childSrc)
			c.Messages = append(c.Messages, *rec.Message)
			continue
		}
		if rec.Event != nil {
			l.noteChild(rec.Event)
			if c, ok := rec.Event.(agent.Compacted); ok && c.Error == "" {
				l.noteCompaction(c)
			}
		}
	}
	if !header {
		return nil, errors.New("empty file: not a covey session")
	}
	l.repair()
	return l, nil
}

func (l *Loaded) readHeader(raw []byte) error {
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil || h.Type != typeSession {
		return errors.New("no session header: not a covey session file")
	}
	if h.Version < 1 || h.Version > Version {
		return fmt.Errorf("session format version %d is not supported (this covey reads version %d)", h.Version, Version)
	}
	l.Header, l.Model = h, h.Model
	l.Wire = Wire{Model: h.Model, API: h.API, BaseURL: h.BaseURL}
	return nil
}

// parseLine decodes one line. Lines this package wrote are sliced by their
// known prefix so each is parsed once; anything else takes the generic way.
func parseLine(raw []byte) (rec Record, typ string, wire Wire, err error) {
	untimed, at := cutTime(raw)
	if body, ok := cutWrapped(untimed, prefixEvent); ok {
		if e, err := DecodeEvent(body); err == nil {
			return Record{Event: e, At: at}, typeEvent, Wire{}, nil
		}
	}
	if body, ok := cutWrapped(raw, prefixMessage); ok {
		if m, err := decodeMessage(body); err == nil && validRole(m.Role) {
			return Record{Message: &m}, typeMessage, Wire{}, nil
		}
	}
	var ln line
	if err := json.Unmarshal(raw, &ln); err != nil {
		return Record{}, "", Wire{}, err
	}
	switch ln.Type {
	case typeMessage:
		if ln.Message == nil {
			return Record{}, "", Wire{}, errors.New("message line without a message")
		}
		if !validRole(ln.Message.Role) {
			return Record{}, "", Wire{}, fmt.Errorf("message with unknown role %q", ln.Message.Role)
		}
		return Record{Message: ln.Message}, typeMessage, Wire{}, nil
	case typeEvent:
		e, err := DecodeEvent(ln.Event)
		if err != nil {
			return Record{}, "", Wire{}, err
		}
		rec := Record{Event: e}
		if ln.At > 0 {
			rec.At = time.UnixMilli(ln.At)
		}
		return rec, typeEvent, Wire{}, nil
	case typeChildMessage:
		if ln.Message == nil || ln.Agent == nil || ln.Agent.AgentID == "" || !validRole(ln.Message.Role) {
			return Record{}, "", Wire{}, errors.New("child message line without a valid agent and message")
		}
		return Record{Message: ln.Message, childSrc: *ln.Agent}, typeChildMessage, Wire{}, nil
	}
	return Record{}, ln.Type, Wire{Model: ln.Model, API: ln.API, BaseURL: ln.BaseURL}, nil
}

// cutTime takes the time withTime put at the end of an event line: raw
// without it (ending in "}"), and the time; raw itself and a zero time
// for a line without one.
func cutTime(raw []byte) ([]byte, time.Time) {
	const key = `,"at":`
	if len(raw) < len(key)+2 || raw[len(raw)-1] != '}' {
		return raw, time.Time{}
	}
	i := len(raw) - 2
	for i >= 0 && raw[i] >= '0' && raw[i] <= '9' {
		i--
	}
	start := i + 1 - len(key)
	if i == len(raw)-2 || start < 0 || string(raw[start:i+1]) != key {
		return raw, time.Time{}
	}
	ms, err := strconv.ParseInt(string(raw[i+1:len(raw)-1]), 10, 64)
	if err != nil {
		return raw, time.Time{}
	}
	out := make([]byte, 0, start+1)
	out = append(out, raw[:start]...)
	return append(out, '}'), time.UnixMilli(ms)
}

// cutWrapped returns the value in prefix<value>} when raw has that shape.
func cutWrapped(raw, prefix []byte) ([]byte, bool) {
	if len(raw) <= len(prefix)+2 || !bytes.HasPrefix(raw, prefix) || raw[len(prefix)] != '{' || raw[len(raw)-1] != '}' {
		return nil, false
	}
	return raw[len(prefix) : len(raw)-1], true
}

func validRole(r string) bool {
	switch r {
	case agent.RoleUser, agent.RoleAssistant, agent.RoleTool, agent.RoleSystem:
		return true
	}
	return false
}

func (l *Loaded) warnf(format string, a ...any) {
	l.Warnings = append(l.Warnings, fmt.Sprintf(format, a...))
}
