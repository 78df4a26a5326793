package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Workspace is the folder the tools act in. Relative paths resolve against
// its Root; writes outside it are refused.
type Workspace struct {
	// Root is absolute and has its symlinks resolved.
	Root string
}

// ErrOutsideWorkspace is returned for a write whose target lies outside the
// workspace root once symlinks are resolved.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// NewWorkspace returns a workspace rooted at root.
func NewWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	return &Workspace{Root: real}, nil
}

// Resolve turns p (absolute, relative to the root, or starting with ~/) into
// a clean absolute path. It does not require the path to exist.
func (w *Workspace) Resolve(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Root, p)
	}
	return filepath.Clean(p)
}

// ResolveWrite resolves p for writing: the result, with every symlink of its
// existing part resolved, must lie inside the root.
func (w *Workspace) ResolveWrite(p string) (string, error) {
	abs := w.Resolve(p)
	real, err := evalExisting(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", p, err)
	}
	if !w.Contains(real) {
		return "", fmt.Errorf("%s: %w (%s)", p, ErrOutsideWorkspace, w.Root)
	}
	return real, nil
}

// Contains reports whether the absolute path abs lies inside the root.
func (w *Workspace) Contains(abs string) bool {
	rel, err := filepath.Rel(w.Root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// Rel returns abs relative to the root with forward slashes, or abs itself
// when it lies outside.
func (w *Workspace) Rel(abs string) string {
	if !w.Contains(abs) {
		return abs
	}
	rel, _ := filepath.Rel(w.Root, abs)
	return filepath.ToSlash(rel)
}

// evalExisting resolves the symlinks of the longest existing prefix of p and
// appends the rest, so a new file's path can be checked before it exists.
func evalExisting(p string) (string, error) {
	var rest []string
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}
