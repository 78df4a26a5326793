package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/checkpoint"
	"covey/internal/excerpt"
	"covey/internal/plural"
)

// checkpoints are the session's snapshots of the workspace, one before
// each user turn (and one at its end), for /rewind.
type checkpoints struct {
	store *checkpoint.Store // nil when none can be taken (err says why)
	err   error
	// recovered are restores a killed covey left, finished at this start.
	recovered []string

	mu sync.Mutex
	// cur and start are the running turn's checkpoint and its tree.
	cur, start string
	// ending is the end of the last turn being recorded (its snapshot is
	// taken after the turn returns, so the answer is not held up by it);
	// whatever reads or writes the timeline waits for it.
	ending sync.WaitGroup
}

// settle waits until the last turn's end is recorded.
func (c *checkpoints) settle() {
	if c != nil {
		c.ending.Wait()
	}
}

// setUpCheckpoints finishes what a killed covey's /rewind left half done
// (before anything else touches the files) and opens the shadow store.
func (s *Session) setUpCheckpoints() {
	s.cps = &checkpoints{}
	dir := checkpoint.Dir(StateDir(), s.ws.Root)
	ctx := context.Background()
	for _, in := range checkpoint.Recover(ctx, dir, s.ws.Root) {
		at := in.Started.Local().Format("15:04")
		if in.Err != nil {
			s.cps.recovered = append(s.cps.recovered, fmt.Sprintf("covey was stopped during a /rewind (started %s) and could not finish it: %v; check the files it names", at, in.Err))
			continue
		}
		s.cps.recovered = append(s.cps.recovered, fmt.Sprintf("covey was stopped during a /rewind (started %s): it is finished now, the files are fully restored to before %s (%s)", at, in.Label, plural.Count(in.Files, "file")))
	}
	if s.rec == nil {
		return
	}
	// A whole home folder (or the root) is no project: snapshotting it
	// would copy everything in it.
	if home, _ := os.UserHomeDir(); s.ws.Root == "/" || (home != "" && filepath.Clean(home) == s.ws.Root) {
		s.cps.err = errors.New("covey keeps no file checkpoints when started in your home folder or /: start it in a project folder")
		return
	}
	s.cps.store, s.cps.err = checkpoint.Open(ctx, dir, s.ws.Root, s.rec.id)
	if s.cps.err != nil {
		s.log.Errorf("checkpoints: %v", s.cps.err)
	}
}

// RecoveredRewinds says what this start finished of a /rewind a killed
// covey left half done ("" items: none).
func (s *Session) RecoveredRewinds() []string { return s.cps.recovered }

// newMark returns an ID for a checkpoint or rewind line, unique within
// its session file.
func newMark(prefix string) string {
	return prefix + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// beginTurn records the checkpoint before a user turn: the workspace's
// snapshot and the message.
func (s *Session) beginTurn(ctx context.Context, text string) {
	s.cps.settle()
	if s.rec == nil || s.rec.rec == nil {
		return
	}
	c := s.cps
	tree := ""
	if c.store != nil {
		snap, err := c.store.Take(ctx)
		if err != nil {
			s.log.Errorf("checkpoint: %v", err)
		}
		tree = snap.Tree
	}
	id := newMark("c")
	s.rec.rec.Checkpoint(sessionfile.Checkpoint{ID: id, Time: time.Now().UTC(), Tree: tree, Text: text})
	c.mu.Lock()
	c.cur, c.start = id, tree
	c.mu.Unlock()
}

// endTurn records the end of the running turn, in the background: the
// snapshot then and the files the turn changed, by whatever means (tools,
// bash, children).
func (s *Session) endTurn() {
	c := s.cps
	c.mu.Lock()
	id, start := c.cur, c.start
	c.cur, c.start = "", ""
	c.mu.Unlock()
	if id == "" || s.rec == nil || s.rec.rec == nil {
		return
	}
	c.ending.Add(1)
	go func() {
		defer c.ending.Done()
		s.recordEnd(id, start)
	}()
}

func (s *Session) recordEnd(id, start string) {
	c := s.cps
	tree := ""
	var files []string
	if c.store != nil && start != "" {
		// The turn's context may be cancelled: the snapshot is taken
		// anyway.
		ctx := context.Background()
		snap, err := c.store.Take(ctx)
		if err == nil {
			tree = snap.Tree
			cs, err := c.store.Changes(ctx, start, tree)
			if err != nil {
				s.log.Errorf("checkpoint: %v", err)
			}
			files = checkpoint.Paths(cs)
		} else {
			s.log.Errorf("checkpoint: %v", err)
		}
	}
	s.rec.rec.TurnEnd(id, tree, files)
}

// reload reads the session file as it stands, every line written.
func (s *Session) reload() (*sessionfile.Loaded, error) {
	if s.rec == nil {
		return nil, errors.New("this session keeps no session file (the demo), so it cannot be rewound")
	}
	if err := s.Load(); err != nil {
		return nil, err
	}
	s.cps.settle()
	if err := s.rec.rec.Flush(); err != nil {
		return nil, err
	}
	return s.rec.store.Load(s.rec.id)
}

// RewindPoints are the places /rewind can go to, newest first: the
// user's messages, and first the branch the last /rewind left (redo).
func (s *Session) RewindPoints() ([]checkpoint.Point, error) {
	l, err := s.reload()
	if err != nil {
		return nil, err
	}
	var out []checkpoint.Point
	if n := len(l.Rewinds); n > 0 {
		r := l.Rewinds[n-1]
		out = append(out, checkpoint.Point{ID: r.ID, Time: r.Time, Text: r.Text, Redo: true, NoCode: r.Tree == ""})
	}
	for i := len(l.Checkpoints) - 1; i >= 0; i-- {
		c := l.Checkpoints[i]
		out = append(out, checkpoint.Point{ID: c.ID, Time: c.Time, Text: c.Text, Files: c.Files, More: c.More, NoCode: c.Tree == ""})
	}
	return out, nil
}

// target is a point found in a loaded session: its tree, its message,
// and the index of its checkpoint (-1 for a redo).
type target struct {
	tree, text string
	index      int
}

func findTarget(l *sessionfile.Loaded, id string) (target, error) {
	for i, c := range l.Checkpoints {
		if c.ID == id {
			return target{tree: c.Tree, text: c.Text, index: i}, nil
		}
	}
	for _, r := range l.Rewinds {
		if r.ID == id {
			return target{tree: r.Tree, index: -1}, nil
		}
	}
	return target{}, fmt.Errorf("no point %q to rewind to in this session", id)
}

// PlanRewind works out what restoring the files to point id would do:
// which files it writes, and which of them were changed outside covey
// since (an editor, between turns), with their diffs, for the user to
// decide.
func (s *Session) PlanRewind(ctx context.Context, id string) (checkpoint.Plan, error) {
	l, err := s.reload()
	if err != nil {
		return checkpoint.Plan{}, err
	}
	t, err := findTarget(l, id)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	st := s.cps.store
	if st == nil || t.tree == "" {
		return checkpoint.Plan{}, s.noCode()
	}
	now, err := st.Take(ctx)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	cs, err := st.Changes(ctx, now.Tree, t.tree)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	plan := checkpoint.Plan{Files: checkpoint.Paths(cs), Skipped: now.Skipped}
	outside, err := s.outsideChanges(ctx, l, id, now.Tree)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	for _, c := range cs {
		if outside[c.Path] {
			d, err := st.Diff(ctx, now.Tree, t.tree, c.Path)
			if err != nil {
				return checkpoint.Plan{}, err
			}
			plan.Conflicts = append(plan.Conflicts, checkpoint.Conflict{Path: c.Path, Diff: d})
		}
	}
	return plan, nil
}

func (s *Session) noCode() error {
	if s.cps.err != nil {
		return fmt.Errorf("the files cannot be put back: %w", s.cps.err)
	}
	return errors.New("the files cannot be put back: no snapshot was taken at that point")
}

// outsideChanges are the files changed while covey was not changing
// them, since the point id: between the end of each turn or rewind and the
// start of the next (on whatever branch: the files have one history), and
// since the last one's end.
func (s *Session) outsideChanges(ctx context.Context, l *sessionfile.Loaded, id, now string) (map[string]bool, error) {
	out := map[string]bool{}
	st := s.cps.store
	add := func(a, b string) error {
		if a == "" || b == "" {
			return nil
		}
		cs, err := st.Changes(ctx, a, b)
		for _, c := range cs {
			out[c.Path] = true
		}
		return err
	}
	from := -1
	for i, m := range l.Timeline {
		if m.Start && m.ID == id {
			from = i
		}
	}
	if from < 0 {
		return out, nil
	}
	lastEnd := ""
	for _, m := range l.Timeline[from+1:] {
		if !m.Start {
			lastEnd = m.Tree
			continue
		}
		if err := add(lastEnd, m.Tree); err != nil {
			return nil, err
		}
		lastEnd = ""
	}
	return out, add(lastEnd, now)
}

// Rewind goes back (or forward, to a redo point) as req says: the files
// put back (journaled: a kill mid-way is finished at the next start), the
// conversation cut before the message, children started since stopped and
// dropped. It returns what it did and, when the conversation changed, the
// events to draw it again.
func (s *Session) Rewind(ctx context.Context, req checkpoint.Request) (checkpoint.Outcome, []agent.Event, error) {
	s.cps.mu.Lock()
	busy := s.cps.cur != ""
	s.cps.mu.Unlock()
	if busy {
		return checkpoint.Outcome{}, nil, errors.New("a turn is running: cancel it before /rewind")
	}
	l, err := s.reload()
	if err != nil {
		return checkpoint.Outcome{}, nil, err
	}
	t, err := findTarget(l, req.To)
	if err != nil {
		return checkpoint.Outcome{}, nil, err
	}
	code, conv := req.Mode != checkpoint.ConversationOnly, req.Mode != checkpoint.CodeOnly
	rw := sessionfile.Rewind{ID: newMark("r"), To: req.To, Time: time.Now().UTC(), Conversation: conv, Code: code, Text: lastUserText(l)}
	var out checkpoint.Outcome
	label := "the redo point"
	if t.text != "" {
		label = "“" + excerpt.Cut(excerpt.Line(t.text), 40) + "”"
	}
	st := s.cps.store
	if st != nil {
		now, err := st.Take(ctx)
		if err != nil {
			return out, nil, err
		}
		rw.Tree = now.Tree
		if code {
			if t.tree == "" {
				return out, nil, s.noCode()
			}
			res, err := st.Restore(ctx, now.Tree, t.tree, label, req.Keep, func() error {
				s.rec.rec.Rewind(rw)
				return s.rec.rec.Err()
			}, nil)
			if err != nil {
				return out, nil, err
			}
			// The end of covey's change: what follows is the user's.
			after := t.tree
			if snap, err := st.Take(ctx); err == nil {
				after = snap.Tree
			}
			s.rec.rec.TurnEnd(rw.ID, after, append(res.Written, res.Removed...))
			out.Summary = fmt.Sprintf("files put back as they were before %s: %s", label, countFiles(res))
			if len(req.Keep) > 0 {
				out.Summary += fmt.Sprintf("; kept as you have them: %s", strings.Join(req.Keep, ", "))
			}
			if len(now.Skipped) > 0 {
				out.Summary += fmt.Sprintf("; not covered (over 10 MB), left as they are: %s", strings.Join(now.Skipped, ", "))
			}
		} else {
			s.rec.rec.Rewind(rw)
			s.rec.rec.TurnEnd(rw.ID, rw.Tree, nil)
		}
	} else {
		if code {
			return out, nil, s.noCode()
		}
		s.rec.rec.Rewind(rw)
	}
	if !conv {
		return out, nil, nil
	}
	after, err := s.reload()
	if err != nil {
		return out, nil, err
	}
	s.main.SetHistory(after.Messages)
	out.Text = t.text
	out.Dropped, out.Worktrees = s.dropChildren(l, after)
	conv1 := "conversation cut before " + label
	if t.index < 0 {
		conv1 = "conversation back as it was before the last /rewind"
	}
	out.Summary = joinSentences(conv1, out.Summary)
	if len(out.Dropped) > 0 {
		out.Summary = joinSentences(out.Summary, "stopped and dropped from the crew: "+strings.Join(out.Dropped, ", "))
	}
	if len(out.Worktrees) > 0 {
		out.Summary = joinSentences(out.Summary, "kept their worktrees: "+strings.Join(out.Worktrees, "; ")+" (covey worktrees lists and removes them)")
	}
	return out, after.Events(), nil
}

// dropChildren stops and drops the children and shells the cut
// conversation no longer has, and names the worktrees of those that had
// one (kept where they are).
func (s *Session) dropChildren(before, after *sessionfile.Loaded) (names, worktrees []string) {
	keep := map[string]bool{}
	for _, c := range after.Children {
		keep[c.Source.AgentID] = true
	}
	var drop []string
	live := map[string]bool{}
	for _, id := range s.manager.Children() {
		live[id] = true
		if !keep[id] {
			drop = append(drop, id)
		}
	}
	s.manager.Drop(drop)
	// Going forward again (redo) brings back the branch's children, as
	// finished ones that can be messaged.
	var back []sessionfile.Child
	for _, c := range after.Children {
		if !live[c.Source.AgentID] && c.Source.AgentType != agent.ShellType {
			back = append(back, c)
		}
	}
	s.manager.Restore(restoredChildren(back))
	for _, id := range s.shells.Running() {
		if !keep[id] {
			s.shells.Kill(id)
			drop = append(drop, id)
		}
	}
	dropped := map[string]bool{}
	for _, id := range drop {
		dropped[id] = true
	}
	for _, rec := range before.Replay {
		if cs, ok := rec.Event.(agent.ChildStarted); ok && dropped[cs.AgentID] {
			names = append(names, childLabel(cs.Source))
			if cs.Worktree != nil && exists(cs.Worktree.Path) {
				worktrees = append(worktrees, fmt.Sprintf("%s at %s (branch %s)", childLabel(cs.Source), cs.Worktree.Path, cs.Worktree.Branch))
			}
		}
	}
	return slices.Compact(names), worktrees
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func childLabel(src agent.Source) string {
	if src.Name != "" {
		return src.Name
	}
	return src.AgentID
}

func countFiles(r checkpoint.Restored) string {
	var parts []string
	if n := len(r.Written); n > 0 {
		parts = append(parts, fmt.Sprintf("%d written", n))
	}
	if n := len(r.Removed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d removed", n))
	}
	if len(parts) == 0 {
		return "nothing to change"
	}
	return strings.Join(parts, ", ")
}

func joinSentences(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// lastUserText is the newest user message of a loaded session that the
// user typed (not a delivery of background outcomes).
func lastUserText(l *sessionfile.Loaded) string {
	if n := len(l.Checkpoints); n > 0 {
		return l.Checkpoints[n-1].Text
	}
	return ""
}
