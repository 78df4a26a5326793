package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"

	"github.com/bmatcuk/doublestar/v4"
)

const (
	grepMaxMatches = 500      // matching lines shown in content mode
	grepMaxBytes   = 50 << 10 // bytes of output
	grepMaxFiles   = 1000     // paths shown in files_with_matches and count modes
	grepMaxContext = 20       // lines of context asked for are clamped to this
	grepMaxLineLen = 500      // bytes of one output line's text
)

// grepTool is the grep tool.
type grepTool struct {
	env        *Env
	maxMatches int
	maxBytes   int
	maxFiles   int
	scratch    scratchPool
}

// NewGrep returns the grep tool: a parallel, .gitignore-aware regexp search
// of file contents.
func NewGrep(env *Env) tool.Tool {
	return &grepTool{env: env, maxMatches: grepMaxMatches, maxBytes: grepMaxBytes, maxFiles: grepMaxFiles}
}

func (t *grepTool) Name() string   { return toolname.Grep }
func (t *grepTool) ReadOnly() bool { return true }

func (t *grepTool) Description() string {
	return "Search file contents with a Go RE2 regexp (no lookaround or backreferences) under path, skipping .gitignored and binary files."
}

func (t *grepTool) Schema() map[string]any { return grepSchema() }

var grepSchema = tool.ArgsSchema[grepArgs](tool.SchemaOpen)

type grepArgs struct {
	Pattern    string   `json:"pattern" jsonschema:"RE2, matched per line."`
	Path       string   `json:"path,omitempty" jsonschema:"Directory or file; default the workspace root."`
	Glob       string   `json:"glob,omitempty" jsonschema:"Files to search: \"*.go\", \"src/**/*.ts\", \"!*_test.go\"."`
	IgnoreCase flexBool `json:"ignore_case,omitempty" jsonschema:"Match case-insensitively."`
	OutputMode string   `json:"output_mode,omitempty" enum:"content,files_with_matches,count" jsonschema:"What to show (default content)."`
	Context    flexInt  `json:"context,omitempty" jsonschema:"Lines of context before and after each match, content mode only (like grep -C)."`
}

func (t *grepTool) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	var args grepArgs
	if err := decodeArgs(raw, &args); err != nil {
		return tool.Errorf("%v", err)
	}
	if args.Pattern == "" {
		return tool.Errorf("pattern is required")
	}
	var mode grepMode
	switch args.OutputMode {
	case "", "content":
		mode = modeContent
	case "files_with_matches", "files":
		mode = modeFiles
	case "count":
		mode = modeCount
	default:
		return tool.Errorf("unknown output_mode %q; use content, files_with_matches or count", args.OutputMode)
	}
	if args.Context < 0 {
		return tool.Errorf("context must be 0 or more, got %d", args.Context)
	}
	context := min(int(args.Context), grepMaxContext)
	filter, err := newGlobFilter(args.Glob)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	// One match past each cap tells render that the output was cut.
	s, err := newSearcher(args.Pattern, bool(args.IgnoreCase), mode, context, t.maxMatches+1)
	if err != nil {
		return tool.Errorf("invalid regular expression %q: %v (RE2 syntax: escape ( ) [ ] { } . * + ? | \\ to match them literally)", args.Pattern, err)
	}
	dir := args.Path
	if dir == "" {
		dir = "."
	}
	stopAfter := t.maxMatches + 1
	if mode != modeContent {
		stopAfter = t.maxFiles + 1
		if mode == modeCount {
			stopAfter = 0 // counts are cheap to show in full up to the file cap
		}
	}
	jobs, results, err := s.searchFiles(ctx, func(yield func(fileJob) bool) error {
		return t.eachJob(ctx, dir, filter, yield)
	}, stopAfter, &t.scratch)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	if err := ctx.Err(); err != nil {
		return tool.Errorf("grep %s: %v", args.Pattern, err)
	}
	return t.render(args, mode, jobs, results, tool.ResultBudget(ctx, t.maxBytes))
}

// eachJob calls yield with each file to search under dir (or dir itself
// when it is a file), filtered by the glob, in the output's order, until
// yield returns false. The files come as the workspace's walk finds them
// (see Workspace.EachVisible), so the search starts before the walk ends.
func (t *grepTool) eachJob(ctx context.Context, dir string, filter *globFilter, yield func(fileJob) bool) error {
	abs, refused := t.env.resolveRead(t.Name(), dir)
	if refused != nil {
		return errors.New(strings.TrimPrefix(refused.Content, "Error: grep: "))
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("path not found: %s", dir)
	case err != nil:
		return fmt.Errorf("cannot search %s: %w", dir, err)
	case !fi.IsDir():
		// An explicitly named file is searched even if ignored.
		yield(fileJob{abs: abs, display: t.env.WS.Rel(abs)})
		return nil
	}
	real, err := filepath.EvalSymlinks(abs)
	rootIsReal := err == nil && real == filepath.Clean(abs)
	_, err = t.env.WS.EachVisible(ctx, abs, func(v *workspace.Visible, rel string) bool {
		if !filter.keep(rel, v.Prefix()) {
			return true
		}
		// Read rules hold for every file searched: a denied file, or a
		// symlink leading where reads are not allowed, is not opened.
		if p := v.Abs(rel); t.env.readableFound(p, rootIsReal) {
			return yield(fileJob{abs: p, display: v.Display(t.env.WS, rel)})
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("cannot list files under %s: %w", dir, err)
	}
	return nil
}

// render turns results into the tool's output, applying the caps.
func (t *grepTool) render(args grepArgs, mode grepMode, jobs []fileJob, results []fileResult, maxBytes int) tool.Result {
	var b strings.Builder
	matches, files, shownFiles, binary, large := 0, 0, 0, 0, 0
	cut := ""
	for i, r := range results {
		switch r.skipped {
		case skippedBinary:
			binary++
		case skippedLarge:
			large++
		}
		if r.matches == 0 {
			continue
		}
		files++
		matches += r.matches
		if cut != "" {
			continue
		}
		switch mode {
		case modeFiles, modeCount:
			if shownFiles == t.maxFiles || b.Len() >= maxBytes {
				cut = fmt.Sprintf("Output cut at %d files; narrow the search with path or glob.", shownFiles)
				continue
			}
			b.WriteString(jobs[i].display)
			if mode == modeCount {
				fmt.Fprintf(&b, ":%d", r.matches)
			}
			b.WriteByte('\n')
			shownFiles++
		default:
			if args.Context > 0 && b.Len() > 0 {
				b.WriteString("--\n")
			}
			cut = t.writeLines(&b, r.lines, matches-r.matches, maxBytes)
		}
	}
	if files == 0 {
		return tool.Result{Content: "No matches for " + quotePattern(args.Pattern) + "." + skippedNote(binary, large), Summary: "no matches"}
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if cut != "" {
		out += "\n(" + cut + ")"
	}
	out += skippedNote(0, large) // skipped binaries matter only when nothing matched
	var summary string
	switch {
	case mode == modeFiles:
		summary = countOf(files, "file", "files")
	case cut != "":
		summary = fmt.Sprintf("%d+ matches in %d+ files", matches, files)
	default:
		summary = fmt.Sprintf("%s in %s", countOf(matches, "match", "matches"), countOf(files, "file", "files"))
	}
	return tool.Result{Content: out, Summary: summary}
}

// writeLines appends one file's content-mode lines, stopping at the match
// or byte cap; it returns a note when it stopped early.
func (t *grepTool) writeLines(b *strings.Builder, lines []outLine, before, maxBytes int) string {
	shown := before
	for _, l := range lines {
		if l.match && shown == t.maxMatches {
			return fmt.Sprintf("Output cut at %d matching lines; narrow the pattern, path or glob, or use output_mode files_with_matches or count.", t.maxMatches)
		}
		if b.Len()+len(l.text) >= maxBytes {
			return fmt.Sprintf("Output cut at %s after %d matching lines; narrow the pattern, path or glob, or use output_mode files_with_matches or count.", humanSize(int64(maxBytes)), shown)
		}
		b.WriteString(l.text)
		b.WriteByte('\n')
		if l.match {
			shown++
		}
	}
	return ""
}

func skippedNote(binary, large int) string {
	var parts []string
	if binary > 0 {
		parts = append(parts, countOf(binary, "binary file", "binary files"))
	}
	if large > 0 {
		parts = append(parts, fmt.Sprintf("%s over %d MB", countOf(large, "file", "files"), grepMaxFileSize>>20))
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n(Skipped " + strings.Join(parts, " and ") + ".)"
}

// globFilter is grep's glob argument: with no slash it matches file names,
// like ripgrep's -g; a leading "!" excludes instead.
type globFilter struct {
	pattern  string
	negate   bool
	basename bool
}

func newGlobFilter(g string) (*globFilter, error) {
	if g == "" {
		return nil, nil
	}
	f := &globFilter{}
	if strings.HasPrefix(g, "!") {
		f.negate, g = true, g[1:]
	}
	g = strings.TrimPrefix(g, "./")
	if !doublestar.ValidatePattern(g) || g == "" {
		return nil, fmt.Errorf("invalid glob %q (check brackets and braces)", g)
	}
	f.pattern, f.basename = g, !strings.Contains(g, "/")
	return f, nil
}

// keep reports whether rel (relative to the listing root; prefix is the
// search directory) passes the filter. A nil filter keeps everything.
func (f *globFilter) keep(rel, prefix string) bool {
	if f == nil {
		return true
	}
	var ok bool
	if f.basename {
		ok, _ = doublestar.Match(f.pattern, path.Base(rel))
	} else {
		ok = globMatches(f.pattern, rel, prefix)
	}
	return ok != f.negate
}

// quotePattern shows a pattern as the model wrote it: between backquotes,
// so a regular expression's backslashes are not doubled as %q would
// (`func main\(` rather than "func main\\("); %q only when the pattern
// itself holds a backquote or a line break.
func quotePattern(p string) string {
	if strings.ContainsAny(p, "`\n\r") {
		return fmt.Sprintf("%q", p)
	}
	return "`" + p + "`"
}
