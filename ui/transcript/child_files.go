package transcript

import (
	"strconv"
	"strings"

	"covey/agent"
	"covey/tools/tool"
)

// fileChange is what one child did to one file: the lines it added and
// removed over all its calls, and the diffs of its write and edit calls
// (a bash call's change, seen through git status, has its diff against
// HEAD when git could make one).
type fileChange struct {
	path           string
	status         string // "added", "modified", "deleted", "renamed"
	added, removed int
	diffs          []string
}

// changeSet is the files one child changed, in the order it first touched
// them. Write and edit results add up; a bash call's git status look
// replaces the counts of the files it names, since git compares against
// HEAD and already includes the earlier edits.
type changeSet struct {
	files []*fileChange
	index map[string]int
}

// addEdit records a write or edit result.
func (c *changeSet) addEdit(fc *tool.FileChange) {
	if fc == nil || fc.Path == "" {
		return
	}
	f := c.file(fc.Path)
	if fc.Created && f.status == "" {
		f.status = "added"
	} else if f.status == "" {
		f.status = "modified"
	}
	f.added += fc.Added
	f.removed += fc.Removed
	if fc.Diff != "" {
		f.diffs = append(f.diffs, fc.Diff)
	}
}

// addStatus records files a bash call changed, as git status saw them.
func (c *changeSet) addStatus(files []agent.FileChange) {
	for _, g := range files {
		if g.Path == "" {
			continue
		}
		f := c.file(g.Path)
		f.status = g.Status
		f.added, f.removed = g.Added, g.Removed
		if g.Diff != "" {
			// Against HEAD, like the counts: it holds the earlier edits.
			f.diffs = []string{g.Diff}
		}
	}
}

func (c *changeSet) file(path string) *fileChange {
	if i, ok := c.index[path]; ok {
		return c.files[i]
	}
	if c.index == nil {
		c.index = map[string]int{}
	}
	f := &fileChange{path: path}
	c.index[path] = len(c.files)
	c.files = append(c.files, f)
	return f
}

// snapshot is a copy that later changes do not reach.
func (c *changeSet) snapshot() changeSet {
	out := changeSet{index: make(map[string]int, len(c.files))}
	for i, f := range c.files {
		cp := *f
		cp.diffs = append([]string(nil), f.diffs...)
		out.files = append(out.files, &cp)
		out.index[f.path] = i
	}
	return out
}

// merge adds another agent's changes: a file both changed keeps the
// first status seen (a file one created stays added), its counts add up
// and its diffs follow one another.
func (c *changeSet) merge(o *changeSet) {
	for _, f := range o.files {
		d := c.file(f.path)
		if d.status == "" {
			d.status = f.status
		}
		d.added += f.added
		d.removed += f.removed
		d.diffs = append(d.diffs, f.diffs...)
	}
}

// Len is the number of files changed.
func (c *changeSet) Len() int { return len(c.files) }

// totals sums the added and removed lines.
func (c *changeSet) totals() (added, removed int) {
	for _, f := range c.files {
		added += f.added
		removed += f.removed
	}
	return added, removed
}

// summary is "3 files +40 −5", "" when nothing changed.
func (c *changeSet) summary() string {
	if len(c.files) == 0 {
		return ""
	}
	a, r := c.totals()
	n := "1 file"
	if len(c.files) != 1 {
		n = strconv.Itoa(len(c.files)) + " files"
	}
	return n + " +" + strconv.Itoa(a) + " −" + strconv.Itoa(r)
}

// diff is every recorded diff, file by file, as one unified diff; files
// known only from git status get a one-line note instead.
func (c *changeSet) diff() string {
	var b strings.Builder
	for _, f := range c.files {
		if len(f.diffs) == 0 {
			b.WriteString("# " + f.path + " (" + f.status + ", +" + strconv.Itoa(f.added) +
				" −" + strconv.Itoa(f.removed) + "; changed by a command, no diff recorded)\n")
			continue
		}
		for _, d := range f.diffs {
			b.WriteString(d)
			if !strings.HasSuffix(d, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// fileChangeOf returns the write or edit change a tool result carries
// (a replayed session decodes it as *tool.FileChange too).
func fileChangeOf(r tool.Result) *tool.FileChange {
	if r.IsError {
		return nil
	}
	if d, ok := r.Display.(*tool.FileChange); ok {
		return d
	}
	return nil
}
