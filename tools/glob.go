package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"covey/tools/tool"
	"covey/tools/toolname"

	"github.com/bmatcuk/doublestar/v4"
)

// globMax caps the paths one glob call shows.
const globMax = 1000

// globMaxBytes caps glob's output when no smaller share of the window does.
const globMaxBytes = 64 << 10

// globTool is the glob tool.
type globTool struct {
	env *Env
	max int
}

// NewGlob returns the glob tool: visible files whose path matches a
// doublestar pattern.
func NewGlob(env *Env) tool.Tool { return &globTool{env: env, max: globMax} }

func (t *globTool) Name() string   { return toolname.Glob }
func (t *globTool) ReadOnly() bool { return true }

func (t *globTool) Description() string {
	return "Find files by path pattern (\"**/*.go\", \"src/**/*.{ts,tsx}\"; ** crosses directories) relative to path, skipping .gitignored files."
}

func (t *globTool) Schema() map[string]any { return globSchema() }

var globSchema = tool.ArgsSchema[globArgs](tool.SchemaOpen)

type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"Doublestar glob."`
	Path    string `json:"path,omitempty" jsonschema:"Default: the workspace root."`
}

func (t *globTool) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	var args globArgs
	if err := decodeArgs(raw, &args); err != nil {
		return tool.Errorf("%v", err)
	}
	pattern := strings.TrimPrefix(args.Pattern, "./")
	if pattern == "" {
		return tool.Errorf("pattern is required, e.g. \"**/*.go\"")
	}
	if !doublestar.ValidatePattern(pattern) {
		return tool.Errorf("invalid glob pattern %q (check brackets and braces)", args.Pattern)
	}
	dir := args.Path
	if dir == "" {
		dir = "."
	}
	abs, refused := t.env.resolveRead(t.Name(), dir)
	if refused != nil {
		return *refused
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("directory not found: %s", dir)
	case err != nil:
		return tool.Errorf("cannot search %s: %v", dir, err)
	case !fi.IsDir():
		return tool.Errorf("path %s is a file; glob searches a directory (omit path to search the workspace)", dir)
	}
	v, err := t.env.WS.VisibleUnder(ctx, abs)
	if err != nil {
		return tool.Errorf("cannot list files under %s: %v", dir, err)
	}
	var hits []string
	for _, rel := range v.Rels() {
		if !globMatches(pattern, rel, v.Prefix()) {
			continue
		}
		if fi, err := os.Lstat(v.Abs(rel)); err != nil || fi.IsDir() {
			continue // deleted but still in the index, or a submodule
		}
		hits = append(hits, v.Display(t.env.WS, rel))
	}
	if err := ctx.Err(); err != nil {
		return tool.Errorf("glob %s: %v", args.Pattern, err)
	}
	if len(hits) == 0 {
		return tool.Result{Content: fmt.Sprintf("No files match %q under %s.", args.Pattern, dir), Summary: "0 files"}
	}
	var b strings.Builder
	maxBytes := tool.ResultBudget(ctx, globMaxBytes)
	for i, h := range hits {
		if i == t.max || b.Len()+len(h) >= maxBytes {
			fmt.Fprintf(&b, "… %d more files not shown (%d in all); use a narrower pattern or path.\n", len(hits)-i, len(hits))
			break
		}
		b.WriteString(h)
		b.WriteByte('\n')
	}
	return tool.Result{Content: strings.TrimSuffix(b.String(), "\n"), Summary: countOf(len(hits), "file", "files")}
}

// globMatches matches a pattern against rel (relative to the listing root)
// as seen from the search directory prefix, and also against rel itself, so
// both "*.go" with path "tools" and "tools/*.go" find tools/env.go.
func globMatches(pattern, rel, prefix string) bool {
	local := rel
	if prefix != "" {
		local = rel[len(prefix)+1:]
	}
	if ok, _ := doublestar.Match(pattern, local); ok {
		return true
	}
	if local != rel {
		ok, _ := doublestar.Match(pattern, rel)
		return ok
	}
	return false
}
