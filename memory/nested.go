package memory

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
)

// Render joins files into the text of a prompt section: each file under a
// heading naming it (home shown as ~), in order. The same files give the
// same bytes, so the prompt's cached prefix stays stable.
func Render(files []File, home string) string {
	var b strings.Builder
	for i, f := range files {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "## %s", Display(f.Path, home))
		if f.ImportedBy != "" {
			fmt.Fprintf(&b, " (imported by %s)", Display(f.ImportedBy, home))
		}
		b.WriteString("\n\n")
		b.WriteString(f.Text)
	}
	return b.String()
}

// DisplayIn shows path relative to root when it is inside, else as
// Display does.
func DisplayIn(path, root, home string) string {
	if root != "" && path != root && within(root, path) {
		if rel, err := filepath.Rel(root, path); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return Display(path, home)
}

// Display shows path with the home folder as ~.
func Display(path, home string) string {
	if home != "" && within(home, path) {
		if rel, err := filepath.Rel(home, path); err == nil {
			if rel == "." {
				return "~"
			}
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return path
}

// Nested tracks, for one agent, the memory files of folders below the
// working directory, which join its context when it first reads a file
// under their folder. Safe for concurrent use (tools run in parallel).
type Nested struct {
	mem  *Memory
	mu   sync.Mutex
	seen map[string]bool // folders looked at
	// Joined are the files that joined so far, in order.
	joined []File
}

// Nested returns a tracker for one agent: the files Load loaded are in
// its context already.
func (m *Memory) Nested() *Nested {
	return &Nested{mem: m, seen: map[string]bool{}}
}

// OnRead returns the memory that joins the agent's context because it
// read the file at abs: the memory files of each folder from below the
// working directory down to the file's own folder that the agent has not
// seen yet, rendered, or "" when there are none.
func (n *Nested) OnRead(abs string) string {
	files := n.filesFor(abs)
	if len(files) == 0 {
		return ""
	}
	var names []string
	for _, f := range files {
		if f.ImportedBy == "" {
			names = append(names, Display(f.Path, n.mem.opts.Home))
		}
	}
	return fmt.Sprintf("[memory: %s applies to files in this folder, so it joins your instructions now]\n\n%s",
		strings.Join(names, ", "), Render(files, n.mem.opts.Home))
}

func (n *Nested) filesFor(abs string) []File {
	work := n.mem.opts.WorkDir
	dir := filepath.Dir(abs)
	if work == "" || dir == work || !within(work, dir) {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []File
	for _, d := range foldersDown(work, dir)[1:] {
		if n.seen[d] {
			continue
		}
		n.seen[d] = true
		// A private Memory per folder, sharing what loaded at start (so
		// a file loaded there or joined before is not loaded again).
		sub := &Memory{opts: n.mem.opts, Files: append(append([]File(nil), n.mem.Files...), n.joined...), total: n.mem.total}
		start := len(sub.Files)
		for _, name := range Names {
			sub.add(filepath.Join(d, name), Folder)
		}
		added := sub.Files[start:]
		n.joined = append(n.joined, added...)
		out = append(out, added...)
	}
	return out
}

// Joined returns the files that joined so far.
func (n *Nested) Joined() []File {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]File(nil), n.joined...)
}
