package lsp

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
)

// The few Language Server Protocol (3.17) types covey sends and reads,
// with the fields it uses. Positions are zero-based and count UTF-16 code
// units, as the protocol says; covey's own numbers (from 1, in runes of
// the line) are converted at the edge (see position.go).

// Position is a zero-based line and UTF-16 character offset.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span between two positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// locationLink is what definition may answer instead of a Location.
type locationLink struct {
	TargetURI            string `json:"targetUri"`
	TargetSelectionRange Range  `json:"targetSelectionRange"`
}

// Severity is a diagnostic's severity: 1 error, 2 warning, 3 information,
// 4 hint.
type Severity int

// The severities.
const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
	SeverityHint    Severity = 4
)

// Diagnostic is one problem a server reports in a document.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity Severity        `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// publishDiagnosticsParams is textDocument/publishDiagnostics.
type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// textEdit replaces a range with new text.
type textEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// workspaceEdit is what rename answers: edits by document, in either of
// the two shapes the protocol allows.
type workspaceEdit struct {
	Changes         map[string][]textEdit `json:"changes,omitempty"`
	DocumentChanges []json.RawMessage     `json:"documentChanges,omitempty"`
}

// textDocumentEdit is one entry of documentChanges that edits a document
// (others create, rename or delete files, which covey refuses).
type textDocumentEdit struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Edits []textEdit `json:"edits"`
	Kind  string     `json:"kind,omitempty"`
}

// symbolInformation is a workspace symbol (and the flat form of document
// symbols).
type symbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      Location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

// documentSymbol is the nested form of a document's symbols.
type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []documentSymbol `json:"children,omitempty"`
}

// hover is textDocument/hover's answer; contents take three shapes.
type hover struct {
	Contents json.RawMessage `json:"contents"`
}

// symbolKinds names the protocol's symbol kinds (1 to 26).
var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field",
	"constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean",
	"array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

// kindName names a symbol kind.
func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}

// fileURI is the file:// URI of an absolute path.
func fileURI(abs string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String()
}

// uriPath is the path of a file:// URI ("" for any other).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// hoverText flattens hover contents: a string, a MarkupContent, a
// MarkedString or a list of them.
func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, r := range list {
			if t := hoverText(r); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}
