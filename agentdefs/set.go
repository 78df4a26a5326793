package agentdefs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Set is the resolved collection of subagent types: for each name, the
// definition that won by precedence. A Set is immutable once built, so it
// may be shared between goroutines.
type Set struct {
	byName   map[string]Definition
	all      []Definition
	shadowed []Definition
}

// NewSet resolves defs by precedence: a Project definition beats a User one,
// which beats a BuiltIn one; within one scope the earlier definition wins.
// Losers are kept for Shadowed. ReadOnly is recomputed for every definition,
// so hand-built definitions need not set it. Definitions without a name are
// ignored.
func NewSet(defs ...Definition) *Set {
	ordered := slices.Clone(defs)
	slices.SortStableFunc(ordered, func(a, b Definition) int { return cmp.Compare(b.Scope, a.Scope) })
	s := &Set{byName: map[string]Definition{}}
	for _, d := range ordered {
		if d.Name == "" {
			continue
		}
		d = d.clone().withDerived()
		if _, taken := s.byName[d.Name]; taken {
			s.shadowed = append(s.shadowed, d)
			continue
		}
		s.byName[d.Name] = d
		s.all = append(s.all, d)
	}
	sortByName(s.all)
	// Shadowed keeps precedence order among equal names, so the list reads
	// from the nearest loser to the farthest.
	slices.SortStableFunc(s.shadowed, func(a, b Definition) int { return compareNames(a.Name, b.Name) })
	return s
}

// compareNames orders names case-insensitively, so "code-reviewer" sits
// between "Explore" and "Plan", with exact bytes breaking ties.
func compareNames(a, b string) int {
	if c := cmp.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

func sortByName(defs []Definition) {
	slices.SortStableFunc(defs, func(a, b Definition) int { return compareNames(a.Name, b.Name) })
}

// Get returns the definition whose name is exactly name. Matching is exact
// (case included) so a model's choice is never guessed at.
func (s *Set) Get(name string) (Definition, bool) {
	if s == nil {
		return Definition{}, false
	}
	d, ok := s.byName[name]
	return d.clone(), ok
}

// All returns the winning definitions, sorted by name case-insensitively.
// The result is a deep copy.
func (s *Set) All() []Definition {
	if s == nil {
		return nil
	}
	return cloneAll(s.all)
}

// Shadowed returns the definitions that lost to another of the same name,
// sorted by name and, within a name, by falling precedence. The result is a
// deep copy.
func (s *Set) Shadowed() []Definition {
	if s == nil {
		return nil
	}
	return cloneAll(s.shadowed)
}

// clone copies d's slices, so a caller that edits what it got cannot
// change a Set that other goroutines read. nil and empty stay distinct.
func (d Definition) clone() Definition {
	d.Tools = slices.Clone(d.Tools)
	d.DisallowedTools = slices.Clone(d.DisallowedTools)
	d.AllowedPaths = slices.Clone(d.AllowedPaths)
	return d
}

func cloneAll(defs []Definition) []Definition {
	if defs == nil {
		return nil
	}
	out := make([]Definition, len(defs))
	for i, d := range defs {
		out[i] = d.clone()
	}
	return out
}

// Catalog lists the available types, one "- name: summary" line each, in
// All's order: the text a model reads to choose a subagent_type.
func (s *Set) Catalog() string {
	var b strings.Builder
	for i, d := range s.All() {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "- %s: %s", d.Name, d.Summary())
	}
	return b.String()
}

// UnknownTypeError is the tool error for a subagent_type that names no
// definition: it lists every available type with its summary, so the model
// can correct itself, and suggests a name differing only in case.
func (s *Set) UnknownTypeError(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown subagent_type %q", name)
	for _, d := range s.All() {
		if strings.EqualFold(d.Name, name) {
			fmt.Fprintf(&b, " (did you mean %q? names are case-sensitive)", d.Name)
			break
		}
	}
	if len(s.All()) == 0 {
		b.WriteString(". No subagent types are available.")
		return b.String()
	}
	b.WriteString(". Available:\n")
	b.WriteString(s.Catalog())
	return b.String()
}

// summaryLen bounds Summary; long Claude descriptions carry whole example
// dialogues that would swamp a list.
const summaryLen = 200

// Summary returns the description on one line, at most 200 characters:
// whitespace (and the literal "\n" Claude Code files often contain) is
// collapsed, and a cut is marked with "…".
func (d Definition) Summary() string {
	s := strings.Join(strings.Fields(strings.ReplaceAll(d.Description, `\n`, " ")), " ")
	if utf8.RuneCountInString(s) <= summaryLen {
		return s
	}
	r := []rune(s)[:summaryLen-1]
	return strings.TrimRight(string(r), " ") + "…"
}
