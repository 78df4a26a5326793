package sessionfile

import (
	"bytes"
	"encoding/json"
	"time"
)

// Line types of checkpoints and rewinds:
//
//	{"type":"checkpoint","id":"c1","time":"…","tree":"…","text":"…"}
//	    written before a user turn: the workspace's snapshot (a tree of
//	    the shadow store, see package checkpoint) and the message
//	{"type":"turn_end","id":"c1","tree":"…","files":["a.go"],"more":0}
//	    written when that turn (and every child it waited for) ended
//	{"type":"rewind","id":"r1","to":"c1","tree":"…","conversation":true,"code":true}
//	    /rewind: with conversation, loading goes on from the state just
//	    before line "to" (a checkpoint, or an earlier rewind: redo), and
//	    the lines between stay in the file as a branch; tree is the
//	    workspace just before the rewind, so redo can bring it back
const (
	typeCheckpoint = "checkpoint"
	typeTurnEnd    = "turn_end"
	typeRewind     = "rewind"
)

var rewindMark = []byte(`{"type":"rewind"`)

// Checkpoint is the point before one user turn.
type Checkpoint struct {
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	// Tree is the workspace's snapshot before the turn ("" when none
	// could be taken: the conversation can still be rewound).
	Tree string `json:"tree,omitempty"`
	// Text is the user's message.
	Text string `json:"text"`
	// End is the snapshot when the turn ended; Files the files the turn
	// changed (at most maxFiles; More counts the rest). Empty while the
	// turn runs, or when covey stopped first.
	End   string   `json:"end,omitempty"`
	Files []string `json:"files,omitempty"`
	More  int      `json:"more,omitempty"`
}

// maxFiles bounds the file names a turn_end line keeps.
const maxFiles = 50

// Rewind is one /rewind, and the branch it left: the state just before it.
type Rewind struct {
	ID   string    `json:"id"`
	To   string    `json:"to"`
	Time time.Time `json:"time"`
	// Tree is the workspace just before the rewind (for redo).
	Tree         string `json:"tree,omitempty"`
	Conversation bool   `json:"conversation,omitempty"`
	Code         bool   `json:"code,omitempty"`
	// Text is the last user message of the branch the rewind left, to
	// name it in a redo.
	Text string `json:"text,omitempty"`
}

type cpLine struct {
	Type string `json:"type"`
	Checkpoint
}

type endLine struct {
	Type  string   `json:"type"`
	ID    string   `json:"id"`
	Tree  string   `json:"tree,omitempty"`
	Files []string `json:"files,omitempty"`
	More  int      `json:"more,omitempty"`
}

type rwLine struct {
	Type string `json:"type"`
	Rewind
}

// Checkpoint records the point before a user turn.
func (r *Recorder) Checkpoint(c Checkpoint) {
	if r == nil {
		return
	}
	b, err := json.Marshal(cpLine{Type: typeCheckpoint, Checkpoint: Checkpoint{ID: c.ID, Time: c.Time, Tree: c.Tree, Text: c.Text}})
	if err == nil {
		r.writeNow(append(b, '\n'))
	}
}

// TurnEnd records the end of checkpoint id's turn: the workspace's
// snapshot then and the files the turn changed.
func (r *Recorder) TurnEnd(id, tree string, files []string) {
	if r == nil {
		return
	}
	e := endLine{Type: typeTurnEnd, ID: id, Tree: tree, Files: files}
	if len(files) > maxFiles {
		e.Files, e.More = files[:maxFiles], len(files)-maxFiles
	}
	b, err := json.Marshal(e)
	if err == nil {
		r.writeNow(append(b, '\n'))
	}
}

// Rewind records a /rewind.
func (r *Recorder) Rewind(rw Rewind) {
	if r == nil {
		return
	}
	b, err := json.Marshal(rwLine{Type: typeRewind, Rewind: rw})
	if err == nil {
		r.writeNow(append(b, '\n'))
	}
}

// noteRewindLine keeps what a checkpoint, turn_end or rewind line says.
func (l *Loaded) noteRewindLine(typ string, raw []byte) {
	switch typ {
	case typeCheckpoint:
		var c cpLine
		if json.Unmarshal(raw, &c) == nil && c.ID != "" {
			c.Files, c.End = nil, ""
			l.Checkpoints = append(l.Checkpoints, c.Checkpoint)
			l.userAt = c.Time
		}
	case typeTurnEnd:
		var e endLine
		if json.Unmarshal(raw, &e) != nil {
			return
		}
		for i := len(l.Checkpoints) - 1; i >= 0; i-- {
			if l.Checkpoints[i].ID == e.ID {
				l.Checkpoints[i].End, l.Checkpoints[i].Files, l.Checkpoints[i].More = e.Tree, e.Files, e.More
				return
			}
		}
	}
}

// Mark is one point of the workspace's history as covey saw it, in the
// order it happened (every line of the file, whatever branch it is on):
// the start of a turn or a rewind (Start: the snapshot just before covey
// touched the files) or its end (the snapshot just after). Between one
// mark's end and the next one's start, nobody but the user changed the
// files.
type Mark struct {
	ID    string
	Start bool
	Tree  string
}

var (
	checkpointMark = []byte(`{"type":"checkpoint"`)
	turnEndMark    = []byte(`{"type":"turn_end"`)
)

// timeline lists the marks of every line of a file, in file order.
func timeline(data []byte) []Mark {
	if !bytes.Contains(data, checkpointMark) {
		return nil
	}
	var out []Mark
	for len(data) > 0 {
		raw, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		t := bytes.TrimSpace(raw)
		switch {
		case bytes.HasPrefix(t, checkpointMark):
			var c cpLine
			if json.Unmarshal(t, &c) == nil && c.ID != "" {
				out = append(out, Mark{ID: c.ID, Start: true, Tree: c.Tree})
			}
		case bytes.HasPrefix(t, rewindMark):
			var r rwLine
			if json.Unmarshal(t, &r) == nil && r.ID != "" {
				out = append(out, Mark{ID: r.ID, Start: true, Tree: r.Tree})
			}
		case bytes.HasPrefix(t, turnEndMark):
			var e endLine
			if json.Unmarshal(t, &e) == nil && e.ID != "" {
				out = append(out, Mark{ID: e.ID, Tree: e.Tree})
			}
		}
	}
	return out
}

// span is the lines [from, to) of a file.
type span struct{ from, to int }

// splice returns the lines a file's rewinds leave in effect, in order:
// a conversation rewind to a point goes on from the lines in effect just
// before that point (a checkpoint, or an earlier rewind for redo), so the
// lines between stay in the file, out of the way. It also returns every
// rewind in the file (the branches redo can go to).
func splice(data []byte) ([]byte, []Rewind) {
	var lines [][]byte
	for len(data) > 0 {
		raw, rest, _ := bytes.Cut(data, []byte("\n"))
		lines = append(lines, raw)
		data = rest
	}
	var (
		seq      []span
		anchors  = map[string][]span{}
		rewinds  []Rewind
		push     = func(i int) { seq = addLine(seq, i) }
		snapshot = func() []span { return append([]span(nil), seq...) }
	)
	for i, raw := range lines {
		t := bytes.TrimSpace(raw)
		switch {
		case bytes.HasPrefix(t, []byte(`{"type":"checkpoint"`)):
			var c cpLine
			if json.Unmarshal(t, &c) == nil && c.ID != "" {
				anchors[c.ID] = snapshot()
			}
		case bytes.HasPrefix(t, rewindMark):
			var r rwLine
			if json.Unmarshal(t, &r) != nil || r.ID == "" {
				break
			}
			rewinds = append(rewinds, r.Rewind)
			anchors[r.ID] = snapshot()
			if to, ok := anchors[r.To]; ok && r.Conversation {
				seq = append([]span(nil), to...)
			}
		}
		push(i)
	}
	var out bytes.Buffer
	for _, s := range seq {
		for i := s.from; i < s.to; i++ {
			out.Write(lines[i])
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), rewinds
}

func addLine(seq []span, i int) []span {
	if n := len(seq); n > 0 && seq[n-1].to == i {
		seq[n-1].to = i + 1
		return seq
	}
	return append(seq, span{i, i + 1})
}
