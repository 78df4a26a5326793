package sessionfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// Fork copies the session idOrPrefix into a new session of its own and
// returns the new ID. The original is only read, never written (nor
// locked: a live session can be forked from its own process, whose
// recorder must have flushed first). The copy keeps the original's start
// date, so its prompts stay the same byte for byte, and names the original
// in its header.
func (s Store) Fork(idOrPrefix string) (string, error) {
	id, err := s.Resolve(idOrPrefix)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(s.Path(id))
	if err != nil {
		return "", fmt.Errorf("fork session %s: %w", id, err)
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	var h Header
	if err := json.Unmarshal(first, &h); err != nil || h.Type != typeSession {
		return "", fmt.Errorf("fork session %s: no session header: not a covey session file", id)
	}
	if h.Version < 1 || h.Version > Version {
		return "", fmt.Errorf("fork session %s: format version %d is not supported", id, h.Version)
	}
	if err := s.ensureDir(); err != nil {
		return "", err
	}
	for range 5 {
		nid, err := newID(time.Now())
		if err != nil {
			return "", err
		}
		f, err := os.OpenFile(s.Path(nid), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("fork session %s: %w", id, err)
		}
		nh := h
		nh.ID, nh.ForkedFrom = nid, id
		head, _ := json.Marshal(nh)
		_, werr := f.Write(append(append(head, '\n'), rest...))
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = os.Remove(s.Path(nid))
			return "", fmt.Errorf("fork session %s: %w", id, werr)
		}
		return nid, nil
	}
	return "", fmt.Errorf("fork session %s: could not find a free ID", id)
}
