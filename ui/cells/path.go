package cells

import (
	"os"
	"path/filepath"
	"strings"
)

// ShortenHome writes the home directory as ~ so a path (the workspace, a
// command's folder) takes less of a line.
func ShortenHome(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || path == "" {
		return path
	}
	if path == home {
		return "~"
	}
	if rel, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rel
	}
	return path
}
