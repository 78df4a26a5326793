package agentdefs

import (
	"fmt"
	"slices"
	"strings"
)

// claudeFamilies are Claude Code's model shorthands, which name no model on
// an OpenAI-compatible server until config's model_aliases maps them.
var claudeFamilies = [...]string{"haiku", "sonnet", "opus"}

// isClaudeModelAlias reports whether m (lower case) is one of Claude Code's
// model shorthands.
func isClaudeModelAlias(m string) bool { return slices.Contains(claudeFamilies[:], m) }

// claudeFamily returns the shorthand of a full Claude model id
// ("claude-haiku-4-5-20251001" → "haiku", "claude-3-5-sonnet-latest" →
// "sonnet"), or "" when m (lower case) is not one.
func claudeFamily(m string) string {
	if !strings.HasPrefix(m, "claude-") && !strings.HasPrefix(m, "anthropic/claude-") {
		return ""
	}
	for _, f := range claudeFamilies {
		if strings.Contains(m, f) {
			return f
		}
	}
	return ""
}

// lookupAlias finds key in aliases ignoring case; an empty mapping counts
// as none.
func lookupAlias(aliases map[string]string, key string) (string, bool) {
	if v, ok := aliases[key]; ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), true
	}
	for k, v := range aliases {
		if strings.EqualFold(k, key) && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// ResolveModel returns the model a definition's model field names, given
// the parent's model and config's model_aliases (e.g. {sonnet:
// qwen3-coder}): "" and "inherit" give the parent's; a name the aliases map
// (compared ignoring case) gives its mapping; a full Claude id with no
// mapping of its own resolves through its family's ("claude-haiku-4-5-…"
// through "haiku"); any other name is used as written. A Claude shorthand
// or id that nothing maps gives the parent's model, and unmapped names
// that alias ("haiku" for both "haiku" and "claude-haiku-4-5"), so the
// caller can warn once per alias; it is "" otherwise.
func ResolveModel(model, parent string, aliases map[string]string) (resolved, unmapped string) {
	m := strings.TrimSpace(model)
	l := strings.ToLower(m)
	if l == "" || l == "inherit" {
		return parent, ""
	}
	if v, ok := lookupAlias(aliases, m); ok {
		return v, ""
	}
	if isClaudeModelAlias(l) {
		return parent, l
	}
	if f := claudeFamily(l); f != "" {
		if v, ok := lookupAlias(aliases, f); ok {
			return v, ""
		}
		return parent, f
	}
	if strings.HasPrefix(l, "claude-") {
		// A Claude id of no known family: no server covey talks to knows it.
		return parent, m
	}
	return m, ""
}

// ResolveModel returns the model a child of this type runs (see the
// package-level ResolveModel).
func (d Definition) ResolveModel(parent string, aliases map[string]string) string {
	r, _ := ResolveModel(d.Model, parent, aliases)
	return r
}

// ModelProblems returns one warning per Claude model name the definitions
// of s use that aliases does not map, naming the files that use it: those
// children run the parent's model instead.
func ModelProblems(s *Set, aliases map[string]string) []Problem {
	users := map[string][]string{}
	var order []string
	for _, d := range s.All() {
		if d.Scope == BuiltIn {
			continue
		}
		if _, miss := ResolveModel(d.Model, "", aliases); miss != "" {
			if _, seen := users[miss]; !seen {
				order = append(order, miss)
			}
			users[miss] = append(users[miss], d.Source)
		}
	}
	var out []Problem
	for _, alias := range order {
		files := users[alias]
		out = append(out, Problem{
			Path: files[0], Field: "model", Warning: true,
			Message: fmt.Sprintf("model %q has no mapping in model_aliases (config), so %s the parent's model; add e.g. model_aliases: {%s: <a model your server serves>}",
				alias, usersPhrase(files), alias),
		})
	}
	return out
}

func usersPhrase(files []string) string {
	if len(files) == 1 {
		return "this agent uses"
	}
	return fmt.Sprintf("%d agents (this one, %s) use", len(files), strings.Join(files[1:], ", "))
}
