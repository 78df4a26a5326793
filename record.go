package main

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
	sessions "covey/agent/session"
	"covey/tools"
)

// recording is the session file of a run and the undo log beside it.
type recording struct {
	store    sessions.Store
	rec      *sessions.Recorder
	undo     *tools.UndoLog
	loaded   *sessions.Loaded // set when the session was resumed
	messages atomic.Int64     // messages recorded by this run
	errOnce  sync.Once
	err      atomic.Pointer[error]
}

// secretsOf lists the configured keys, so no session line ever holds one.
func secretsOf(cfg Config, ep Endpoint, getenv func(string) string) []string {
	out := []string{ep.APIKey}
	for _, name := range []string{"OPENAI_API_KEY", cfg.APIKeyEnv} {
		if name != "" {
			out = append(out, getenv(name))
		}
	}
	for _, p := range cfg.Providers {
		if p.APIKeyEnv != "" {
			out = append(out, getenv(p.APIKeyEnv))
		}
	}
	var keep []string
	for _, s := range out {
		if len(s) >= 8 { // shorter values would redact ordinary words
			keep = append(keep, s)
		}
	}
	return keep
}

// openRecording creates a new session file, or reopens the one opts name
// (--continue, --resume ID) for appending.
func openRecording(workspace, model string, opts options, secrets []string, log *debugLog) (*recording, error) {
	dir, err := sessions.DefaultDir()
	if err != nil {
		return nil, err
	}
	r := &recording{}
	r.store = sessions.Store{Dir: dir, Secrets: secrets, OnError: func(err error) {
		log.errorf("session file: %v", err)
		r.err.Store(&err)
	}}
	switch {
	case opts.cont:
		id, err := r.latestWithMessages(workspace)
		if err != nil {
			return nil, err
		}
		r.rec, r.loaded, err = r.store.Open(id)
		if err != nil {
			return nil, err
		}
	case opts.resumeSet:
		if opts.resume == "" {
			return nil, usageError{"--resume needs a session ID here; list them with: covey sessions"}
		}
		r.rec, r.loaded, err = r.store.Open(opts.resume)
		if err != nil {
			return nil, err
		}
	default:
		if r.rec, err = r.store.Create(workspace, model); err != nil {
			return nil, err
		}
	}
	if r.undo, err = tools.OpenUndoLog(r.undoDir()); err != nil {
		_ = r.rec.Close()
		return nil, err
	}
	return r, nil
}

// latestWithMessages is the newest session of workspace that holds a
// conversation (a run that was quit at once leaves none worth continuing).
func (r *recording) latestWithMessages(workspace string) (string, error) {
	infos, err := r.store.List(workspace)
	if err != nil {
		return "", err
	}
	for _, in := range infos {
		if in.Messages > 0 {
			return in.ID, nil
		}
	}
	return "", fmt.Errorf("no earlier session in %s to continue: %w", workspace, sessions.ErrNoSession)
}

func (r *recording) undoDir() string {
	return strings.TrimSuffix(r.rec.Path(), sessions.Ext) + ".undo"
}

func (r *recording) message(m agent.Message) {
	r.messages.Add(1)
	r.rec.Message(m)
}

// childMessage records one message of a child's history.
func (r *recording) childMessage(src agent.Source, m agent.Message) {
	r.rec.ChildMessage(src, m)
}

// replay is the loaded session as events the TUI can draw.
func (r *recording) replay() []agent.Event {
	if r == nil || r.loaded == nil {
		return nil
	}
	return r.loaded.Events()
}

// resumeNote tells the user which session came back.
func (r *recording) resumeNote() string {
	if r == nil || r.loaded == nil {
		return ""
	}
	note := fmt.Sprintf("resumed session %s (%d messages)", r.rec.ID(), len(r.loaded.Messages))
	for _, w := range r.loaded.Warnings {
		note += "\nwarning: " + w
	}
	return note
}

// undoTurn restores the files of the last turn that changed any.
func (r *recording) undoTurn(ctx context.Context, locks *tools.FileLocks) (string, error) {
	res, err := r.undo.Undo(ctx, locks)
	if errors.Is(err, tools.ErrNothingToUndo) {
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
	return fmt.Sprintf("Undid turn %d: %s.", res.Turn, strings.Join(parts, "; ")), nil
}

// close flushes the file; a session in which nothing was said is removed
// so --continue never lands on an empty one. It tells the user how to come
// back to a session that has a conversation.
func (r *recording) close(stderr io.Writer) {
	if r == nil {
		return
	}
	_ = r.rec.Close()
	if r.loaded == nil && r.messages.Load() == 0 {
		_ = os.Remove(r.rec.Path())
		_ = os.RemoveAll(r.undoDir())
		return
	}
	if p := r.err.Load(); p != nil {
		fmt.Fprintf(stderr, "covey: the session file could not be fully written: %v\n", *p)
	}
	fmt.Fprintf(stderr, "covey: session %s saved; resume it with: covey --resume %s\n", r.rec.ID(), r.rec.ID())
}
