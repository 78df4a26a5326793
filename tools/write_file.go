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

	"covey/tools/diff"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/tools/workspace"

	"covey/internal/safefile"
	"covey/permission"
)

// maxResultDiff caps the diff echoed to the model; the full diff still goes
// to the UI in the FileChange.
const maxResultDiff = 8 << 10

// writeFileTool is write_file.
type writeFileTool struct{ m mutator }

// NewWriteFile returns the write_file tool acting in env.
func NewWriteFile(env *Env) tool.Tool {
	return &writeFileTool{m: mutator{env: env, fs: workspace.OSFS{}}}
}

func (t *writeFileTool) Name() string   { return toolname.WriteFile }
func (t *writeFileTool) ReadOnly() bool { return false }

func (t *writeFileTool) Description() string {
	return "Create a file (and its folders) or replace all its content; prefer edit_file for changes. " +
		"An existing file must be read first; it keeps its line endings and permissions."
}

func (t *writeFileTool) Schema() map[string]any { return writeFileSchema() }

var writeFileSchema = tool.ArgsSchema[writeFileArgs](tool.SchemaClosed)

// writeFileArgs are write_file's arguments; Content is a pointer so an
// empty file can be told from a missing argument.
type writeFileArgs struct {
	Path    string  `json:"path" jsonschema:"Relative to the workspace root or absolute inside it."`
	Content *string `json:"content" jsonschema:"The whole new content."`
}

func (t *writeFileTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	var a writeFileArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("write_file: invalid arguments: %v", err)
	}
	if a.Path == "" {
		return tool.Errorf("write_file: path is required")
	}
	if a.Content == nil {
		return tool.Errorf("write_file: content is required (use \"\" for an empty file)")
	}
	return t.m.apply(ctx, toolname.WriteFile, a.Path, func(tg *target) (string, error) {
		if !tg.exists {
			return *a.Content, nil
		}
		return matchConventions(string(tg.content), *a.Content), nil
	})
}

// matchConventions makes a whole-file rewrite keep the old file's line
// endings and trailing-newline convention, which models rarely reproduce.
func matchConventions(old, proposed string) string {
	if isPureCRLF(old) && !strings.Contains(proposed, "\r\n") {
		proposed = toCRLF(proposed)
	}
	if old == "" || proposed == "" {
		return proposed
	}
	oldEOL := strings.HasSuffix(old, "\n")
	newEOL := strings.HasSuffix(proposed, "\n")
	switch {
	case !oldEOL && newEOL:
		proposed = strings.TrimSuffix(strings.TrimSuffix(proposed, "\n"), "\r")
	case oldEOL && !newEOL:
		if strings.HasSuffix(old, "\r\n") {
			proposed += "\r\n"
		} else {
			proposed += "\n"
		}
	}
	return proposed
}

// mutator is what write_file and edit_file share: resolving and checking the
// path, locking it, the stale check, the permission gate and the atomic
// write.
type mutator struct {
	env *Env
	fs  workspace.FileSystem // workspace.OSFS{} but in tests
	// quiet skips the diagnostics after the write (a rename's files,
	// reported once for all).
	quiet bool
}

// target is a file about to be written, as found under its lock.
type target struct {
	abs, rel string
	exists   bool
	content  []byte
	mode     os.FileMode
}

// apply runs one write of the file at path. compute gets the file as it is
// now and returns the proposed new content, or an error the model should see.
func (m *mutator) apply(ctx context.Context, toolName, path string, compute func(*target) (string, error)) tool.Result {
	env := m.env
	if env == nil || env.WS == nil {
		return tool.Errorf("%s: no workspace configured", toolName)
	}
	abs, err := env.WS.ResolveWrite(path)
	if err != nil {
		if errors.Is(err, workspace.ErrOutsideWorkspace) {
			return tool.Errorf("%s: refused: %s is outside the workspace %s; only files inside it can be written", toolName, path, env.WS.Root)
		}
		return tool.Errorf("%s: %v", toolName, err)
	}
	rel := env.WS.Rel(abs)
	if err := permission.CheckAllowedPaths(env.AllowedPaths, rel); err != nil {
		return tool.Errorf("%s: refused: %v", toolName, err)
	}
	unlock, err := env.Locks.Lock(ctx, abs)
	if err != nil {
		return tool.Errorf("%s: %v", toolName, err)
	}
	defer unlock()

	tg, err := readTarget(abs, rel)
	if err != nil {
		return tool.Errorf("%s: %v", toolName, err)
	}
	if tg.exists {
		if err := env.Reads.Check(abs, tg.content); err != nil {
			return staleError(toolName, rel, err)
		}
	}
	proposed, err := compute(tg)
	if err != nil {
		return tool.Errorf("%s: %s: %v", toolName, rel, err)
	}
	if tg.exists && proposed == string(tg.content) {
		env.Reads.Record(abs, tg.content)
		return tool.Result{Content: fmt.Sprintf("%s is unchanged: the new content equals the current one.", rel), Summary: "unchanged"}
	}

	final := proposed
	userEdited := false
	var trim *trimmed
	if env.Gate != nil {
		change := newFileChange(rel, string(tg.content), proposed, !tg.exists)
		v := env.Gate.Check(ctx, permission.Request{Tool: toolName, Path: rel, Change: change, Content: proposed})
		if !v.Allowed {
			reason := v.Reason
			if reason == "" {
				reason = "no reason given"
			}
			return tool.Errorf("%s: the change to %s was not allowed: %s", toolName, rel, reason)
		}
		if v.Content != nil && *v.Content != proposed {
			final, userEdited = *v.Content, true
		} else if drop := v.Dropped[rel]; len(drop) > 0 {
			kept, hs, err := diff.KeepHunks(string(tg.content), proposed, drop)
			if err != nil {
				return tool.Errorf("%s: the user took part of the change to %s, but %v; nothing was written", toolName, rel, err)
			}
			trim = &trimmed{dropped: hs, total: diff.HunkCount(string(tg.content), proposed), note: v.Note}
			if len(hs) == trim.total {
				return tool.Errorf("%s: the user dropped every hunk of the change to %s, so nothing was written.%s", toolName, rel, trim.noteText())
			}
			final = kept
		}
	}
	if err := ctx.Err(); err != nil {
		return tool.Errorf("%s: %s not written: %v", toolName, rel, err)
	}
	// The lock keeps other agents out, not other programs; the gate may
	// have waited minutes for the user, so look again before replacing.
	if err := tg.unchangedSince(); err != nil {
		return tool.Errorf("%s: %v; nothing was written, read it again", toolName, err)
	}
	if err := env.Undo.Save(abs, rel, tg.exists, tg.content, tg.mode); err != nil {
		return tool.Errorf("%s: %v; nothing was written", toolName, err)
	}
	if err := m.write(tg, final); err != nil {
		return tool.Errorf("%s: %v; the file is unchanged", toolName, err)
	}
	env.Reads.Record(abs, []byte(final))
	res := writeResult(tg, proposed, final, userEdited, trim)
	if env.LSP != nil && !m.quiet {
		// The server's word on this very version, still under the lock.
		res.Content += env.LSP.AfterWrite(ctx, env.WS.Root, abs, final)
	}
	return res
}

// trimmed is a change the user took part of: the hunks they dropped, out
// of how many, and what they said.
type trimmed struct {
	dropped []diff.Hunk
	total   int
	note    string
}

// noteText is the user's note as a sentence for the model; "" for none.
func (t *trimmed) noteText() string {
	if t == nil || strings.TrimSpace(t.note) == "" {
		return ""
	}
	return " The user's note: " + strings.TrimSpace(t.note)
}

// describe tells the model which hunks did not land, so its next attempt
// does not bring them back.
func (t *trimmed) describe() string {
	return fmt.Sprintf("\n\nThe user took %d of the %d hunks of your change and dropped the rest: "+
		"the file does NOT contain these hunks, do not make them again unless the user asks.%s\n\n%s",
		t.total-len(t.dropped), t.total, t.noteText(), diff.DescribeHunks(t.dropped, maxResultDiff))
}

// maxEditSize bounds a file the file tools replace or edit: its old content
// is held (twice, with undo) while the new one is made. Larger files are
// for bash.
const maxEditSize = 256 << 20

// readTarget reads the file at abs if it exists.
func readTarget(abs, rel string) (*target, error) {
	tg := &target{abs: abs, rel: rel, mode: workspace.NewFilePerm}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tg, nil
	case err != nil:
		return nil, fmt.Errorf("stat %s: %w", rel, err)
	case info.IsDir():
		return nil, fmt.Errorf("%s is a directory", rel)
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	content, err := safefile.Read(abs, maxEditSize)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	tg.exists, tg.content, tg.mode = true, content, workspace.KeepMode(info)
	return tg, nil
}

// unchangedSince reports an error if the file no longer is what tg saw.
func (tg *target) unchangedSince() error {
	content, err := safefile.Read(tg.abs, maxEditSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if tg.exists {
			return fmt.Errorf("%s was deleted while waiting for approval", tg.rel)
		}
		return nil
	case err != nil:
		return fmt.Errorf("read %s: %w", tg.rel, err)
	case !tg.exists:
		return fmt.Errorf("%s was created by someone else while waiting for approval", tg.rel)
	case string(content) != string(tg.content):
		return fmt.Errorf("%s changed on disk while waiting for approval", tg.rel)
	}
	return nil
}

// write creates the parent folders of a new file and writes content.
func (m *mutator) write(tg *target, content string) error {
	if !tg.exists {
		if err := os.MkdirAll(filepath.Dir(tg.abs), 0o755); err != nil {
			return fmt.Errorf("create folders for %s: %w", tg.rel, err)
		}
	}
	fsys := m.fs
	if _, real := fsys.(workspace.OSFS); real || fsys == nil {
		fsys = workspace.OSFS{Temps: m.env.Temps}
	}
	ws := m.env.WS
	ws.NoteWrite(tg.abs)
	ws.Settings().NoteWrite(ws.Root, tg.abs, []byte(content))
	err := workspace.WriteAtomic(fsys, tg.abs, []byte(content), tg.mode)
	if err != nil {
		ws.Settings().NoteFailedWrite(ws.Root, tg.abs)
	}
	return err
}

// staleError turns a ReadTracker refusal into words for the model.
func staleError(toolName, rel string, err error) tool.Result {
	switch {
	case errors.Is(err, workspace.ErrNotRead):
		return tool.Errorf("%s: you have not read %s; read it first with read_file", toolName, rel)
	case errors.Is(err, workspace.ErrStale):
		return tool.Errorf("%s: %s changed on disk since you read it; read it again before writing", toolName, rel)
	}
	return tool.Errorf("%s: %v", toolName, err)
}

// newFileChange describes the change of the file rel from old to updated.
func newFileChange(rel, old, updated string, created bool) *tool.FileChange {
	d, added, removed := diff.UnifiedDiff(rel, old, updated)
	return &tool.FileChange{Path: rel, Created: created, Diff: d, Added: added, Removed: removed}
}

// writeResult tells the model what was written. A new file's diff would only
// echo back what the model just sent, so it gets a count instead.
func writeResult(tg *target, proposed, final string, userEdited bool, trim *trimmed) tool.Result {
	change := newFileChange(tg.rel, string(tg.content), final, !tg.exists)
	var sb strings.Builder
	if change.Created {
		fmt.Fprintf(&sb, "Created %s (%s, %d bytes).", tg.rel, lineCount(change.Added), len(final))
	} else {
		fmt.Fprintf(&sb, "Updated %s (+%d -%d).\n\n%s", tg.rel, change.Added, change.Removed, capDiff(change.Diff))
	}
	if userEdited {
		d, _, _ := diff.UnifiedDiff(tg.rel, proposed, final)
		sb.WriteString("\n\nThe user modified your proposed content before it was written; " +
			"the file holds their version. Their changes to your proposal:\n\n")
		sb.WriteString(capDiff(d))
	}
	if trim != nil {
		sb.WriteString(trim.describe())
	}
	summary := fmt.Sprintf("+%d -%d", change.Added, change.Removed)
	if change.Created {
		summary = "created, " + lineCount(change.Added)
	}
	if userEdited {
		summary += ", edited by user"
	}
	if trim != nil {
		summary += fmt.Sprintf(", %d of %d hunks taken", trim.total-len(trim.dropped), trim.total)
	}
	return tool.Result{Content: strings.TrimRight(sb.String(), "\n"), Summary: summary, Display: change}
}

// lineCount words n lines: "1 line", "2 lines".
func lineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// capDiff shortens a diff for the model, cutting at a line boundary.
func capDiff(d string) string {
	if len(d) <= maxResultDiff {
		return d
	}
	cut := strings.LastIndexByte(d[:maxResultDiff], '\n') + 1
	return d[:cut] + fmt.Sprintf("… diff cut: %d more bytes …\n", len(d)-cut)
}

// isPureCRLF reports whether s has line breaks and every one is "\r\n".
func isPureCRLF(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

// toLF turns every "\r\n" into "\n".
func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// toCRLF turns every "\n" into "\r\n"; s must hold no "\r\n" already.
func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
