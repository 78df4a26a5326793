package tools

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// requiredLit is a string every match of a regexp contains. With fold set
// it is lower-case ASCII and must be looked for case-insensitively.
type requiredLit struct {
	s    string
	fold bool
	// whole is set when the regexp matches exactly s and nothing else, so a
	// line holding s matches without running the regexp at all.
	whole bool
}

// requiredLiteral extracts from a parsed regexp the longest literal that
// every match must contain, or ok=false when there is none worth using. A
// literal under case folding is kept only when it is ASCII: the search then
// lower-cases the text, which is exact for ASCII except for the two
// non-ASCII runes that fold to ASCII letters (see foldHazard).
func requiredLiteral(re *syntax.Regexp) (lit requiredLit, ok bool) {
	re = re.Simplify()
	cand, ok := reqLit(re)
	if !ok || len(cand.s) < 2 || strings.IndexByte(cand.s, '\n') >= 0 {
		return requiredLit{}, false
	}
	if cand.fold {
		if !isASCII(cand.s) {
			return requiredLit{}, false
		}
		cand.s = strings.ToLower(cand.s)
	}
	if s, fold, exact := exactLit(re); exact {
		switch {
		case !fold && s == cand.s:
			cand.whole = true
		case fold && allFold(re) && strings.ToLower(s) == cand.s:
			// The search lower-cases the text, so a hit is a match: every
			// letter of the pattern matches either case (the non-ASCII
			// runes that fold to ASCII letters are foldHazard's business).
			cand.whole = true
		}
	}
	return cand, true
}

// exactLit reports whether re matches exactly one string (up to case when
// fold is set), and which.
func exactLit(re *syntax.Regexp) (s string, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0 && hasLetter(re.Rune), true
	case syntax.OpCapture:
		return exactLit(re.Sub[0])
	case syntax.OpConcat:
		var b strings.Builder
		for _, sub := range re.Sub {
			ss, f, ok := exactLit(sub)
			if !ok {
				return "", false, false
			}
			b.WriteString(ss)
			fold = fold || f
		}
		return b.String(), fold, true
	}
	return "", false, false
}

// reqLit finds the best required literal of re: for a concatenation the
// longest run of adjacent exact parts, or the best of any one part.
func reqLit(re *syntax.Regexp) (requiredLit, bool) {
	if s, fold, ok := exactLit(re); ok {
		return requiredLit{s: s, fold: fold}, s != ""
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return reqLit(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return reqLit(re.Sub[0])
		}
	case syntax.OpConcat:
		var best requiredLit
		found := false
		consider := func(c requiredLit) {
			// Longer is rarer; at equal length a case-sensitive literal is
			// cheaper to look for.
			if c.s != "" && (!found || len(c.s) > len(best.s) || (len(c.s) == len(best.s) && best.fold && !c.fold)) {
				best, found = c, true
			}
		}
		var run strings.Builder
		runFold := false
		flush := func() {
			consider(requiredLit{s: run.String(), fold: runFold})
			run.Reset()
			runFold = false
		}
		for _, sub := range re.Sub {
			if s, fold, ok := exactLit(sub); ok {
				run.WriteString(s)
				runFold = runFold || fold
				continue
			}
			// x+ (or x{n,}) starts with x and ends with x: it extends the
			// run before it and starts the run after it.
			if s, fold, ok := repeatedLit(sub); ok {
				run.WriteString(s)
				runFold = runFold || fold
				flush()
				run.WriteString(s)
				runFold = fold
				continue
			}
			flush()
			if c, ok := reqLit(sub); ok {
				consider(c)
			}
		}
		flush()
		return best, found
	}
	return requiredLit{}, false
}

// allFold reports whether every letter of the exact literal re matches
// either case, so "(?i)error" qualifies and "(?i:ab)CD" does not.
func allFold(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Flags&syntax.FoldCase != 0 || !hasLetter(re.Rune)
	case syntax.OpCapture:
		return allFold(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !allFold(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// repeatedLit reports whether re is one or more repetitions of an exact
// literal, and which.
func repeatedLit(re *syntax.Regexp) (s string, fold, ok bool) {
	if re.Op == syntax.OpPlus || (re.Op == syntax.OpRepeat && re.Min >= 1) {
		return exactLit(re.Sub[0])
	}
	return "", false, false
}

// hasLetter reports whether any rune has other case forms, i.e. whether
// case folding changes what the runes match.
func hasLetter(rs []rune) bool {
	for _, r := range rs {
		if unicode.SimpleFold(r) != r {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldHazard returns the UTF-8 of the non-ASCII runes that Go's case
// folding equates with letters of lit (KELVIN SIGN for k, LONG S for s). A
// buffer containing one of them cannot be searched by ASCII lower-casing.
func foldHazard(lit string) [][]byte {
	var out [][]byte
	if strings.IndexByte(lit, 'k') >= 0 {
		out = append(out, []byte("\u212a"))
	}
	if strings.IndexByte(lit, 's') >= 0 {
		out = append(out, []byte("\u017f"))
	}
	return out
}

// hasTextAnchor reports whether re uses \A or \z, which mean the start and
// end of the whole text and so cannot be searched for across a buffer of
// many lines.
func hasTextAnchor(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if hasTextAnchor(sub) {
			return true
		}
	}
	return false
}
