package sessionfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"covey/agent"
	"covey/internal/plural"
)

// flushEvery bounds how long an event may wait in memory before it is
// written: a kill -9 loses at most this much of the streaming answer.
const flushEvery = 100 * time.Millisecond

// maxScratch is the largest write buffer kept between flushes; a bigger one
// (a huge tool result) is dropped so one outlier does not pin memory.
const maxScratch = 1 << 20

// retryEvery is how often lines the file refused (a full disk, an I/O
// error) are written again while nothing else is.
const retryEvery = time.Second

// maxPending bounds the lines kept in memory while the file refuses them;
// past it the oldest are dropped (and Close says how many).
const maxPending = 64 << 20

// sink is the session file as the recorder writes it: an interface so
// tests can inject the faults of a real disk (ENOSPC, EIO, short writes).
type sink interface {
	io.Writer
	io.Closer
}

// Recorder appends one session's messages and events to its file. It is
// safe for concurrent use, and a nil *Recorder ignores every call, so a
// caller without sessions need not check. Write errors never reach the
// agent: what the file refused stays in memory, in order, and is written
// again before anything newer (at the next write and every second), so a
// disk that fills and frees again loses nothing. Store.OnError hears when
// writing starts failing and Store.OnRecover when it works again.
type Recorder struct {
	id, path  string
	red       *redactor
	onError   func(error)
	onRecover func()
	// schedule arms the periodic flush; tests replace it to fire by hand.
	schedule func(d time.Duration, f func()) (stop func() bool)
	// maxPending bounds pending (maxPending; tests lower it).
	maxPending int

	mu      sync.Mutex
	f       sink
	closed  bool
	needNL  bool // the file ends mid-line: start the next write with "\n"
	err     error
	items   []item
	open    map[deltaKey]int // index in items of each agent's open delta
	armed   bool
	stop    func() bool
	scratch []byte

	// pending holds what the file refused, oldest first; it starts mid-line
	// when a write was cut short (partial), so writing it completes the
	// line on disk.
	pending []byte
	partial bool
	// failing is the error of the last failed write while pending is not
	// empty; nil once everything is on disk again.
	failing error
	retry   func() bool // stops the retry timer; nil when none is armed
	dropped int         // lines dropped past maxPending, lost for good
	// started (the error) and recovered are news for the callbacks:
	// writing started failing, or works again.
	started   error
	recovered bool
	// now stamps each event line (withTime); tests fix it.
	now func() time.Time
}

// item is one buffered line: an encoded line, or a text/reasoning delta
// still collecting the fragments that follow it.
type item struct {
	line  []byte
	delta bool
	key   deltaKey
	text  []byte
}

// deltaKey names the stream a delta continues: one kind of one agent.
type deltaKey struct {
	kind string
	src  agent.Source
}

func newRecorder(f sink, id, path string, secrets []string, onError func(error), onRecover func()) *Recorder {
	return &Recorder{
		id: id, path: path, f: f, onError: onError, onRecover: onRecover,
		red:        newRedactor(secrets),
		open:       map[deltaKey]int{},
		maxPending: maxPending,
		schedule: func(d time.Duration, fn func()) func() bool {
			return time.AfterFunc(d, fn).Stop
		},
		now: time.Now,
	}
}

// ID returns the session's ID (its file name without ".jsonl").
func (r *Recorder) ID() string {
	if r == nil {
		return ""
	}
	return r.id
}

// Path returns the session file.
func (r *Recorder) Path() string {
	if r == nil {
		return ""
	}
	return r.path
}

// Err returns the first error writing the file, or nil. Lines that a
// later retry wrote after all are not lost: Close reports only what was.
func (r *Recorder) Err() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Message records m, with every event before it, before returning: it suits
// agent.Config.OnMessage, so a crash never loses a message already in the
// history.
func (r *Recorder) Message(m agent.Message) {
	if r == nil {
		return
	}
	body, err := json.Marshal(m)
	if err != nil {
		r.report(fmt.Errorf("record %s message: %w", m.Role, err))
		return
	}
	r.writeNow(wrap(typeMessage, "message", body))
}

// ChildMessage records m as a message of the child src (a subagent's
// history, kept so a finished child can be resumed after a restart). Like
// Message it is written before returning.
func (r *Recorder) ChildMessage(src agent.Source, m agent.Message) {
	if r == nil {
		return
	}
	b, err := json.Marshal(childLine{Type: typeChildMessage, Agent: src, Message: m})
	if err != nil {
		r.report(fmt.Errorf("record %s message of %s: %w", m.Role, src.AgentID, err))
		return
	}
	r.writeNow(append(b, '\n'))
}

// childLine is a child_message line.
type childLine struct {
	Type    string        `json:"type"`
	Agent   agent.Source  `json:"agent"`
	Message agent.Message `json:"message"`
}

// Event records e. Text and reasoning fragments are buffered (consecutive
// ones of the same agent merge into one line) and written within ~100 ms;
// Done, ToolFinished, ChildFinished and Compacted are written before Event
// returns.
// Event never waits for more than one write to the file.
func (r *Recorder) Event(e agent.Event) {
	if r == nil || e == nil {
		return
	}
	switch ev := e.(type) {
	case agent.TextDelta:
		r.addDelta(ev.Kind(), ev.Source, ev.Text)
		return
	case agent.ReasoningDelta:
		r.addDelta(ev.Kind(), ev.Source, ev.Text)
		return
	case agent.Notice:
		return // news of the moment (often about this very file)
	case agent.ToolProgress:
		if len(ev.Progress.Output) > 0 {
			return // a command's latest lines: its result holds them all
		}
	}
	body, err := marshalEvent(e)
	if err != nil {
		r.report(fmt.Errorf("record %s event: %w", e.Kind(), err))
		return
	}
	line := withTime(wrap(typeEvent, "event", body), r.now())
	src := e.From()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	// A non-delta event ends the agent's open deltas: later fragments must
	// come after it.
	delete(r.open, deltaKey{agent.TextDelta{}.Kind(), src})
	delete(r.open, deltaKey{agent.ReasoningDelta{}.Kind(), src})
	r.items = append(r.items, item{line: line})
	var ferr error
	switch e.(type) {
	case agent.Done, agent.ToolFinished, agent.ChildFinished, agent.Compacted:
		ferr = r.flushLocked(false)
	default:
		r.armLocked()
	}
	first := r.noteLocked(ferr)
	r.mu.Unlock()
	r.callback(first, ferr)
}

// Clear records /clear: loading starts after the last clear.
func (r *Recorder) Clear() {
	if r == nil {
		return
	}
	r.writeNow([]byte(`{"type":"clear"}` + "\n"))
}

// SetModel records that later requests use model; loading reports the last
// one in Loaded.Model.
func (r *Recorder) SetModel(model string) { r.SetWire(Wire{Model: model}) }

// SetWire records that later requests use w.Model, spoken to in w.API at
// w.BaseURL; loading reports the last one in Loaded.Model and Loaded.Wire.
func (r *Recorder) SetWire(w Wire) {
	if r == nil {
		return
	}
	b, _ := json.Marshal(struct {
		Type string `json:"type"`
		Wire
	}{typeModel, w}) // strings always encode
	r.writeNow(append(b, '\n'))
}

// Flush writes every buffered event now.
func (r *Recorder) Flush() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	var err error
	if !r.closed {
		err = r.flushLocked(true)
	}
	first := r.noteLocked(err)
	r.mu.Unlock()
	r.callback(first, err)
	return err
}

// Close writes every buffered event and closes the file. Later calls do
// nothing. It returns the first error the recorder met.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	if r.closed {
		defer r.mu.Unlock()
		return r.err
	}
	r.closed = true
	if r.stop != nil {
		r.stop()
	}
	if r.retry != nil {
		r.retry()
		r.retry = nil
	}
	err := r.flushLocked(true)
	if cerr := r.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close session %s: %w", r.path, cerr)
	}
	first := r.noteLocked(err)
	var lost error
	if n := r.dropped + countLines(r.pending); n > 0 {
		lost = fmt.Errorf("%s could not be written to session %s (%w): they are lost", plural.Count(n, "line"), r.path, r.failing)
	} else if err != nil {
		lost = err
	}
	r.mu.Unlock()
	r.callback(first, err)
	return lost
}

// countLines counts the lines in pending: each ends in a newline (the rest
// of a cut line too, so it counts once).
func countLines(pending []byte) int {
	return bytes.Count(pending, []byte{'\n'})
}

// writeHeader writes the first line; Create fails if it cannot.
func (r *Recorder) writeHeader(h Header) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, item{line: append(b, '\n')})
	return r.flushLocked(true)
}

// writeNow queues line behind the buffered events and writes them all in
// one write before returning.
func (r *Recorder) writeNow(line []byte) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.items = append(r.items, item{line: line})
	err := r.flushLocked(true)
	first := r.noteLocked(err)
	r.mu.Unlock()
	r.callback(first, err)
}

func (r *Recorder) addDelta(kind string, src agent.Source, text string) {
	if text == "" {
		return
	}
	k := deltaKey{kind, src}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if i, ok := r.open[k]; ok {
		r.items[i].text = append(r.items[i].text, text...)
	} else {
		// Switching between thinking and answering ends the other stream.
		for _, other := range []string{agent.TextDelta{}.Kind(), agent.ReasoningDelta{}.Kind()} {
			if other != kind {
				delete(r.open, deltaKey{other, src})
			}
		}
		r.items = append(r.items, item{delta: true, key: k, text: []byte(text)})
		r.open[k] = len(r.items) - 1
	}
	r.armLocked()
}

// armLocked schedules a flush unless one is pending already.
func (r *Recorder) armLocked() {
	if r.armed || len(r.items) == 0 {
		return
	}
	r.armed = true
	r.stop = r.schedule(flushEvery, r.tick)
}

// tick is the periodic flush.
func (r *Recorder) tick() { r.flushTick(func() { r.armed = false }) }

// flushTick flushes on a timer: disarm (under the lock) says which timer
// fired, then the buffered lines are written and the outcome told.
func (r *Recorder) flushTick(disarm func()) {
	r.mu.Lock()
	disarm()
	var err error
	if !r.closed {
		err = r.flushLocked(false)
	}
	first := r.noteLocked(err)
	r.mu.Unlock()
	r.callback(first, err)
}

// flushLocked writes the buffered lines in one write. Unless final, the end
// of a still-open delta that could begin a secret stays buffered until the
// agent's next fragment shows whether it does (see redactor.holdback).
func (r *Recorder) flushLocked(final bool) error {
	if len(r.items) == 0 {
		return r.write(nil) // what the file refused before, if anything
	}
	buf := r.scratch[:0]
	var keep []item
	for i, it := range r.items {
		if !it.delta {
			buf = append(buf, r.red.line(it.line)...)
			continue
		}
		text := it.text
		if j, open := r.open[it.key]; open && j == i && !final {
			if n := r.red.holdback(string(text)); n > 0 {
				keep = append(keep, item{delta: true, key: it.key, text: append([]byte(nil), text[len(text)-n:]...)})
				text = text[:len(text)-n]
			}
		}
		if len(text) > 0 {
			buf = append(buf, r.red.line(encodeDelta(it.key, string(text)))...)
		}
	}
	r.items = r.items[:0]
	clear(r.open)
	for _, it := range keep {
		r.items = append(r.items, it)
		r.open[it.key] = len(r.items) - 1
	}
	err := r.write(buf)
	if cap(buf) <= maxScratch {
		r.scratch = buf[:0]
	} else {
		r.scratch = nil
	}
	return err
}

// write appends what the file refused before, then buf. What it cannot
// write stays pending, in order, and a retry is armed; a write cut short
// leaves the rest of its line pending, so the retry completes that line
// rather than starting a new one on it. A short write without an error is
// carried on at once, as io.Writer's contract allows.
func (r *Recorder) write(buf []byte) error {
	if len(buf) == 0 && len(r.pending) == 0 {
		return nil
	}
	if len(r.pending) > 0 {
		r.pending = append(r.pending, buf...)
		buf = r.pending
	}
	out := buf
	if r.needNL {
		out = append([]byte{'\n'}, buf...) // rare: after a torn line
	}
	written := 0
	var err error
	for written < len(out) {
		n, werr := r.f.Write(out[written:])
		written += n
		if werr != nil {
			err = werr
			break
		}
		if n == 0 {
			err = io.ErrShortWrite
			break
		}
	}
	done := written // bytes of buf on disk
	if len(out) != len(buf) && written > 0 {
		r.needNL = false
		done--
	}
	if err == nil {
		r.pending, r.partial = r.pending[:0], false
		if cap(r.pending) > maxScratch {
			r.pending = nil
		}
		r.recovered = r.failing != nil
		r.failing = nil
		return nil
	}
	rest := buf[done:]
	if done > 0 {
		r.partial = buf[done-1] != '\n'
	}
	if len(r.pending) > 0 {
		r.pending = r.pending[:copy(r.pending, rest)]
	} else {
		r.pending = append([]byte(nil), rest...)
	}
	r.limitPending()
	err = fmt.Errorf("write session %s: %w", r.path, err)
	if r.failing == nil {
		r.started = err
	}
	r.failing = err
	r.armRetryLocked()
	return err
}

// limitPending drops the oldest whole lines past maxPending.
func (r *Recorder) limitPending() {
	if len(r.pending) <= r.maxPending {
		return
	}
	cut := len(r.pending) - r.maxPending
	for cut < len(r.pending) && r.pending[cut-1] != '\n' {
		cut++
	}
	r.dropped += countLines(r.pending[:cut])
	if r.partial {
		// The file ends mid-line: what follows must start a new one.
		r.needNL, r.partial = true, false
	}
	r.pending = r.pending[:copy(r.pending, r.pending[cut:])]
}

// armRetryLocked schedules another attempt at the pending lines.
func (r *Recorder) armRetryLocked() {
	if r.retry != nil || r.closed {
		return
	}
	r.retry = r.schedule(retryEvery, r.retryTick)
}

// retryTick writes the pending lines again.
func (r *Recorder) retryTick() { r.flushTick(func() { r.retry = nil }) }

// noteLocked keeps the first error and says whether the callbacks have
// news: writing started failing, or works again.
func (r *Recorder) noteLocked(err error) bool {
	if err != nil && r.err == nil {
		r.err = err
	}
	return r.started != nil || r.recovered
}

// callback tells Store.OnError that writing started failing, or
// Store.OnRecover that every pending line is on disk again, outside the
// lock so the callbacks may use the recorder.
func (r *Recorder) callback(news bool, _ error) {
	if !news {
		return
	}
	r.mu.Lock()
	started, recovered := r.started, r.recovered
	r.started, r.recovered = nil, false
	r.mu.Unlock()
	if started != nil && r.onError != nil {
		r.onError(started)
	}
	if recovered && r.onRecover != nil {
		r.onRecover()
	}
}

// report notes an error met before taking the lock (encoding).
func (r *Recorder) report(err error) {
	r.mu.Lock()
	first := r.err == nil
	if first {
		r.err = err
	}
	r.mu.Unlock()
	if first && r.onError != nil {
		r.onError(err)
	}
}

// wrap returns {"type":typ,"field":body}\n.
// withTime puts the time an event was recorded at the end of its line,
// `,"at":UNIX_MS}`, where a reader that knows nothing of it skips it: the
// crew report's timeline and covey replay place events by it.
func withTime(line []byte, at time.Time) []byte {
	line = line[:len(line)-2] // "}\n"
	line = append(line, `,"at":`...)
	line = strconv.AppendInt(line, at.UnixMilli(), 10)
	return append(line, "}\n"...)
}

func wrap(typ, field string, body []byte) []byte {
	out := make([]byte, 0, len(body)+len(typ)+len(field)+20)
	out = append(out, `{"type":"`...)
	out = append(out, typ...)
	out = append(out, `","`...)
	out = append(out, field...)
	out = append(out, `":`...)
	out = append(out, body...)
	return append(out, "}\n"...)
}

func encodeDelta(k deltaKey, text string) []byte {
	var e agent.Event = agent.TextDelta{Source: k.src, Text: text}
	if k.kind == (agent.ReasoningDelta{}).Kind() {
		e = agent.ReasoningDelta{Source: k.src, Text: text}
	}
	body, _ := agent.MarshalEvent(e) // a Source and a string always encode
	return wrap(typeEvent, "event", body)
}

// marshalEvent is agent.MarshalEvent, tolerating the two fields that can
// hold what JSON cannot: arguments the model sent as broken JSON are kept
// as a JSON string, and a Display that does not encode is dropped (the
// result's text is what matters on resume).
func marshalEvent(e agent.Event) ([]byte, error) {
	b, err := agent.MarshalEvent(e)
	if err == nil {
		return b, nil
	}
	switch ev := e.(type) {
	case agent.ToolStarted:
		if !json.Valid(ev.Args) {
			ev.Args, _ = json.Marshal(string(ev.Args)) // a string always encodes
			return agent.MarshalEvent(ev)
		}
	case agent.ToolFinished:
		ev.Result.Display = nil
		return agent.MarshalEvent(ev)
	}
	return nil, err
}
