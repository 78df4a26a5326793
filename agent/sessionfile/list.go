package sessionfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"covey/agent"
	"covey/internal/excerpt"
)

// firstMessageRunes bounds Info.FirstMessage.
const firstMessageRunes = 80

// Info summarises one session for a picker.
type Info struct {
	ID        string
	Path      string
	Workspace string
	Created   time.Time
	// Modified is the file's modification time: when the session was last
	// active.
	Modified time.Time
	// Model is the model in use at the end (the header's or the last
	// SetModel's).
	Model string
	// FirstMessage is the first user message after the last clear, on one
	// line and cut to 80 characters.
	FirstMessage string
	// Messages counts the messages after the last clear.
	Messages int
	// Problem, when set, says why the file could not be read (permission
	// denied, no session header): its workspace is unknown, so it is
	// listed for every workspace, and Messages and the rest are empty.
	Problem string
}

// entry is one session file, before it is read.
type entry struct {
	id   string
	path string
	mod  time.Time
}

// entries returns the store's session files, most recently modified first
// (ties: the later ID first). A missing folder holds no sessions.
func (s Store) entries() ([]entry, error) {
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []entry
	for _, de := range des {
		name := de.Name()
		id, ok := strings.CutSuffix(name, Ext)
		if !ok || id == "" || !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		out = append(out, entry{id: id, path: filepath.Join(s.Dir, name), mod: fi.ModTime()})
	}
	slices.SortFunc(out, func(a, b entry) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	return out, nil
}

// List returns the sessions of workspace (every workspace if it is ""),
// most recently active first. A file that cannot be read as a session
// (unreadable, or without a header) may be anyone's: it is listed with its
// Problem, so it is never silently passed over.
func (s Store) List(workspace string) ([]Info, error) {
	out := []Info{}
	err := s.Each(workspace, func(in Info) bool {
		out = append(out, in)
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Each calls fn with the sessions of workspace ("" for every workspace),
// most recently active first, as List describes them, until fn returns
// false: a caller after the newest session that fits reads no older file.
func (s Store) Each(workspace string, fn func(Info) bool) error {
	ents, err := s.entries()
	if err != nil {
		return err
	}
	var buf []byte
	for _, e := range ents {
		var info Info
		var ok bool
		info, buf, ok = scanInfo(e.path, workspace, buf)
		if !ok && info.Problem == "" {
			continue
		}
		info.ID, info.Path, info.Modified = e.id, e.path, e.mod
		if !fn(info) {
			return nil
		}
	}
	return nil
}

// Latest returns the ID of the most recently active session of workspace,
// or an error wrapping ErrNoSession.
func (s Store) Latest(workspace string) (string, error) {
	ents, err := s.entries()
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		h, err := readHeader(e.path)
		if err == nil && samePath(h.Workspace, workspace) {
			return e.id, nil
		}
	}
	return "", fmt.Errorf("%w for %s", ErrNoSession, workspace)
}

// Resolve returns the ID named by idOrPrefix: the session with exactly that
// ID, or else the only one whose ID starts with it. No match wraps
// ErrNoSession; several wrap ErrAmbiguous and name them, newest first.
func (s Store) Resolve(idOrPrefix string) (string, error) {
	if err := checkID(idOrPrefix); err != nil {
		return "", err
	}
	if fi, err := os.Stat(s.Path(idOrPrefix)); err == nil && fi.Mode().IsRegular() {
		return idOrPrefix, nil
	}
	ents, err := s.entries()
	if err != nil {
		return "", err
	}
	var ids []string
	for _, e := range ents {
		if strings.HasPrefix(e.id, idOrPrefix) {
			ids = append(ids, e.id)
		}
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%w with ID %q", ErrNoSession, idOrPrefix)
	case 1:
		return ids[0], nil
	}
	const shown = 10
	names := strings.Join(ids[:min(len(ids), shown)], ", ")
	if len(ids) > shown {
		names += fmt.Sprintf(", and %d more", len(ids)-shown)
	}
	return "", fmt.Errorf("%w: %q matches %d sessions: %s", ErrAmbiguous, idOrPrefix, len(ids), names)
}

// samePath compares workspace paths as written by Create.
func samePath(a, b string) bool { return absPath(a) == absPath(b) }

// absPath makes a workspace path absolute and clean, so "." and the full
// path name the same workspace.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// readHeader reads only the first line of a session file.
func readHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	ln, err := nextLine(bufio.NewReaderSize(f, 4096), nil)
	if err != nil && !errors.Is(err, io.EOF) {
		return Header{}, err
	}
	var l Loaded
	if err := l.readHeader(bytes.TrimSpace(ln)); err != nil {
		return Header{}, err
	}
	return l.Header, nil
}

// scanInfo summarises a session file of workspace ("" for any) without
// decoding its events: lines are told apart by the prefix this package
// writes, and only the first user message is decoded, from its first 64 KB
// at most. The rest of a long message or event line is skipped unread, so
// a session holding a 1 GB message costs the time to page through it, not
// to parse it. It stops after the header of another workspace's session.
// buf is reused between files.
func scanInfo(path, workspace string, buf []byte) (Info, []byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Info{Problem: problem(err)}, buf, false
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, headBytes)
	var (
		info   Info
		header bool
	)
	userPrefix := append(slices.Clip(prefixMessage), `{"role":"user"`...)
	// Lines this package writes are known by their start: the rest of a
	// long one need not be kept.
	known := func(head []byte) bool {
		return header && (bytes.HasPrefix(head, prefixEvent) || bytes.HasPrefix(head, prefixMessage))
	}
	for {
		ln, cut, err := nextHead(br, buf, known)
		buf = ln[:0]
		complete := err == nil
		ln = bytes.TrimSpace(ln)
		switch {
		case len(ln) == 0:
		case !header:
			var l Loaded
			if herr := l.readHeader(ln); herr != nil {
				return Info{Problem: herr.Error()}, buf, false
			}
			if workspace != "" && !samePath(l.Header.Workspace, workspace) {
				return Info{}, buf, false
			}
			header = true
			info.Workspace, info.Created, info.Model = l.Header.Workspace, l.Header.Created, l.Header.Model
		case !complete && (cut || !json.Valid(ln)):
			// A torn last line, which loading skips too (this package
			// ends every line it writes with a newline).
		case bytes.HasPrefix(ln, prefixEvent):
		case bytes.HasPrefix(ln, prefixMessage):
			info.Messages++
			if info.FirstMessage == "" && bytes.HasPrefix(ln, userPrefix) {
				if cut {
					info.FirstMessage = excerpt.Cut(contentStart(ln), firstMessageRunes)
				} else if rec, _, _, err := parseLine(ln); err == nil && rec.Message != nil {
					info.FirstMessage = excerpt.Cut(rec.Message.Content, firstMessageRunes)
				}
			}
		default:
			// Rare lines (clear, model, or a form this package does not
			// write itself) take the full parse.
			rec, typ, wire, err := parseLine(ln)
			switch {
			case err != nil:
			case typ == typeClear:
				info.Messages, info.FirstMessage = 0, ""
			case typ == typeModel:
				info.Model = wire.Model
			case typ == typeMessage:
				info.Messages++
				if info.FirstMessage == "" && rec.Message.Role == agent.RoleUser {
					info.FirstMessage = excerpt.Cut(rec.Message.Content, firstMessageRunes)
				}
			}
		}
		if err != nil {
			if !header {
				if errors.Is(err, io.EOF) {
					return Info{}, buf, false // empty: nothing in it to resume
				}
				return Info{Problem: problem(err)}, buf, false
			}
			return info, buf, true
		}
	}
}

// headBytes is how much of a long line scanInfo keeps.
const headBytes = 64 << 10

// nextHead reads one line into buf: whole, or, when it is longer than the
// reader's buffer and keep says its start is enough, only that start (cut
// is then true) with the rest skipped unread.
func nextHead(br *bufio.Reader, buf []byte, keep func(head []byte) bool) (ln []byte, cut bool, err error) {
	chunk, err := br.ReadSlice('\n')
	buf = append(buf[:0], chunk...)
	if !errors.Is(err, bufio.ErrBufferFull) {
		return buf, false, err
	}
	if !keep(bytes.TrimLeft(buf, " \t\r")) {
		for errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = br.ReadSlice('\n')
			buf = append(buf, chunk...)
		}
		return buf, false, err
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = br.ReadSlice('\n')
	}
	return buf, true, err
}

// contentStart decodes what a cut message line holds of its content: the
// JSON string after "content": up to where the line was cut, without a
// half escape at the end.
func contentStart(ln []byte) string {
	const key = `"content":"`
	i := bytes.Index(ln, []byte(key))
	if i < 0 {
		return ""
	}
	s := ln[i+len(key):]
	// Up to the closing quote, or to the last whole character or escape
	// (a \uXXXX takes 6 bytes) before the cut.
	end := 0
	for end < len(s) && s[end] != '"' {
		n := 1
		if s[end] == '\\' {
			n = 2
			if end+1 < len(s) && s[end+1] == 'u' {
				n = 6
			}
		}
		if end+n > len(s) {
			break
		}
		end += n
	}
	s = append([]byte{'"'}, s[:end]...)
	var out string
	if json.Unmarshal(append(s, '"'), &out) != nil {
		return ""
	}
	return out
}

// problem says in a few words why a file could not be read.
func problem(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// nextLine reads one line, however long, into buf.
func nextLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}
