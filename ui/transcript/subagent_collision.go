package transcript

import (
	"fmt"
	"strconv"

	"covey/agent"
	"covey/ui/cells"
)

// collisions is what a pane knows of the collision radar: the files its
// child and another agent at work in the same tree both touched, newest
// last. Its header shows the newest as a badge, its body a line each.
type collisions struct {
	marks []collisionMark
}

// collisionMark is one collision, seen from this pane's child.
type collisionMark struct {
	path string // the file, or the overlapping declarations
	with string // the other agent's handle ("scout"), "main" for the main agent
}

// maxCollisionMarks bounds what a pane remembers of them.
const maxCollisionMarks = 50

func (c *collisions) add(m collisionMark) {
	for _, old := range c.marks {
		if old == m {
			return
		}
	}
	if len(c.marks) == maxCollisionMarks {
		c.marks = c.marks[1:]
	}
	c.marks = append(c.marks, m)
}

// badge is "⚠ auth.go ↔ scout" (and "+2" when there are more); "" for none.
func (c *collisions) badge() string {
	n := len(c.marks)
	if n == 0 {
		return ""
	}
	last := c.marks[n-1]
	s := "⚠ " + cells.OneLine(last.path) + " ↔ " + last.with
	if n > 1 {
		s += " +" + strconv.Itoa(n-1)
	}
	return s
}

// ApplyCollision marks a collision on this pane: mine says its child is
// the writer (e.Source); otherwise its child is the other agent.
func (b *SubagentBlock) ApplyCollision(e agent.Collision, mine bool) {
	with, line := shortAgent(e.WithID, e.WithName), ""
	switch {
	case e.Action == "declared":
		if !mine {
			with = shortAgent(e.AgentID, e.Name)
		}
		line = fmt.Sprintf("⚠ overlap with %s: %s", with, e.Path)
	case mine:
		line = fmt.Sprintf("⚠ collision: wrote %s, which %s %s %s ago", e.Path, with, e.Action, cells.Elapsed(e.Ago))
	default:
		with = shortAgent(e.AgentID, e.Name)
		line = fmt.Sprintf("⚠ collision: %s wrote %s, which this agent %s", with, e.Path, e.Action)
	}
	b.collide.add(collisionMark{path: e.Path, with: with})
	b.push(activity{kind: actError, text: cells.OneLine(line)})
	b.Changed()
}

// CollisionText is the overlay's column: the newest collision, "-" for none.
func (b *SubagentBlock) CollisionText() string {
	if s := b.collide.badge(); s != "" {
		return s
	}
	return "-"
}

// Collisions counts the collisions the pane has seen.
func (b *SubagentBlock) Collisions() int { return len(b.collide.marks) }

// shortAgent names an agent on a badge: its handle, or "main".
func shortAgent(id, name string) string {
	if id == agent.MainAgentID {
		return "main"
	}
	if name != "" {
		// "scout (explore-2)" → "scout"
		for i := 0; i < len(name); i++ {
			if name[i] == ' ' {
				return name[:i]
			}
		}
		return name
	}
	return id
}
