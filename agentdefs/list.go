package agentdefs

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"covey/internal/plural"
	"covey/tools/toolname"
)

// ListOptions says how WriteList shows the definitions.
type ListOptions struct {
	// JSON writes one JSON object instead of text.
	JSON bool
	// ParentModel is the session's model, which "inherit" and unmapped
	// Claude model names resolve to; "" shows them as "inherit".
	ParentModel string
	// Aliases is config's model_aliases.
	Aliases map[string]string
	// InheritModel is the model a child that inherits runs when it is
	// not the parent's (config's subagent_model); "" means the parent's.
	InheritModel string
}

// resolve is the model a child of type d runs and the Claude name nothing
// maps, as session.resolveChild picks it: inherit (or no model) runs
// InheritModel when set, an unmapped Claude name the parent's model.
func (opts ListOptions) resolve(d Definition) (resolved, unmapped string) {
	parent := opts.ParentModel
	if parent == "" {
		parent = "inherit"
	}
	if w := strings.TrimSpace(d.Model); opts.InheritModel != "" && (w == "" || strings.EqualFold(w, "inherit")) {
		return opts.InheritModel, ""
	}
	return ResolveModel(d.Model, parent, opts.Aliases)
}

// HasErrors reports whether any problem is an error (a file that did not
// load), not a warning.
func HasErrors(problems []Problem) bool {
	for _, p := range problems {
		if !p.Warning {
			return true
		}
	}
	return false
}

// WriteList writes the output of `covey agents`: every definition in s,
// then the shadowed ones (with the definition that wins over each), then the
// problems, grouped by file. With opts.JSON it writes one JSON object:
//
//	{"agents":[...], "shadowed":[...], "problems":[{"path","line","field","message","warning"}]}
//
// where each agent has name, description, source, scope, tools (the
// effective set out of covey's tools), tool_rules, spawn_types, model (as
// written) and resolved_model, provider, permission_mode, isolation,
// background, color, read_only, max_turns and timeout_s with defaults
// applied, allowed_paths, and for shadowed ones shadowed_by (the winner's
// source).
func WriteList(w io.Writer, s *Set, problems []Problem, opts ListOptions) error {
	if opts.JSON {
		return writeJSON(w, s, problems, opts)
	}
	return writeText(w, s, problems, opts)
}

// listAgent is one definition in the JSON listing.
type listAgent struct {
	Name           string     `json:"name"`
	Description    string     `json:"description"`
	Source         string     `json:"source"`
	Scope          Scope      `json:"scope"`
	Tools          []string   `json:"tools"`
	ToolRules      []ToolRule `json:"tool_rules,omitempty"`
	SpawnTypes     []string   `json:"spawn_types,omitempty"`
	MCPServers     []string   `json:"mcp_servers,omitempty"`
	Model          string     `json:"model"`
	ResolvedModel  string     `json:"resolved_model"`
	Provider       string     `json:"provider,omitempty"`
	PermissionMode string     `json:"permission_mode,omitempty"`
	Isolation      string     `json:"isolation,omitempty"`
	Background     bool       `json:"background,omitempty"`
	Color          string     `json:"color,omitempty"`
	ReadOnly       bool       `json:"read_only"`
	MaxTurns       int        `json:"max_turns"`
	TimeoutS       float64    `json:"timeout_s"`
	AllowedPaths   []string   `json:"allowed_paths,omitempty"`
	ShadowedBy     string     `json:"shadowed_by,omitempty"`
}

type listing struct {
	Agents   []listAgent `json:"agents"`
	Shadowed []listAgent `json:"shadowed"`
	Problems []Problem   `json:"problems"`
}

// listTools is the effective tool set plus the MCP tools the definition
// names (which covey's own list does not hold).
func listTools(d Definition) []string {
	out := EffectiveTools(d, allTools())
	for _, t := range d.Tools {
		if strings.HasPrefix(t, "mcp__") {
			out = append(out, t)
		}
	}
	return out
}

func toListAgent(d Definition, opts ListOptions) listAgent {
	resolved, _ := opts.resolve(d)
	return listAgent{
		Name:           d.Name,
		Description:    d.Description,
		Source:         d.Source,
		Scope:          d.Scope,
		Tools:          listTools(d),
		ToolRules:      d.ToolRules,
		SpawnTypes:     d.SpawnTypes,
		MCPServers:     d.MCPServers,
		Model:          d.Model,
		ResolvedModel:  resolved,
		Provider:       d.Provider,
		PermissionMode: d.PermissionMode,
		Isolation:      d.Isolation,
		Background:     d.Background,
		Color:          d.Color,
		ReadOnly:       d.ReadOnly,
		MaxTurns:       d.EffectiveMaxTurns(),
		TimeoutS:       d.EffectiveTimeout().Seconds(),
		AllowedPaths:   d.AllowedPaths,
	}
}

func writeJSON(w io.Writer, s *Set, problems []Problem, opts ListOptions) error {
	out := listing{Agents: []listAgent{}, Shadowed: []listAgent{}, Problems: []Problem{}}
	for _, d := range s.All() {
		out.Agents = append(out.Agents, toListAgent(d, opts))
	}
	for _, d := range s.Shadowed() {
		a := toListAgent(d, opts)
		if winner, ok := s.Get(d.Name); ok {
			a.ShadowedBy = winner.Source
		}
		out.Shadowed = append(out.Shadowed, a)
	}
	out.Problems = append(out.Problems, problems...)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write agent list: %w", err)
	}
	return nil
}

// toolsColumn shows ToolList on one line.
func toolsColumn(d Definition) string { return strings.Join(d.ToolList(), ", ") }

// ToolList describes the tools a child of this type gets, for people:
// each tool limited by rules as its rules (Bash(git diff:*)), task with
// the types it may start (task(Explore, Plan)), and MCP tools by name;
// ["all except task"] for the common case of no allowlist, which would
// otherwise be a long line, and ["none"] for none.
func (d Definition) ToolList() []string {
	if d.Tools == nil && len(d.DisallowedTools) == 0 {
		return []string{"all except task"}
	}
	tools := listTools(d)
	if len(tools) == 0 {
		return []string{"none"}
	}
	var parts []string
	for _, t := range tools {
		switch rules := d.RulesFor(t); {
		case len(rules) > 0:
			for _, r := range rules {
				if !slices.Contains(parts, r) {
					parts = append(parts, r)
				}
			}
		case t == toolname.Task && d.SpawnTypes != nil:
			parts = append(parts, "task("+strings.Join(d.SpawnTypes, ", ")+")")
		default:
			parts = append(parts, t)
		}
	}
	return parts
}

// ModelText says which model a child of type d runs, given the parent's
// model, config's model_aliases and subagent_model (opts), and what the
// file wrote when that differs: "qwen3-coder (sonnet)", "gpt-4.1 (haiku
// unmapped)".
func ModelText(d Definition, opts ListOptions) string {
	return modelColumn(d, opts)
}

// Notes are the settings of d beyond name, model and tools, one short line
// each, for /agents: permission mode, isolation, background, MCP servers,
// colour.
func (d Definition) Notes() []string {
	var out []string
	if d.PermissionMode != "" {
		out = append(out, "permission mode: "+d.PermissionMode)
	}
	if d.Isolation != "" {
		out = append(out, "isolation: "+d.Isolation)
	}
	if d.Background {
		out = append(out, "runs in the background")
	}
	if len(d.MCPServers) > 0 {
		out = append(out, "MCP servers: "+strings.Join(d.MCPServers, ", "))
	}
	if len(d.AllowedPaths) > 0 {
		out = append(out, "writes only: "+strings.Join(d.AllowedPaths, ", "))
	}
	if len(d.Skills) > 0 {
		out = append(out, "skills: "+strings.Join(d.Skills, ", "))
	}
	if d.Color != "" {
		out = append(out, "colour: "+d.Color)
	}
	return out
}

// modelColumn shows the model a child of this type runs, and what the file
// wrote when that differs ("qwen3-coder (sonnet)").
func modelColumn(d Definition, opts ListOptions) string {
	resolved, miss := opts.resolve(d)
	written := strings.TrimSpace(d.Model)
	switch {
	case miss != "" && opts.ParentModel != "":
		return fmt.Sprintf("%s (%s unmapped)", resolved, written)
	case miss != "":
		return fmt.Sprintf("inherit (%s unmapped)", written)
	case written == "" || strings.EqualFold(written, "inherit") || written == resolved:
		return resolved
	}
	return fmt.Sprintf("%s (%s)", resolved, written)
}

// settingsColumn is the Claude Code settings that change how a child runs,
// short: "mode plan, worktree, background, red"; "-" for none.
func settingsColumn(d Definition) string {
	var parts []string
	if d.PermissionMode != "" {
		parts = append(parts, "mode "+d.PermissionMode)
	}
	if d.Isolation != "" {
		parts = append(parts, d.Isolation)
	}
	if d.Background {
		parts = append(parts, "background")
	}
	if len(d.MCPServers) > 0 {
		parts = append(parts, "mcp "+strings.Join(d.MCPServers, "+"))
	}
	if d.Color != "" {
		parts = append(parts, d.Color)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func accessColumn(d Definition) string {
	if d.ReadOnly {
		return "read-only"
	}
	return "writes"
}

// errWriter remembers the first write error so the listing code can write
// freely and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

func writeText(w io.Writer, s *Set, problems []Problem, opts ListOptions) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew.w, 0, 4, 2, ' ', 0)
	tabs := &errWriter{w: tw}
	tabs.printf("NAME\tSCOPE\tMODEL\tACCESS\tTOOLS\tSETTINGS\tSOURCE\n")
	for _, d := range s.All() {
		tabs.printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.Scope, modelColumn(d, opts), accessColumn(d), toolsColumn(d), settingsColumn(d), d.Source)
	}
	if tabs.err == nil {
		tabs.err = tw.Flush()
	}
	if shadowed := s.Shadowed(); len(shadowed) > 0 && tabs.err == nil {
		ew.printf("\nShadowed (overridden by a definition of the same name):\n")
		tw = tabwriter.NewWriter(ew.w, 0, 4, 2, ' ', 0)
		tabs = &errWriter{w: tw}
		tabs.printf("NAME\tSCOPE\tSOURCE\tSHADOWED BY\n")
		for _, d := range shadowed {
			by := "?"
			if winner, ok := s.Get(d.Name); ok {
				by = winner.Source
			}
			tabs.printf("%s\t%s\t%s\t%s\n", d.Name, d.Scope, d.Source, by)
		}
		if tabs.err == nil {
			tabs.err = tw.Flush()
		}
	}
	if len(problems) > 0 && tabs.err == nil {
		ew.printf("\n")
		if ew.err == nil {
			ew.err = WriteProblems(ew.w, problems, "")
		}
	}
	for _, err := range []error{tabs.err, ew.err} {
		if err != nil {
			return fmt.Errorf("write agent list: %w", err)
		}
	}
	return nil
}

// WriteProblems writes problems under a line counting them, grouped by
// file so each file is named once: the form `covey agents` and headless
// runs (prefix "covey: ") show them in.
func WriteProblems(w io.Writer, problems []Problem, prefix string) error {
	if len(problems) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	ew.printf("%s%s:\n", prefix, ProblemCount(problems))
	for _, f := range ByFile(problems) {
		ew.printf("  %s\n", f.Path)
		for _, p := range f.Problems {
			ew.printf("    %s\n", p.Short())
		}
	}
	return ew.err
}

// FileProblems are the problems of one file, in the order found.
type FileProblems struct {
	Path     string
	Problems []Problem
}

// ByFile groups problems by file, files in the order they first appear,
// so each file is named once.
func ByFile(problems []Problem) []FileProblems {
	var out []FileProblems
	index := map[string]int{}
	for _, p := range problems {
		i, ok := index[p.Path]
		if !ok {
			i = len(out)
			index[p.Path] = i
			out = append(out, FileProblems{Path: p.Path})
		}
		out[i].Problems = append(out[i].Problems, p)
	}
	return out
}

// Short is the problem without its path, for a list grouped by file:
// "error   line 4: ..." or "warning line 3 (tools): ...".
func (p Problem) Short() string {
	kind := "error  "
	if p.Warning {
		kind = "warning"
	}
	where := ""
	switch {
	case p.Line > 0 && p.Field != "":
		where = fmt.Sprintf("line %d (%s): ", p.Line, p.Field)
	case p.Line > 0:
		where = fmt.Sprintf("line %d: ", p.Line)
	case p.Field != "":
		where = fmt.Sprintf("(%s): ", p.Field)
	}
	return kind + " " + where + p.Message
}

// ProblemCount says how many errors and warnings there are, in words:
// "1 error and 2 warnings in agent files".
func ProblemCount(problems []Problem) string {
	errs, warns := 0, 0
	for _, p := range problems {
		if p.Warning {
			warns++
		} else {
			errs++
		}
	}
	var parts []string
	if errs > 0 {
		parts = append(parts, plural.Count(errs, "error"))
	}
	if warns > 0 {
		parts = append(parts, plural.Count(warns, "warning"))
	}
	if len(parts) == 0 {
		return "no problems in agent files"
	}
	return strings.Join(parts, " and ") + " in agent files"
}
