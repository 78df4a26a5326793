package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"covey/internal/safefile"
)

// Script is a workspace file a project hook's command runs (./fmt.sh,
// bash scripts/check.sh, $CLAUDE_PROJECT_DIR/.claude/hooks/x.py), with the
// hash of its content when the hooks were read. Trusting a hook trusts the
// files it runs as they were: a project hook whose script changed since
// does not run (the model may have rewritten it), and the changed hash
// asks for trust again at the next start.
type Script struct {
	// Path is the file, relative to the project root.
	Path string
	// Hash is its content's SHA-256 ("" for a file that cannot be read).
	Hash string
}

// maxScriptSize bounds what is hashed of one script; a larger file's
// hash is of its first bytes and its size.
const maxScriptSize = 4 << 20

// Pin returns hs with the Scripts of each project hook found under dir;
// a hook pinned already keeps its own.
func Pin(hs []Hook, dir string) []Hook {
	out := make([]Hook, len(hs))
	for i, h := range hs {
		if h.Scope == ScopeProject && h.Scripts == nil && dir != "" {
			h.Scripts = append([]Script{}, scriptsOf(h.Command, dir)...) // non-nil: pinned
		}
		out[i] = h
	}
	return out
}

// scriptsOf finds the workspace files command names: every word that,
// with $CLAUDE_PROJECT_DIR or $COVEY_PROJECT_DIR put in, is a regular file
// inside dir. A script found by other means (a cd first, a variable of
// its own) is not seen; the hook's command text is trusted as it is.
func scriptsOf(command, dir string) []Script {
	root := dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		root = real
	}
	var out []Script
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(command, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|' || r == '(' || r == ')' || r == '<' || r == '>' || r == '`'
	}) {
		w = strings.Trim(w, `"'`)
		for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${COVEY_PROJECT_DIR}", "$COVEY_PROJECT_DIR"} {
			w = strings.ReplaceAll(w, v, dir)
		}
		if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$*?[") {
			continue
		}
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(root, real)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() || seen[rel] {
			continue
		}
		seen[rel] = true
		out = append(out, Script{Path: rel, Hash: fileHash(real)})
	}
	return out
}

// fileHash is the SHA-256 of the file at p ("" when unreadable).
func fileHash(p string) string {
	data, err := safefile.Read(p, maxScriptSize)
	if err != nil {
		fi, serr := os.Stat(p)
		if serr != nil {
			return ""
		}
		return fmt.Sprintf("size:%d", fi.Size()) // too large to hash: its size stands in
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// changedScript names the first of h's scripts whose content is no longer
// what it was when pinned, "" when none changed.
func changedScript(h Hook, dir string) string {
	for _, s := range h.Scripts {
		if fileHash(filepath.Join(dir, s.Path)) != s.Hash {
			return s.Path
		}
	}
	return ""
}
