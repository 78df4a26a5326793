package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"covey/tools/tool"
	"covey/tools/toolname"
)

// listDirMax caps the entries one list_dir call shows.
const listDirMax = 1000

// listDirMaxBytes caps list_dir's output when no smaller share of the
// window does.
const listDirMaxBytes = 64 << 10

// listDir is the list_dir tool.
type listDir struct {
	env *Env
	max int
}

// NewListDir returns the list_dir tool: the visible entries of one directory.
func NewListDir(env *Env) tool.Tool { return &listDir{env: env, max: listDirMax} }

func (t *listDir) Name() string   { return toolname.ListDir }
func (t *listDir) ReadOnly() bool { return true }

func (t *listDir) Description() string {
	return "List one directory (not recursive): subdirectories ending in /, then files with sizes. Skips .gitignored entries."
}

func (t *listDir) Schema() map[string]any { return listDirSchema() }

var listDirSchema = tool.ArgsSchema[listDirArgs](tool.SchemaOpen)

type listDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"Default: the workspace root."`
}

func (t *listDir) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	var args listDirArgs
	if err := decodeArgs(raw, &args); err != nil {
		return tool.Errorf("%v", err)
	}
	shown := args.Path
	if shown == "" {
		shown = "."
	}
	abs, refused := t.env.resolveRead(t.Name(), shown)
	if refused != nil {
		return *refused
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("directory not found: %s%s", shown, suggestSimilar(abs))
	case err != nil:
		return tool.Errorf("cannot list %s: %v", shown, err)
	case !fi.IsDir():
		return tool.Errorf("%s is a file, not a directory; use read_file to read it", shown)
	}
	entries, ignoredDir, err := t.env.WS.ListDir(ctx, abs)
	if err != nil {
		return tool.Errorf("cannot list %s: %v", shown, err)
	}
	var dirs, files []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			dirs = append(dirs, name+"/")
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(abs, name))
			if err != nil {
				target = "?"
			}
			files = append(files, fmt.Sprintf("%s -> %s (symlink)", name, target))
		default:
			size := "?"
			if info, err := e.Info(); err == nil {
				size = humanSize(info.Size())
			}
			files = append(files, fmt.Sprintf("%s (%s)", name, size))
		}
	}
	lines := append(dirs, files...)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s\n", t.env.WS.Rel(abs), countOf(len(dirs), "directory", "directories"), countOf(len(files), "file", "files"))
	if ignoredDir {
		b.WriteString("(This directory is ignored by .gitignore; showing all of its entries.)\n")
	}
	if len(lines) == 0 {
		b.WriteString("(no visible entries)\n")
	}
	maxBytes := tool.ResultBudget(ctx, listDirMaxBytes)
	for i, l := range lines {
		if i == t.max || b.Len()+len(l) >= maxBytes {
			fmt.Fprintf(&b, "… %d more entries not shown; use glob with a pattern to narrow down.\n", len(lines)-i)
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return tool.Result{Content: strings.TrimSuffix(b.String(), "\n"), Summary: countOf(len(lines), "entry", "entries")}
}

// countOf formats a count with the right form of a noun: "1 file", "3 files".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
