package agentdefs

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestBuiltins(t *testing.T) {
	readOnly := []string{"read_file", "list_dir", "glob", "grep"}
	tests := map[string]struct {
		tools    []string
		readOnly bool
		prompt   []string // phrases the system prompt must carry
	}{
		Explore:        {readOnly, true, []string{"never create, edit", "line number", "concise report"}},
		Plan:           {readOnly, true, []string{"numbered implementation plan", "risks", "tests"}},
		GeneralPurpose: {BaseTools(), false, []string{"full set of tools", "report"}},
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
		if Builtins()[0].Tools[0] != "read_file" {
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
	base := []string{"read_file", "grep", "bash", "task"}
	tests := map[string]struct {
		d    Definition
		base []string // nil means the base above
		want []string
	}{
		"nil allowlist is all but task": {Definition{}, nil, []string{"read_file", "grep", "bash"}},
		"empty allowlist is nothing":    {Definition{Tools: []string{}}, nil, []string{}},
		"allowlist intersects base in base order": {
			Definition{Tools: []string{"bash", "write_file", "read_file"}}, nil, []string{"read_file", "bash"},
		},
		"task only when listed":         {Definition{Tools: []string{"task", "grep"}}, nil, []string{"grep", "task"}},
		"disallowed removed from all":   {Definition{DisallowedTools: []string{"bash"}}, nil, []string{"read_file", "grep"}},
		"disallowed beats allowlist":    {Definition{Tools: []string{"grep", "task"}, DisallowedTools: []string{"task"}}, nil, []string{"grep"}},
		"duplicates in base kept once":  {Definition{Tools: []string{"grep"}}, []string{"grep", "grep"}, []string{"grep"}},
		"unknown names never appear":    {Definition{Tools: []string{"web_fetch"}}, nil, []string{}},
		"disallowing unknown is no-op":  {Definition{DisallowedTools: []string{"web_fetch"}}, nil, []string{"read_file", "grep", "bash"}},
		"read-only allowlist from base": {Definition{Tools: []string{"read_file"}}, nil, []string{"read_file"}},
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
		"only reads":             {Definition{Name: "a", Tools: []string{"read_file", "grep"}}, true},
		"bash writes":            {Definition{Name: "a", Tools: []string{"read_file", "bash"}}, false},
		"writers disallowed":     {Definition{Name: "a", DisallowedTools: []string{"write_file", "edit_file", "bash"}}, true},
		"todo_write is not a fs": {Definition{Name: "a", Tools: []string{"todo_write"}}, true},
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

func TestModel(t *testing.T) {
	aliases := map[string]string{"haiku": "qwen3-8b", "big": "qwen3-235b"}
	tests := map[string]struct {
		model       string
		name        string
		inherit     bool
		resolved    string // with parent "parent-model" and aliases
		noAliasWant string
	}{
		"empty":          {"", "", true, "parent-model", "parent-model"},
		"inherit":        {"inherit", "", true, "parent-model", "parent-model"},
		"Inherit cased":  {"Inherit", "", true, "parent-model", "parent-model"},
		"claude alias":   {"sonnet", "", true, "parent-model", "parent-model"},
		"mapped alias":   {"Haiku", "", true, "qwen3-8b", "parent-model"},
		"user alias":     {"big", "big", false, "qwen3-235b", "big"},
		"concrete model": {"gpt-4.1-mini", "gpt-4.1-mini", false, "gpt-4.1-mini", "gpt-4.1-mini"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d := Definition{Model: tc.model}
			if n, inherit := d.ModelOrInherit(); n != tc.name || inherit != tc.inherit {
				t.Errorf("ModelOrInherit = %q, %v; want %q, %v", n, inherit, tc.name, tc.inherit)
			}
			if got := d.ResolveModel("parent-model", aliases); got != tc.resolved {
				t.Errorf("ResolveModel = %q, want %q", got, tc.resolved)
			}
			if got := d.ResolveModel("parent-model", nil); got != tc.noAliasWant {
				t.Errorf("ResolveModel without aliases = %q, want %q", got, tc.noAliasWant)
			}
		})
	}
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
		"suggests the right case": {
			set:  NewSet(custom),
			name: "Code-Reviewer",
			want: `unknown subagent_type "Code-Reviewer" (did you mean "code-reviewer"? names are case-sensitive). Available:` + "\n" +
				"- code-reviewer: Reviews code. Long example",
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
		d.Tools[0] = "bash"
		s.All()[0].Tools[0] = "bash"
		if got, _ := s.Get("Explore"); got.Tools[0] != "read_file" {
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
