package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"covey/agent"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// The collision radar: which agent working in the same tree read or wrote
// which file during its task, so that a write to a file another agent
// still at work has seen is caught as it happens. A child in its own
// worktree works on other paths, so it never collides with the tree it
// came from. An agent's touches are forgotten when its task ends: a
// child's when it finishes, the main agent's at the end of each turn.

// Actions a touch or a collision names.
const (
	touchRead     = "read"
	touchWrote    = "wrote"
	touchDeclared = "declared"
)

// maxCollisionNote bounds the other agents one write's note names.
const maxCollisionNote = 4

// touch is one agent's last read or write of one file.
type touch struct {
	src  agent.Source
	kind string
	at   time.Time
}

// radar records the touches of every agent in place.
type radar struct {
	mu     sync.Mutex
	byPath map[string][]touch // absolute path → the latest touch per agent and kind
	// declared are the paths or globs running children said they will
	// touch (the task call's touches), by AgentID.
	declared map[string]declaration
}

type declaration struct {
	src   agent.Source
	globs []string
}

// record notes that src touched abs (kind read or wrote) now, and returns
// the touches of the other agents still at work on that file, oldest
// first. active tells whether an agent is still at work.
func (r *radar) record(src agent.Source, abs, kind string, active func(id string) bool) []touch {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byPath == nil {
		r.byPath = map[string][]touch{}
	}
	var others []touch
	kept := r.byPath[abs][:0]
	for _, t := range r.byPath[abs] {
		if t.src.AgentID == src.AgentID && t.kind == kind {
			continue // replaced below
		}
		if t.src.AgentID != src.AgentID && !active(t.src.AgentID) {
			continue // its task ended: forgotten
		}
		kept = append(kept, t)
		if t.src.AgentID != src.AgentID {
			others = append(others, t)
		}
	}
	r.byPath[abs] = append(kept, touch{src: src, kind: kind, at: time.Now()})
	return others
}

// forget drops every touch and declaration of the agent id.
func (r *radar) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, ts := range r.byPath {
		ts = slices.DeleteFunc(ts, func(t touch) bool { return t.src.AgentID == id })
		if len(ts) == 0 {
			delete(r.byPath, p)
		} else {
			r.byPath[p] = ts
		}
	}
	delete(r.declared, id)
}

// declare records the globs src means to touch and returns the running
// agents whose declarations overlap them, each with the globs that do.
func (r *radar) declare(src agent.Source, globs []string, active func(id string) bool) map[string]overlap {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.declared == nil {
		r.declared = map[string]declaration{}
	}
	found := map[string]overlap{}
	for id, d := range r.declared {
		if id == src.AgentID || !active(id) {
			continue
		}
		var both []string
		for _, a := range globs {
			for _, b := range d.globs {
				if globsOverlap(a, b) {
					both = append(both, fmt.Sprintf("%s ~ %s", a, b))
				}
			}
		}
		if len(both) > 0 {
			found[id] = overlap{src: d.src, pairs: both}
		}
	}
	r.declared[src.AgentID] = declaration{src: src, globs: globs}
	return found
}

// overlap is a running agent whose declared paths meet another's.
type overlap struct {
	src   agent.Source
	pairs []string // "mine ~ theirs"
}

// globsOverlap reports whether two workspace paths or globs may name a
// common file: one matches the other, or the fixed folder part of one
// contains the other's. It errs towards yes: a false warning costs a look,
// a missed one an overwritten file.
func globsOverlap(a, b string) bool {
	a, b = cleanGlob(a), cleanGlob(b)
	if a == b {
		return true
	}
	if ok, _ := doublestar.Match(a, b); ok {
		return true
	}
	if ok, _ := doublestar.Match(b, a); ok {
		return true
	}
	pa, wa := fixedPart(a)
	pb, wb := fixedPart(b)
	switch {
	case wa && wb:
		return strings.HasPrefix(pa, pb) || strings.HasPrefix(pb, pa)
	case wa:
		return strings.HasPrefix(b, pa)
	case wb:
		return strings.HasPrefix(a, pb)
	}
	return false
}

// cleanGlob makes "./src/", "src" and "src/**" one form: a folder stands
// for everything under it.
func cleanGlob(g string) string {
	g = strings.TrimSpace(filepath.ToSlash(g))
	g = strings.TrimPrefix(g, "./")
	if strings.HasSuffix(g, "/") {
		g += "**"
	}
	return g
}

// fixedPart returns the folders of a glob before its first wildcard, and
// whether it has one.
func fixedPart(g string) (string, bool) {
	i := strings.IndexAny(g, "*?[{")
	if i < 0 {
		return g, false
	}
	return g[:strings.LastIndex(g[:i], "/")+1], true
}

// radarTool wraps read_file, write_file and edit_file of one agent working
// in place: a read is recorded; a write is recorded, and when another
// agent at work in the same tree read or wrote the file during its task,
// the result says who and when, and a Collision event tells the panes.
type radarTool struct {
	tool.Tool
	m    *Manager
	src  agent.Source
	root string
	kind string
}

// Concurrent keeps the wrapped tool's own answer.
func (t *radarTool) Concurrent() bool { return tool.RunsConcurrently(t.Tool) }

// Radar wraps t for the agent src when it reads or writes files in the
// workspace at root; any other tool comes back as it is.
func (m *Manager) Radar(t tool.Tool, src agent.Source, root string) tool.Tool {
	kind := ""
	switch t.Name() {
	case toolname.ReadFile:
		kind = touchRead
	case toolname.WriteFile, toolname.EditFile:
		kind = touchWrote
	default:
		return t
	}
	return &radarTool{Tool: t, m: m, src: src, root: root, kind: kind}
}

func (t *radarTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	res := t.Tool.Run(ctx, args)
	if res.IsError {
		return res
	}
	p := tool.KeyArg(t.Name(), args)
	if p == "" {
		return res
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(t.root, p)
	}
	abs = filepath.Clean(abs)
	if note := t.m.touched(t.src, t.root, abs, t.kind, tool.CallID(ctx)); note != "" {
		res.Content += "\n\n" + note
	}
	return res
}

// touched records a touch of abs by src and, for a write, reports the
// collisions: one event each, and the note for the writer's result.
func (m *Manager) touched(src agent.Source, root, abs, kind, callID string) string {
	others := m.radar.record(src, abs, kind, m.atWork)
	if kind != touchWrote || len(others) == 0 {
		return ""
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = abs
	}
	rel = filepath.ToSlash(rel)
	now := time.Now()
	var parts []string
	for i, o := range byAgent(others) {
		m.cfg.Emit(agent.Collision{Source: src, CallID: callID, Path: rel, WithID: o.src.AgentID,
			WithName: agentName(o.src), Action: o.kind, Ago: now.Sub(o.at)})
		if i < maxCollisionNote {
			parts = append(parts, fmt.Sprintf("%s %s it (%s ago)", agentName(o.src), o.kind, roundAgo(now.Sub(o.at))))
		}
	}
	if n := len(byAgent(others)); n > maxCollisionNote {
		parts = append(parts, fmt.Sprintf("%d more", n-maxCollisionNote))
	}
	return fmt.Sprintf("[covey: collision] Another agent still at work in this same tree touched %s during its task: %s. "+
		"What it saw may now be stale, and it may write the file again: re-read before building on it, or coordinate (send_message reaches your own subagents).",
		rel, strings.Join(parts, "; "))
}

// topAtWork returns what marks a top-level agent (a Driver's) in a turn or
// idle; an idle agent's touches are forgotten.
func (m *Manager) topAtWork(id string) func(bool) {
	return func(busy bool) {
		if id != agent.MainAgentID {
			return
		}
		m.mainBusy.Store(busy)
		if !busy {
			m.radar.forget(id)
		}
	}
}

// byAgent folds the touches of one agent into one: "read and wrote" at
// the time of the later, in the order the agents first touched the file.
func byAgent(ts []touch) []touch {
	var out []touch
	for _, t := range ts {
		i := slices.IndexFunc(out, func(o touch) bool { return o.src.AgentID == t.src.AgentID })
		if i < 0 {
			out = append(out, t)
			continue
		}
		if out[i].kind != t.kind {
			out[i].kind = touchRead + " and " + touchWrote
		}
		if t.at.After(out[i].at) {
			out[i].at = t.at
		}
	}
	return out
}

// atWork reports whether the agent id is still at its task: a child that
// runs (or waits in the queue), the main agent during a turn.
func (m *Manager) atWork(id string) bool {
	if id == agent.MainAgentID {
		return m.mainBusy.Load()
	}
	c := m.lookup(id)
	return c != nil && c.isRunning()
}

// agentName is how a note names an agent: its handle and id, or "the main
// agent".
func agentName(src agent.Source) string {
	if src.AgentID == agent.MainAgentID || src.Depth == 0 {
		return "the main agent"
	}
	return fmt.Sprintf("%s (%s)", src.Name, src.AgentID)
}

// declareTouches records a child's declared paths and, when they overlap
// those of agents running in the same tree, warns: a Collision event per
// pair (the panes), and the text returned, which goes to the child before
// it starts and to its parent in the task result.
func (m *Manager) declareTouches(c *child) string {
	if len(c.spec.Touches) == 0 || c.iso != nil {
		return ""
	}
	found := m.radar.declare(c.src, c.spec.Touches, m.atWork)
	if len(found) == 0 {
		return ""
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var parts []string
	for _, id := range ids {
		o := found[id]
		m.cfg.Emit(agent.Collision{Source: c.src, Path: strings.Join(o.pairs, ", "), WithID: id, WithName: agentName(o.src), Action: touchDeclared})
		parts = append(parts, fmt.Sprintf("%s (%s)", agentName(o.src), strings.Join(o.pairs, ", ")))
		m.warnEarlier(id, c)
	}
	return fmt.Sprintf("[covey: overlap] The paths %s declared it will touch overlap those of agents running in the same tree: %s. Coordinate before writing there.",
		agentName(c.src), strings.Join(parts, "; "))
}

// warnEarlier tells the running child id, before its next request, that
// the newcomer c declared paths that overlap its own.
func (m *Manager) warnEarlier(id string, c *child) {
	other := m.lookup(id)
	if other == nil {
		return
	}
	other.mu.Lock()
	a := other.a
	other.mu.Unlock()
	if a == nil {
		return
	}
	text := fmt.Sprintf("[covey: overlap] %s, started after you in the same tree, declared paths that overlap yours (%s). Re-read files before you write them.",
		agentName(c.src), strings.Join(c.spec.Touches, ", "))
	a.Steer(text, agent.ChildMessage{Source: other.src, Text: text})
}
