package subagent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"covey/agent"
	"covey/internal/excerpt"
	"covey/permission"
	"covey/tools/tool"
)

// This file holds best of N: a task with attempts runs the same brief in
// N children at once, each in its own worktree; when all have ended, the
// user picks one to apply (whole, or by file and hunk) or none, and the
// others' worktrees and branches are removed. With nobody to ask, every
// attempt is kept on its branch, unless config names a judge agent type,
// which picks one; that one is then merged as any worktree merge is (so
// under acceptEdits or bypassPermissions).

// Bounds of a task's attempts.
const (
	MinAttempts = 2
	MaxAttempts = 4
)

// attemptGroup is the children of one best-of-N task.
type attemptGroup struct {
	spec     TaskSpec
	children []*child
}

// expandAttempts turns a spec with attempts into one spec per attempt:
// the same brief, isolated, named apart.
func expandAttempts(spec TaskSpec) []TaskSpec {
	out := make([]TaskSpec, spec.Attempts)
	for i := range out {
		s := spec
		s.Isolation = IsolationWorktree
		s.Attempt = i + 1
		if s.Name != "" {
			s.Name = fmt.Sprintf("%s-%d", spec.Name, i+1)
		}
		out[i] = s
	}
	return out
}

// runAttempts starts the attempts of spec, waits for all of them, and
// has one of them applied; it returns the task's outcome.
func (t *taskTool) runAttempts(ctx context.Context, parentCall string, spec TaskSpec) outcome {
	g := &attemptGroup{spec: spec}
	specs := expandAttempts(spec)
	// Registered in order (names and panes follow the attempts' numbers),
	// then isolated at once, each announced after the one before it and
	// started as soon as its worktree is made.
	type slot struct {
		c       *child
		started agent.ChildStarted
		bad     *outcome
	}
	slots := make([]slot, len(specs))
	for i, s := range specs {
		c, started, bad := t.m.prepare(ctx, t.parent, parentCall, t.spawn, s)
		if c != nil {
			c.group = g
		}
		slots[i] = slot{c, started, bad}
	}
	turns := make([]chan struct{}, len(specs)+1)
	for i := range turns {
		turns[i] = make(chan struct{})
	}
	close(turns[0])
	var wg sync.WaitGroup
	for i := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(turns[i+1])
			sl := &slots[i]
			if sl.bad != nil {
				return
			}
			c, bad := t.m.launch(ctx, sl.c, sl.started, func() { <-turns[i] })
			if bad != nil {
				sl.c, sl.bad = nil, bad
				return
			}
			t.m.start(c)
		}()
	}
	wg.Wait()
	var failed []string
	for i, sl := range slots {
		if sl.bad != nil {
			failed = append(failed, fmt.Sprintf("attempt %d: %s", i+1, strings.TrimPrefix(sl.bad.text, "Error: ")))
			continue
		}
		g.children = append(g.children, sl.c)
	}
	for _, c := range g.children {
		<-c.doneCh()
	}
	if len(g.children) == 0 {
		return outcome{reason: agent.StopError, text: "Error: no attempt could start: " + strings.Join(failed, "; ")}
	}
	out := t.m.settleAttempts(ctx, t.parent, g)
	if len(failed) > 0 {
		out.text += "\n\nAttempts that could not start: " + strings.Join(failed, "; ")
	}
	return out
}

// doneCh is closed when the child's current run has ended.
func (c *child) doneCh() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

// attemptView is one ended attempt as reviewed.
type attemptView struct {
	c  *child
	pr proposal
	mg *merger
	at permission.Attempt
	ok bool // its changes could be read
}

// settleAttempts asks which attempt to apply and carries it out.
func (m *Manager) settleAttempts(ctx context.Context, parent agent.Source, g *attemptGroup) outcome {
	rctx := context.WithoutCancel(ctx)
	views := make([]*attemptView, len(g.children))
	atts := make([]permission.Attempt, len(g.children))
	changed := 0
	// Each worktree's diff is read at once: they are separate checkouts.
	var wg sync.WaitGroup
	for i, c := range g.children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			views[i] = &attemptView{c: c, mg: c.merger(rctx)}
			c.iso.repWG.Wait()
			if pr, err := c.propose(rctx); err == nil {
				views[i].pr, views[i].ok = pr, true
			}
		}()
	}
	wg.Wait()
	checks := m.checkAttempts(rctx, g, views)
	for i, c := range g.children {
		v := views[i]
		c.mu.Lock()
		out, a := c.out, c.a
		c.mu.Unlock()
		v.at = permission.Attempt{Name: c.src.Name, Status: out.state(), Report: out.text, Branch: c.iso.wt.Branch()}
		if a != nil {
			v.at.Tokens, v.at.Cost = a.Usage().Total(), a.Cost()
		}
		v.at.Changes = v.pr.fcs
		v.at.Check, v.mg.res.Check = checks[i], checks[i]
		if len(v.pr.changes) > 0 {
			changed++
		}
		atts[i] = v.at
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Best of %d attempts at this brief, each in its own worktree.\n\n", len(views))
	if changed == 0 {
		// Nothing to choose: each attempt reports its empty worktree gone.
		for i, v := range views {
			fmt.Fprintf(&b, "## Attempt %d (%s, %s%s)\n%s\n[worktree] %s\n\n", i+1, v.at.Name, v.at.Status, checkNote(v.at.Check), v.at.Report, v.c.reviewChanges(v.mg))
		}
		b.WriteString("No attempt changed a file, so there was nothing to apply.")
		return outcome{reason: groupReason(views), text: b.String()}
	}

	label := fmt.Sprintf("[%s] %s", g.spec.SubagentType, g.spec.Description)
	req := permission.Request{Tool: permission.ToolPickAttempt, Path: g.spec.Description, Attempts: atts, Agent: parentLabel(parent, label)}
	if parent.AgentID != agent.MainAgentID {
		req.AgentID = parent.AgentID
	}
	verdict := permission.Verdict{Reason: "nobody can be asked"}
	if gate := m.cfg.Gate; gate != nil && ctx.Err() == nil {
		verdict = gate.Check(ctx, req)
	} else if ctx.Err() != nil {
		verdict = permission.Verdict{Reason: "the turn was cancelled before the attempts could be reviewed"}
	}

	pick, why := -1, ""
	switch {
	case verdict.Allowed && verdict.Attempt >= 1 && verdict.Attempt <= len(views):
		pick, why = verdict.Attempt-1, "the user picked it"
	case verdict.Allowed:
		verdict = permission.Verdict{Reason: fmt.Sprintf("the answer named no attempt (%d)", verdict.Attempt)}
	case !verdict.ByUser && m.cfg.Judge != "" && ctx.Err() == nil:
		k, reason, err := m.judge(ctx, parent, g, views)
		if err != nil {
			verdict.Reason = fmt.Sprintf("the judge (%s) could not pick one: %v", m.cfg.Judge, err)
			break
		}
		// Applying the judge's pick is a merge as any other: allowed by
		// the mode or rules, or kept.
		mv := permission.Verdict{Allowed: true}
		if gate := m.cfg.Gate; gate != nil {
			mv = gate.Check(ctx, permission.Request{Tool: permission.ToolMerge, Path: views[k].at.Branch, Changes: views[k].pr.fcs})
		}
		if !mv.Allowed {
			verdict.Reason = fmt.Sprintf("the judge (%s) picked attempt %d (%s), but applying it was not allowed: %s", m.cfg.Judge, k+1, reason,
				strings.TrimSuffix(mv.Reason, "."))
			break
		}
		pick, why, verdict = k, fmt.Sprintf("the judge (%s) picked it: %s", m.cfg.Judge, reason), mv
	}

	if pick >= 0 {
		v := views[pick]
		var res string
		switch {
		case !v.ok:
			res = v.mg.keep("Reading its changes failed, so nothing was applied")
		case len(v.pr.changes) == 0:
			v.mg.res.Status = agent.WorktreeUnchanged
			res = v.mg.discard("It changed no file; its worktree and branch were removed.")
		default:
			res = v.mg.apply(v.pr, verdict)
		}
		what := "applied"
		if v.mg.res.Status != agent.WorktreeApplied {
			what = "chosen, but not applied (see below)"
		}
		fmt.Fprintf(&b, "Attempt %d of %d (%s) was %s: %s.\n\n", pick+1, len(views), v.at.Name, what, why)
		fmt.Fprintf(&b, "## Attempt %d (%s, %s%s): %s\n%s\n[worktree] %s\n", pick+1, v.at.Name, v.at.Status, checkNote(v.at.Check), strings.Fields(what)[0], v.at.Report, res)
		for i, o := range views {
			if i == pick {
				continue
			}
			// Removed after the result goes back: nobody waits on it, and
			// the session waits for it before it ends.
			m.later(func() {
				o.mg.discard(fmt.Sprintf("Attempt %d was not chosen; its worktree and branch were removed.", i+1))
			})
			fmt.Fprintf(&b, "\n## Attempt %d (%s, %s%s): not chosen\n%s\n[worktree] Not chosen: its worktree %s and branch %s are removed.\n",
				i+1, o.at.Name, o.at.Status, checkNote(o.at.Check), excerpt.Cut(firstLines(o.at.Report, 3), 600), o.c.iso.wt.Path(), o.at.Branch)
		}
		return outcome{reason: views[pick].c.out.reason, text: strings.TrimRight(b.String(), "\n")}
	}

	keep := !verdict.ByUser || verdict.Keep
	switch {
	case verdict.Keep:
		b.WriteString("None was applied: the user kept every attempt on its branch for later.\n")
	case verdict.ByUser:
		fmt.Fprintf(&b, "None was applied: %s. Their worktrees and branches were removed.\n", strings.TrimSuffix(verdict.Reason, "."))
	default:
		fmt.Fprintf(&b, "None was applied: %s. Every attempt is kept on its branch.\n", strings.TrimSuffix(verdict.Reason, "."))
	}
	for i, v := range views {
		var msg string
		if keep {
			msg = v.mg.keep(fmt.Sprintf("Attempt %d of %d was kept with the others", i+1, len(views)))
		} else {
			msg = v.mg.discard(fmt.Sprintf("Attempt %d was not applied; its worktree and branch were removed.", i+1))
		}
		fmt.Fprintf(&b, "\n## Attempt %d (%s, %s%s)\n%s\n[worktree] %s\n", i+1, v.at.Name, v.at.Status, checkNote(v.at.Check), v.at.Report, msg)
	}
	return outcome{reason: groupReason(views), text: strings.TrimRight(b.String(), "\n")}
}

// groupReason is the task's stop reason when no attempt was applied: ok
// when any ended well.
func groupReason(views []*attemptView) string {
	for _, v := range views {
		if v.c.out.reason == agent.StopOK {
			return agent.StopOK
		}
	}
	return views[0].c.out.reason
}

// parentLabel is what the review says asks: the child whose task it is,
// or nothing for the main agent.
func parentLabel(parent agent.Source, label string) string {
	if parent.AgentID == agent.MainAgentID || parent.AgentID == "" {
		return ""
	}
	return label
}

// judgePick matches the judge's answer: "PICK: 2".
var judgePick = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bpick\s*:\s*(?:attempt\s*)?(\d+)`) })

// judgeReason matches its reason: "REASON: ...".
var judgeReason = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)\breason\s*:\s*(.+)`) })

// maxJudgeDiff bounds each attempt's diff in the judge's brief.
const maxJudgeDiff = 12 << 10

// judge runs the configured judge agent over the attempts and returns its
// pick (0-based) and reason.
func (m *Manager) judge(ctx context.Context, parent agent.Source, g *attemptGroup, views []*attemptView) (int, string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "You are judging %d attempts at the same task, each made independently in its own git worktree. Pick the one that best does what the brief asks: correct, complete, minimal, and in keeping with the code around it. An attempt that changed nothing or failed, or whose check failed, should not win unless all did.\n\n", len(views))
	fmt.Fprintf(&b, "# The brief\n%s\n", g.spec.Prompt)
	for i, v := range views {
		fmt.Fprintf(&b, "\n# Attempt %d (%s)\n## Its report\n%s\n", i+1, v.at.Status, capText(v.at.Report, 4<<10))
		if c := v.at.Check; c != nil {
			fmt.Fprintf(&b, "## Its check\n%s\n", checkWords(c))
			if c.Command != "" {
				fmt.Fprintf(&b, "Command: %s\nOutput's end:\n%s\n", c.Command, capText(c.Output, 2<<10))
			}
		}
		b.WriteString("## Its changes\n")
		var d strings.Builder
		for _, fc := range v.pr.fcs {
			d.WriteString(fc.Diff)
		}
		if d.Len() == 0 {
			d.WriteString("(no change)\n")
		}
		b.WriteString(capText(d.String(), maxJudgeDiff) + "\n")
	}
	fmt.Fprintf(&b, "\nAnswer with exactly two lines, and nothing else:\nPICK: <the attempt's number, 1 to %d>\nREASON: <one sentence>\n", len(views))
	spec := TaskSpec{Description: "judge the attempts of " + g.spec.Description, Prompt: b.String(), SubagentType: m.cfg.Judge}
	c, bad := m.spawn(ctx, parent, "", nil, spec)
	if bad != nil {
		return 0, "", errors.New(strings.TrimPrefix(bad.text, "Error: "))
	}
	m.start(c)
	out, _ := c.wait()
	if out.reason != agent.StopOK {
		return 0, "", fmt.Errorf("it ended %s: %s", out.reason, failureLine(out.text))
	}
	mm := judgePick().FindStringSubmatch(out.text)
	if mm == nil {
		return 0, "", fmt.Errorf("its answer names no attempt (%q)", excerpt.Cut(excerpt.Line(out.text), 120))
	}
	k, err := strconv.Atoi(mm[1])
	if err != nil || k < 1 || k > len(views) {
		return 0, "", fmt.Errorf("it picked attempt %s, which does not exist", mm[1])
	}
	reason := "no reason given"
	if r := judgeReason().FindStringSubmatch(out.text); r != nil {
		reason = strings.TrimSuffix(strings.TrimSpace(excerpt.Line(r[1])), ".")
	}
	return k - 1, reason, nil
}

// later runs f on a goroutine the manager's Close waits for; once closing,
// at once.
func (m *Manager) later(f func()) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		f()
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		f()
	}()
}

// checkNote is ", check passed" and the like for an attempt's heading.
func checkNote(c *tool.AttemptCheck) string {
	if w := checkWords(c); w != "" {
		return ", " + w
	}
	return ""
}
