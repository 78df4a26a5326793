package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"covey/internal/plural"
	"covey/lsp"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// lspTool is the lsp tool: definition, references, hover, symbols and
// rename from the language server serving a file.
type lspTool struct {
	env *Env
	m   mutator
}

// NewLSP returns the lsp tool for env, or nil when env runs no language
// server (none configured, none found on PATH).
func NewLSP(env *Env) tool.Tool {
	if env == nil || !env.LSP.Any() {
		return nil
	}
	return &lspTool{env: env, m: mutator{env: env, fs: workspace.OSFS{}, quiet: true}}
}

func (t *lspTool) Name() string { return toolname.LSP }

// ReadOnly is true: every operation but rename only reads, and a rename's
// writes go through the permission gate as edit_file's do (plan mode
// refuses them).
func (t *lspTool) ReadOnly() bool { return true }

func (t *lspTool) Description() string {
	return "Ask the language server: definition, references or hover of the symbol at path:line:character; " +
		"document_symbols of path; workspace_symbols matching query; rename the symbol at path:line:character to new_name " +
		"(every file's edit is asked for like edit_file's). Lines and characters count from 1, as read_file numbers lines; " +
		"locations come back as path:line:column."
}

func (t *lspTool) Schema() map[string]any { return lspSchema() }

var lspSchema = tool.ArgsSchema[lspArgs](tool.SchemaClosed)

type lspArgs struct {
	Operation string `json:"operation" enum:"definition,references,hover,document_symbols,workspace_symbols,rename"`
	Path      string `json:"path" jsonschema:"The file; for workspace_symbols, any file of the language."`
	Line      int    `json:"line,omitempty" jsonschema:"Line from 1 (definition, references, hover, rename)."`
	Character int    `json:"character,omitempty" jsonschema:"Column from 1 of a character of the symbol."`
	Query     string `json:"query,omitempty" jsonschema:"workspace_symbols: the name or part of it."`
	NewName   string `json:"new_name,omitempty" jsonschema:"rename: the new name."`
}

func (t *lspTool) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	var a lspArgs
	if err := decodeArgs(raw, &a); err != nil {
		return tool.Errorf("lsp: %v", err)
	}
	switch {
	case a.Path == "":
		return tool.Errorf("lsp: path is required")
	case !validOp(a.Operation):
		return tool.Errorf("lsp: operation must be one of %s, not %q", strings.Join(lsp.Ops(), ", "), a.Operation)
	case needsPosition(a.Operation) && (a.Line < 1 || a.Character < 1):
		return tool.Errorf("lsp: %s needs line and character, both from 1", a.Operation)
	case a.Operation == lsp.OpRename && strings.TrimSpace(a.NewName) == "":
		return tool.Errorf("lsp: rename needs new_name")
	}
	abs, bad := t.env.resolveRead(toolname.LSP, a.Path)
	if bad != nil {
		return *bad
	}
	ans, err := t.env.LSP.Query(ctx, t.env.WS.Root, lsp.Query{Op: a.Operation, Abs: abs, Line: a.Line, Character: a.Character, Symbol: a.Query, NewName: a.NewName})
	if err != nil {
		return tool.Errorf("lsp %s: %v", a.Operation, err)
	}
	if a.Operation != lsp.OpRename {
		out, cut := capWebText(ans.Text, tool.ResultBudget(ctx, 64<<10))
		sum := firstLineOf(out)
		if cut {
			sum += ", truncated"
		}
		return tool.Result{Content: out, Summary: sum}
	}
	return t.rename(ctx, a.NewName, ans.Renamed)
}

// rename writes each file the rename changes, through the gate, file by
// file (each asked for as an edit, its diff by hunk).
func (t *lspTool) rename(ctx context.Context, newName string, files map[string]string) tool.Result {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var done, failed []string
	for _, abs := range paths {
		want := files[abs]
		rel := t.env.WS.Rel(abs)
		if !t.env.WS.Contains(abs) {
			failed = append(failed, fmt.Sprintf("%s: outside the workspace, not changed", abs))
			continue
		}
		// The rename was computed from the file as it is now, so it
		// counts as read; a change since is still caught below.
		before, err := readBounded(abs)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", rel, err))
			continue
		}
		t.env.Reads.Record(abs, before)
		res := t.m.apply(ctx, toolname.EditFile, rel, func(tg *target) (string, error) {
			if string(tg.content) != string(before) {
				return "", fmt.Errorf("it changed while the rename was being made")
			}
			return want, nil
		})
		if res.IsError {
			failed = append(failed, strings.TrimPrefix(res.Content, "Error: "))
			continue
		}
		t.env.LSP.Changed(ctx, t.env.WS.Root, abs, want)
		done = append(done, rel)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Renamed to %s in %d of %s", newName, len(done), plural.Count(len(paths), "file"))
	if len(done) > 0 {
		b.WriteString(": " + strings.Join(done, ", "))
	}
	b.WriteString(".")
	for _, f := range failed {
		b.WriteString("\nNot changed: " + f)
	}
	res := tool.Result{Content: b.String(), Summary: fmt.Sprintf("renamed in %d of %s", len(done), plural.Count(len(paths), "file"))}
	if len(done) == 0 {
		res.IsError = true
	}
	return res
}

func validOp(op string) bool {
	for _, o := range lsp.Ops() {
		if o == op {
			return true
		}
	}
	return false
}

func needsPosition(op string) bool {
	switch op {
	case lsp.OpDefinition, lsp.OpReferences, lsp.OpHover, lsp.OpRename:
		return true
	}
	return false
}

// firstLineOf is the first line of s, for a summary.
func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ":")
}

// readBounded reads a file the lsp tool is about to change.
func readBounded(abs string) ([]byte, error) {
	tg, err := readTarget(abs, filepath.Base(abs))
	if err != nil {
		return nil, err
	}
	if !tg.exists {
		return nil, fmt.Errorf("%s does not exist", filepath.Base(abs))
	}
	return tg.content, nil
}
