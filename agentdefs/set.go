package agentdefs

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"covey/internal/excerpt"
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
	d.ToolRules = slices.Clone(d.ToolRules)
	d.DenyRules = slices.Clone(d.DenyRules)
	d.SpawnTypes = slices.Clone(d.SpawnTypes)
	d.MCPServers = slices.Clone(d.MCPServers)
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

// Lookup finds the definition a subagent_type names, as Claude Code users
// expect: the exact name first, then the name ignoring case, then ignoring
// case, blanks, dashes and underscores ("code reviewer" finds "Code
// Reviewer" and "code-reviewer"), each only when it names exactly one
// definition. The error is UnknownTypeError's text, listing the types (or
// the candidates when the name is ambiguous).
func (s *Set) Lookup(name string) (Definition, error) {
	if d, ok := s.Get(name); ok {
		return d, nil
	}
	for _, norm := range []func(string) string{strings.ToLower, looseName} {
		var found []Definition
		for _, d := range s.All() {
			if norm(d.Name) == norm(name) {
				found = append(found, d)
			}
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 0:
			continue
		}
		names := make([]string, len(found))
		for i, d := range found {
			names[i] = fmt.Sprintf("%q", d.Name)
		}
		return Definition{}, fmt.Errorf("subagent_type %q is ambiguous: it could be %s; use the exact name", name, strings.Join(names, " or "))
	}
	return Definition{}, errors.New(s.UnknownTypeError(name))
}

// looseName is name in lower case without blanks, dashes or underscores.
func looseName(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '-', '_':
			return -1
		}
		return unicode.ToLower(r)
	}, name)
}

// Only returns the set of the definitions names find through Lookup: the
// types an agent limited by Agent(a, b) may start. Names that find none
// are left out.
func (s *Set) Only(names []string) *Set {
	var defs []Definition
	for _, n := range names {
		if d, err := s.Lookup(n); err == nil && !slices.ContainsFunc(defs, func(x Definition) bool { return x.Name == d.Name }) {
			defs = append(defs, d)
		}
	}
	return NewSet(defs...)
}

// DefaultCatalogBudget bounds the text Catalog gives the model, so a
// folder of long agent files cannot fill its context.
const DefaultCatalogBudget = 24000

// Catalog lists the available types for the model choosing a
// subagent_type, each with its whole description (Claude Code users put
// routing <example> blocks there), in All's order. When the descriptions
// together pass DefaultCatalogBudget characters, the longest are cut first,
// each to the same length, until they fit, and a closing line says which
// were cut.
func (s *Set) Catalog() string { return s.CatalogWithin(DefaultCatalogBudget) }

// CatalogWithin is Catalog with a budget of budget characters for the
// descriptions.
func (s *Set) CatalogWithin(budget int) string {
	defs := s.All()
	descs := make([][]rune, len(defs))
	total := 0
	for i, d := range defs {
		descs[i] = []rune(catalogText(d.Description))
		total += len(descs[i])
	}
	limit := -1 // no cut
	if total > budget {
		limit = waterLevel(descs, budget)
	}
	var b strings.Builder
	var cut []string
	for i, d := range defs {
		if i > 0 {
			b.WriteByte('\n')
		}
		text := string(descs[i])
		if limit >= 0 && len(descs[i]) > limit {
			text = strings.TrimRight(string(descs[i][:limit]), " \n") + fmt.Sprintf(" [… cut: %d of %d characters]", limit, len(descs[i]))
			cut = append(cut, d.Name)
		}
		fmt.Fprintf(&b, "- %s: %s", d.Name, strings.ReplaceAll(text, "\n", "\n  "))
	}
	if len(cut) > 0 {
		fmt.Fprintf(&b, "\n(The descriptions of %s were shortened, longest first, to keep this list within %d characters.)", strings.Join(cut, ", "), budget)
	}
	return b.String()
}

// waterLevel returns the largest length L such that cutting every text
// longer than L to L brings the total within budget: the longest texts are
// cut first, and to the same length.
func waterLevel(texts [][]rune, budget int) int {
	lo, hi := 0, 0
	for _, t := range texts {
		hi = max(hi, len(t))
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		sum := 0
		for _, t := range texts {
			sum += min(len(t), mid)
		}
		if sum <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// catalogText is a description as the model reads it: the literal "\n"
// that Claude Code files often hold becomes a line break, and blank lines
// and trailing blanks are dropped.
func catalogText(desc string) string {
	desc = strings.ReplaceAll(desc, `\n`, "\n")
	var lines []string
	for _, l := range strings.Split(desc, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// Summaries lists the available types, one "- name: summary" line each,
// with descriptions cut to one line: for people reading a list, not for
// the model.
func (s *Set) Summaries() string {
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
// can correct itself.
func (s *Set) UnknownTypeError(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown subagent_type %q", name)
	if len(s.All()) == 0 {
		b.WriteString(". No subagent types are available.")
		return b.String()
	}
	b.WriteString(". Available:\n")
	b.WriteString(s.Summaries())
	return b.String()
}

// summaryLen bounds Summary; long Claude descriptions carry whole example
// dialogues that would swamp a list.
const summaryLen = 200

// Summary returns the description on one line, at most 200 characters:
// whitespace (and the literal "\n" Claude Code files often contain) is
// collapsed, and a cut is marked with "…".
func (d Definition) Summary() string {
	return excerpt.Cut(strings.ReplaceAll(d.Description, `\n`, " "), summaryLen)
}
