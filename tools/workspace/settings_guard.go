package workspace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"covey/internal/safefile"
)

// guardedSettings are the workspace files covey trusts at its next start
// without asking: the project config can set the permission mode, allow
// rules and the endpoint. The sandbox leaves the whole workspace writable
// (Landlock cannot carve a read-only folder out of a writable one), so a
// command could write them and lift the next session's gate; covey puts
// them back after each command instead. The file tools may change them:
// the gate asks about .covey/ in every mode but bypassPermissions.
var guardedSettings = []string{filepath.Join(".covey", "config.yaml")}

// maxGuardedSize bounds what is kept of one guarded file; a larger one is
// restored as missing (covey's config is a few hundred bytes).
const maxGuardedSize = 1 << 20

// SettingsGuard holds the guarded files' last known content: what they
// held before a command, or what a file tool wrote since.
type SettingsGuard struct {
	mu    sync.Mutex
	known map[string][]byte // rel path → content; nil slice: absent
}

// SettingsState is the guarded files as one command found them.
type SettingsState map[string][]byte

// readGuarded is rel's fingerprint: nil when absent, else a kind byte (f
// a file, l a symlink, o anything else) and the content read through
// any symlink (empty past maxGuardedSize or when unreadable).
func readGuarded(root, rel string) []byte {
	abs := filepath.Join(root, rel)
	info, err := os.Lstat(abs)
	if err != nil {
		return nil
	}
	kind := byte('o')
	switch {
	case info.Mode().IsRegular():
		kind = 'f'
	case info.Mode()&os.ModeSymlink != 0:
		kind = 'l'
	}
	out := []byte{kind}
	if kind == 'o' {
		return out
	}
	if data, err := safefile.Read(abs, maxGuardedSize); err == nil {
		out = append(out, data...)
	}
	return out
}

// content is what restoring a fingerprint writes (nil: remove the file).
func content(fp []byte) []byte {
	if len(fp) == 0 {
		return nil
	}
	return fp[1:]
}

// Before records the guarded files before a command runs.
func (g *SettingsGuard) Before(root string) SettingsState {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.known == nil {
		g.known = map[string][]byte{}
	}
	st := SettingsState{}
	for _, rel := range guardedSettings {
		data := readGuarded(root, rel)
		st[rel] = data
		g.known[rel] = data
	}
	return st
}

// NoteWrite records data a file tool is about to write to abs, when abs is
// a guarded file, so a command running meanwhile does not undo it. On a
// failed write the tool notes the old content again.
func (g *SettingsGuard) NoteWrite(root, abs string, data []byte) {
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return
	}
	for _, r := range guardedSettings {
		if r == rel {
			g.mu.Lock()
			if g.known == nil {
				g.known = map[string][]byte{}
			}
			g.known[rel] = append([]byte{'f'}, data...)
			g.mu.Unlock()
		}
	}
}

// NoteFailedWrite takes back NoteWrite after a write that failed: the
// file holds what it held.
func (g *SettingsGuard) NoteFailedWrite(root, abs string) {
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.known[rel]; ok {
		g.known[rel] = readGuarded(root, rel)
	}
}

// After puts back every guarded file a command changed and returns the
// ones it restored. A file tool's write since Before stands.
func (g *SettingsGuard) After(root string, st SettingsState) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var restored []string
	for _, rel := range guardedSettings {
		now := readGuarded(root, rel)
		want := g.known[rel]
		if same(now, want) {
			continue
		}
		if same(now, st[rel]) {
			continue // unchanged by the command; a file tool's write is on its way
		}
		if err := restoreGuarded(root, rel, content(want)); err != nil {
			return restored, fmt.Errorf("put back %s: %w", rel, err)
		}
		restored = append(restored, rel)
	}
	return restored, nil
}

// restoreGuarded makes rel hold want again (nil: absent), replacing
// whatever a command left there (a symlink, a folder, other content).
func restoreGuarded(root, rel string, want []byte) error {
	abs := filepath.Join(root, rel)
	// The folders on the way must be real folders inside the workspace.
	for dir := filepath.Dir(rel); dir != "." && dir != string(filepath.Separator); dir = filepath.Dir(dir) {
		p := filepath.Join(root, dir)
		if info, err := os.Lstat(p); err == nil && !info.IsDir() {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	if info, err := os.Lstat(abs); err == nil {
		if info.IsDir() {
			if err := os.RemoveAll(abs); err != nil {
				return err
			}
		} else if err := os.Remove(abs); err != nil {
			return err
		}
	}
	if want == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	return WriteAtomic(OSFS{}, abs, want, 0o644)
}

func same(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }
