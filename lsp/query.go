package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"covey/internal/plural"
)

// The operations of the lsp tool.
const (
	OpDefinition       = "definition"
	OpReferences       = "references"
	OpHover            = "hover"
	OpDocumentSymbols  = "document_symbols"
	OpWorkspaceSymbols = "workspace_symbols"
	OpRename           = "rename"
)

// Ops lists the operations in the order the tool documents them.
func Ops() []string {
	return []string{OpDefinition, OpReferences, OpHover, OpDocumentSymbols, OpWorkspaceSymbols, OpRename}
}

// Query is one question to a language server. Line and Character count
// from 1 (Character in characters of the line, as an editor shows them).
type Query struct {
	Op        string
	Abs       string // the file asked about
	Line      int
	Character int
	Symbol    string // workspace_symbols' query
	NewName   string // rename's
}

// Answer is a query's outcome: text for the model and, for a rename, the
// new content of every file it changes (absolute paths), for the caller
// to write through the permission gate.
type Answer struct {
	Text    string
	Renamed map[string]string
}

// Bounds of an answer.
const (
	maxLocations = 100
	maxSymbols   = 200
	maxHover     = 8 << 10
)

// Query asks the server serving q.Abs, in the workspace wsRoot.
func (m *Manager) Query(ctx context.Context, wsRoot string, q Query) (Answer, error) {
	s, err := m.serverFor(wsRoot, q.Abs)
	if err != nil {
		return Answer{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.ensure(ctx)
	if err != nil {
		return Answer{}, err
	}
	if err := s.resync(ctx, c, q.Abs); err != nil {
		return Answer{}, err
	}
	lines := fileLines{}
	doc := map[string]any{"uri": fileURI(q.Abs)}
	pos := func() map[string]any {
		return map[string]any{"textDocument": doc, "position": Position{Line: q.Line - 1, Character: utf16Col(lines.line(q.Abs, q.Line-1), q.Character)}}
	}
	f := formatter{ws: wsRoot, lines: lines}
	switch q.Op {
	case OpDefinition:
		var raw json.RawMessage
		if err := c.Call(ctx, "textDocument/definition", pos(), &raw); err != nil {
			return Answer{}, err
		}
		return Answer{Text: f.locations("definition", decodeLocations(raw))}, nil
	case OpReferences:
		p := pos()
		p["context"] = map[string]any{"includeDeclaration": true}
		var locs []Location
		if err := c.Call(ctx, "textDocument/references", p, &locs); err != nil {
			return Answer{}, err
		}
		return Answer{Text: f.locations("reference", locs)}, nil
	case OpHover:
		var h *hover
		if err := c.Call(ctx, "textDocument/hover", pos(), &h); err != nil {
			return Answer{}, err
		}
		if h == nil || strings.TrimSpace(hoverText(h.Contents)) == "" {
			return Answer{Text: "No hover information at that position."}, nil
		}
		t := hoverText(h.Contents)
		if len(t) > maxHover {
			t = t[:maxHover] + "\n[truncated]"
		}
		return Answer{Text: t}, nil
	case OpDocumentSymbols:
		var raw json.RawMessage
		if err := c.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": doc}, &raw); err != nil {
			return Answer{}, err
		}
		return Answer{Text: f.documentSymbols(q.Abs, raw)}, nil
	case OpWorkspaceSymbols:
		var syms []symbolInformation
		if err := c.Call(ctx, "workspace/symbol", map[string]any{"query": q.Symbol}, &syms); err != nil {
			return Answer{}, err
		}
		return Answer{Text: f.workspaceSymbols(syms)}, nil
	case OpRename:
		return m.rename(ctx, s, c, f, pos(), q)
	}
	return Answer{}, fmt.Errorf("unknown operation %q: use one of %s", q.Op, strings.Join(Ops(), ", "))
}

// resync opens abs, or sends its content again when the file changed on
// disk since covey last sent it (a bash command, the user's editor).
func (s *server) resync(ctx context.Context, c *conn, abs string) error {
	b, err := readBounded(abs)
	if err != nil {
		return err
	}
	s.mu.Lock()
	d := s.docs[fileURI(abs)]
	same := d != nil && d.text == string(b)
	s.mu.Unlock()
	if same {
		return nil
	}
	_, err = s.sync(ctx, c, abs, string(b))
	return err
}

// rename asks for a rename's edits and computes each file's new content.
func (m *Manager) rename(ctx context.Context, s *server, c *conn, f formatter, p map[string]any, q Query) (Answer, error) {
	if strings.TrimSpace(q.NewName) == "" {
		return Answer{}, errors.New("rename needs new_name")
	}
	if !s.rename {
		return Answer{}, fmt.Errorf("%s cannot rename", s.spec.name)
	}
	p["newName"] = q.NewName
	var we *workspaceEdit
	if err := c.Call(ctx, "textDocument/rename", p, &we); err != nil {
		return Answer{}, err
	}
	if we == nil {
		return Answer{}, errors.New("the server found nothing to rename there")
	}
	byFile := map[string][]textEdit{}
	for uri, edits := range we.Changes {
		byFile[uri] = append(byFile[uri], edits...)
	}
	for _, raw := range we.DocumentChanges {
		var tde textDocumentEdit
		if err := json.Unmarshal(raw, &tde); err != nil || tde.Kind != "" || tde.TextDocument.URI == "" {
			return Answer{}, errors.New("the rename would create, rename or delete files, which covey does not do through lsp; nothing was changed")
		}
		byFile[tde.TextDocument.URI] = append(byFile[tde.TextDocument.URI], tde.Edits...)
	}
	out := Answer{Renamed: map[string]string{}}
	for uri, edits := range byFile {
		abs := uriPath(uri)
		if abs == "" {
			return Answer{}, fmt.Errorf("the rename edits %s, which is no file", uri)
		}
		b, err := readBounded(abs)
		if err != nil {
			return Answer{}, fmt.Errorf("rename: %w", err)
		}
		text, err := applyEdits(string(b), edits)
		if err != nil {
			return Answer{}, fmt.Errorf("rename in %s: %w", relTo(f.ws, abs), err)
		}
		out.Renamed[abs] = text
	}
	if len(out.Renamed) == 0 {
		return Answer{}, errors.New("the server found nothing to rename there")
	}
	return out, nil
}

// applyEdits applies non-overlapping text edits to text.
func applyEdits(text string, edits []textEdit) (string, error) {
	type span struct {
		from, to int
		s        string
	}
	starts := lineStarts(text)
	off := func(p Position) (int, error) {
		if p.Line < 0 || p.Line > len(starts) {
			return 0, fmt.Errorf("line %d is past the end", p.Line+1)
		}
		if p.Line == len(starts) {
			return len(text), nil
		}
		start := starts[p.Line]
		end := len(text)
		if p.Line+1 < len(starts) {
			end = starts[p.Line+1]
		}
		line := text[start:end]
		u := 0
		for i, r := range line {
			if u >= p.Character {
				return start + i, nil
			}
			u += utf16Len(r)
		}
		return end, nil
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		a, err := off(e.Range.Start)
		if err != nil {
			return "", err
		}
		b, err := off(e.Range.End)
		if err != nil {
			return "", err
		}
		if b < a {
			return "", errors.New("an edit ends before it starts")
		}
		spans = append(spans, span{a, b, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var sb strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.from < last {
			return "", errors.New("the edits overlap")
		}
		sb.WriteString(text[last:sp.from])
		sb.WriteString(sp.s)
		last = sp.to
	}
	sb.WriteString(text[last:])
	return sb.String(), nil
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(text string) []int {
	out := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			out = append(out, i+1)
		}
	}
	return out
}

// decodeLocations reads definition's answer: a Location, a list of them,
// or a list of LocationLinks.
func decodeLocations(raw json.RawMessage) []Location {
	var one Location
	if json.Unmarshal(raw, &one) == nil && one.URI != "" {
		return []Location{one}
	}
	var many []Location
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 && many[0].URI != "" {
		return many
	}
	var links []locationLink
	if json.Unmarshal(raw, &links) == nil {
		out := make([]Location, 0, len(links))
		for _, l := range links {
			out = append(out, Location{URI: l.TargetURI, Range: l.TargetSelectionRange})
		}
		return out
	}
	return nil
}

// formatter words answers: paths relative to the workspace, lines and
// columns from 1 in characters.
type formatter struct {
	ws    string
	lines fileLines
}

// loc is path:line:column for a location's start.
func (f formatter) loc(uri string, p Position) (string, string) {
	abs := uriPath(uri)
	if abs == "" {
		return uri, ""
	}
	text := f.lines.line(abs, p.Line)
	return fmt.Sprintf("%s:%d:%d", relTo(f.ws, abs), p.Line+1, runeCol(text, p.Character)), text
}

func (f formatter) locations(what string, locs []Location) string {
	if len(locs) == 0 {
		return fmt.Sprintf("No %s found.", what)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", len(locs), plural.Noun(len(locs), what))
	if len(locs) > maxLocations {
		fmt.Fprintf(&b, " (the first %d shown)", maxLocations)
	}
	b.WriteString(":")
	for i, l := range locs {
		if i == maxLocations {
			break
		}
		where, text := f.loc(l.URI, l.Range.Start)
		b.WriteString("\n" + where)
		if t := strings.TrimSpace(text); t != "" {
			b.WriteString(": " + oneLine(t, 120))
		}
	}
	return b.String()
}

func (f formatter) documentSymbols(abs string, raw json.RawMessage) string {
	var nested []documentSymbol
	var flat []symbolInformation
	var b strings.Builder
	n := 0
	var walk func(ds []documentSymbol, depth int)
	walk = func(ds []documentSymbol, depth int) {
		for _, d := range ds {
			if n == maxSymbols {
				return
			}
			n++
			where, _ := f.loc(fileURI(abs), d.SelectionRange.Start)
			fmt.Fprintf(&b, "\n%s%s %s  %s", strings.Repeat("  ", depth), kindName(d.Kind), d.Name, where)
			walk(d.Children, depth+1)
		}
	}
	// The nested form has ranges of its own; the flat one, locations.
	if json.Unmarshal(raw, &nested) == nil && len(nested) > 0 && (nested[0].Range != Range{} || nested[0].SelectionRange != Range{}) {
		walk(nested, 0)
	} else if json.Unmarshal(raw, &flat) == nil && len(flat) > 0 {
		for _, s := range flat {
			if n == maxSymbols {
				break
			}
			n++
			where, _ := f.loc(s.Location.URI, s.Location.Range.Start)
			fmt.Fprintf(&b, "\n%s %s  %s", kindName(s.Kind), s.Name, where)
		}
	}
	if n == 0 {
		return "No symbols in " + relTo(f.ws, abs) + "."
	}
	head := fmt.Sprintf("Symbols of %s:", relTo(f.ws, abs))
	if n == maxSymbols {
		head = fmt.Sprintf("Symbols of %s (the first %d):", relTo(f.ws, abs), maxSymbols)
	}
	return head + b.String()
}

func (f formatter) workspaceSymbols(syms []symbolInformation) string {
	if len(syms) == 0 {
		return "No symbol matches."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", len(syms), plural.Noun(len(syms), "symbol"))
	if len(syms) > maxSymbols {
		fmt.Fprintf(&b, " (the first %d shown)", maxSymbols)
	}
	b.WriteString(":")
	for i, s := range syms {
		if i == maxSymbols {
			break
		}
		where, _ := f.loc(s.Location.URI, s.Location.Range.Start)
		name := s.Name
		if s.ContainerName != "" {
			name = s.ContainerName + "." + s.Name
		}
		fmt.Fprintf(&b, "\n%s %s  %s", kindName(s.Kind), name, where)
	}
	return b.String()
}
