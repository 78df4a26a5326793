package workspace

import (
	"path/filepath"
	"testing"
)

// TestJoinClean checks the shortcut against filepath.Join on clean and
// unclean roots and paths.
func TestJoinClean(t *testing.T) {
	roots := []string{"/", "/a", "/a/b", "/a/b/", "/a//b", "/a/./b", "/a/../b", "rel"}
	rels := []string{"x", "x/y.go", "x/../y", "./x", "x//y", "x/", "/x", "..", ".", "", "a.b/..c/d..", ".git/x"}
	for _, root := range roots {
		for _, rel := range rels {
			want := filepath.Join(root, filepath.FromSlash(rel))
			if got := joinClean(root, root == filepath.Clean(root), rel); got != want {
				t.Errorf("joinClean(%q, %q) = %q, want %q", root, rel, got, want)
			}
		}
	}
}
