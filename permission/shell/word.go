package shell

import (
	"fmt"
	"strings"
)

// shellWord is one word of a command line.
type shellWord struct {
	raw     string // its source text
	text    string // with quotes removed; substitutions keep their source
	quoted  bool   // some part of it was quoted or escaped
	dynamic bool   // it holds an expansion or substitution
}

// isMeta reports whether c ends an unquoted word.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

// word reads one word, parsing the substitutions inside it as commands.
func (p *shellParser) word() (shellWord, error) {
	start := p.pos
	var b strings.Builder
	var w shellWord
loop:
	for !p.eof() {
		c := p.peek()
		switch {
		case (c == '<' || c == '>') && p.peekAt(1) == '(':
			from := p.pos
			p.pos += 2
			if err := p.parseList(')'); err != nil {
				return w, err
			}
			b.WriteString(p.src[from:p.pos])
			w.dynamic = true
		case isMeta(c):
			break loop
		case c == '\\':
			if p.peekAt(1) == '\n' {
				p.pos += 2 // a line continuation, not a quote
				continue
			}
			w.quoted = true
			p.pos++
			if !p.eof() {
				b.WriteByte(p.peek())
				p.pos++
			}
		case c == '\'':
			w.quoted = true
			end := strings.IndexByte(p.src[p.pos+1:], '\'')
			if end < 0 {
				return w, p.errorf("unterminated single quote")
			}
			b.WriteString(p.src[p.pos+1 : p.pos+1+end])
			p.pos += end + 2
		case c == '"':
			w.quoted = true
			p.pos++
			if err := p.doubleQuoted(&b, &w); err != nil {
				return w, err
			}
		case c == '$' && p.peekAt(1) == '\'':
			w.quoted = true
			if err := p.ansiQuoted(&b); err != nil {
				return w, err
			}
		case c == '$' && p.peekAt(1) == '"':
			w.quoted = true
			p.pos += 2
			if err := p.doubleQuoted(&b, &w); err != nil {
				return w, err
			}
		case c == '$':
			if err := p.dollar(&b, &w); err != nil {
				return w, err
			}
		case c == '`':
			if err := p.backquoted(&b, &w, false); err != nil {
				return w, err
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	w.raw = p.src[start:p.pos]
	w.text = b.String()
	return w, nil
}

// doubleQuoted reads the rest of a "..." string, the opening quote consumed.
func (p *shellParser) doubleQuoted(b *strings.Builder, w *shellWord) error {
	for !p.eof() {
		c := p.peek()
		switch c {
		case '"':
			p.pos++
			return nil
		case '\\':
			switch n := p.peekAt(1); n {
			case '\n':
				p.pos += 2
			case '$', '`', '"', '\\':
				b.WriteByte(n)
				p.pos += 2
			default:
				b.WriteByte(c)
				p.pos++
			}
		case '$':
			if err := p.dollar(b, w); err != nil {
				return err
			}
		case '`':
			if err := p.backquoted(b, w, true); err != nil {
				return err
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return p.errorf("unterminated double quote")
}

// ansiQuoted reads a $'...' string. Backslash escapes are honoured, but an
// escaped quote is refused: bash and sh (the fallback shell) would end the
// string in different places.
func (p *shellParser) ansiQuoted(b *strings.Builder) error {
	p.pos += 2
	for !p.eof() {
		c := p.peek()
		switch {
		case c == '\'':
			p.pos++
			return nil
		case c == '\\' && p.peekAt(1) == '\'':
			return p.errorf("escaped quote in $'...'")
		case c == '\\' && p.pos+1 < len(p.src):
			b.WriteString(p.src[p.pos : p.pos+2])
			p.pos += 2
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return p.errorf("unterminated $'...'")
}

// dollar reads an expansion starting at $: a command substitution $( ),
// a parameter ${...} or $name, or a lone $.
func (p *shellParser) dollar(b *strings.Builder, w *shellWord) error {
	from := p.pos
	switch n := p.peekAt(1); {
	case n == '(':
		if p.peekAt(2) == '(' {
			return p.errorf("arithmetic expansion is not analysed")
		}
		p.pos += 2
		if err := p.parseList(')'); err != nil {
			return err
		}
	case n == '{':
		p.pos += 2
		if err := p.braceParam(); err != nil {
			return err
		}
	case n == '_' || shLetter(n):
		p.pos++
		for c := p.peek(); c == '_' || shLetter(c) || shDigit(c); c = p.peek() {
			p.pos++
		}
	case shDigit(n) || strings.IndexByte("@*#?$!-", n) >= 0:
		p.pos += 2
	default:
		b.WriteByte('$') // a literal dollar
		p.pos++
		return nil
	}
	b.WriteString(p.src[from:p.pos])
	w.dynamic = true
	return nil
}

// braceParam reads the rest of ${...}. Only plain operands are accepted:
// quotes, backslashes and substitutions inside change meaning between
// contexts, so they are refused rather than guessed at.
func (p *shellParser) braceParam() error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxShellDepth {
		return p.errorf("nesting deeper than %d", maxShellDepth)
	}
	for !p.eof() {
		c := p.peek()
		switch {
		case c == '}':
			p.pos++
			return nil
		case c == '$' && p.peekAt(1) == '{':
			p.pos += 2
			if err := p.braceParam(); err != nil {
				return err
			}
		case c == '$' && (p.peekAt(1) == '_' || shLetter(p.peekAt(1))):
			p.pos++
		case shLetter(c) || shDigit(c) || strings.IndexByte("_#!@*:-=+?%/.,^~[] ", c) >= 0:
			p.pos++
		default:
			return p.errorf("%q inside ${...} is not analysed", c)
		}
	}
	return p.errorf("unterminated ${")
}

// backquoted reads a `...` substitution: its body, with bash's backslash
// rules undone, is parsed as a command line of its own.
func (p *shellParser) backquoted(b *strings.Builder, w *shellWord, inDouble bool) error {
	from := p.pos
	p.pos++
	var body strings.Builder
	for {
		if p.eof() {
			return p.errorf("unterminated backquote")
		}
		c := p.peek()
		if c == '`' {
			p.pos++
			break
		}
		if c == '\\' && p.pos+1 < len(p.src) {
			n := p.src[p.pos+1]
			if n == '$' || n == '`' || n == '\\' || (inDouble && n == '"') {
				body.WriteByte(n)
				p.pos += 2
				continue
			}
		}
		body.WriteByte(c)
		p.pos++
	}
	sub := &shellParser{src: body.String(), depth: p.depth}
	if err := sub.parseList(0); err != nil {
		return fmt.Errorf("in backquotes: %w", err)
	}
	p.cmds = append(p.cmds, sub.cmds...)
	b.WriteString(p.src[from:p.pos])
	w.dynamic = true
	return nil
}
