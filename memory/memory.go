// Package memory loads the instructions covey keeps in every prompt: the
// user's own (~/.claude/CLAUDE.md, <config>/AGENTS.md) and the
// repository's AGENTS.md, CLAUDE.md and CLAUDE.local.md of every folder
// from the repository root down to the working directory, each with the
// files it imports (@path, five levels deep). Files in folders below the
// working directory join later, when an agent first reads a file there
// (see Nested).
package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"covey/internal/safefile"
)

// Bounds of what memory may take.
const (
	// MaxFileBytes is how much of one file is kept.
	MaxFileBytes = 64 << 10
	// MaxTotalBytes is how much memory of all files is kept.
	MaxTotalBytes = 256 << 10
	// MaxImportDepth is how many @imports deep a chain may go (Claude
	// Code's five hops).
	MaxImportDepth = 5
)

// Names are the memory file names read in each folder, in this order.
var Names = []string{"AGENTS.md", "CLAUDE.md", filepath.Join(".claude", "CLAUDE.md"), "CLAUDE.local.md"}

// Scope says where a memory file comes from.
type Scope string

// The scopes.
const (
	// User files are the user's own, in every project.
	User Scope = "user"
	// Project files are the repository's, from its root to the working
	// directory.
	Project Scope = "project"
	// Folder files are in a folder below the working directory; they join
	// when an agent reads a file there.
	Folder Scope = "folder"
	// Import files were imported by another memory file.
	Import Scope = "import"
)

// File is one memory file as loaded.
type File struct {
	// Path is the file's absolute path.
	Path string
	// Scope is where it comes from.
	Scope Scope
	// Text is its content (imports are separate Files), cut to
	// MaxFileBytes.
	Text string
	// ImportedBy is the file that imported this one, "" for others.
	ImportedBy string
	// Depth is 0 for a file found in its folder, n for one n imports away.
	Depth int
}

// Options says where memory is looked for.
type Options struct {
	// Home is the home folder (~/.claude/CLAUDE.md, ~/ imports).
	Home string
	// UserConfigDir is covey's config folder (its AGENTS.md).
	UserConfigDir string
	// RepoRoot is the repository's root; "" or a folder not above WorkDir
	// means WorkDir.
	RepoRoot string
	// WorkDir is the working directory (the workspace root).
	WorkDir string
}

// Memory is what loaded.
type Memory struct {
	// Files are the memory files in prompt order.
	Files []File
	// Warnings say what was refused (an import cycle, an import too
	// deep, a file that could not be read).
	Warnings []string

	opts  Options
	total int
}

// Load reads the user's and the repository's memory files.
func Load(o Options) *Memory {
	m := &Memory{opts: o}
	if o.Home != "" {
		m.add(filepath.Join(o.Home, ".claude", "CLAUDE.md"), User)
	}
	if o.UserConfigDir != "" {
		m.add(filepath.Join(o.UserConfigDir, "AGENTS.md"), User)
	}
	for _, dir := range foldersDown(m.repoRoot(), o.WorkDir) {
		for _, name := range Names {
			m.add(filepath.Join(dir, name), Project)
		}
	}
	return m
}

// repoRoot is the repository root when it holds the working directory,
// else the working directory.
func (m *Memory) repoRoot() string {
	if m.opts.RepoRoot == "" || !within(m.opts.RepoRoot, m.opts.WorkDir) {
		return m.opts.WorkDir
	}
	return m.opts.RepoRoot
}

// realRepoRoot is repoRoot with its symlinks resolved.
func (m *Memory) realRepoRoot() string {
	root := m.repoRoot()
	if rr, err := filepath.EvalSymlinks(root); err == nil {
		return rr
	}
	return root
}

// foldersDown lists top, then each folder below it down to bottom.
func foldersDown(top, bottom string) []string {
	if top == "" || bottom == "" {
		return nil
	}
	rel, err := filepath.Rel(top, bottom)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{bottom}
	}
	out := []string{top}
	if rel == "." {
		return out
	}
	cur := top
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// loaded reports whether the file at real path was loaded already.
func (m *Memory) loaded(real string) bool {
	for _, f := range m.Files {
		if f.Path == real {
			return true
		}
	}
	return false
}

// add loads the file at path, if there is one, with its imports, and
// returns the files it added.
func (m *Memory) add(path string, scope Scope) []File {
	before := len(m.Files)
	m.load(path, scope, "", nil)
	return m.Files[before:]
}

// load reads one file and, after it, the files it imports; chain is the
// import chain that led here (for cycles and depth).
func (m *Memory) load(path string, scope Scope, importedBy string, chain []string) {
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, os.ErrNotExist) {
		// Not there: for an import, most likely an @mention that looks
		// like a path (@types/node), so nothing is said.
		return
	}
	if err != nil {
		m.warn("memory file %s: %v", path, err)
		return
	}
	if (scope == Project || scope == Folder) && importedBy == "" && !within(m.realRepoRoot(), real) {
		// A repository's AGENTS.md linked to a file outside it (a key,
		// say) would send that file to the model.
		m.warn("memory file %s leads outside the repository (to %s): not loaded", path, real)
		return
	}
	for _, c := range chain {
		if c == real {
			m.warn("%s imports %s, which imports it back: the cycle is not followed", importedBy, path)
			return
		}
	}
	if m.loaded(real) {
		return // AGENTS.md and a CLAUDE.md that imports it, say
	}
	if len(chain) > MaxImportDepth {
		m.warn("%s imports %s, more than %d imports deep: not loaded", importedBy, path, MaxImportDepth)
		return
	}
	if m.total >= MaxTotalBytes {
		m.warn("memory file %s not loaded: memory files hold at most %d KB together", path, MaxTotalBytes>>10)
		return
	}
	limit := min(MaxFileBytes, MaxTotalBytes-m.total)
	data, cut, err := safefile.ReadPrefix(real, int64(limit))
	if err != nil {
		m.warn("memory file %s: %v", path, err)
		return
	}
	text := strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD"))
	if cut {
		text += fmt.Sprintf("\n[… cut: %s is longer than %d KB]", filepath.Base(path), limit>>10)
	}
	m.total += len(data)
	if importedBy != "" {
		scope = Import
	}
	m.Files = append(m.Files, File{Path: real, Scope: scope, Text: text, ImportedBy: importedBy, Depth: len(chain)})
	chain = append(chain, real)
	for _, ref := range imports(text) {
		target, ok := m.resolveImport(ref, real, chain)
		if !ok {
			continue
		}
		m.load(target, scope, real, chain)
	}
}

// resolveImport turns an @path of the file from into a path. A file of
// the repository (not the user's own) imports only files inside the
// repository: a repository must not pull the user's private files into
// what is sent to the model.
func (m *Memory) resolveImport(ref, from string, chain []string) (string, bool) {
	var target string
	switch {
	case ref == "~" || strings.HasPrefix(ref, "~/"):
		if m.opts.Home == "" {
			return "", false
		}
		target = filepath.Join(m.opts.Home, ref[1:])
	case filepath.IsAbs(ref):
		target = filepath.Clean(ref)
	default:
		target = filepath.Join(filepath.Dir(from), ref)
	}
	if !m.userOwned(chain[0]) {
		real, err := filepath.EvalSymlinks(target)
		if err != nil {
			real = target
		}
		if !within(m.realRepoRoot(), real) {
			m.warn("%s imports %s, outside the repository: a repository's memory imports only its own files", from, ref)
			return "", false
		}
	}
	return target, true
}

// userOwned reports whether the memory file at real path (the start of an
// import chain) is the user's own rather than the repository's.
func (m *Memory) userOwned(real string) bool {
	for _, f := range m.Files {
		if f.Path == real {
			return f.Scope == User
		}
	}
	return false
}

func (m *Memory) warn(format string, a ...any) {
	m.Warnings = append(m.Warnings, fmt.Sprintf(format, a...))
}

// imports finds the @path references of a memory file's text: a token
// starting with @ after a blank or at the start of a line, outside code
// fences and inline code. A token that names no file is left alone by
// load's caller (it warns only for imports that look like paths).
func imports(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		inCode := false
		for i := 0; i < len(line); i++ {
			switch {
			case line[i] == '`':
				inCode = !inCode
			case line[i] == '@' && !inCode && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t' || line[i-1] == '('):
				j := i + 1
				for j < len(line) && !strings.ContainsRune(" \t)`\"'<>,;", rune(line[j])) {
					j++
				}
				ref := strings.TrimRight(line[i+1:j], ".:!?")
				if looksLikePath(ref) {
					out = append(out, ref)
				}
				i = j - 1
			}
		}
	}
	return out
}

// looksLikePath tells an import from an @mention: it has a folder
// separator or a file extension, or starts with ~ or a dot.
func looksLikePath(ref string) bool {
	if ref == "" {
		return false
	}
	return strings.ContainsAny(ref, "/\\") || strings.HasPrefix(ref, "~") || strings.HasPrefix(ref, ".") ||
		filepath.Ext(ref) != ""
}

// FindRepoRoot returns the nearest folder at or above dir holding .git
// (a folder, or a worktree's file), "" when there is none.
func FindRepoRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
