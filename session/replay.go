package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"covey/agent"
	"covey/agent/sessionfile"
)

// Recorded is a session file read for covey replay: only read, never
// locked or written, and nothing built that could reach a model, the
// network or a tool.
type Recorded struct {
	ID, Path, Workspace, Model string
	Created                    time.Time
	// Events are the session's events in order, each with a time: the
	// ones the file does not time (text, which is buffered) are spread
	// between their timed neighbours, as they streamed, and times never
	// go back.
	Events []sessionfile.Timed
	// Warnings say what of the file could not be read (a torn or
	// damaged line is skipped; the rest plays).
	Warnings []string
}

// OpenRecorded reads the session idOrPath names: a session ID or a unique
// prefix of one, as --resume takes them, or the path of a session file.
func OpenRecorded(idOrPath string) (*Recorded, error) {
	if idOrPath == "" {
		return nil, errors.New("replay: which session? give its ID (covey sessions lists them)")
	}
	if isPath(idOrPath) {
		return readRecorded(idOrPath)
	}
	dir, err := sessionfile.DefaultDir()
	if err != nil {
		return nil, err
	}
	store := sessionfile.Store{Dir: dir}
	id, err := store.Resolve(idOrPath)
	if errors.Is(err, sessionfile.ErrNoSession) {
		return nil, fmt.Errorf("%w (covey sessions lists this folder's sessions; a session file's path works too)", err)
	}
	if err != nil {
		return nil, err
	}
	return readRecorded(store.Path(id))
}

// isPath reports whether arg names a file rather than a session ID: it
// has a folder in it, or ends in .jsonl and exists.
func isPath(arg string) bool {
	if strings.ContainsRune(arg, filepath.Separator) || strings.ContainsRune(arg, '/') {
		return true
	}
	if strings.HasSuffix(arg, sessionfile.Ext) {
		_, err := os.Stat(arg)
		return err == nil
	}
	return false
}

func readRecorded(path string) (*Recorded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	defer f.Close()
	l, err := sessionfile.Read(f)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	r := &Recorded{ID: l.Header.ID, Path: path, Workspace: l.Header.Workspace, Model: l.Model,
		Created: l.Header.Created, Warnings: l.Warnings}
	r.Events = placeInTime(typedEvents(l.TimedEvents()), l.Header.Created)
	return r, nil
}

// typedEvents shows each user message as it was typed, with the notices
// of its attachments, as a resumed session does.
func typedEvents(in []sessionfile.Timed) []sessionfile.Timed {
	out := make([]sessionfile.Timed, 0, len(in))
	for _, t := range in {
		u, ok := t.Event.(agent.UserMessage)
		if !ok || u.IsChild() {
			out = append(out, t)
			continue
		}
		typed, notes := typedPrompt(u.Text)
		u.Text = typed
		out = append(out, sessionfile.Timed{Event: u, At: t.At})
		for _, n := range notes {
			out = append(out, sessionfile.Timed{Event: agent.Notice{Source: u.Source, Level: agent.NoticeInfo, Message: n}, At: t.At})
		}
	}
	return out
}

// untimedStep is the pace of a file whose events carry no time.
const untimedStep = 200 * time.Millisecond

// untimed reports whether no event of evs has a time.
func untimed(evs []sessionfile.Timed) bool {
	for _, e := range evs {
		if !e.At.IsZero() {
			return false
		}
	}
	return true
}

// placeInTime gives every event a time (a file that times none: one every
// untimedStep): the untimed ones between two
// timed ones are spread evenly between them (text streamed in between),
// those before the first timed one take start (or that one's time), those
// after the last take its time; a time earlier than the one before it
// (two goroutines stamping at once) takes the earlier's.
func placeInTime(evs []sessionfile.Timed, start time.Time) []sessionfile.Timed {
	if untimed(evs) {
		// A file from before events were timed: one event every
		// untimedStep, in order, rather than all at once.
		for i := range evs {
			evs[i].At = start.Add(time.Duration(i) * untimedStep)
		}
		return evs
	}
	prev := time.Time{}
	for i := 0; i < len(evs); {
		if !evs[i].At.IsZero() {
			if !prev.IsZero() && evs[i].At.Before(prev) {
				evs[i].At = prev
			}
			prev = evs[i].At
			i++
			continue
		}
		j := i
		for j < len(evs) && evs[j].At.IsZero() {
			j++
		}
		from, to := prev, time.Time{}
		if j < len(evs) {
			to = evs[j].At
		}
		switch {
		case from.IsZero() && to.IsZero():
			from, to = start, start
		case from.IsZero():
			from = to
			if !start.IsZero() && start.Before(to) {
				from = start
			}
		case to.IsZero() || to.Before(from):
			to = from
		}
		n := j - i
		step := to.Sub(from) / time.Duration(n+1)
		for k := range n {
			evs[i+k].At = from.Add(step * time.Duration(k+1))
		}
		prev = evs[j-1].At
		i = j
	}
	return evs
}
