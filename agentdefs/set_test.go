package agentdefs

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"covey/tools/toolname"
)

func TestBuiltins(t *testing.T) {
	readOnly := []string{toolname.ReadFile, toolname.ListDir, toolname.Glob, toolname.Grep}
	tests := map[string]struct {
		tools    []string
		readOnly bool
		prompt   []string // phrases the system prompt must carry
	}{
		Explore:        {readOnly, true, []string{"never create, edit", "line number", "concise report"}},
		Plan:           {readOnly, true, []string{"numbered implementation plan", "risks", "tests"}},
		GeneralPurpose: {append(BaseTools(), toolname.WebFetch, toolname.WebSearch, toolname.LSP), false, []string{"full set of tools", "report"}},
	}
	s := NewSet(Builtins()...)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, ok := s.Get(name)
			if !ok {
				t.Fatalf("built-in %s missing", name)
			}
			if got := EffectiveTools(d, allTools()); !reflect.DeepEqual(got, tc.tools) {
				t.Errorf("tools = %v, want %v", got, tc.tools)
			}
			if d.ReadOnly != tc.readOnly || d.Scope != BuiltIn || d.Source != SourceBuiltIn || d.Model != "inherit" {
				t.Errorf("definition = %+v", d)
			}
			if d.Description == "" || len(d.Prompt) < 400 {
				t.Errorf("description %q or prompt (%d bytes) too thin", d.Description, len(d.Prompt))
			}
			for _, phrase := range tc.prompt {
				if !strings.Contains(d.Prompt, phrase) {
					t.Errorf("prompt lacks %q", phrase)
				}
			}
		})
	}
	t.Run("fresh values and sorted", func(t *testing.T) {
		a := Builtins()
		a[0].Tools[0] = "changed"
		if Builtins()[0].Tools[0] != toolname.ReadFile {
			t.Error("Builtins shares slices between calls")
		}
		var names []string
		for _, d := range NewSet(Builtins()...).All() {
			names = append(names, d.Name)
		}
		if want := []string{Explore, GeneralPurpose, Plan}; !reflect.DeepEqual(names, want) {
			t.Errorf("All names = %v, want %v", names, want)
		}
	})
}

func TestEffectiveTools(t *testing.T) {
	base := []string{toolname.ReadFile, toolname.Grep, toolname.Bash, toolname.Task}
	tests := map[string]struct {
		d    Definition
		base []string // nil means the base above
		want []string
	}{
		"nil allowlist is all but task": {Definition{}, nil, []string{toolname.ReadFile, toolname.Grep, toolname.Bash}},
		"empty allowlist is nothing":    {Definition{Tools: []string{}}, nil, []string{}},
		"allowlist intersects base in base order": {
			Definition{Tools: []string{toolname.Bash, toolname.WriteFile, toolname.ReadFile}}, nil, []string{toolname.ReadFile, toolname.Bash},
		},
		"task only when listed":         {Definition{Tools: []string{toolname.Task, toolname.Grep}}, nil, []string{toolname.Grep, toolname.Task}},
		"disallowed removed from all":   {Definition{DisallowedTools: []string{toolname.Bash}}, nil, []string{toolname.ReadFile, toolname.Grep}},
		"disallowed beats allowlist":    {Definition{Tools: []string{toolname.Grep, toolname.Task}, DisallowedTools: []string{toolname.Task}}, nil, []string{toolname.Grep}},
		"duplicates in base kept once":  {Definition{Tools: []string{toolname.Grep}}, []string{toolname.Grep, toolname.Grep}, []string{toolname.Grep}},
		"unknown names never appear":    {Definition{Tools: []string{toolname.WebFetch}}, nil, []string{}},
		"disallowing unknown is no-op":  {Definition{DisallowedTools: []string{toolname.WebFetch}}, nil, []string{toolname.ReadFile, toolname.Grep, toolname.Bash}},
		"read-only allowlist from base": {Definition{Tools: []string{toolname.ReadFile}}, nil, []string{toolname.ReadFile}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := base
			if tc.base != nil {
				b = tc.base
			}
			if got := EffectiveTools(tc.d, b); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("EffectiveTools = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadOnlyDerived(t *testing.T) {
	tests := map[string]struct {
		d    Definition
		want bool
	}{
		"all tools":              {Definition{Name: "a"}, false},
		"only reads":             {Definition{Name: "a", Tools: []string{toolname.ReadFile, toolname.Grep}}, true},
		"bash writes":            {Definition{Name: "a", Tools: []string{toolname.ReadFile, toolname.Bash}}, false},
		"writers disallowed":     {Definition{Name: "a", DisallowedTools: []string{toolname.WriteFile, toolname.EditFile, toolname.Bash}}, true},
		"todo_write is not a fs": {Definition{Name: "a", Tools: []string{toolname.TodoWrite}}, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, _ := NewSet(tc.d).Get("a")
			if d.ReadOnly != tc.want {
				t.Errorf("ReadOnly = %v, want %v", d.ReadOnly, tc.want)
			}
		})
	}
}

func TestResolveModel(t *testing.T) {
	aliases := map[string]string{"haiku": "qwen3-8b", "Sonnet": "qwen3-coder", "big": "qwen3-235b", "claude-opus-4-1": "gpt-4.1"}
	tests := map[string]struct {
		model       string
		resolved    string // parent "parent-model", with aliases
		unmapped    string
		noAliases   string // parent "parent-model", no aliases
		noAliasMiss string
	}{
		"empty":                     {"", "parent-model", "", "parent-model", ""},
		"inherit":                   {"inherit", "parent-model", "", "parent-model", ""},
		"Inherit cased":             {"Inherit", "parent-model", "", "parent-model", ""},
		"mapped alias":              {"haiku", "qwen3-8b", "", "parent-model", "haiku"},
		"alias key of another case": {"sonnet", "qwen3-coder", "", "parent-model", "sonnet"},
		"unmapped alias":            {"opus", "parent-model", "opus", "parent-model", "opus"},
		"full id through family":    {"claude-haiku-4-5-20251001", "qwen3-8b", "", "parent-model", "haiku"},
		"old id through family":     {"claude-3-5-sonnet-20241022", "qwen3-coder", "", "parent-model", "sonnet"},
		"full id through own key":   {"claude-opus-4-1", "gpt-4.1", "", "parent-model", "opus"},
		"full id, family unmapped":  {"claude-opus-4-5", "parent-model", "opus", "parent-model", "opus"},
		"user alias":                {"big", "qwen3-235b", "", "big", ""},
		"concrete model":            {"gpt-4.1-mini", "gpt-4.1-mini", "", "gpt-4.1-mini", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got, miss := ResolveModel(tc.model, "parent-model", aliases); got != tc.resolved || miss != tc.unmapped {
				t.Errorf("ResolveModel = %q, %q; want %q, %q", got, miss, tc.resolved, tc.unmapped)
			}
			if got, miss := ResolveModel(tc.model, "parent-model", nil); got != tc.noAliases || miss != tc.noAliasMiss {
				t.Errorf("ResolveModel without aliases = %q, %q; want %q, %q", got, miss, tc.noAliases, tc.noAliasMiss)
			}
			if got := (Definition{Model: tc.model}).ResolveModel("parent-model", aliases); got != tc.resolved {
				t.Errorf("Definition.ResolveModel = %q, want %q", got, tc.resolved)
			}
		})
	}
}

func TestModelProblemsOncePerAlias(t *testing.T) {
	s := NewSet(append(Builtins(),
		Definition{Name: "a", Description: "d", Model: "haiku", Source: "a.md", Scope: Project},
		Definition{Name: "b", Description: "d", Model: "claude-haiku-4-5-20251001", Source: "b.md", Scope: Project},
		Definition{Name: "c", Description: "d", Model: "opus", Source: "c.md", Scope: User},
		Definition{Name: "d", Description: "d", Model: "sonnet", Source: "d.md", Scope: User},
	)...)
	got := ModelProblems(s, map[string]string{"sonnet": "qwen3-coder"})
	if len(got) != 2 {
		t.Fatalf("problems = %v, want one for haiku and one for opus", got)
	}
	if p := got[0]; p.Path != "a.md" || !p.Warning || p.Field != "model" || !strings.Contains(p.Message, `"haiku"`) || !strings.Contains(p.Message, "b.md") {
		t.Errorf("haiku problem = %+v", p)
	}
	if p := got[1]; p.Path != "c.md" || !strings.Contains(p.Message, `"opus"`) || !strings.Contains(p.Message, "this agent uses the parent's model") {
		t.Errorf("opus problem = %+v", p)
	}
}

func TestLookup(t *testing.T) {
	s := NewSet(append(Builtins(),
		Definition{Name: "Code Reviewer", Description: "d", Source: "a.md", Scope: Project},
		Definition{Name: "test_runner", Description: "d", Source: "b.md", Scope: Project},
		Definition{Name: "doc-writer", Description: "d", Source: "c.md", Scope: Project},
		Definition{Name: "Doc Writer", Description: "d", Source: "d.md", Scope: Project},
	)...)
	tests := map[string]struct {
		name, want, err string
	}{
		"exact":                   {name: "Code Reviewer", want: "Code Reviewer"},
		"case-insensitive":        {name: "code reviewer", want: "Code Reviewer"},
		"ignoring dashes":         {name: "code-reviewer", want: "Code Reviewer"},
		"ignoring underscores":    {name: "Test Runner", want: "test_runner"},
		"built-in by case":        {name: "explore", want: "Explore"},
		"exact beats loose":       {name: "doc-writer", want: "doc-writer"},
		"case beats loose":        {name: "doc writer", want: "Doc Writer"},
		"ambiguous loosely":       {name: "DOC_WRITER", err: "ambiguous"},
		"unknown lists the types": {name: "reviewer", err: "unknown subagent_type \"reviewer\". Available:"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, err := s.Lookup(tc.name)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("Lookup(%q) = %q, %v; want an error containing %q", tc.name, d.Name, err, tc.err)
				}
				return
			}
			if err != nil || d.Name != tc.want {
				t.Errorf("Lookup(%q) = %q, %v; want %q", tc.name, d.Name, err, tc.want)
			}
		})
	}
}

func TestCatalog(t *testing.T) {
	long := "Use after code changes.\\n<example>\\nuser: \"review this\"\\nassistant: \"starting the reviewer\"\\n</example>"
	t.Run("whole descriptions, literal \\n as lines", func(t *testing.T) {
		s := NewSet(Definition{Name: "rev", Description: long}, Definition{Name: "a", Description: "short"})
		want := "- a: short\n- rev: Use after code changes.\n  <example>\n  user: \"review this\"\n  assistant: \"starting the reviewer\"\n  </example>"
		if got := s.Catalog(); got != want {
			t.Errorf("Catalog =\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("over budget: longest cut first, to one length, and said", func(t *testing.T) {
		s := NewSet(
			Definition{Name: "huge", Description: strings.Repeat("h", 500)},
			Definition{Name: "big", Description: strings.Repeat("b", 300)},
			Definition{Name: "small", Description: strings.Repeat("s", 50)},
		)
		got := s.CatalogWithin(450)
		// 50 stays; the other two share 400: 200 each.
		for _, want := range []string{
			"- small: " + strings.Repeat("s", 50) + "\n",
			"- big: " + strings.Repeat("b", 200) + " [… cut: 200 of 300 characters]",
			"- huge: " + strings.Repeat("h", 200) + " [… cut: 200 of 500 characters]",
			"The descriptions of big, huge were shortened, longest first, to keep this list within 450 characters.",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("Catalog lacks %q:\n%s", want, got)
			}
		}
	})
	t.Run("within budget: nothing said", func(t *testing.T) {
		got := NewSet(Builtins()...).Catalog()
		if strings.Contains(got, "shortened") || !strings.Contains(got, Builtins()[0].Description) {
			t.Errorf("Catalog = %s", got)
		}
	})
}

func TestLimits(t *testing.T) {
	tests := map[string]struct {
		d       Definition
		turns   int
		timeout time.Duration
	}{
		"defaults": {Definition{}, DefaultMaxTurns, DefaultTimeout},
		"set":      {Definition{MaxTurns: 3, Timeout: time.Minute}, 3, time.Minute},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.d.EffectiveMaxTurns() != tc.turns || tc.d.EffectiveTimeout() != tc.timeout {
				t.Errorf("limits = %d, %v; want %d, %v", tc.d.EffectiveMaxTurns(), tc.d.EffectiveTimeout(), tc.turns, tc.timeout)
			}
		})
	}
}

func TestUnknownTypeError(t *testing.T) {
	custom := Definition{Name: "code-reviewer", Description: "Reviews code.\n\nLong   example", Scope: Project, Source: "x.md"}
	tests := map[string]struct {
		set  *Set
		name string
		want string
	}{
		"lists names with descriptions": {
			set:  NewSet(append(Builtins(), custom)...),
			name: "Reviewer",
			want: `unknown subagent_type "Reviewer". Available:` + "\n" +
				"- code-reviewer: Reviews code. Long example\n" +
				"- Explore: " + Builtins()[0].Summary() + "\n" +
				"- general-purpose: " + Builtins()[1].Summary() + "\n" +
				"- Plan: " + Builtins()[2].Summary(),
		},
		"empty set": {
			set:  NewSet(),
			name: "x",
			want: `unknown subagent_type "x". No subagent types are available.`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.set.UnknownTypeError(tc.name); got != tc.want {
				t.Errorf("UnknownTypeError =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	tests := map[string]struct {
		desc string
		want string
	}{
		"collapses whitespace and literal newlines": {"Use this\\n\\nwhen   needed.\n<example>", "Use this when needed. <example>"},
		"short stays":   {"Short.", "Short."},
		"long is cut":   {strings.Repeat("word ", 100), strings.TrimSpace(strings.Repeat("word ", 40)) + "…"},
		"runes counted": {strings.Repeat("é", 250), strings.Repeat("é", 199) + "…"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := (Definition{Description: tc.desc}).Summary(); got != tc.want {
				t.Errorf("Summary = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSetGetIsExactAndNilSafe(t *testing.T) {
	s := NewSet(Builtins()...)
	tests := map[string]bool{"Explore": true, "explore": false, "EXPLORE": false, "": false, "Plan ": false}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			if _, ok := s.Get(name); ok != want {
				t.Errorf("Get(%q) ok = %v, want %v", name, ok, want)
			}
		})
	}
	t.Run("results are copies", func(t *testing.T) {
		d, _ := s.Get("Explore")
		d.Tools[0] = toolname.Bash
		s.All()[0].Tools[0] = toolname.Bash
		if got, _ := s.Get("Explore"); got.Tools[0] != toolname.ReadFile {
			t.Errorf("editing a result changed the Set: %v", got.Tools)
		}
	})
	var nilSet *Set
	if _, ok := nilSet.Get("Explore"); ok || nilSet.All() != nil || nilSet.Shadowed() != nil {
		t.Error("nil Set is not empty")
	}
}

func TestScopeString(t *testing.T) {
	tests := map[Scope]string{BuiltIn: "built-in", User: "user", Project: "project", Scope(9): "scope(9)"}
	for s, want := range tests {
		t.Run(want, func(t *testing.T) {
			if s.String() != want {
				t.Errorf("String = %q, want %q", s.String(), want)
			}
		})
	}
}
