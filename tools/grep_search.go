package tools

import (
	"bytes"
	"context"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// grepMode is what a grep call reports.
type grepMode int

const (
	modeContent grepMode = iota // matching lines, with context
	modeFiles                   // paths of files with a match
	modeCount                   // matching lines per file
)

// grepMaxFileSize is the largest file grep reads; bigger ones are skipped
// (they are logs or data, and reading them whole would cost memory).
const grepMaxFileSize = 16 << 20

// searcher holds one compiled search, shared read-only by all workers.
type searcher struct {
	line    *regexp.Regexp // matches within one line, without its newline
	multi   *regexp.Regexp // the same with (?m), to find candidates in a whole buffer; nil if unusable
	lit     requiredLit
	litB    []byte
	hasLit  bool
	hazards [][]byte // see foldHazard
	// anchor is the index in litB of its rarest byte, which a
	// case-insensitive search looks for in both cases (see scanFold).
	anchor  int
	mode    grepMode
	context int // lines of context around matches, content mode only
	// perFile stops a file's scan after this many matching lines (0: no cap).
	perFile int
}

// newSearcher compiles pattern (RE2 syntax). A parse error comes back
// unwrapped so the caller can quote it.
func newSearcher(pattern string, ignoreCase bool, mode grepMode, context, perFile int) (*searcher, error) {
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	line, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	s := &searcher{line: line, mode: mode, context: context, perFile: perFile}
	tree, err := syntax.Parse("(?m)"+pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if lit, ok := requiredLiteral(tree); ok {
		s.lit, s.litB, s.hasLit = lit, []byte(lit.s), true
		if lit.fold {
			s.hazards = foldHazard(lit.s)
			s.anchor = rarestByte(s.litB)
		}
	}
	if !hasTextAnchor(tree) {
		if s.multi, err = regexp.Compile("(?m)" + pattern); err != nil {
			s.multi = nil
		}
	}
	return s, nil
}

// eachMatch calls emit with the byte range of every matching line of buf,
// in order, until emit returns false.
func (s *searcher) eachMatch(buf []byte, emit func(start, end int) bool) {
	switch {
	case s.hasLit && !s.lit.fold:
		s.scanLiteral(buf, emit)
	case s.hasLit && !s.hazardIn(buf):
		s.scanFold(buf, emit)
	case s.multi != nil:
		s.scanRegexp(buf, emit)
	default:
		s.scanLines(buf, emit)
	}
}

func (s *searcher) hazardIn(buf []byte) bool {
	for _, h := range s.hazards {
		if bytes.Contains(buf, h) {
			return true
		}
	}
	return false
}

// scanLiteral finds the required (case-sensitive) literal in buf and runs
// the regexp only on the lines holding it.
func (s *searcher) scanLiteral(buf []byte, emit func(start, end int) bool) {
	for pos := 0; pos < len(buf); {
		i := bytes.Index(buf[pos:], s.litB)
		if i < 0 {
			return
		}
		i += pos
		start := pos + bytes.LastIndexByte(buf[pos:i], '\n') + 1
		end := lineEnd(buf, i)
		if s.lit.whole || s.line.Match(buf[start:end]) {
			if !emit(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// scanFold is scanLiteral for a case-insensitive (lower-case ASCII)
// literal without lower-casing the buffer: it finds the literal's rarest
// byte in either case with IndexByte, as ripgrep does, and compares the
// window around each hit ignoring ASCII case. Lower-casing every byte
// first cost a pass over the data and a buffer.
func (s *searcher) scanFold(buf []byte, emit func(start, end int) bool) {
	lit, k := s.litB, s.anchor
	lo := lit[k]
	up := lo
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	next := func(c byte, from int) int {
		if j := bytes.IndexByte(buf[from:], c); j >= 0 {
			return from + j
		}
		return len(buf)
	}
	nl, nu := -1, -1 // the next lo and up at or after pos; len(buf) when none
	for pos := 0; pos < len(buf); {
		if nl < pos {
			nl = next(lo, pos)
		}
		if nu < pos {
			if up == lo {
				nu = len(buf)
			} else {
				nu = next(up, pos)
			}
		}
		c := min(nl, nu)
		if c >= len(buf) {
			return
		}
		start := c - k
		if start < 0 || start+len(lit) > len(buf) || !equalFoldLower(buf[start:start+len(lit)], lit) {
			pos = c + 1
			continue
		}
		ls := bytes.LastIndexByte(buf[:start], '\n') + 1
		le := lineEnd(buf, start)
		if s.lit.whole || s.line.Match(buf[ls:le]) {
			if !emit(ls, le) {
				return
			}
		}
		pos = le + 1
	}
}

// equalFoldLower reports whether b equals lit (lower-case ASCII) ignoring
// ASCII case.
func equalFoldLower(b, lit []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// byteRarity ranks lower-case letters from the most frequent in source code
// and prose to the rarest; rarestByte prefers a byte late in it.
const byteRarity = "etaoinsrlcdhupmfgybwvkxqjz"

// rarestByte is the index of the byte of lit least likely to occur in
// text: a rare letter, a digit or punctuation over a common letter, anything
// over a space.
func rarestByte(lit []byte) int {
	best, bestRank := 0, -2
	for i, c := range lit {
		rank := 20 // digits and punctuation: fairly rare
		switch {
		case c == ' ':
			rank = -1
		case 'a' <= c && c <= 'z':
			rank = strings.IndexByte(byteRarity, c)
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// scanRegexp lets the (?m) regexp find the next candidate across the rest of
// the buffer, then checks the candidate's line alone: a match may span
// lines in the buffer (\s matches a newline), a line match may not.
func (s *searcher) scanRegexp(buf []byte, emit func(start, end int) bool) {
	for pos := 0; pos <= len(buf); {
		loc := s.multi.FindIndex(buf[pos:])
		if loc == nil {
			return
		}
		i := pos + loc[0]
		if i == len(buf) && (len(buf) == 0 || buf[len(buf)-1] == '\n') {
			return // an empty match after the final newline is not a line
		}
		start := pos + bytes.LastIndexByte(buf[pos:i], '\n') + 1
		end := lineEnd(buf, i)
		if s.line.Match(buf[start:end]) {
			if !emit(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// scanLines runs the regexp on every line: the fallback for patterns using
// \A or \z, which the whole-buffer search would misread.
func (s *searcher) scanLines(buf []byte, emit func(start, end int) bool) {
	for start := 0; start < len(buf); {
		end := lineEnd(buf, start)
		if s.line.Match(buf[start:end]) && !emit(start, end) {
			return
		}
		start = end + 1
	}
}

// lineEnd is the index of the newline ending the line holding i, or
// len(buf) for an unterminated last line.
func lineEnd(buf []byte, i int) int {
	if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(buf)
}

// fileJob is one file to search.
type fileJob struct {
	abs     string // for reading
	display string // for output
}

// outLine is one line of content-mode output.
type outLine struct {
	text  string
	match bool // a matching line, not context or a separator
}

// fileResult is what searching one file found.
type fileResult struct {
	matches int
	lines   []outLine // content mode only
	skipped skipReason
}

type skipReason int

const (
	notSkipped skipReason = iota
	skippedBinary
	skippedLarge
	skippedUnreadable
)

// searchFiles searches the files produce hands over, on a pool of
// GOMAXPROCS workers, while produce goes on finding more, and returns the
// jobs and their results in produce's order. With stopAfter > 0 it stops
// taking new files once the files before them, in order, hold that many
// matches (content mode) or matching files (files mode): the output is cut
// there anyway. An error of produce comes back as it is.
func (s *searcher) searchFiles(ctx context.Context, produce func(yield func(fileJob) bool) error, stopAfter int, pool *scratchPool) ([]fileJob, []fileResult, error) {
	var (
		jobs     []fileJob   // the producer's alone
		batches  []*jobBatch // the producer's alone
		batch    *jobBatch   // being filled
		work     = make(chan *jobBatch, 16)
		stop     atomic.Bool
		mu       sync.Mutex // guards found, frontier and hits
		hits     []int      // stopAfter > 0: what each file adds to found; -1 until searched
		frontier int
		found    int
	)
	finish := func(i int, res fileResult) {
		mu.Lock()
		defer mu.Unlock()
		hits[i] = res.matches
		if s.mode == modeFiles {
			hits[i] = min(res.matches, 1)
		}
		for frontier < len(hits) && hits[frontier] >= 0 {
			found += hits[frontier]
			frontier++
		}
		if found >= stopAfter {
			stop.Store(true)
		}
	}
	var wg sync.WaitGroup
	worker := func() {
		defer wg.Done()
		sc := pool.get()
		defer pool.put(sc)
		for b := range work {
			for k, job := range b.jobs {
				if stop.Load() || ctx.Err() != nil {
					break // drain: the producer stops at its next file
				}
				sc.buf, b.results[k] = s.searchFile(job, sc.buf)
				if stopAfter > 0 {
					finish(b.first+k, b.results[k])
				}
			}
		}
	}
	workers, started := runtime.GOMAXPROCS(0), 0
	send := func() {
		if batch == nil {
			return
		}
		batch.results = make([]fileResult, len(batch.jobs))
		if stopAfter > 0 {
			mu.Lock()
			for range batch.jobs {
				hits = append(hits, -1)
			}
			mu.Unlock()
		}
		if started < workers { // one worker per batch up to the pool's size
			started++
			wg.Add(1)
			go worker()
		}
		batches = append(batches, batch)
		work <- batch
		batch = nil
	}
	err := produce(func(job fileJob) bool {
		if stop.Load() || ctx.Err() != nil {
			return false
		}
		if batch == nil {
			batch = &jobBatch{first: len(jobs)}
		}
		jobs = append(jobs, job)
		batch.jobs = append(batch.jobs, job)
		// Small batches at first, so every worker starts at once.
		if len(batch.jobs) >= min(jobBatchSize, len(batches)+1) {
			send()
		}
		return true
	})
	send()
	close(work)
	wg.Wait()
	results := make([]fileResult, 0, len(jobs))
	for _, b := range batches {
		results = append(results, b.results...)
	}
	return jobs, results, err
}

// jobBatch is a run of consecutive files handed to one worker: a channel
// hand-over per file cost more than the search of a small one.
type jobBatch struct {
	first   int // the index of jobs[0] among all files
	jobs    []fileJob
	results []fileResult
}

const jobBatchSize = 16

// scratch is one worker's reusable memory: the file buffer.
type scratch struct{ buf []byte }

// scratchPool keeps workers' buffers between grep calls, so a session's
// greps do not each allocate and collect tens of megabytes.
type scratchPool struct{ p sync.Pool }

func (p *scratchPool) get() *scratch {
	if sc, ok := p.p.Get().(*scratch); ok {
		return sc
	}
	return &scratch{}
}

// scratchKeep is the largest buffer kept for reuse: one huge file should
// not pin its size in memory for the rest of the session.
const scratchKeep = 1 << 20

func (p *scratchPool) put(sc *scratch) {
	if cap(sc.buf) > scratchKeep {
		sc.buf = nil
	}
	p.p.Put(sc)
}

// searchFile reads one file into buf (reused across files) and searches it.
func (s *searcher) searchFile(job fileJob, buf []byte) ([]byte, fileResult) {
	buf, skip := readWhole(job.abs, buf)
	if skip != notSkipped {
		return buf, fileResult{skipped: skip}
	}
	sniff := buf[:min(len(buf), binarySniffLen)]
	if bytes.IndexByte(sniff, 0) >= 0 {
		return buf, fileResult{skipped: skippedBinary}
	}
	var res fileResult
	switch s.mode {
	case modeFiles:
		s.eachMatch(buf, func(int, int) bool { res.matches++; return false })
	case modeCount:
		s.eachMatch(buf, func(int, int) bool { res.matches++; return true })
	default:
		f := contentFormatter{buf: buf, path: job.display, context: s.context}
		s.eachMatch(buf, func(start, end int) bool {
			f.match(start, end)
			return s.perFile <= 0 || f.matches < s.perFile
		})
		f.flushAfter(-1)
		res.matches, res.lines = f.matches, f.out
	}
	return buf, res
}

// contentFormatter renders one file's matching lines grep -C style:
// "path:N:text" for matches, "path-N-text" for context, "--" between
// groups that do not touch.
type contentFormatter struct {
	buf     []byte
	path    string
	context int
	out     []outLine
	matches int
	// The last line written: its number (0 before any) and end offset.
	lastLine, lastEnd int
	// The next line to write as after-context must be numbered <= afterTo.
	afterTo int
}

func (f *contentFormatter) match(start, end int) {
	// Line numbers are counted lazily, from the last line written.
	from, fromLine := 0, 0
	if f.lastLine > 0 {
		from, fromLine = f.lastEnd+1, f.lastLine+1
	} else {
		fromLine = 1
	}
	n := fromLine + bytes.Count(f.buf[from:start], []byte{'\n'})
	f.flushAfter(n)
	// Before-context: up to context lines, not reaching back into lines
	// already written.
	before := min(f.context, n-1)
	if f.lastLine > 0 {
		before = min(before, n-f.lastLine-1)
	}
	starts := make([]int, 0, before)
	for s := start; len(starts) < before; {
		s = bytes.LastIndexByte(f.buf[:s-1], '\n') + 1
		starts = append(starts, s)
	}
	first := n - len(starts)
	if f.context > 0 && f.lastLine > 0 && first > f.lastLine+1 {
		f.out = append(f.out, outLine{text: "--"})
	}
	for k := len(starts) - 1; k >= 0; k-- {
		s := starts[k]
		f.add(n-k-1, s, lineEnd(f.buf, s), '-')
	}
	f.add(n, start, end, ':')
	f.matches++
	f.afterTo = n + f.context
}

// flushAfter writes pending after-context lines, stopping before the line
// numbered upTo (-1: until the context is used up or the file ends).
func (f *contentFormatter) flushAfter(upTo int) {
	for f.lastLine > 0 && f.lastLine < f.afterTo && (upTo < 0 || f.lastLine+1 < upTo) && f.lastEnd < len(f.buf) {
		s := f.lastEnd + 1
		if s >= len(f.buf) {
			return
		}
		f.add(f.lastLine+1, s, lineEnd(f.buf, s), '-')
	}
}

func (f *contentFormatter) add(n, start, end int, sep byte) {
	line := bytes.TrimSuffix(f.buf[start:end], []byte{'\r'})
	text := f.path + string(sep) + strconv.Itoa(n) + string(sep) + lineText(line, grepMaxLineLen)
	f.out = append(f.out, outLine{text: text, match: sep == ':'})
	f.lastLine, f.lastEnd = n, end
}
