package agentdefs

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"covey/tools/toolname"
)

// outcome is how one agent file loads: what a test compares between covey
// and what Claude Code's documentation says Claude Code does.
type outcome struct {
	loads     bool
	name      string
	tools     []string // covey names; nil means every tool
	deny      []string // disallowed tools, covey names
	rules     []string // the patterns kept, as written
	denyRules []string // disallowedTools patterns, as written
	spawn     []string // types Agent(...) limits spawning to; nil means any
	model     string   // as written ("inherit" when omitted)
	descHas   string   // a phrase the description must keep
	mode      string   // permissionMode as read ("" when omitted)
	isolation string   // isolation as read ("" when omitted)
	bg        bool     // background as read
}

// quirk is one fixture in testdata/quirks: the outcome Claude Code's
// documented behaviour gives (subagent docs: name and description
// required, tools as a comma string or list and omitted = every tool,
// Agent(...)/Task(...) limiting spawnable types, model alias or id, last
// key wins; where the docs are silent, what issue 14 reports Claude Code
// doing on real files), covey's own outcome when it deliberately differs,
// and the fields covey must warn about ("" for a warning about the file
// rather than a field).
type quirk struct {
	claude outcome
	covey  *outcome // nil: the same as claude
	warns  []string
	why    string // why covey differs
}

func quirks() map[string]quirk {
	rg := []string{toolname.ReadFile, toolname.Grep, toolname.Glob}
	return map[string]quirk{
		"colon-in-description.md": {claude: outcome{loads: true, name: "changelog-keeper", tools: []string{toolname.ReadFile, toolname.EditFile}, model: "inherit", descHas: "Note: never rewrites old entries."}, warns: []string{"description"}},
		"example-blocks.md": {claude: outcome{loads: true, name: "migration-checker", tools: rg, model: "inherit",
			descHas: "user: \"Is 0042_drop_legacy.sql safe to run?\"\nassistant: \"I'll ask the migration-checker agent to look at it.\""}, warns: []string{"description"}},
		"example-blocks-unindented.md": {claude: outcome{loads: true, name: "release-notes", tools: []string{toolname.ReadFile, toolname.Bash}, rules: []string{"Bash(git log:*)"}, model: "inherit",
			descHas: "<example>\nuser: \"Write the notes for v2.3\""}, warns: []string{"description"}},
		"duplicate-keys.md":       {claude: outcome{loads: true, name: "translator", tools: []string{toolname.ReadFile}, model: "haiku"}, warns: []string{"model"}},
		"name-with-spaces.md":     {claude: outcome{loads: true, name: "Code Reviewer", tools: []string{toolname.ReadFile, toolname.Grep, toolname.Glob, toolname.Bash}, rules: []string{"Bash(git diff:*)"}, model: "inherit"}},
		"long-fence.md":           {claude: outcome{loads: true, name: "fence-lover", tools: []string{toolname.ReadFile}, model: "inherit"}, warns: []string{""}},
		"crlf.md":                 {claude: outcome{loads: true, name: "windows-agent", tools: []string{toolname.ReadFile, toolname.Grep}, model: "inherit", descHas: "CRLF line ends."}},
		"bom.md":                  {claude: outcome{loads: true, name: "bom-agent", tools: []string{toolname.Glob}, model: "inherit"}},
		"tabs.md":                 {claude: outcome{loads: true, name: "tabby", tools: []string{toolname.ReadFile, toolname.Grep}, model: "inherit"}, warns: []string{"tools"}},
		"long-name.md":            {claude: outcome{loads: true, name: "the-agent-whose-name-goes-on-and-on-well-past-what-anyone-would-type", tools: []string{toolname.ReadFile}, model: "inherit"}, warns: []string{"name"}},
		"maxturns-many.md":        {claude: outcome{loads: true, name: "patient", tools: []string{toolname.ReadFile}, model: "inherit"}, warns: []string{"maxTurns"}},
		"tools-comma.md":          {claude: outcome{loads: true, name: "comma-tools", tools: rg, model: "inherit"}},
		"tools-space.md":          {claude: outcome{loads: true, name: "space-tools", tools: rg, model: "inherit"}},
		"tools-list.md":           {claude: outcome{loads: true, name: "list-tools", tools: rg, model: "inherit"}},
		"tools-empty.md":          {claude: outcome{loads: true, name: "no-tools", tools: []string{}, model: "inherit"}},
		"tools-omitted.md":        {claude: outcome{loads: true, name: "every-tool", model: "inherit"}},
		"bash-rules.md":           {claude: outcome{loads: true, name: "git-reader", tools: []string{toolname.Bash}, rules: []string{"Bash(git diff:*)", "Bash(git log:*)", "Bash(npm test)"}, model: "inherit"}},
		"path-rules.md":           {claude: outcome{loads: true, name: "doc-editor", tools: []string{toolname.ReadFile, toolname.EditFile}, rules: []string{"Read(src/**)", "Edit(docs/**)"}, model: "inherit"}},
		"agent-spawn.md":          {claude: outcome{loads: true, name: "coordinator", tools: []string{toolname.ReadFile, toolname.Task}, spawn: []string{"Explore", "Plan"}, model: "inherit"}},
		"task-spawn.md":           {claude: outcome{loads: true, name: "old-coordinator", tools: []string{toolname.ReadFile, toolname.Task}, spawn: []string{"Explore"}, model: "inherit"}},
		"unknown-tools.md":        {claude: outcome{loads: true, name: "notebook-fan", tools: []string{toolname.ReadFile}, model: "inherit"}, warns: []string{"tools"}},
		"task-list-tools.md":      {claude: outcome{loads: true, name: "planner-todo", tools: []string{toolname.ReadFile, toolname.TodoWrite}, model: "inherit"}},
		"webfetch.md":             {claude: outcome{loads: true, name: "fetcher", tools: []string{toolname.ReadFile, toolname.WebFetch}, model: "inherit"}},
		"mcp-tools.md":            {claude: outcome{loads: true, name: "issue-triager", tools: []string{toolname.ReadFile, "mcp__github__list_issues", "mcp__github__add_label"}, model: "inherit"}},
		"permission-mode.md":      {claude: outcome{loads: true, name: "careful-planner", model: "inherit", mode: "plan"}},
		"isolation-background.md": {claude: outcome{loads: true, name: "side-worker", model: "inherit", isolation: "worktree", bg: true}},
		// Keys covey does not know, after an example block, must not glue
		// their values onto the ones above: tags: would add bash and the
		// write tools to tools:, and isolation: would vanish into the
		// description.
		"unfamiliar-keys-in-fallback.md": {claude: outcome{loads: true, name: "doc-fixer", tools: []string{toolname.ReadFile, toolname.Grep}, model: "inherit",
			mode: "plan", isolation: "worktree", descHas: "user: \"fix the typo in README.md\"\nassistant: \"I'll hand it to the doc-fixer agent.\"\n</example>"},
			warns: []string{"description", "tags", "version", "argument-hint"}},
		"color.md":            {claude: outcome{loads: true, name: "colourful", tools: []string{toolname.ReadFile}, model: "inherit"}},
		"unsupported-keys.md": {claude: outcome{loads: true, name: "skilled", tools: []string{toolname.ReadFile}, model: "inherit"}, warns: []string{"memory"}},
		"model-alias.md":      {claude: outcome{loads: true, name: "quick-haiku", tools: []string{toolname.ReadFile}, model: "haiku"}},
		"model-full-id.md":    {claude: outcome{loads: true, name: "pinned-model", tools: []string{toolname.ReadFile}, model: "claude-sonnet-4-5-20250929"}},
		"disallowed.md":       {claude: outcome{loads: true, name: "no-writes", deny: []string{toolname.WriteFile, toolname.EditFile}, model: "inherit"}},
		"only-unknown-tools.md": {
			claude: outcome{loads: true, name: "only-strangers", tools: []string{}, model: "inherit"},
			covey:  &outcome{loads: false},
			why:    "an agent left with no tools because covey lacks them all is an error (issue 14 §2), not a silent tool-less agent",
		},
		"webfetch-domain.md":     {claude: outcome{loads: true, name: "domain-fetcher", tools: []string{toolname.ReadFile, toolname.WebFetch}, rules: []string{"WebFetch(domain:go.dev)"}, model: "inherit"}},
		"disallowed-patterns.md": {claude: outcome{loads: true, name: "no-deletes", tools: []string{toolname.ReadFile, toolname.Bash}, denyRules: []string{"Bash(rm:*)", "Bash(git push:*)"}, model: "inherit"}},
	}
}

// outcomeOf parses one fixture into an outcome.
func outcomeOf(t *testing.T, path string) (outcome, []Problem) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, warnings, err := Parse(path, data)
	if err != nil {
		return outcome{}, nil
	}
	o := outcome{loads: true, name: d.Name, tools: d.Tools, deny: d.DisallowedTools, spawn: d.SpawnTypes, model: d.Model,
		mode: d.PermissionMode, isolation: d.Isolation, bg: d.Background}
	o.rules, o.denyRules = d.RuleSources(), d.DenySources()
	return o, warnings
}

// matches reports whether got is the outcome want describes.
func (want outcome) matches(got outcome, desc string) bool {
	if !want.loads || !got.loads {
		return want.loads == got.loads
	}
	same := func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b) }
	return want.name == got.name && reflect.DeepEqual(want.tools, got.tools) && same(want.deny, got.deny) &&
		same(want.rules, got.rules) && same(want.denyRules, got.denyRules) && reflect.DeepEqual(want.spawn, got.spawn) && want.model == got.model &&
		strings.Contains(desc, want.descHas) && want.mode == got.mode && want.isolation == got.isolation && want.bg == got.bg
}

func TestQuirkFixtures(t *testing.T) {
	dir := filepath.Join("testdata", "quirks")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	table := quirks()
	var files []string
	for _, e := range entries {
		if !e.IsDir() {
			files = append(files, e.Name())
			if _, ok := table[e.Name()]; !ok {
				t.Errorf("fixture %s has no expectation in quirks()", e.Name())
			}
		}
	}
	for name, q := range table {
		t.Run(name, func(t *testing.T) {
			if !slices.Contains(files, name) {
				t.Fatalf("fixture %s is missing", name)
			}
			path := filepath.Join(dir, name)
			got, warnings := outcomeOf(t, path)
			want := q.claude
			if q.covey != nil {
				want = *q.covey
			}
			desc := ""
			if got.loads {
				data, _ := os.ReadFile(path)
				d, _, _ := Parse(path, data)
				desc = d.Description
			}
			if !want.matches(got, desc) {
				t.Errorf("loaded as %+v (description %q), want %+v", got, desc, want)
			}
			var fields []string
			for _, w := range warnings {
				fields = append(fields, w.Field)
				if w.Path != path || w.Line <= 0 {
					t.Errorf("warning %+v does not name the file and a line", w)
				}
			}
			if !slices.Equal(fields, q.warns) {
				t.Errorf("warnings %v name fields %q, want %q", warnings, fields, q.warns)
			}
		})
	}
}

// TestQuirkFixturesAgainstClaudeCode counts the fixtures that load the way
// Claude Code's documented behaviour says, and lists the ones that do not
// with the reason covey differs. Every difference must be one of the
// deliberate ones in quirks().
func TestQuirkFixturesAgainstClaudeCode(t *testing.T) {
	dir := filepath.Join("testdata", "quirks")
	table := quirks()
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	slices.Sort(names)
	same := 0
	for _, name := range names {
		q := table[name]
		path := filepath.Join(dir, name)
		got, _ := outcomeOf(t, path)
		desc := ""
		if got.loads {
			data, _ := os.ReadFile(path)
			d, _, _ := Parse(path, data)
			desc = d.Description
		}
		switch {
		case q.claude.matches(got, desc):
			same++
		case q.covey == nil:
			t.Errorf("%s: loads as %+v, not as Claude Code would (%+v)", name, got, q.claude)
		default:
			t.Logf("differs on purpose: %s: %s", name, q.why)
		}
	}
	// The same-name pair is one more fixture, checked through Load: the
	// later file by name wins, as in Claude Code.
	total := len(names) + 1
	if sameNameWinner(t) == "The second of two files named twin." {
		same++
	} else {
		t.Error("same-name: the later file by name did not win")
	}
	t.Logf("%d of %d fixtures load as Claude Code's documented behaviour says", same, total)
}

// sameNameWinner loads testdata/quirks/same-name as a project's
// .claude/agents and returns the description of the twin that won,
// checking the warning names both files.
func sameNameWinner(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("testdata", "quirks", "same-name")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[".claude/agents/"+e.Name()] = string(data)
	}
	writeTree(t, root, files)
	s, problems := Load(LoadOptions{ProjectDir: root})
	if len(problems) != 1 || !problems[0].Warning || !strings.HasSuffix(problems[0].Path, "b-second.md") ||
		!strings.Contains(problems[0].Message, "a-first.md") {
		t.Errorf("problems = %v, want one warning on b-second.md naming a-first.md", problems)
	}
	d, _ := s.Get("twin")
	return d.Description
}
