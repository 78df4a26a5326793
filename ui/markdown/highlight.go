package markdown

import (
	"strings"
	"unicode/utf8"
)

// A small syntax highlighter for fenced code blocks. chroma was dropped
// because its lexers and styles register at package init and cost every
// start; this one has no tables built at init (keywords are switch
// statements) and scans each line once, left to right, with a state that
// carries block comments and multi-line strings from line to line.

// tok is the class of a span of code, each drawn in its own style.
type tok uint8

const (
	tokPlain tok = iota
	tokKeyword
	tokString
	tokComment
	tokNumber
	tokAdded   // a diff's + line
	tokRemoved // a diff's - line
	tokHunk    // a diff's @@ line
	tokHeader  // a diff's +++ and --- lines
	numToks
)

// span is a run of a line in one class, from the previous span's end to
// end (a byte offset, always on a rune boundary).
type span struct {
	end  int
	kind tok
}

// lang describes how a family of languages is scanned.
type lang struct {
	keyword     func(string) bool
	lineComment string // opens a comment to the end of the line
	// hashAfterSpace: the line comment opens only at the line's start or
	// after a blank (a shell's $# or a YAML value's # are not comments).
	hashAfterSpace bool
	blockComment   bool   // /* ... */, across lines
	quotes         string // open a one-line string with backslash escapes
	rawQuotes      string // open a one-line string without escapes
	multi          byte   // opens a string that may span lines (Go raw, JS template)
	multiEscapes   bool   // backslash escapes inside multi
	triple         bool   // """ and ''' strings, across lines, with escapes
	charQuote      bool   // ' opens a character only ('a', '\n'), not a lifetime
	foldCase       bool   // keywords in any case (SQL)
	diff           bool   // whole lines: added, removed, hunk headers
	preproc        bool   // a line's leading #word is a keyword (#include)
}

// langFor returns how to scan the language a fence's info string names,
// and false for a language it does not know (drawn in one colour).
func langFor(name string) (lang, bool) {
	switch strings.ToLower(name) {
	case "go", "golang":
		return lang{keyword: goKeyword, lineComment: "//", blockComment: true, quotes: `"'`, multi: '`'}, true
	case "python", "py", "python3":
		return lang{keyword: pythonKeyword, lineComment: "#", quotes: `"'`, triple: true}, true
	case "javascript", "js", "jsx", "typescript", "ts", "tsx", "mjs", "cjs":
		return lang{keyword: jsKeyword, lineComment: "//", blockComment: true, quotes: `"'`, multi: '`', multiEscapes: true}, true
	case "rust", "rs":
		return lang{keyword: rustKeyword, lineComment: "//", blockComment: true, quotes: `"'`, charQuote: true}, true
	case "c", "h", "cpp", "c++", "cc", "hpp", "cxx", "java", "kotlin", "kt", "swift", "csharp", "cs", "c#":
		return lang{keyword: cKeyword, lineComment: "//", blockComment: true, quotes: `"'`, preproc: true}, true
	case "sh", "bash", "shell", "zsh", "console", "shellsession":
		return lang{keyword: shellKeyword, lineComment: "#", hashAfterSpace: true, quotes: `"`, rawQuotes: `'`}, true
	case "json", "jsonc":
		return lang{keyword: literalKeyword, lineComment: "//", blockComment: true, quotes: `"`}, true
	case "yaml", "yml":
		return lang{keyword: yamlKeyword, lineComment: "#", hashAfterSpace: true, quotes: `"`, rawQuotes: `'`}, true
	case "toml":
		return lang{keyword: literalKeyword, lineComment: "#", quotes: `"`, rawQuotes: `'`}, true
	case "sql":
		return lang{keyword: sqlKeyword, lineComment: "--", blockComment: true, rawQuotes: `'`, quotes: `"`, foldCase: true}, true
	case "diff", "patch":
		return lang{diff: true}, true
	}
	return lang{}, false
}

// hlState is what an open token carries to the next line.
type hlState struct {
	close   string // what ends the open token; "" when none is open
	kind    tok
	escapes bool
}

// scan appends the spans of line s to spans, starting in state st and
// leaving in st what the next line starts in. It reads each byte a
// bounded number of times.
func (l *lang) scan(st *hlState, s string, spans []span) []span {
	if l.diff {
		return addSpan(spans, len(s), diffKind(s))
	}
	i := 0
	if st.close != "" {
		end, closed := findClose(s, 0, st.close, st.escapes)
		spans = addSpan(spans, end, st.kind)
		if closed {
			*st = hlState{}
		}
		i = end
	}
	if l.preproc && i == 0 {
		i, spans = directive(s, spans)
	}
	for i < len(s) {
		i, spans = l.token(st, s, i, spans)
	}
	return spans
}

// directive scans a C preprocessor line's "#word" (after any indent),
// returning where the scan goes on; 0 when s is no directive.
func directive(s string, spans []span) (int, []span) {
	j := len(s) - len(strings.TrimLeft(s, " "))
	if j == len(s) || s[j] != '#' {
		return 0, spans
	}
	spans = addSpan(spans, j, tokPlain)
	j++
	for j < len(s) && isIdent(s[j]) {
		j++
	}
	return j, addSpan(spans, j, tokKeyword)
}

// token scans the token at s[i:], appending its span, and returns where
// the next one starts.
func (l *lang) token(st *hlState, s string, i int, spans []span) (int, []span) {
	c := s[i]
	rest := s[i:]
	switch {
	case l.blockComment && strings.HasPrefix(rest, "/*"):
		i = l.open(st, &spans, s, i, 2, "*/", tokComment, false)
	case l.lineComment != "" && strings.HasPrefix(rest, l.lineComment) &&
		(!l.hashAfterSpace || i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
		spans = addSpan(spans, len(s), tokComment)
		i = len(s)
	case l.triple && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, `'''`)):
		i = l.open(st, &spans, s, i, 3, rest[:3], tokString, true)
	case l.multi != 0 && c == l.multi:
		i = l.open(st, &spans, s, i, 1, rest[:1], tokString, l.multiEscapes)
	case l.charQuote && c == '\'' && !isCharLiteral(rest):
		spans = addSpan(spans, i+1, tokPlain) // a lifetime's tick
		i++
	case strings.IndexByte(l.quotes, c) >= 0:
		i, _ = findClose(s, i+1, rest[:1], true)
		spans = addSpan(spans, i, tokString)
	case strings.IndexByte(l.rawQuotes, c) >= 0:
		i, _ = findClose(s, i+1, rest[:1], false)
		spans = addSpan(spans, i, tokString)
	case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
		i = numberEnd(s, i)
		spans = addSpan(spans, i, tokNumber)
	case isIdentStart(c):
		i, spans = l.word(s, i, spans)
	default:
		spans = addSpan(spans, i+1, tokPlain)
		i++
	}
	return i, spans
}

// numberEnd is where the number starting at s[i] ends (1e-9, 0x1F, 1.5).
func numberEnd(s string, i int) int {
	i++
	for i < len(s) && (isIdent(s[i]) || s[i] == '.' ||
		((s[i] == '-' || s[i] == '+') && (s[i-1] == 'e' || s[i-1] == 'E'))) {
		i++
	}
	return i
}

// word scans the identifier at s[i:], a keyword of the language or not.
func (l *lang) word(s string, i int, spans []span) (int, []span) {
	j := i + 1
	for j < len(s) && isIdent(s[j]) {
		j++
	}
	w := s[i:j]
	if l.foldCase {
		w = strings.ToLower(w)
	}
	kind := tokPlain
	if l.keyword != nil && l.keyword(w) {
		kind = tokKeyword
	}
	return j, addSpan(spans, j, kind)
}

// open scans a token that may go on past the line: its opener (n bytes at
// i) up to close, or to the line's end, leaving st open then.
func (l *lang) open(st *hlState, spans *[]span, s string, i, n int, close string, kind tok, escapes bool) int {
	end, closed := findClose(s, i+n, close, escapes)
	*spans = addSpan(*spans, end, kind)
	if !closed {
		*st = hlState{close: close, kind: kind, escapes: escapes}
	}
	return end
}

// findClose returns where the token that ends with close, read from
// from, ends in s (just after close), and whether close was found.
func findClose(s string, from int, close string, escapes bool) (int, bool) {
	for i := from; i < len(s); {
		if escapes && s[i] == '\\' {
			i += 2
			continue
		}
		if strings.HasPrefix(s[i:], close) {
			return i + len(close), true
		}
		i++
	}
	return len(s), false
}

// addSpan extends spans to end in kind, joining the last span if it has
// that kind already.
func addSpan(spans []span, end int, kind tok) []span {
	n := len(spans)
	switch {
	case n == 0 && end <= 0, n > 0 && end <= spans[n-1].end:
		return spans
	case n > 0 && spans[n-1].kind == kind:
		spans[n-1].end = end
		return spans
	}
	return append(spans, span{end: end, kind: kind})
}

// diffKind is the class of a whole line of a diff.
func diffKind(s string) tok {
	switch {
	case strings.HasPrefix(s, "@@"):
		return tokHunk
	case strings.HasPrefix(s, "+++"), strings.HasPrefix(s, "---"):
		return tokHeader
	case strings.HasPrefix(s, "+"):
		return tokAdded
	case strings.HasPrefix(s, "-"):
		return tokRemoved
	}
	return tokPlain
}

// isCharLiteral reports whether s, which starts with ', is a character
// literal ('a', '\n', 'é') rather than a Rust lifetime ('a).
func isCharLiteral(s string) bool {
	if len(s) < 2 {
		return false
	}
	if s[1] == '\\' {
		return true
	}
	_, n := utf8.DecodeRuneInString(s[1:])
	return 1+n < len(s) && s[1+n] == '\''
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isIdent(c byte) bool      { return isIdentStart(c) || isDigit(c) }

// Keywords are switch statements: Go compiles them to a binary search
// over the strings, with nothing built at package init.

func goKeyword(w string) bool {
	switch w {
	case "break", "case", "chan", "const", "continue", "default", "defer",
		"else", "fallthrough", "false", "for", "func", "go", "goto", "if",
		"import", "interface", "iota", "map", "nil", "package", "range",
		"return", "select", "struct", "switch", "true", "type", "var":
		return true
	}
	return false
}

func pythonKeyword(w string) bool {
	switch w {
	case "False", "None", "True", "and", "as", "assert", "async", "await",
		"break", "case", "class", "continue", "def", "del", "elif", "else",
		"except", "finally", "for", "from", "global", "if", "import", "in", "is",
		"lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return",
		"try", "while", "with", "yield":
		return true
	}
	return false
}

func jsKeyword(w string) bool {
	switch w {
	case "abstract", "as", "async", "await", "break", "case", "catch",
		"class", "const", "continue", "debugger", "declare", "default", "delete",
		"do", "else", "enum", "export", "extends", "false", "finally", "for",
		"from", "function", "if", "implements", "import", "in", "instanceof",
		"interface", "keyof", "let", "namespace", "new", "null", "of", "private",
		"protected", "public", "readonly", "return", "static", "super", "switch",
		"this", "throw", "true", "try", "type", "typeof", "undefined", "var",
		"void", "while", "with", "yield",
		"any", "boolean", "never", "number", "string", "unknown":
		return true
	}
	return false
}

func rustKeyword(w string) bool {
	switch w {
	case "Self", "as", "async", "await", "break", "const", "continue",
		"crate", "dyn", "else", "enum", "extern", "false", "fn", "for", "if",
		"impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
		"return", "self", "static", "struct", "super", "trait", "true", "type",
		"unsafe", "use", "where", "while":
		return true
	}
	return false
}

func cKeyword(w string) bool {
	switch w {
	case "NULL", "abstract", "as", "async", "auto", "await", "base", "bool",
		"boolean", "break", "byte", "case", "catch", "char", "class",
		"companion", "const", "continue", "data", "default", "delete", "do",
		"double", "else", "enum", "extends", "extension", "extern", "false",
		"final", "finally", "float", "for", "foreach", "friend", "fun", "func",
		"goto", "guard", "if", "implements", "import", "in", "inline",
		"instanceof", "int", "interface", "internal", "is", "let", "lock",
		"long", "namespace", "native", "new", "nil", "null", "nullptr", "object",
		"operator", "out", "override", "package", "private", "protected",
		"protocol", "public", "readonly", "ref", "register", "return", "sealed",
		"self", "short", "signed", "sizeof", "static", "string", "struct",
		"super", "switch", "synchronized", "template", "this", "throw", "throws",
		"true", "try", "typedef", "typename", "union", "unsigned", "using",
		"val", "var", "virtual", "void", "volatile", "when", "while":
		return true
	}
	return false
}

func shellKeyword(w string) bool {
	switch w {
	case "break", "case", "continue", "declare", "do", "done", "elif", "else",
		"esac", "exit", "export", "fi", "for", "function", "if", "in", "local",
		"readonly", "return", "shift", "source", "then", "unset", "until",
		"while":
		return true
	}
	return false
}

func literalKeyword(w string) bool {
	switch w {
	case "false", "null", "true":
		return true
	}
	return false
}

func yamlKeyword(w string) bool {
	switch w {
	case "False", "Null", "True", "false", "no", "null", "off", "on", "true",
		"yes":
		return true
	}
	return false
}

func sqlKeyword(w string) bool {
	switch w {
	case "all", "alter", "and", "as", "asc", "begin", "between", "boolean",
		"by", "case", "commit", "create", "default", "delete", "desc",
		"distinct", "drop", "else", "end", "exists", "false", "foreign", "from",
		"group", "having", "in", "index", "inner", "insert", "int", "integer",
		"into", "is", "join", "key", "left", "like", "limit", "not", "null",
		"offset", "on", "or", "order", "outer", "primary", "references",
		"returning", "right", "rollback", "select", "set", "table", "text",
		"then", "true", "union", "update", "values", "varchar", "view", "when",
		"where", "with":
		return true
	}
	return false
}
