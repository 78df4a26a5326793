package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/internal/excerpt"
	"covey/internal/plural"
	"covey/tools/workspace"
)

// recording is the session file of a run and the undo log beside it.
type recording struct {
	store  sessionfile.Store
	rec    *sessionfile.Recorder
	undo   *workspace.UndoLog
	loaded *sessionfile.Loaded // set when the session was resumed
	// id and path name the session file, known before it is read.
	id, path string
	// forkedFrom is the session this one is a fork of (--fork-session,
	// /fork), "" otherwise.
	forkedFrom string
	// lock is a resumed session taken but not read yet; open reads it
	// (once: openOnce), the TUI after its first frame.
	lock     *sessionfile.Locked
	openOnce sync.Once
	openErr  error
	// earlyMu guards rec while a resumed session is read, and early, the
	// events emitted meanwhile: they are written after the file's
	// repaired end.
	// unread is set when the session was closed before open read it.
	unread   bool
	earlyMu  sync.Mutex
	early    []agent.Event
	messages atomic.Int64 // messages recorded by this run
	// notify tells the user, at once, that the file cannot be written or
	// can again: set by the session while its event stream is read, nil
	// before and after (notifyMu keeps a send from racing the stream's
	// end).
	notifyMu sync.Mutex
	notify   func(agent.Notice)
}

// tell sends a notice to the session's consumers, if they are there.
func (r *recording) tell(level, text string) {
	r.notifyMu.Lock()
	defer r.notifyMu.Unlock()
	if r.notify != nil {
		r.notify(agent.Notice{Source: agent.Source{AgentID: agent.MainAgentID}, Level: level, Message: text})
	}
}

// setNotify sets (nil: stops) where tell sends.
func (r *recording) setNotify(f func(agent.Notice)) {
	if r == nil {
		return
	}
	r.notifyMu.Lock()
	r.notify = f
	r.notifyMu.Unlock()
}

// openRecording creates a new session file of the workspace root, or
// reopens the one opts name (--continue, --resume ID) for appending.
func openRecording(root string, opts Options, secrets []string) (*recording, error) {
	log := opts.Log
	dir, err := sessionfile.DefaultDir()
	if err != nil {
		return nil, err
	}
	r := &recording{}
	r.store = sessionfile.Store{Dir: dir, Secrets: secrets,
		OnError: func(err error) {
			log.Errorf("session file: %v", err)
			r.tell(agent.NoticeWarning, fmt.Sprintf("the session file cannot be written (%v): covey keeps the unwritten lines in memory and tries again every second; they are lost only if covey exits first", err))
		},
		OnRecover: func() {
			log.Errorf("session file: written again")
			r.tell(agent.NoticeInfo, "the session file is written again: nothing was lost")
		},
	}
	switch {
	case opts.Continue || opts.ResumeID != "":
		id := opts.ResumeID
		if opts.Continue {
			if id, err = r.latestWithMessages(root); err != nil {
				return nil, err
			}
		}
		if opts.Fork {
			// The copy is resumed; the original is only read.
			from, err := r.store.Resolve(id)
			if err != nil {
				return nil, err
			}
			if id, err = r.store.Fork(from); err != nil {
				return nil, err
			}
			r.forkedFrom = from
		}
		// Taken now (another covey holding it is an error before anything
		// is drawn), read by open.
		if r.lock, err = r.store.Lock(id); err != nil {
			return nil, err
		}
		r.id, r.path = r.lock.ID(), r.lock.Path()
	default:
		// The wire is recorded so a resumed session goes on speaking it.
		w := sessionfile.Wire{Model: opts.Endpoint.Model, API: opts.Config.APIFor(opts.Endpoint, opts.Endpoint.Model, os.Getenv), BaseURL: opts.Endpoint.BaseURL}
		if r.rec, err = r.store.CreateOn(root, w); err != nil {
			return nil, err
		}
		r.id, r.path = r.rec.ID(), r.rec.Path()
		r.openOnce.Do(func() {})
	}
	if r.undo, err = workspace.OpenUndoLog(r.undoDir()); err != nil {
		r.release()
		if r.rec != nil {
			_ = r.rec.Close()
		}
		return nil, err
	}
	return r, nil
}

// open reads a resumed session (once; the later calls wait for the first
// and return its error). Nothing is sent to the model before it returns.
func (r *recording) open() error {
	r.openOnce.Do(func() {
		rec, l, err := r.lock.Open()
		if err != nil {
			r.openErr = err
			return
		}
		r.earlyMu.Lock()
		defer r.earlyMu.Unlock()
		r.rec, r.loaded = rec, l
		for _, e := range r.early {
			rec.Event(e)
		}
		r.early = nil
	})
	return r.openErr
}

// release lets an unread session go (Close before open); after open it
// closes nothing, close does.
func (r *recording) release() {
	r.openOnce.Do(func() {
		r.openErr = errors.New("the session was closed before it was read")
		r.unread = true
		if r.lock != nil {
			_ = r.lock.Release()
		}
	})
}

// event records e, or keeps it until the resumed session is read.
func (r *recording) event(e agent.Event) {
	r.earlyMu.Lock()
	defer r.earlyMu.Unlock()
	if r.rec == nil {
		r.early = append(r.early, e)
		return
	}
	r.rec.Event(e)
}

// latestWithMessages is the newest session of workspace that holds a
// conversation (a run that was quit at once leaves none worth continuing).
func (r *recording) latestWithMessages(workspace string) (string, error) {
	var (
		id   string
		perr error
	)
	err := r.store.Each(workspace, func(in sessionfile.Info) bool {
		if in.Problem != "" {
			// It may be this workspace's latest: resuming an older one
			// without a word would hide it.
			perr = fmt.Errorf("the newest session file %s cannot be read (%s), so covey cannot tell whether it is this workspace's latest session; "+
				"make it readable or move it out of the way, or resume a session by its ID with --resume (covey sessions lists them)", in.Path, in.Problem)
			return false
		}
		if in.Messages > 0 {
			id = in.ID
			return false
		}
		return true
	})
	switch {
	case err != nil:
		return "", err
	case perr != nil:
		return "", perr
	case id == "":
		return "", fmt.Errorf("no earlier session in %s to continue: %w", workspace, sessionfile.ErrNoSession)
	}
	return id, nil
}

func (r *recording) undoDir() string {
	return strings.TrimSuffix(r.path, sessionfile.Ext) + ".undo"
}

func (r *recording) message(m agent.Message) {
	if r.open() != nil {
		return // closed
	}
	r.messages.Add(1)
	r.keepImages(m.Images)
	r.rec.Message(m)
}

// childMessage records one message of a child's history.
func (r *recording) childMessage(src agent.Source, m agent.Message) {
	if r.open() != nil {
		return // closed
	}
	r.keepImages(m.Images)
	r.rec.ChildMessage(src, m)
}

// replay is the loaded session as events the TUI can draw.
func (r *recording) replay() []agent.Event {
	if r == nil || r.loaded == nil {
		return nil
	}
	events := r.loaded.Events()
	out := make([]agent.Event, 0, len(events))
	for _, e := range events {
		u, ok := e.(agent.UserMessage)
		if !ok || u.IsChild() {
			out = append(out, e)
			continue
		}
		// As it was typed, with the notices of its attachments.
		typed, notes := typedPrompt(u.Text)
		u.Text = typed
		out = append(out, u)
		for _, n := range notes {
			out = append(out, agent.Notice{Source: u.Source, Level: agent.NoticeInfo, Message: n})
		}
	}
	return out
}

// resumeNote tells the user which session came back.
func (r *recording) resumeNote() string {
	if r == nil || r.loaded == nil {
		return ""
	}
	n := len(r.loaded.Messages)
	note := fmt.Sprintf("resumed session %s (%s)", r.id, plural.Count(n, "message"))
	if r.forkedFrom != "" {
		note = fmt.Sprintf("forked session %s as %s (%s); the original is left as it was", r.forkedFrom, r.id, plural.Count(n, "message"))
	}
	for _, w := range r.loaded.Warnings {
		note += "\nwarning: " + w
	}
	return note
}

// undoTurn restores the files of the last turn that changed any.
func undoTurn(ctx context.Context, u *workspace.UndoLog, locks *workspace.FileLocks) (string, error) {
	res, err := u.Undo(ctx, locks)
	if errors.Is(err, workspace.ErrNothingToUndo) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("undo: %w", err)
	}
	var parts []string
	if len(res.Restored) > 0 {
		parts = append(parts, "restored "+strings.Join(res.Restored, ", "))
	}
	if len(res.Removed) > 0 {
		parts = append(parts, "removed "+strings.Join(res.Removed, ", "))
	}
	if len(res.Problems) > 0 {
		parts = append(parts, "could not restore: "+strings.Join(res.Problems, "; "))
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing changed")
	}
	if res.Label != "" {
		return fmt.Sprintf("Undid the turn of %s: %s.", res.Label, strings.Join(parts, "; ")), nil
	}
	return fmt.Sprintf("Undid turn %d: %s.", res.Turn, strings.Join(parts, "; ")), nil
}

// undoLabel names a turn by the message that started it, for /undo:
// "“fix the tests”". A number would count the session's turns, which a
// /clear (or a restart) puts out of sight.
func undoLabel(prompt string) string {
	return "“" + excerpt.Cut(excerpt.Line(prompt), 40) + "”"
}

// close flushes the file; a session in which nothing was said is removed
// so --continue never lands on an empty one. It tells the user how to come
// back to a session that has a conversation.
func (r *recording) close(stderr io.Writer) {
	if r == nil {
		return
	}
	r.release()
	if r.rec == nil {
		if !r.unread {
			return // it could not be read: the caller says why
		}
		// Resumed, and closed before it was read: the file is as it was.
		fmt.Fprintf(stderr, "covey: session %s unchanged; resume it with: covey --resume %s\n", r.id, r.id)
		return
	}
	cerr := r.rec.Close()
	if r.loaded == nil && r.messages.Load() == 0 {
		_ = os.Remove(r.rec.Path())
		_ = os.RemoveAll(r.undoDir())
		return
	}
	if cerr != nil {
		fmt.Fprintf(stderr, "covey: the session file could not be fully written: %v\n", cerr)
	}
	fmt.Fprintf(stderr, "covey: session %s saved; resume it with: covey --resume %s\n", r.rec.ID(), r.rec.ID())
}

// startDate is the date a resumed session started on, as its file's
// header says, so its system prompt (and the prompt cache's prefix) stays
// the same byte for byte when it is continued on a later day; today for a
// new session.
func (r *recording) startDate(today string) string {
	if r == nil || r.loaded == nil || r.loaded.Header.Created.IsZero() {
		return today
	}
	return r.loaded.Header.Created.Local().Format("2006-01-02")
}
