package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// UndoLog keeps, for every turn, the content each file had before the turn
// first changed it, in a folder beside the session file, so /undo works
// after a crash and a restart too. Each turn is a folder turn-NNNNNN holding
// the saved copies and a manifest.json; /undo restores the newest turn and
// removes its folder, so repeated /undo walks further back.
type UndoLog struct {
	dir string

	mu    sync.Mutex
	turn  int                   // the current turn's number (0: none begun)
	label string                // what started the current turn (BeginTurnAs)
	saved map[string]*undoEntry // this turn's entries by absolute path
}

// undoEntry is one file's state before its turn changed it.
type undoEntry struct {
	Abs     string      `json:"abs"`
	Rel     string      `json:"rel"`
	Existed bool        `json:"existed"`
	Mode    fs.FileMode `json:"mode"`
	Copy    string      `json:"copy,omitempty"` // file name of the saved copy
}

// UndoResult says what an undo did.
type UndoResult struct {
	Turn int
	// Label says what started the turn ("“fix the tests”"), "" when the
	// log did not keep it.
	Label    string
	Restored []string // workspace-relative
	Removed  []string // files the turn had created
	Problems []string // files that could not be restored, with why
}

// ErrNothingToUndo is returned when no turn changed any file.
var ErrNothingToUndo = errors.New("nothing to undo: no turn changed a file")

// OpenUndoLog opens (creating) the log in dir.
func OpenUndoLog(dir string) (*UndoLog, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("undo log: %w", err)
	}
	u := &UndoLog{dir: dir}
	turns, err := u.turns()
	if err != nil {
		return nil, err
	}
	if len(turns) > 0 {
		u.turn = turns[len(turns)-1]
	}
	return u, nil
}

// BeginTurn starts a new turn: files changed from now on are saved under it.
func (u *UndoLog) BeginTurn() { u.BeginTurnAs("") }

// BeginTurnAs is BeginTurn with what started the turn (the user's message,
// quoted and cut), which /undo names: turn numbers count the session's
// turns, which a /clear or a restart leave out of sight.
func (u *UndoLog) BeginTurnAs(label string) {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.turn++
	u.label = label
	u.saved = map[string]*undoEntry{}
}

// Save records the state of a file before its first change in this turn.
// It is called under the file's lock, before the write; an error means the
// write must not happen (it could not be undone).
func (u *UndoLog) Save(abs, rel string, existed bool, content []byte, mode fs.FileMode) error {
	if u == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.saved == nil {
		u.turn++
		u.label = ""
		u.saved = map[string]*undoEntry{}
	}
	if _, done := u.saved[abs]; done {
		return nil
	}
	dir := u.turnDir(u.turn)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keep a copy for undo: %w", err)
	}
	if len(u.saved) == 0 && u.label != "" {
		if err := WriteAtomic(OSFS{}, filepath.Join(dir, undoLabelFile), []byte(u.label), 0o600); err != nil {
			return fmt.Errorf("keep a copy for undo: %w", err)
		}
	}
	e := &undoEntry{Abs: abs, Rel: rel, Existed: existed, Mode: mode}
	if existed {
		e.Copy = fmt.Sprintf("%04d.orig", len(u.saved)+1)
		if err := WriteAtomic(OSFS{}, filepath.Join(dir, e.Copy), content, 0o600); err != nil {
			return fmt.Errorf("keep a copy for undo: %w", err)
		}
	}
	u.saved[abs] = e
	if err := u.writeManifest(dir); err != nil {
		delete(u.saved, abs)
		return err
	}
	return nil
}

func (u *UndoLog) writeManifest(dir string) error {
	entries := make([]*undoEntry, 0, len(u.saved))
	for _, e := range u.saved {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Rel < entries[j].Rel })
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteAtomic(OSFS{}, filepath.Join(dir, "manifest.json"), data, 0o600); err != nil {
		return fmt.Errorf("keep a copy for undo: %w", err)
	}
	return nil
}

// Undo restores the files of the newest turn that changed any, removes the
// files it created, and forgets that turn. locks, when non-nil, keeps agents
// out of each file while it is restored.
func (u *UndoLog) Undo(ctx context.Context, locks *FileLocks) (UndoResult, error) {
	if u == nil {
		return UndoResult{}, ErrNothingToUndo
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	turns, err := u.turns()
	if err != nil {
		return UndoResult{}, err
	}
	if len(turns) == 0 {
		return UndoResult{}, ErrNothingToUndo
	}
	n := turns[len(turns)-1]
	dir := u.turnDir(n)
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return UndoResult{}, fmt.Errorf("undo turn %d: %w", n, err)
	}
	var entries []undoEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return UndoResult{}, fmt.Errorf("undo turn %d: broken manifest: %w", n, err)
	}
	res := UndoResult{Turn: n}
	if label, err := os.ReadFile(filepath.Join(dir, undoLabelFile)); err == nil {
		res.Label = string(label)
	}
	for _, e := range entries {
		if err := restore(ctx, locks, dir, e); err != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", e.Rel, err))
			continue
		}
		if e.Existed {
			res.Restored = append(res.Restored, e.Rel)
		} else {
			res.Removed = append(res.Removed, e.Rel)
		}
	}
	if len(res.Problems) == 0 {
		if err := os.RemoveAll(dir); err != nil {
			return res, fmt.Errorf("undo turn %d: %w", n, err)
		}
	}
	if n == u.turn {
		u.saved = nil // a write after the undo starts a fresh turn
	}
	return res, nil
}

func restore(ctx context.Context, locks *FileLocks, dir string, e undoEntry) error {
	unlock, err := locks.Lock(ctx, e.Abs)
	if err != nil {
		return err
	}
	defer unlock()
	if !e.Existed {
		if err := os.Remove(e.Abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	content, err := os.ReadFile(filepath.Join(dir, e.Copy))
	if err != nil {
		return fmt.Errorf("the saved copy is missing: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(e.Abs), 0o755); err != nil {
		return err
	}
	return WriteAtomic(OSFS{}, e.Abs, content, e.Mode)
}

// turns lists the turn numbers that have saved state, ascending.
func (u *UndoLog) turns() ([]int, error) {
	ents, err := os.ReadDir(u.dir)
	if err != nil {
		return nil, fmt.Errorf("undo log: %w", err)
	}
	var out []int
	for _, e := range ents {
		var n int
		if e.IsDir() && strings.HasPrefix(e.Name(), "turn-") {
			if _, err := fmt.Sscanf(e.Name(), "turn-%d", &n); err == nil {
				if _, err := os.Stat(filepath.Join(u.dir, e.Name(), "manifest.json")); err == nil {
					out = append(out, n)
				}
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// undoLabelFile holds a turn's label in its folder.
const undoLabelFile = "label"

func (u *UndoLog) turnDir(n int) string { return filepath.Join(u.dir, fmt.Sprintf("turn-%06d", n)) }
