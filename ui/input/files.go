package input

import (
	"path"
	"sort"
	"strings"
	"time"
)

// This file holds the "@path" completion's source: the workspace's files
// and folders, listed by the root's engine in a command (SetFiles) and
// kept for a while, and the ranking of the paths that match what is typed.

const (
	// maxListedFiles bounds the files the completion keeps: a huge
	// repository completes from its first ones (in sorted order).
	maxListedFiles = 100_000
	// filesFresh is how long a listing serves before the next "@" lists
	// again (files come and go while covey works).
	filesFresh = 15 * time.Second
	// maxPathMatches is how many paths the popup ranks and keeps.
	maxPathMatches = 50
)

// pathIndex is the listed paths, each with its lower-cased form for
// matching. Folders end in "/".
type pathIndex struct {
	paths []string
	lower []string
	at    time.Time
	// loading is set while a listing runs.
	loading bool
}

// newPathIndex indexes files and the folders they lie in.
func newPathIndex(files []string, now time.Time) pathIndex {
	if len(files) > maxListedFiles {
		files = files[:maxListedFiles]
	}
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f); d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	all := make([]string, 0, len(files)+len(dirs))
	all = append(all, files...)
	for d := range dirs {
		all = append(all, d+"/")
	}
	sort.Strings(all)
	lower := make([]string, len(all))
	for i, p := range all {
		lower[i] = strings.ToLower(p)
	}
	return pathIndex{paths: all, lower: lower, at: now}
}

// stale reports whether the next "@" should list the files again.
func (x *pathIndex) stale(now time.Time) bool {
	return !x.loading && (x.paths == nil || now.Sub(x.at) > filesFresh)
}

// Match ranks the paths that match typed (lower-case): paths that start
// with it first, then those with a name or folder that starts with it,
// then those that contain it, then those that hold its characters in
// order (fuzzy); shorter paths first within a rank. With nothing typed, it
// is the top-level entries.
func (x *pathIndex) Match(typed string) []string {
	if typed == "" {
		var top []string
		for _, p := range x.paths {
			if i := strings.IndexByte(p, '/'); i < 0 || i == len(p)-1 {
				top = append(top, p)
			}
			if len(top) == maxPathMatches {
				break
			}
		}
		return top
	}
	// Each rank keeps a bounded number of hits: a short word on a huge
	// repository matches most paths fuzzily, and ranking them all would
	// cost a keystroke's worth of time.
	var ranks [4][]string
	for i, l := range x.lower {
		r := pathRank(l, typed, len(ranks[3]) < maxRankHits)
		if r < 0 || len(ranks[r]) == maxRankHits {
			continue
		}
		ranks[r] = append(ranks[r], x.paths[i])
	}
	out := make([]string, 0, maxPathMatches)
	for _, hits := range ranks {
		sort.SliceStable(hits, func(i, j int) bool { return len(hits[i]) < len(hits[j]) })
		out = append(out, hits[:min(len(hits), maxPathMatches-len(out))]...)
	}
	return out
}

// maxRankHits bounds the hits of one rank that Match sorts.
const maxRankHits = 1000

// pathRank is how well p matches typed (both lower-case): 0 a prefix, 1 a
// prefix of a name in it, 2 a substring, 3 a subsequence (looked for only
// when fuzzy is set); -1 no match.
func pathRank(p, typed string, fuzzy bool) int {
	if i := strings.Index(p, typed); i >= 0 {
		switch {
		case i == 0:
			return 0
		case p[i-1] == '/':
			return 1
		}
		// A later occurrence may start a name.
		for rest := p[i+1:]; ; {
			k := strings.Index(rest, typed)
			if k < 0 {
				return 2
			}
			if k > 0 && rest[k-1] == '/' {
				return 1
			}
			rest = rest[k+1:]
		}
	}
	if !fuzzy {
		return -1
	}
	j := 0
	for i := 0; i < len(p) && j < len(typed); i++ {
		if p[i] == typed[j] {
			j++
		}
	}
	if j == len(typed) {
		return 3
	}
	return -1
}

// atWord finds the "@" word being typed at the end of value: its start
// (the "@") and what follows the "@"; ok is false when the last word does
// not start with "@".
func atWord(value string) (start int, typed string, ok bool) {
	start = strings.LastIndexAny(value, " \t\n") + 1
	w := value[start:]
	if !strings.HasPrefix(w, "@") {
		return 0, "", false
	}
	return start, w[1:], true
}
