// Package sessionfile records a covey session as it happens and loads it back.
//
// Each session is one JSONL file in the store's folder (by default
// $XDG_DATA_HOME/covey/sessions, see DefaultDir), named by its ID, which
// sorts by creation time: 20261121T130501Z-ab12cd.jsonl. Every line is one
// JSON object whose "type" field says what it holds:
//
//	{"type":"session","id":"…","workspace":"/abs/path","created":"…","model":"…","version":1}
//	{"type":"message","message":{<agent.Message>}}
//	{"type":"event","event":{<agent.MarshalEvent output, with its own "type">}}
//	{"type":"model","model":"…"}   the model changed from here on
//	{"type":"clear"}               /clear: loading starts after the last one
//	{"type":"child_message","agent":{<agent.Source>},"message":{<agent.Message>}}
//	                               one message of a subagent's history
//	{"type":"checkpoint",…}, {"type":"turn_end",…}, {"type":"rewind",…}
//	                               /rewind's points and jumps (see rewind.go)
//
// The header is always the first line. Events are nested rather than
// flattened so an event keeps its own "type" exactly as stream-json prints
// it. Unknown line types are ignored on load, so later versions may add
// lines without breaking older readers of the same version.
//
// Crash safety is against the process dying (kill -9, panic), not against
// power loss: every line reaches the kernel in one write to a file opened
// with O_APPEND, messages the moment they are recorded and events within
// about 100 ms (at once for Done, ToolFinished and ChildFinished). A torn
// last line is skipped on load with a warning, and a recorder reopening
// the file starts on a fresh line.
package sessionfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Version is the format version written in every header. Files with a newer
// version are refused rather than misread.
const Version = 1

// Ext is the file name extension of session files.
const Ext = ".jsonl"

// InterruptedResult is the tool result that loading puts in place of every
// call the process did not finish, so a resumed conversation never holds an
// unanswered tool call.
const InterruptedResult = "interrupted: covey stopped before this call finished"

// Line types of a session file.
const (
	typeSession = "session"
	typeMessage = "message"
	typeEvent   = "event"
	typeModel   = "model"
	typeClear   = "clear"
	// typeChildMessage holds one message of a child's history.
	typeChildMessage = "child_message"
)

// Sentinel errors callers branch on.
var (
	// ErrNoSession reports that no session matches (Latest, Resolve, Open).
	ErrNoSession = errors.New("no session found")
	// ErrAmbiguous reports an ID prefix that matches more than one session.
	ErrAmbiguous = errors.New("ambiguous session ID")
	// ErrInvalidID reports an ID that cannot name a session file.
	ErrInvalidID = errors.New("invalid session ID")
	// ErrInUse reports a session another covey process has open (see
	// InUseError).
	ErrInUse = errors.New("session in use")

	errLocked = errors.New("locked")
)

// InUseError refuses to open a session another covey process is writing:
// two writers would interleave their turns, and the second would mark the
// first's live turn interrupted. Forking a copy instead would have to cut
// the holder's turn where it stands and invent its end, so covey refuses.
type InUseError struct {
	ID string
	// PID is the holder's process ID, 0 when the system does not say.
	PID int
}

// Error names the session and its holder, and what the user can do.
func (e *InUseError) Error() string {
	who := "another covey process"
	if e.PID > 0 {
		who = fmt.Sprintf("another covey process (pid %d)", e.PID)
	}
	return fmt.Sprintf("session %s is in use by %s: wait for it to end, or start a new session (without --continue or --resume)", e.ID, who)
}

// Is makes errors.Is(err, ErrInUse) true.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// Header is the first line of every session file.
type Header struct {
	Type      string    `json:"type"` // always "session"
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Created   time.Time `json:"created"`
	Model     string    `json:"model"`
	// API and BaseURL are the wire the model was spoken to in and where
	// (see Wire); empty in files older than them.
	API     string `json:"api,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	Version int    `json:"version"`
	// ForkedFrom is the session this one was forked from (/fork,
	// --fork-session), "" for one started afresh.
	ForkedFrom string `json:"forked_from,omitempty"`
}

// Store is a folder of session files. The zero value is unusable: set Dir
// (usually from DefaultDir).
type Store struct {
	// Dir holds the session files; it is created (0700) on first write.
	Dir string
	// Secrets are replaced by "[redacted]" in every line a recorder of this
	// store writes (the API keys and other configured secrets). Empty
	// strings are ignored.
	Secrets []string
	// OnError, when set, is called when a recorder's writes start failing
	// (a full disk, an I/O error), from whichever goroutine met it: the
	// refused lines are kept in memory and retried. Recording never stops
	// the agent; see Recorder.Err.
	OnError func(error)
	// OnRecover, when set, is called when a recorder whose writes failed
	// has written every line it kept: nothing was lost.
	OnRecover func()
}

// DefaultDir returns $XDG_DATA_HOME/covey/sessions, or
// ~/.local/share/covey/sessions when XDG_DATA_HOME is unset or relative (the
// XDG spec says relative paths are to be ignored).
func DefaultDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "covey", "sessions"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("session folder: %w", err)
	}
	return filepath.Join(home, ".local", "share", "covey", "sessions"), nil
}

// Path returns the file of the session id (which it does not check).
func (s Store) Path(id string) string { return filepath.Join(s.Dir, id+Ext) }

// Wire is the endpoint a session's main model is spoken to at: the model,
// its wire (agent.APIChat, APIResponses, APIAnthropic) and the base URL.
// A session resumes on the wire it was made on (see session.Load).
type Wire struct {
	Model   string `json:"model"`
	API     string `json:"api,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
}

// Create starts a new session for workspace and returns its recorder, the
// header already on disk.
func (s Store) Create(workspace, model string) (*Recorder, error) {
	return s.CreateOn(workspace, Wire{Model: model})
}

// CreateOn is Create with the wire the model is spoken to in recorded in
// the header.
func (s Store) CreateOn(workspace string, w Wire) (*Recorder, error) {
	if err := s.ensureDir(); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	// A clash needs the same second and the same 24 random bits; retry
	// rather than fail if it ever happens.
	for range 5 {
		id, err := newID(now)
		if err != nil {
			return nil, err
		}
		path := s.Path(id)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create session %s: %w", path, err)
		}
		if _, err := lockFile(f); err != nil {
			_ = f.Close()
			_ = os.Remove(path)
			return nil, fmt.Errorf("create session %s: lock: %w", path, err)
		}
		r := newRecorder(f, id, path, s.Secrets, s.OnError, s.OnRecover)
		h := Header{Type: typeSession, ID: id, Workspace: absPath(workspace), Created: now, Model: w.Model, API: w.API, BaseURL: w.BaseURL, Version: Version}
		if err := r.writeHeader(h); err != nil {
			_ = f.Close()
			_ = os.Remove(path)
			return nil, fmt.Errorf("create session %s: %w", path, err)
		}
		return r, nil
	}
	return nil, fmt.Errorf("create session in %s: could not find a free ID", s.Dir)
}

// Open resolves idOrPrefix (see Resolve), loads the session and reopens it
// for appending. If the process that wrote it died mid-turn, Open records
// what loading repaired (results for unanswered tool calls, finishing
// events for open tools, children and runs) so the file reads the same on
// every later load.
func (s Store) Open(idOrPrefix string) (*Recorder, *Loaded, error) {
	lk, err := s.Lock(idOrPrefix)
	if err != nil {
		return nil, nil, err
	}
	return lk.Open()
}

// Locked is a session file taken for writing but not read yet: Lock is
// quick whatever the file's size, so a caller can show something before
// Open reads it. Exactly one of Open and Release must follow.
type Locked struct {
	s    Store
	id   string
	path string
	f    *os.File
}

// Lock resolves idOrPrefix (see Resolve) and takes the session for writing
// without reading it: another covey process holding it fails here
// (InUseError), before anything is shown.
func (s Store) Lock(idOrPrefix string) (*Locked, error) {
	id, err := s.Resolve(idOrPrefix)
	if err != nil {
		return nil, err
	}
	path := s.Path(id)
	if err := checkID(id); err != nil {
		return nil, err
	}
	// Locked before it is read: a session another process still writes
	// would load with its live turn cut, and be repaired as interrupted.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("load session %s: %w", id, ErrNoSession)
	}
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if holder, err := lockFile(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, &InUseError{ID: id, PID: holder}
		}
		return nil, fmt.Errorf("open session %s: lock: %w", path, err)
	}
	return &Locked{s: s, id: id, path: path, f: f}, nil
}

// ID is the locked session's ID.
func (lk *Locked) ID() string { return lk.id }

// Path is the locked session's file.
func (lk *Locked) Path() string { return lk.path }

// Release lets the session go unread.
func (lk *Locked) Release() error { return lk.f.Close() }

// Open reads the locked session and returns its recorder, which appends
// what loading repaired first (see Store.Open). On error the lock is
// released.
func (lk *Locked) Open() (*Recorder, *Loaded, error) {
	s, id, path, f := lk.s, lk.id, lk.path, lk.f
	l, err := s.Load(id)
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	torn, err := endsTorn(f)
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("open session %s: %w", path, err)
	}
	r := newRecorder(f, id, path, s.Secrets, s.OnError, s.OnRecover)
	r.needNL = torn
	for _, rec := range l.fix {
		if rec.Message != nil {
			r.Message(*rec.Message)
		} else {
			r.Event(rec.Event)
		}
	}
	if err := r.Flush(); err != nil {
		_ = r.Close()
		return nil, nil, fmt.Errorf("open session %s: %w", path, err)
	}
	return r, l, nil
}

// Load reads the session id (exact, see Resolve for prefixes) without
// opening it for writing.
func (s Store) Load(id string) (*Loaded, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	path := s.Path(id)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("load session %s: %w", id, ErrNoSession)
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", path, err)
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	data, err := readSized(f, size)
	if err != nil {
		return nil, fmt.Errorf("load session %s: read: %w", path, err)
	}
	l, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", path, err)
	}
	return l, nil
}

func (s Store) ensureDir() error {
	if s.Dir == "" {
		return errors.New("session store has no folder")
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("create session folder: %w", err)
	}
	return nil
}

// endsTorn reports whether f is non-empty and does not end in a newline:
// the writer died mid-line, so the next line must start on a fresh one.
func endsTorn(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() == 0 {
		return false, nil
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], st.Size()-1); err != nil {
		return false, err
	}
	return b[0] != '\n', nil
}

// newID returns a time-sortable ID: the UTC second, then 6 random hex
// digits to tell apart sessions started in the same second.
func newID(t time.Time) (string, error) {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session ID: %w", err)
	}
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:]), nil
}

// checkID refuses IDs that could name a file outside the store.
func checkID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) || strings.ContainsRune(id, 0) {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	return nil
}
