package agentdefs

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteList writes the output of `covey agents`: every definition in s,
// then the shadowed ones (with the definition that wins over each), then the
// problems. With asJSON it writes one JSON object instead:
//
//	{"agents":[...], "shadowed":[...], "problems":[{"path","line","message","warning"}]}
//
// where each agent has name, description, source, scope, tools (the
// effective set out of covey's tools), model, provider, read_only,
// max_turns and timeout_s with defaults applied, allowed_paths, and for
// shadowed ones shadowed_by (the winner's source).
func WriteList(w io.Writer, s *Set, problems []Problem, asJSON bool) error {
	if asJSON {
		return writeJSON(w, s, problems)
	}
	return writeText(w, s, problems)
}

// listAgent is one definition in the JSON listing.
type listAgent struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Source       string   `json:"source"`
	Scope        Scope    `json:"scope"`
	Tools        []string `json:"tools"`
	Model        string   `json:"model"`
	Provider     string   `json:"provider,omitempty"`
	ReadOnly     bool     `json:"read_only"`
	MaxTurns     int      `json:"max_turns"`
	TimeoutS     float64  `json:"timeout_s"`
	AllowedPaths []string `json:"allowed_paths,omitempty"`
	ShadowedBy   string   `json:"shadowed_by,omitempty"`
}

type listing struct {
	Agents   []listAgent `json:"agents"`
	Shadowed []listAgent `json:"shadowed"`
	Problems []Problem   `json:"problems"`
}

func toListAgent(d Definition) listAgent {
	return listAgent{
		Name:         d.Name,
		Description:  d.Description,
		Source:       d.Source,
		Scope:        d.Scope,
		Tools:        EffectiveTools(d, allTools()),
		Model:        d.Model,
		Provider:     d.Provider,
		ReadOnly:     d.ReadOnly,
		MaxTurns:     d.EffectiveMaxTurns(),
		TimeoutS:     d.EffectiveTimeout().Seconds(),
		AllowedPaths: d.AllowedPaths,
	}
}

func writeJSON(w io.Writer, s *Set, problems []Problem) error {
	out := listing{Agents: []listAgent{}, Shadowed: []listAgent{}, Problems: []Problem{}}
	for _, d := range s.All() {
		out.Agents = append(out.Agents, toListAgent(d))
	}
	for _, d := range s.Shadowed() {
		a := toListAgent(d)
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

// toolsColumn shows the effective tools, or "all except task" for the
// common case of no allowlist, which would otherwise be a long line.
func toolsColumn(d Definition) string {
	if d.Tools == nil && len(d.DisallowedTools) == 0 {
		return "all except task"
	}
	tools := EffectiveTools(d, allTools())
	if len(tools) == 0 {
		return "none"
	}
	return strings.Join(tools, ", ")
}

// modelColumn shows the model as written, noting when a Claude alias will
// in fact inherit the parent's model (unless config maps it).
func modelColumn(d Definition) string {
	if _, inherit := d.ModelOrInherit(); inherit && !strings.EqualFold(d.Model, "inherit") && d.Model != "" {
		return d.Model + " (inherit)"
	}
	if d.Model == "" {
		return "inherit"
	}
	return d.Model
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

func writeText(w io.Writer, s *Set, problems []Problem) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew.w, 0, 4, 2, ' ', 0)
	tabs := &errWriter{w: tw}
	tabs.printf("NAME\tSCOPE\tMODEL\tACCESS\tTOOLS\tSOURCE\n")
	for _, d := range s.All() {
		tabs.printf("%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.Scope, modelColumn(d), accessColumn(d), toolsColumn(d), d.Source)
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
		ew.printf("\nProblems:\n")
		for _, p := range problems {
			kind := "error  "
			if p.Warning {
				kind = "warning"
			}
			ew.printf("  %s  %s\n", kind, p.Error())
		}
	}
	for _, err := range []error{tabs.err, ew.err} {
		if err != nil {
			return fmt.Errorf("write agent list: %w", err)
		}
	}
	return nil
}
