package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"covey/agent"
	"covey/internal/plural"
)

// Formats of Write.
const (
	FormatMarkdown = "md"
	FormatJSON     = "json"
	FormatHTML     = "html"
)

// Write renders r in format (md, json or html).
func Write(w io.Writer, r *Report, format string) error {
	switch format {
	case FormatMarkdown, "markdown", "":
		return writeMarkdown(w, r)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case FormatHTML:
		return writeHTML(w, r)
	}
	return fmt.Errorf("unknown report format %q: use md, json or html", format)
}

func writeMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	s := r.Session
	fmt.Fprintf(&b, "# Crew report · session %s\n\n", s.ID)
	fmt.Fprintf(&b, "- workspace: `%s`\n- model: %s\n- started: %s\n", s.Workspace, s.Model, s.Started.Format("2006-01-02 15:04"))
	if r.Timed {
		fmt.Fprintf(&b, "- span: %s\n", dur(s.Span))
	}
	fmt.Fprintf(&b, "- %s, %s\n- tokens: %s\n", plural.Count(s.UserTurns, "user turn"), plural.Count(s.Subagents, "subagent"), usageText(s.Totals))
	if s.Priced {
		fmt.Fprintf(&b, "- cost: $%.4f\n", s.Cost)
	}
	fmt.Fprintf(&b, "- transcripts: `%s` (`covey --resume %s` opens the session with every pane)\n\n", s.Transcript, s.ID)
	b.WriteString("| agent | type | model | state | turns | tools | tokens in/out | cache read | cost | elapsed | paused | files | review |\n")
	b.WriteString("|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|---|\n")
	for _, a := range r.Agents {
		tools := fmt.Sprint(a.ToolCalls)
		if a.FailedCalls > 0 {
			tools += fmt.Sprintf(" (%d failed)", a.FailedCalls)
		}
		cost := "-"
		if a.Cost > 0 {
			cost = fmt.Sprintf("$%.4f", a.Cost)
		}
		fmt.Fprintf(&b, "| %s%s | %s | %s | %s | %d | %s | %s/%s | %s | %s | %s | %s | %s | %s |\n",
			strings.Repeat("↳ ", max(a.Depth-1, 0)), cellMD(a.Name), cellMD(a.Type), cellMD(a.Model), a.State, a.Turns, tools,
			agent.FormatTokens(a.Usage.In), agent.FormatTokens(a.Usage.Out), agent.FormatTokens(a.Usage.CacheRead), cost,
			dur(a.Elapsed), dur(a.Paused), cellMD(filesText(a)), cellMD(a.Review))
	}
	for _, a := range r.Agents {
		if a.ID == agent.MainAgentID {
			continue
		}
		fmt.Fprintf(&b, "\n## %s (%s, %s)\n\n", a.Name, a.ID, a.Type)
		if a.Task != "" {
			fmt.Fprintf(&b, "- task: %s\n", a.Task)
		}
		fmt.Fprintf(&b, "- state: %s", a.State)
		if a.Error != "" {
			fmt.Fprintf(&b, " (%s)", a.Error)
		}
		b.WriteString("\n")
		if a.Summary != "" {
			fmt.Fprintf(&b, "- report: %s\n", a.Summary)
		}
		for _, f := range a.Files {
			fmt.Fprintf(&b, "- `%s` %s +%d −%d\n", f.Path, f.Status, f.Added, f.Removed)
		}
		if a.MoreFiles > 0 {
			fmt.Fprintf(&b, "- … %d more files\n", a.MoreFiles)
		}
		for _, c := range a.Collisions {
			fmt.Fprintf(&b, "- ⚠ collision: %s\n", c)
		}
		fmt.Fprintf(&b, "- transcript: `%s`\n", a.Transcript)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func usageText(u Usage) string {
	t := agent.FormatTokens(u.In) + " in, " + agent.FormatTokens(u.Out) + " out"
	if u.CacheRead > 0 || u.CacheWrite > 0 {
		t += fmt.Sprintf(" (cache: %s read, %s written)", agent.FormatTokens(u.CacheRead), agent.FormatTokens(u.CacheWrite))
	}
	return t
}

func filesText(a *Agent) string {
	if len(a.Files) == 0 {
		return "-"
	}
	added, removed := 0, 0
	for _, f := range a.Files {
		added += f.Added
		removed += f.Removed
	}
	n := len(a.Files) + a.MoreFiles
	word := "files"
	if n == 1 {
		word = "file"
	}
	return fmt.Sprintf("%d %s +%d −%d", n, word, added, removed)
}

func dur(s Seconds) string {
	switch {
	case s <= 0:
		return "-"
	case s < 60:
		return fmt.Sprintf("%.1fs", float64(s))
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%dh%02dm", int(s)/3600, int(s)%3600/60)
}

func cellMD(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// WriteFile writes r in format to path atomically (a temporary file
// renamed over it): a reader never sees half a report.
func WriteFile(path string, r *Report, format string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".covey-report-*")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	defer func() { _ = os.Remove(f.Name()) }() // gone once renamed
	if err := Write(f, r, format); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		return fmt.Errorf("write report: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// Summary is the report in one line: "3 agents · 2 subagents (1 failed) ·
// 13.7k tokens in, 119 out · 2 files changed".
func Summary(r *Report) string {
	failed, files := 0, 0
	for _, a := range r.Agents {
		if a.State == "failed" {
			failed++
		}
		files += len(a.Files) + a.MoreFiles
	}
	s := plural.Count(r.Session.Subagents, "subagent")
	if failed > 0 {
		s += fmt.Sprintf(" (%d failed)", failed)
	}
	s += " · " + usageText(r.Session.Totals)
	if r.Session.Priced {
		s += fmt.Sprintf(" · $%.4f", r.Session.Cost)
	}
	return s + " · " + plural.Count(files, "file") + " changed"
}
