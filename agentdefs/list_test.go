package agentdefs

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	xgolden "github.com/charmbracelet/x/exp/golden"

	"covey/tools/toolname"
)

// listFixture is a set with every kind of row: built-ins, a project
// override, a user agent with limits, shadowed definitions, and problems.
func listFixture() (*Set, []Problem) {
	defs := append(Builtins(),
		Definition{
			Name: "Explore", Description: "Project explorer.", Model: "haiku",
			Tools: []string{toolname.ReadFile, toolname.Grep}, Source: "/p/.covey/agents/explore.md", Scope: Project,
		},
		Definition{
			Name: "Explore", Description: "User explorer.", Model: "inherit",
			Source: "/h/.claude/agents/explore.md", Scope: User,
		},
		Definition{
			Name: "doc-writer", Description: "Writes docs.", Model: "qwen3-coder", Provider: "local",
			Tools: []string{toolname.ReadFile, toolname.WriteFile, toolname.Task}, MaxTurns: 30, Timeout: 90 * time.Second,
			AllowedPaths: []string{"docs/**"}, Source: "/c/covey/agents/doc-writer.md", Scope: User,
		},
		Definition{
			Name: "no-tools", Description: "Thinks only.", Model: "inherit", Tools: []string{},
			Source: "/p/.claude/agents/no-tools.md", Scope: Project,
		},
		Definition{
			Name: "Code Reviewer", Description: "Reviews diffs.", Model: "claude-sonnet-4-5-20250929",
			Tools:      []string{toolname.ReadFile, toolname.Bash, toolname.EditFile, toolname.Task, "mcp__github__get_pr"},
			ToolRules:  []ToolRule{{Tool: toolname.Bash, Pattern: "git diff:*", Source: "Bash(git diff:*)"}, {Tool: toolname.EditFile, Pattern: "docs/**", Source: "Edit(docs/**)"}},
			SpawnTypes: []string{"Explore"}, PermissionMode: "acceptEdits", Color: "cyan",
			Source: "/p/.claude/agents/reviewer.md", Scope: Project,
		},
		Definition{
			Name: "fast", Description: "Quick answers.", Model: "haiku", Tools: []string{toolname.ReadFile},
			Source: "/p/.claude/agents/fast.md", Scope: Project,
		},
	)
	problems := []Problem{
		{Path: "/p/.claude/agents/bad.md", Line: 4, Field: "tools", Message: `tools must be a list of tool names or a comma-separated string, but it is a mapping`},
		{Path: "/p/.claude/agents/web.md", Line: 3, Field: "tools", Message: `tools: covey has no ExitPlanMode; dropped`, Warning: true},
		{Path: "/h/.claude/agents", Message: "cannot read agents folder: permission denied"},
		{Path: "/p/.claude/agents/web.md", Line: 5, Field: "skills", Message: `skills is not supported yet; ignored`, Warning: true},
	}
	return NewSet(defs...), problems
}

func TestWriteList(t *testing.T) {
	full, problems := listFixture()
	aliases := map[string]string{"sonnet": "qwen3-coder"}
	tests := map[string]struct {
		set      *Set
		problems []Problem
		opts     ListOptions
	}{
		"text":          {full, problems, ListOptions{ParentModel: "gpt-4.1", Aliases: aliases}},
		"json":          {full, problems, ListOptions{JSON: true, ParentModel: "gpt-4.1", Aliases: aliases}},
		"builtins_text": {NewSet(Builtins()...), nil, ListOptions{}},
		"builtins_json": {NewSet(Builtins()...), nil, ListOptions{JSON: true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteList(&buf, tc.set, tc.problems, tc.opts); err != nil {
				t.Fatalf("WriteList: %v", err)
			}
			if tc.opts.JSON && !json.Valid(buf.Bytes()) {
				t.Fatalf("invalid JSON:\n%s", buf.String())
			}
			// testdata/<test>/<case>.golden; -update rewrites it.
			xgolden.RequireEqual(t, buf.Bytes())
		})
	}
}

func TestWriteListJSONShape(t *testing.T) {
	s, problems := listFixture()
	var buf bytes.Buffer
	if err := WriteList(&buf, s, problems, ListOptions{JSON: true, ParentModel: "gpt-4.1", Aliases: map[string]string{"sonnet": "qwen3-coder"}}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Agents []struct {
			Name          string     `json:"name"`
			Model         string     `json:"model"`
			ResolvedModel string     `json:"resolved_model"`
			ToolRules     []ToolRule `json:"tool_rules"`
			SpawnTypes    []string   `json:"spawn_types"`
			Scope         string     `json:"scope"`
			Tools         []string   `json:"tools"`
			ReadOnly      bool       `json:"read_only"`
			MaxTurns      int        `json:"max_turns"`
			TimeoutS      float64    `json:"timeout_s"`
		} `json:"agents"`
		Shadowed []struct {
			Name       string `json:"name"`
			ShadowedBy string `json:"shadowed_by"`
		} `json:"shadowed"`
		Problems []Problem `json:"problems"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Agents) != 7 {
		t.Fatalf("%d agents, want 7:\n%s", len(got.Agents), buf.String())
	}
	reviewer, docWriter, explore, fast, noTools := got.Agents[0], got.Agents[1], got.Agents[2], got.Agents[3], got.Agents[5]
	tests := map[string]struct {
		ok bool
	}{
		"doc-writer limits":        {docWriter.Name == "doc-writer" && docWriter.MaxTurns == 30 && docWriter.TimeoutS == 90 && !docWriter.ReadOnly},
		"defaults applied":         {explore.MaxTurns == DefaultMaxTurns && explore.TimeoutS == DefaultTimeout.Seconds() && explore.ReadOnly},
		"scope as a word":          {explore.Scope == "project"},
		"no-tools has empty tools": {noTools.Name == "no-tools" && noTools.Tools != nil && len(noTools.Tools) == 0},
		"shadowed name the winner": {len(got.Shadowed) == 2 && got.Shadowed[0].ShadowedBy == "/p/.covey/agents/explore.md"},
		"problems round-trip":      {len(got.Problems) == 4 && got.Problems[1] == problems[1]},
		"full id through family":   {reviewer.Model == "claude-sonnet-4-5-20250929" && reviewer.ResolvedModel == "qwen3-coder"},
		"unmapped alias inherits":  {fast.Model == "haiku" && fast.ResolvedModel == "gpt-4.1"},
		"rules and spawn types":    {len(reviewer.ToolRules) == 2 && reviewer.ToolRules[0].Source == "Bash(git diff:*)" && len(reviewer.SpawnTypes) == 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("failed on:\n%s", buf.String())
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteListReportsWriteErrors(t *testing.T) {
	s, problems := listFixture()
	for _, asJSON := range []bool{false, true} {
		t.Run(map[bool]string{false: "text", true: "json"}[asJSON], func(t *testing.T) {
			if err := WriteList(failWriter{}, s, problems, ListOptions{JSON: asJSON}); err == nil {
				t.Error("WriteList ignored a write error")
			}
		})
	}
}

// TestListedModelFollowsSubagentModel: a type that inherits runs config's
// subagent_model when one is set (session.resolveChild), and the list says
// so; an unmapped Claude alias still runs the parent's model.
func TestListedModelFollowsSubagentModel(t *testing.T) {
	opts := ListOptions{ParentModel: "parent-m", InheritModel: "sub-m", Aliases: map[string]string{"opus": "big-m"}}
	for model, want := range map[string]string{
		"":        "sub-m",
		"inherit": "sub-m",
		"opus":    "big-m (opus)",
		"haiku":   "parent-m (haiku unmapped)",
		"local-x": "local-x",
	} {
		if got := ModelText(Definition{Name: "a", Model: model}, opts); got != want {
			t.Errorf("model %q: listed as %q, want %q", model, got, want)
		}
	}
}
