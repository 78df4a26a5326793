package checkpoint

import "time"

// What a /rewind restores: the three choices, in the order offered.
const (
	// Both puts back the files and cuts the conversation.
	Both = iota
	// ConversationOnly cuts the conversation and leaves the files.
	ConversationOnly
	// CodeOnly puts back the files and keeps the conversation.
	CodeOnly
)

// Point is one place /rewind can go back (or forward) to.
type Point struct {
	// ID names it in the session file (a checkpoint, or a rewind for
	// redo).
	ID   string
	Time time.Time
	// Text is the user's message (for redo: the last message of the
	// branch it brings back).
	Text string
	// Files are the files changed after the message (its turn's), at most
	// 50; More counts the rest.
	Files []string
	More  int
	// Redo is set for a branch an earlier /rewind left: going there is
	// going forward again.
	Redo bool
	// NoCode is set when no snapshot of the files was taken then (git
	// missing): only the conversation can go back.
	NoCode bool
}

// Conflict is a file changed outside covey since the point, which a
// restore would overwrite: the user sees its diff and decides.
type Conflict struct {
	Path string
	// Diff goes from the file as it is now to what the restore would
	// write.
	Diff string
}

// Plan is what a restore to a point would do, worked out before it runs.
type Plan struct {
	// Files are the files the restore would write or remove.
	Files []string
	// Conflicts are those of Files changed outside covey since.
	Conflicts []Conflict
	// Skipped are the files no snapshot covers (over the size limit).
	Skipped []string
}

// Request is a /rewind the user chose.
type Request struct {
	To   string // a Point's ID
	Mode int    // Both, ConversationOnly or CodeOnly
	// Keep are conflicting files the user chose to leave as they are.
	Keep []string
}

// Outcome is what a /rewind did, for the screen.
type Outcome struct {
	// Text is the message rewound to, for the input line (conversation
	// rewinds).
	Text string
	// Summary says what happened, in a sentence or two.
	Summary string
	// Dropped are the children stopped and dropped from the crew;
	// Worktrees the worktrees (and branches) of dropped children, kept
	// where they are.
	Dropped   []string
	Worktrees []string
}
