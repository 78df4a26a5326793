package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"covey/internal/safefile"
	"covey/tools/tool"
	"covey/tools/toolname"
)

const (
	readDefaultLimit = 2000      // lines shown when the call gives no limit
	readMaxLineLen   = 2000      // bytes of one line shown before it is cut
	readMaxOutput    = 256 << 10 // bytes of numbered output per call
	readMaxFileSize  = 64 << 20  // larger files are refused: grep them instead
	binarySniffLen   = 8 << 10   // bytes inspected to tell text from binary
)

// readFile is the read_file tool.
type readFile struct{ env *Env }

// NewReadFile returns the read_file tool: numbered lines of one text file.
func NewReadFile(env *Env) tool.Tool { return &readFile{env: env} }

func (t *readFile) Name() string   { return toolname.ReadFile }
func (t *readFile) ReadOnly() bool { return true }

func (t *readFile) Description() string {
	return "Read a text file as numbered lines (cat -n style), up to 2000 lines; offset and limit read other parts of long files. " +
		"Required before editing a file. An image (png, jpeg, gif, webp) is returned as the image itself."
}

func (t *readFile) Schema() map[string]any { return readFileSchema() }

var readFileSchema = tool.ArgsSchema[readFileArgs](tool.SchemaOpen)

type readFileArgs struct {
	Path   string   `json:"path" jsonschema:"Absolute or relative to the workspace root."`
	Offset *flexInt `json:"offset,omitempty" jsonschema:"First line, 1-based."`
	Limit  *flexInt `json:"limit,omitempty" jsonschema:"Lines to return."`
}

func (t *readFile) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	var args readFileArgs
	if err := decodeArgs(raw, &args); err != nil {
		return tool.Errorf("%v", err)
	}
	if args.Path == "" {
		return tool.Errorf("path is required")
	}
	offset, limit := 1, readDefaultLimit
	if args.Offset != nil {
		offset = int(*args.Offset)
		if offset == 0 {
			offset = 1 // a 0 offset is a common off-by-one: treat it as the start
		}
	}
	if args.Limit != nil {
		limit = int(*args.Limit)
	}
	if offset < 1 {
		return tool.Errorf("offset must be a 1-based line number, got %d", offset)
	}
	if limit < 1 {
		return tool.Errorf("limit must be at least 1, got %d", limit)
	}
	if err := ctx.Err(); err != nil {
		return tool.Errorf("read %s: %v", args.Path, err)
	}
	abs, refused := t.env.resolveRead(t.Name(), args.Path)
	if refused != nil {
		return *refused
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("file not found: %s%s", args.Path, suggestSimilar(abs))
	case err != nil:
		return tool.Errorf("cannot read %s: %v", args.Path, err)
	case fi.IsDir():
		return tool.Errorf("%s is a directory, not a file; use list_dir to see its entries", args.Path)
	case !fi.Mode().IsRegular():
		return tool.Errorf("%s is not a regular file (%s)", args.Path, fi.Mode().Type())
	case fi.Size() > readMaxFileSize:
		return tool.Errorf("%s is %s, too large to read; use grep to find the lines you need", args.Path, humanSize(fi.Size()))
	}
	// Parallel reads of large files take turns (see maxReadMemory).
	release, err := t.env.WS.ReadMemory().Acquire(ctx, fi.Size())
	if err != nil {
		return tool.Errorf("read %s: %v", args.Path, err)
	}
	defer release()
	// Stat and read are two looks: the file may have become a FIFO or
	// grown in between.
	data, err := safefile.Read(abs, readMaxFileSize)
	if err != nil {
		return tool.Errorf("cannot read %s: %v", args.Path, err)
	}
	if ImageType(data) != "" {
		return t.readImage(args.Path, data)
	}
	if isBinary(data) {
		return tool.Errorf("%s looks like a binary file (%s); read_file shows text files only", args.Path, humanSize(int64(len(data))))
	}
	if t.env.Reads != nil {
		t.env.Reads.Record(abs, data)
	}
	// A file read is often a file about to be edited: its language server
	// starts loading now, in the background, so the edit's diagnostics
	// do not wait for a cold start.
	t.env.LSP.Warm(t.env.WS.Root, abs, string(data))
	content, summary, err := numberLines(data, offset, limit, tool.ResultBudget(ctx, readMaxOutput))
	if err != nil {
		return tool.Errorf("%s: %v", args.Path, err)
	}
	if t.env.OnRead != nil {
		if note := t.env.OnRead(abs); note != "" {
			content += "\n\n" + note
		}
	}
	return tool.Result{Content: content, Summary: summary}
}

// readImage returns an image file to the model, or says why it cannot.
func (t *readFile) readImage(path string, data []byte) tool.Result {
	if t.env.NoImages {
		return tool.Errorf("%s is an image, and this model takes no images (vision: false in the config, or the model is known not to)", path)
	}
	img, err := NewImage(path, data)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	return tool.Result{Content: img.Line(), Summary: img.Line(), Images: []tool.Image{img}}
}

// numberLines renders lines offset..offset+limit-1 of data cat -n style,
// within the output cap, with a closing note on how to read further.
func numberLines(data []byte, offset, limit, maxOut int) (content, summary string, err error) {
	total := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		total++
	}
	if total == 0 {
		return "(the file is empty)", "empty file", nil
	}
	if offset > total {
		return "", "", fmt.Errorf("offset %d is past the end of the file, which has %d lines", offset, total)
	}
	// Skip to the first wanted line.
	rest := data
	for n := 1; n < offset; n++ {
		rest = rest[bytes.IndexByte(rest, '\n')+1:]
	}
	var b strings.Builder
	last := offset - 1
	capped := false
	for last < total && last-offset+1 < limit {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		text := lineText(line, min(readMaxLineLen, maxOut/2))
		if b.Len() > 0 && b.Len()+len(text)+8 > maxOut {
			capped = true
			break
		}
		last++
		fmt.Fprintf(&b, "%6d\t%s\n", last, text)
	}
	switch {
	case capped:
		fmt.Fprintf(&b, "\n(Output cut at %s after line %d of %d. To read further, call read_file with offset=%d and a limit.)", humanSize(int64(maxOut)), last, total, last+1)
	case last < total:
		fmt.Fprintf(&b, "\n(Showing lines %d-%d of %d. To read further, call read_file with offset=%d.)", offset, last, total, last+1)
	}
	shown := last - offset + 1
	summary = strconv.Itoa(shown) + " lines"
	if shown == 1 {
		summary = "1 line"
	}
	if shown < total {
		summary = fmt.Sprintf("lines %d-%d of %d", offset, last, total)
	}
	return b.String(), summary, nil
}

// lineText returns line as valid UTF-8, cut at max bytes (on a rune
// boundary) with a note of the full length.
func lineText(line []byte, max int) string {
	if len(line) <= max {
		return strings.ToValidUTF8(string(line), "\uFFFD")
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(line[:cut]), "\uFFFD") + fmt.Sprintf("… [line cut, %d bytes in all]", len(line))
}

// isBinary reports whether data looks binary: a NUL byte in its first 8 KB,
// or more than a tenth of that sniff invalid as UTF-8.
func isBinary(data []byte) bool {
	sniff := data
	if len(sniff) > binarySniffLen {
		sniff = sniff[:binarySniffLen]
	}
	if bytes.IndexByte(sniff, 0) >= 0 {
		return true
	}
	if utf8.Valid(sniff) {
		return false
	}
	bad := 0
	for i := 0; i < len(sniff); {
		r, n := utf8.DecodeRune(sniff[i:])
		if r == utf8.RuneError && n == 1 && len(sniff)-i >= utf8.UTFMax {
			bad++ // an incomplete rune at the very end of the sniff is not bad
		}
		i += n
	}
	return bad*10 > len(sniff)
}

// suggestSimilar names entries of abs's directory that resemble its base
// name (same name in another case or extension, or a small typo), as a
// sentence to append to a not-found error; "" when there are none.
func suggestSimilar(abs string) string {
	dir, base := filepath.Split(abs)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return " (its directory does not exist either)"
	}
	if len(entries) > 5000 {
		return ""
	}
	want := strings.ToLower(base)
	wantStem := strings.TrimSuffix(want, filepath.Ext(want))
	var hits []string
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		stem := strings.TrimSuffix(name, filepath.Ext(name))
		if name == want || stem == wantStem || editDistanceAtMost(name, want, 2) {
			hits = append(hits, e.Name())
		}
	}
	if len(hits) == 0 {
		return ""
	}
	sort.Strings(hits)
	if len(hits) > 5 {
		hits = hits[:5]
	}
	return ". Did you mean: " + strings.Join(hits, ", ") + " (in the same directory)?"
}

// editDistanceAtMost reports whether the Levenshtein distance between a and
// b is at most k; it gives up early on very different lengths.
func editDistanceAtMost(a, b string, k int) bool {
	if absInt(len(a)-len(b)) > k {
		return false
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)] <= k
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// humanSize formats a byte count for people and models: "812 B", "4.1 KB".
func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}

// flexInt is an integer argument that also accepts a numeric string, since
// models sometimes quote numbers.
type flexInt int

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		fl, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || fl != float64(int(fl)) {
			return fmt.Errorf("want an integer, got %s", b)
		}
		n = int(fl)
	}
	*f = flexInt(n)
	return nil
}

// flexBool is a boolean argument that also accepts "true"/"false" strings.
type flexBool bool

func (f *flexBool) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %s", b)
	}
	*f = flexBool(v)
	return nil
}

// decodeArgs unmarshals a call's JSON arguments, explaining a failure in
// words the model can act on. Empty arguments decode as {}.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments (%w); send a JSON object matching the tool's schema", err)
	}
	return nil
}
