package sessionfile

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// redacted replaces every secret in a session line.
const redacted = "[redacted]"

// redactor replaces secrets in encoded lines. A secret can appear in a line
// raw, JSON-escaped once (a string field) or twice (a JSON document inside a
// string field, such as tool-call arguments), and Go's encoder may also
// escape <, > and & as \u003c; every such form is searched.
type redactor struct {
	forms [][]byte // longest first, so a longer form wins over its own prefix
	raw   []string // the secrets as given, for split-delta holdback
}

func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	seen := map[string]bool{}
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			r.forms = append(r.forms, []byte(f))
		}
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		r.raw = append(r.raw, s)
		level := []string{s}
		for range 2 {
			var next []string
			for _, f := range level {
				add(f)
				next = append(next, escape(f, true), escape(f, false))
			}
			level = next
		}
		for _, f := range level {
			add(f)
		}
	}
	sort.Slice(r.forms, func(i, j int) bool { return len(r.forms[i]) > len(r.forms[j]) })
	return r
}

// escape returns s as it appears between the quotes of a JSON string.
func escape(s string, html bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(s) // a string always encodes
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return string(b[1 : len(b)-1])
}

// line returns b with every secret form replaced. It returns b itself when
// no secret occurs, the common case, without allocating.
func (r *redactor) line(b []byte) []byte {
	for _, f := range r.forms {
		if bytes.Contains(b, f) {
			b = bytes.ReplaceAll(b, f, []byte(redacted))
		}
	}
	return b
}

// holdback returns how many trailing bytes of text could be the start of a
// secret that the next delta completes. Those bytes stay buffered so a
// secret streamed in pieces is still seen whole by line.
func (r *redactor) holdback(text string) int {
	n := 0
	for _, s := range r.raw {
		most := min(len(s)-1, len(text))
		for k := most; k > n; k-- {
			if strings.HasPrefix(s, text[len(text)-k:]) {
				n = k
				break
			}
		}
	}
	return n
}
