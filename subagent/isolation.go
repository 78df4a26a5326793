package subagent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"covey/agent"
	"covey/agentdefs"
	"covey/internal/plural"
	"covey/permission"
	"covey/tools/diff"
	"covey/tools/toolname"
	"covey/tools/workspace"
	"covey/worktree"
)

// IsolationWorktree is the task tool's isolation value (and an agent
// definition's) that runs a child in its own git worktree.
const IsolationWorktree = agentdefs.IsolationWorktree

// isolation is an isolated child's worktree and the workspace rooted there.
type isolation struct {
	wt *worktree.Worktree
	ws *workspace.Workspace

	// The live report of the worktree's diff runs beside the child, at
	// most one at a time: calls that finish meanwhile are folded into
	// one more report.
	repMu      sync.Mutex
	repRunning bool
	repPending bool
	repCall    string
	repWG      sync.WaitGroup
}

// repo opens the workspace's repository once per manager.
func (m *Manager) repo(ctx context.Context) (*worktree.Repo, error) {
	m.repoOnce.Do(func() {
		if m.cfg.Workspace == nil {
			m.repoErr = errors.New("no workspace")
			return
		}
		m.repoVal, m.repoErr = worktree.Open(ctx, m.cfg.Workspace.Root)
	})
	return m.repoVal, m.repoErr
}

// repoAt opens the repository checked out at root: the workspace's, or
// an isolated child's worktree (for that child's own isolated children).
func (m *Manager) repoAt(ctx context.Context, root string) (*worktree.Repo, error) {
	base, err := m.repo(ctx)
	if err != nil || m.cfg.Workspace == nil || root == m.cfg.Workspace.Root {
		return base, err
	}
	m.repoMu.Lock()
	defer m.repoMu.Unlock()
	if r, ok := m.subRepos[root]; ok {
		return r, nil
	}
	r, err := base.At(ctx, root)
	if err != nil {
		return nil, err
	}
	if m.subRepos == nil {
		m.subRepos = map[string]*worktree.Repo{}
	}
	m.subRepos[root] = r
	return r, nil
}

// workspace is where the child works: its own worktree when isolated,
// else where its parent works.
func (c *child) workspace() *workspace.Workspace {
	if c.iso != nil {
		return c.iso.ws
	}
	return c.home
}

// homeOf is the workspace of the agent with AgentID id: an isolated
// child's worktree (or where that child's parent works), else the
// session's workspace.
func (m *Manager) homeOf(id string) *workspace.Workspace {
	if id != agent.MainAgentID {
		if p := m.lookup(id); p != nil {
			return p.workspace()
		}
	}
	return m.cfg.Workspace
}

// isolate creates the child's worktree from where its parent works. The
// child must not start without it: an error here ends the child before
// its first turn.
func (c *child) isolate(ctx context.Context) (*isolation, error) {
	if c.home == nil {
		return nil, errors.New("isolation: worktree needs a workspace")
	}
	repo, err := c.m.repoAt(ctx, c.home.Root)
	if err != nil {
		return nil, fmt.Errorf("isolation: worktree needs the workspace in a git repository, and %w", err)
	}
	name := c.src.Name
	if name == "" {
		name = c.src.AgentID
	}
	wt, err := repo.Create(ctx, worktree.Options{Name: name, Base: c.m.cfg.WorktreeBase, Session: c.m.cfg.SessionID})
	if err != nil {
		return nil, fmt.Errorf("isolation: worktree: %w", err)
	}
	ws, err := workspace.NewWorkspace(wt.Workdir())
	if err != nil {
		_ = wt.Remove(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("isolation: worktree: %w", err)
	}
	return &isolation{wt: wt, ws: ws}, nil
}

// systemPrompt is the child's system prompt: its definition's, with the
// environment of where it works. A child in a worktree is told so: its
// workspace root is the worktree, its changes are collected from the files
// (git cannot write the repository from there), and the user reviews them.
func (c *child) systemPrompt() string {
	env := c.m.Environment()
	ws := c.workspace()
	if ws == nil || ws == c.m.cfg.Workspace {
		return agent.SystemPrompt(c.def.Prompt, env)
	}
	env.Root = ws.Root
	return agent.SystemPrompt(c.def.Prompt, env) + `
# Your worktree
You work in a git worktree of your own (the workspace root above), not in the user's checkout: the user's files do not change while you work. When you finish, every file you changed, created or deleted here is proposed to the user as one change to review. Just edit the files; do not commit, stash or switch branches (git can read the repository from here but not write to it), and do not try to reach the user's checkout.
`
}

// info describes the worktree for ChildStarted.
func (iso *isolation) info() *agent.WorktreeInfo {
	return &agent.WorktreeInfo{Path: iso.wt.Path(), Branch: iso.wt.Branch(), Base: iso.wt.BaseDescription()}
}

// noteChange asks for a report of the worktree's diff after the call
// callID, which may have changed files; the child does not wait for it.
func (c *child) noteChange(ctx context.Context, callID string) {
	iso := c.iso
	iso.repMu.Lock()
	iso.repCall = callID
	if iso.repRunning {
		iso.repPending = true
		iso.repMu.Unlock()
		return
	}
	iso.repRunning = true
	iso.repWG.Add(1)
	iso.repMu.Unlock()
	go func() {
		defer iso.repWG.Done()
		for {
			iso.repMu.Lock()
			call := iso.repCall
			iso.repPending = false
			iso.repMu.Unlock()
			c.reportFiles(ctx, iso, call)
			iso.repMu.Lock()
			if !iso.repPending {
				iso.repRunning = false
				iso.repMu.Unlock()
				return
			}
			iso.repMu.Unlock()
		}
	}()
}

// reportFiles emits the worktree's current diff as the child's changed
// files.
func (c *child) reportFiles(ctx context.Context, iso *isolation, callID string) {
	changes, err := iso.wt.Diff(ctx)
	if err != nil {
		return // the live view is best effort; the review reads the diff again
	}
	files := make([]agent.FileChange, 0, len(changes))
	for _, fc := range c.fileChanges(changes) {
		status := "modified"
		switch {
		case fc.Created:
			status = "added"
		case fc.Diff != "" && strings.Contains(fc.Diff, "+++ /dev/null"):
			status = "deleted"
		}
		files = append(files, agent.FileChange{Path: fc.Path, Status: status, Added: fc.Added, Removed: fc.Removed})
	}
	c.emit(agent.ChildFiles{Source: c.src, CallID: callID, Files: files})
}

// fileChanges turns the worktree's changes into the permission request's
// form: workspace-relative paths and unified diffs.
func (c *child) fileChanges(changes []worktree.Change) []permission.FileChange {
	out := make([]permission.FileChange, 0, len(changes))
	for _, ch := range changes {
		p := c.userPath(ch.Path)
		fc := permission.FileChange{Path: p, Created: ch.Status == worktree.Added}
		if ch.Binary() {
			fc.Diff = fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -0,0 +0,0 @@\nbinary file, %d → %d bytes (not shown)\n", p, p, len(ch.Old), len(ch.New))
		} else {
			fc.Diff, fc.Added, fc.Removed = diff.UnifiedDiff(p, string(ch.Old), string(ch.New))
		}
		if ch.Status == worktree.Deleted {
			fc.Diff = strings.Replace(fc.Diff, "+++ b/"+p, "+++ /dev/null", 1)
		}
		out = append(out, fc)
	}
	return out
}

// userPath is a path of the child's worktree relative to where its
// parent works (the user's workspace, for a child of the main agent).
func (c *child) userPath(repoPath string) string {
	abs := filepath.Join(c.iso.wt.Repo().Top, filepath.FromSlash(repoPath))
	rel, err := filepath.Rel(c.home.Root, abs)
	if err != nil {
		return repoPath
	}
	return filepath.ToSlash(rel)
}

// proposal is an isolated child's changes as offered to the user: the
// files inside the workspace (as the request shows them), the repository
// path of each, and the files outside it, which covey never applies.
type proposal struct {
	changes []worktree.Change
	fcs     []permission.FileChange
	byUser  map[string]string // workspace path → repository path
	outside []string
}

// propose reads the child's worktree as a proposal.
func (c *child) propose(ctx context.Context) (proposal, error) {
	changes, err := c.iso.wt.Diff(ctx)
	if err != nil {
		return proposal{}, err
	}
	pr := proposal{changes: changes, byUser: make(map[string]string, len(changes))}
	// Only files inside the workspace are proposed: the child's commands
	// may have touched the rest of the repository, which covey never
	// writes to; such changes stay on the kept branch.
	for i, fc := range c.fileChanges(changes) {
		if fc.Path == ".." || strings.HasPrefix(fc.Path, "../") {
			pr.outside = append(pr.outside, fc.Path)
			continue
		}
		pr.fcs = append(pr.fcs, fc)
		pr.byUser[fc.Path] = changes[i].Path
	}
	return pr, nil
}

// paths lists the proposal's workspace paths.
func (pr proposal) paths() []string {
	out := make([]string, len(pr.fcs))
	for i, fc := range pr.fcs {
		out[i] = fc.Path
	}
	return out
}

// merger carries out what becomes of one isolated child's worktree and
// words it for the child's report (the WorktreeResult it emits).
type merger struct {
	c   *child
	ctx context.Context
	res agent.WorktreeResult
}

func (c *child) merger(ctx context.Context) *merger {
	wt := c.iso.wt
	return &merger{c: c, ctx: ctx, res: agent.WorktreeResult{Source: c.src, Path: wt.Path(), Branch: wt.Branch()}}
}

// done emits the result and returns its message.
func (mg *merger) done() string {
	mg.c.m.cfg.Emit(mg.res)
	return mg.res.Message
}

// keep commits the changes on the worktree's branch and says why.
func (mg *merger) keep(why string) string {
	wt, c := mg.c.iso.wt, mg.c
	if mg.res.Status == "" {
		mg.res.Status = agent.WorktreeKept
	}
	commit, err := wt.Keep(mg.ctx, fmt.Sprintf("covey: changes of %s (%s)", c.src.AgentID, c.spec.Description))
	mg.res.Commit = commit
	if err != nil {
		why += fmt.Sprintf(" (committing them on the branch failed: %v; they are in the folder)", err)
	}
	mg.res.Message = fmt.Sprintf("%s. They are kept in the worktree %s on the branch %s%s; `covey worktrees apply %s` (or /worktrees apply) merges them into your files when you are ready, and `covey worktrees prune` removes them.",
		why, wt.Path(), wt.Branch(), commitNote(commit), wt.Branch())
	return mg.done()
}

// discard removes the worktree and its branch, as the user chose.
func (mg *merger) discard(msg string) string {
	if mg.res.Status == "" {
		mg.res.Status = agent.WorktreeDiscarded
	}
	mg.res.Message = msg
	if err := mg.c.iso.wt.Remove(mg.ctx); err != nil {
		mg.res.Message += fmt.Sprintf(" (removing the worktree failed: %v)", err)
	}
	return mg.done()
}

// review proposes the child's changes to the user as one merge and carries
// out the answer; it returns what to add to the child's report. Nothing is
// ever lost: whatever is not applied or discarded on the user's word stays
// committed on the worktree's branch.
func (c *child) review(out outcome) outcome {
	// The last live report goes out before the outcome, never after it.
	c.iso.repWG.Wait()
	// The review outlives a cancelled child (its changes are still worth
	// keeping), but asks nobody once the turn is gone.
	mg := c.merger(context.WithoutCancel(c.ctx))
	out.text = strings.TrimRight(out.text, "\n") + "\n\n[worktree] " + c.reviewChanges(mg)
	return out
}

// reviewChanges asks about the child's changes and carries out the
// answer, returning what became of them.
func (c *child) reviewChanges(mg *merger) string {
	pr, err := c.propose(mg.ctx)
	if err != nil {
		return mg.keep(fmt.Sprintf("Reading the child's changes failed (%v)", err))
	}
	if len(pr.changes) == 0 {
		mg.res.Status = agent.WorktreeUnchanged
		mg.res.Message = "The child changed no file; its worktree was removed."
		if err := c.iso.wt.Remove(mg.ctx); err != nil {
			mg.res.Message = fmt.Sprintf("The child changed no file; removing its worktree failed: %v", err)
		}
		return mg.done()
	}
	mg.res.Files = pr.paths()
	if len(pr.fcs) == 0 {
		return mg.keep(fmt.Sprintf("The child changed only files outside the workspace (%s), which covey does not apply", strings.Join(pr.outside, ", ")))
	}
	v := permission.Verdict{Allowed: true}
	if g := c.gate(); g != nil && c.ctx.Err() == nil {
		// Into a parent's own worktree, the merge is part of what that
		// parent proposes later: Isolated, as the parent's own writes.
		v = g.Check(c.ctx, permission.Request{Tool: permission.ToolMerge, Path: c.iso.wt.Branch(), Changes: pr.fcs, Isolated: c.home != c.m.cfg.Workspace})
	} else if c.ctx.Err() != nil {
		v = permission.Verdict{Reason: "the turn was cancelled before the change could be reviewed"}
	}
	if !v.Allowed {
		n := plural.Count(len(pr.fcs), "file")
		switch {
		case v.Keep:
			return mg.keep(fmt.Sprintf("The user kept the child's changes (%s) for later instead of applying them", n))
		case v.ByUser:
			msg := fmt.Sprintf("The user discarded the child's changes (%s); its worktree and branch were removed.", n)
			if r := strings.TrimSpace(v.Reason); r != "" {
				msg += " The user said: " + r
			}
			return mg.discard(msg)
		}
		return mg.keep(fmt.Sprintf("The child's changes (%s) were not applied: %s", n, strings.TrimSuffix(v.Reason, ".")))
	}
	return mg.apply(pr, v)
}

// apply merges what v chose of pr into where the child's parent works,
// then removes the worktree (or keeps what was not applied).
func (mg *merger) apply(pr proposal, v permission.Verdict) string {
	c, wt, ctx := mg.c, mg.c.iso.wt, mg.ctx
	res := &mg.res
	var files []string // repository paths to apply; nil: all
	if v.Files == nil && len(pr.outside) > 0 {
		v.Files = pr.paths()
	}
	if v.Files != nil {
		files = []string{}
		for _, f := range v.Files {
			if rp, ok := pr.byUser[f]; ok {
				files = append(files, rp)
			}
		}
		for _, fc := range pr.fcs {
			if !slices.Contains(v.Files, fc.Path) {
				res.Skipped = append(res.Skipped, fc.Path)
			}
		}
	}
	// The hunks the user dropped: each file's content is its base with
	// the hunks taken, from the same diff the user saw.
	var content map[string][]byte
	var droppedText strings.Builder
	for _, p := range slices.Sorted(maps.Keys(v.Dropped)) {
		rp, ok := pr.byUser[p]
		if !ok || (v.Files != nil && !slices.Contains(v.Files, p)) {
			continue
		}
		i := slices.IndexFunc(pr.changes, func(ch worktree.Change) bool { return ch.Path == rp })
		if i < 0 || pr.changes[i].Binary() {
			continue
		}
		ch := pr.changes[i]
		kept, hs, err := diff.KeepHunks(string(ch.Old), string(ch.New), v.Dropped[p])
		if err != nil {
			return mg.keep(fmt.Sprintf("The user took part of %s, but %v, so nothing was applied", p, err))
		}
		if content == nil {
			content = map[string][]byte{}
		}
		content[rp] = []byte(kept)
		fmt.Fprintf(&droppedText, "%s:\n%s", p, diff.DescribeHunks(hs, 8<<10))
	}
	var locker worktree.Locker
	if c.m.cfg.Locks != nil {
		locker = c.m.cfg.Locks.Lock
	}
	opts := worktree.ApplyOptions{Files: files, Lock: locker, Content: content}
	if u := c.m.cfg.Undo; u != nil && c.home == c.m.cfg.Workspace {
		opts.Before = func(abs, rel string, existed bool, content []byte, mode fs.FileMode) error {
			return u.Save(abs, c.userPath(rel), existed, content, mode)
		}
	}
	applied, err := wt.Apply(ctx, opts)
	c.home.Invalidate()
	var ce *worktree.ConflictError
	switch {
	case errors.As(err, &ce):
		res.Status = agent.WorktreeConflict
		for _, f := range ce.Files() {
			res.Conflicts = append(res.Conflicts, c.userPath(f))
		}
		return mg.keep(fmt.Sprintf("Merging the child's changes conflicts with your current files in %s, so nothing was applied", strings.Join(res.Conflicts, ", ")))
	case err != nil:
		return mg.keep(fmt.Sprintf("Applying the child's changes failed (%v), so nothing was applied", err))
	}
	res.Status = agent.WorktreeApplied
	res.Files = res.Files[:0]
	for _, f := range applied {
		res.Files = append(res.Files, c.userPath(f))
	}
	res.Message = fmt.Sprintf("Applied the child's changes to %s", describeFiles(res.Files))
	if len(res.Files) == 0 {
		res.Message = "The child's changes were already in your files"
	}
	if len(res.Skipped) > 0 {
		res.Message += fmt.Sprintf("; discarded, as the user chose: %s", strings.Join(res.Skipped, ", "))
	}
	if droppedText.Len() > 0 {
		res.Message += ". The user took only part of the change: these hunks were dropped and are NOT in the files; do not make them again unless the user asks:\n" +
			strings.TrimRight(droppedText.String(), "\n") + "\n"
	}
	if note := strings.TrimSpace(v.Note); note != "" {
		res.Message = strings.TrimRight(res.Message, "\n") + "\nThe user's note: " + note + "\n"
	}
	if len(pr.outside) > 0 {
		commit, err := wt.Keep(ctx, fmt.Sprintf("covey: changes of %s outside the workspace", c.src.AgentID))
		res.Commit = commit
		res.Message = strings.TrimRight(res.Message, "\n") + fmt.Sprintf("; its changes outside the workspace (%s) were not applied and are kept in the worktree %s on the branch %s%s",
			strings.Join(pr.outside, ", "), wt.Path(), wt.Branch(), commitNote(commit))
		if err != nil {
			res.Message += fmt.Sprintf(" (committing them failed: %v; they are in the folder)", err)
		}
		res.Message += "."
		return mg.done()
	}
	if strings.HasSuffix(res.Message, "\n") {
		res.Message += "Its worktree and branch were removed."
	} else {
		res.Message += "; its worktree and branch were removed."
	}
	if err := wt.Remove(ctx); err != nil {
		res.Message += fmt.Sprintf(" (removing the worktree failed: %v)", err)
	}
	return mg.done()
}

func commitNote(commit string) string {
	if len(commit) >= 7 {
		return " (commit " + commit[:7] + ")"
	}
	return ""
}

func describeFiles(files []string) string {
	if len(files) <= 5 {
		return strings.Join(files, ", ")
	}
	return strings.Join(files[:5], ", ") + fmt.Sprintf(" and %d more", len(files)-5)
}

// changesFiles reports whether a call of the tool may have changed files.
func changesFiles(tool string) bool {
	switch tool {
	case toolname.WriteFile, toolname.EditFile, toolname.Bash:
		return true
	}
	return false
}
