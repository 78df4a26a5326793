package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"covey/internal/safefile"
)

// ignoreRule is one line of a .gitignore-style file.
type ignoreRule struct {
	pattern  string // wildmatch pattern, without the "!", leading "/" or trailing "/"
	base     string // directory of the file holding the rule, relative to the walk root, "" at the root
	negate   bool   // "!pattern" re-includes
	dirOnly  bool   // "pattern/" matches directories only
	basename bool   // no slash in the pattern: match the last path element at any depth
}

// parseIgnore parses the content of a .gitignore-style file whose directory
// is base (slash separated, relative to the walk root, "" for the root). It
// follows gitignore(5): comments, "\" escapes, trailing-space trimming,
// negation, anchoring by an inner or leading slash, and dir-only rules.
func parseIgnore(data []byte, base string) []ignoreRule {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // git skips a UTF-8 BOM
	var rules []ignoreRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = trimTrailingSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		r := ignoreRule{base: base}
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, "\\/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		r.basename = !strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		if line == "" {
			continue
		}
		r.pattern = line
		rules = append(rules, r)
	}
	return rules
}

// trimTrailingSpaces drops unescaped trailing spaces, as git does.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		// Count the backslashes before this space: an odd number escapes it.
		n := 0
		for i := end - 2; i >= 0 && s[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			break
		}
		end--
	}
	return s[:end]
}

// match reports whether the rule matches rel (slash separated, relative to
// the walk root); isDir tells whether rel names a directory.
func (r *ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.base != "" {
		if !strings.HasPrefix(rel, r.base) || len(rel) <= len(r.base) || rel[len(r.base)] != '/' {
			return false
		}
		rel = rel[len(r.base)+1:]
	}
	if r.basename {
		return wildmatch(r.pattern, rel[strings.LastIndexByte(rel, '/')+1:])
	}
	return wildmatch(r.pattern, rel)
}

// ignoreStack is the ordered list of rules in force for one directory: the
// rules of every .gitignore from the root down, later rules winning. It is
// immutable once built, so a walk shares prefixes between siblings.
type ignoreStack struct {
	rules []ignoreRule
}

// with returns a stack with more rules appended, leaving s untouched.
func (s *ignoreStack) with(more []ignoreRule) *ignoreStack {
	if len(more) == 0 {
		return s
	}
	rules := make([]ignoreRule, 0, len(s.rules)+len(more))
	rules = append(append(rules, s.rules...), more...)
	return &ignoreStack{rules: rules}
}

// ignored reports whether rel is excluded: the last matching rule decides.
func (s *ignoreStack) ignored(rel string, isDir bool) bool {
	for i := len(s.rules) - 1; i >= 0; i-- {
		if s.rules[i].match(rel, isDir) {
			return !s.rules[i].negate
		}
	}
	return false
}

// wildmatch matches a gitignore glob against a slash-separated path: "*" and
// "?" and "[...]" never cross a "/", "**" between slashes (or at either end)
// spans any number of directories, and "\" quotes the next character.
func wildmatch(pat, s string) bool {
	return wildmatchAt(pat, 0, s)
}

// wildmatchAt matches pat[pi:] against s; pi is kept so a "**" can tell
// whether it starts a path segment of the pattern.
func wildmatchAt(pat string, pi int, s string) bool {
	for pi < len(pat) {
		c := pat[pi]
		switch c {
		case '*':
			end := pi + 1
			for end < len(pat) && pat[end] == '*' {
				end++
			}
			segStart := pi == 0 || pat[pi-1] == '/'
			segEnd := end == len(pat) || pat[end] == '/'
			if end-pi >= 2 && segStart && segEnd {
				if end == len(pat) {
					return true // trailing "**" matches everything below
				}
				// "**/" matches zero or more whole directories.
				next := end + 1
				if wildmatchAt(pat, next, s) {
					return true
				}
				for i := 0; i < len(s); i++ {
					if s[i] == '/' && wildmatchAt(pat, next, s[i+1:]) {
						return true
					}
				}
				return false
			}
			for i := 0; i <= len(s); i++ {
				if wildmatchAt(pat, end, s[i:]) {
					return true
				}
				if i < len(s) && s[i] == '/' {
					return false
				}
			}
			return false
		case '?':
			if s == "" || s[0] == '/' {
				return false
			}
			pi, s = pi+1, s[1:]
		case '[':
			if s == "" || s[0] == '/' {
				return false
			}
			ok, n, valid := matchClass(pat[pi:], s[0])
			if !valid || !ok {
				// An unterminated class never matches, as in git.
				return false
			}
			pi, s = pi+n, s[1:]
		case '\\':
			if pi+1 >= len(pat) || s == "" || s[0] != pat[pi+1] {
				return false
			}
			pi, s = pi+2, s[1:]
		default:
			if s == "" || s[0] != c {
				return false
			}
			pi, s = pi+1, s[1:]
		}
	}
	return s == ""
}

// matchClass matches byte b against the bracket expression at the start of
// pat. It returns whether b matched, the length of the expression, and
// whether the expression was well formed.
func matchClass(pat string, b byte) (matched bool, n int, valid bool) {
	i := 1
	negate := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(pat) {
		c := pat[i]
		if c == ']' && !first {
			return matched != negate, i + 1, true
		}
		first = false
		if c == '[' && strings.HasPrefix(pat[i:], "[:") {
			if end := strings.Index(pat[i+2:], ":]"); end >= 0 {
				if classMatch(pat[i+2:i+2+end], b) {
					matched = true
				}
				i += end + 4
				continue
			}
		}
		if c == '\\' && i+1 < len(pat) {
			i++
			c = pat[i]
		}
		lo, hi := c, c
		if i+2 < len(pat) && pat[i+1] == '-' && pat[i+2] != ']' {
			hi = pat[i+2]
			if hi == '\\' && i+3 < len(pat) {
				hi = pat[i+3]
				i++
			}
			i += 2
		}
		if lo <= b && b <= hi {
			matched = true
		}
		i++
	}
	return false, 0, false
}

// classMatch implements the POSIX character classes git's wildmatch knows.
func classMatch(name string, b byte) bool {
	switch name {
	case "alnum":
		return isAlpha(b) || isDigit(b)
	case "alpha":
		return isAlpha(b)
	case "blank":
		return b == ' ' || b == '\t'
	case "cntrl":
		return b < 0x20 || b == 0x7f
	case "digit":
		return isDigit(b)
	case "graph":
		return b > 0x20 && b < 0x7f
	case "lower":
		return b >= 'a' && b <= 'z'
	case "print":
		return b >= 0x20 && b < 0x7f
	case "punct":
		return b > 0x20 && b < 0x7f && !isAlpha(b) && !isDigit(b)
	case "space":
		return b == ' ' || (b >= '\t' && b <= '\r')
	case "upper":
		return b >= 'A' && b <= 'Z'
	case "xdigit":
		return isDigit(b) || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F')
	}
	return false
}

func isAlpha(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// walkVisible lists the files under root that .gitignore rules leave
// visible, as sorted slash paths relative to root. base holds rules already
// in force at root (e.g. .git/info/exclude). Directories named .git are
// never entered, symlinks are listed but not followed, and an ignored
// directory is not descended into, so nothing below it can be re-included,
// exactly as in git.
func walkVisible(ctx context.Context, root string, base *ignoreStack) ([]string, error) {
	var out []string
	err := walkVisibleFunc(ctx, root, base, func(rel string) bool {
		out = append(out, rel)
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// errWalkStopped ends a walk whose emit asked to stop.
var errWalkStopped = errors.New("walk stopped")

// walkVisibleFunc is walkVisible calling emit with each file as it is
// found, already in the sorted order of the whole list, so a caller can
// work on the first files while the walk goes on (grep searches as it
// walks, as ripgrep does). The order comes from visiting each directory's
// entries sorted by name with a "/" after a directory's name: that is
// where the directory's files fall among its siblings in the sorted list
// ("a.go" < "a/x" because '.' < '/'). emit returning false stops the walk
// with errWalkStopped.
func walkVisibleFunc(ctx context.Context, root string, base *ignoreStack, emit func(rel string) bool) error {
	var walk func(dir, rel string, stack *ignoreStack) error
	walk = func(dir, rel string, stack *ignoreStack) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := readDirWalkOrder(dir)
		if err != nil {
			if rel != "" && (errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist)) {
				return nil // unreadable or vanished subdirectory: skip it, as git does
			}
			return fmt.Errorf("list %s: %w", dir, err)
		}
		stack = stack.with(loadIgnoreFile(filepath.Join(dir, ".gitignore"), rel, entries))
		for _, e := range entries {
			name := e.Name()
			if name == ".git" {
				continue
			}
			child := name
			if rel != "" {
				child = rel + "/" + name
			}
			isDir := e.IsDir()
			if stack.ignored(child, isDir) {
				continue
			}
			if isDir {
				if err := walk(filepath.Join(dir, name), child, stack); err != nil {
					return err
				}
				continue
			}
			if !emit(child) {
				return errWalkStopped
			}
		}
		return nil
	}
	if base == nil {
		base = &ignoreStack{}
	}
	return walk(root, "", base)
}

// readDirWalkOrder reads dir's entries sorted for walkVisibleFunc: by name,
// a directory's name followed by "/". os.ReadDir sorts by name, which is
// the same order unless a directory's name is a prefix of a sibling's
// ("a" and "a.go"), so that is checked before sorting again.
func readDirWalkOrder(dir string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	inOrder := func(i int) bool {
		a, b := entries[i-1], entries[i]
		return !strings.HasPrefix(b.Name(), a.Name()) || compareWalkNames(a.Name(), a, b.Name(), b) < 0
	}
	for i := 1; i < len(entries); i++ {
		if !inOrder(i) {
			slices.SortFunc(entries, func(a, b os.DirEntry) int { return compareWalkNames(a.Name(), a, b.Name(), b) })
			break
		}
	}
	return entries, nil
}

// compareWalkNames compares the names a and b of entries ae and be as if
// a directory's name ended in "/".
func compareWalkNames(a string, ae os.DirEntry, b string, be os.DirEntry) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	// One name is a prefix of the other: compare the byte after it, "/"
	// for a directory's name and nothing (lowest) for a file's.
	next := func(s string, e os.DirEntry) int {
		switch {
		case len(s) > n:
			return int(s[n])
		case e.IsDir():
			return '/'
		}
		return -1
	}
	return next(a, ae) - next(b, be)
}

// loadIgnoreFile parses dir's .gitignore when the directory listing shows
// one; a missing or unreadable file contributes no rules.
// maxIgnoreFile is git's own bound on an ignore file (larger ones it
// skips with a warning).
const maxIgnoreFile = 100 << 20

func loadIgnoreFile(file, rel string, entries []os.DirEntry) []ignoreRule {
	i := slices.IndexFunc(entries, func(e os.DirEntry) bool { return e.Name() == ".gitignore" })
	if i < 0 || entries[i].IsDir() {
		return nil
	}
	data, err := safefile.Read(file, maxIgnoreFile)
	if err != nil {
		return nil
	}
	return parseIgnore(data, rel)
}

// ignoreStackFor builds the rules in force for the directory rel under root
// by reading each .gitignore from root down to rel, on top of base. It is
// used to judge entries of a single directory without walking the tree.
func ignoreStackFor(root, rel string, base *ignoreStack) *ignoreStack {
	if base == nil {
		base = &ignoreStack{}
	}
	stack := base
	cur := ""
	parts := []string{}
	if rel != "" && rel != "." {
		parts = strings.Split(rel, "/")
	}
	for i := 0; ; i++ {
		data, err := safefile.Read(filepath.Join(root, filepath.FromSlash(cur), ".gitignore"), maxIgnoreFile)
		if err == nil {
			stack = stack.with(parseIgnore(data, cur))
		}
		if i == len(parts) {
			return stack
		}
		cur = path.Join(cur, parts[i])
	}
}
