// Package statusline runs Claude Code's status line: the statusLine (and
// subagentStatusLine) command of its settings files, given Claude Code's
// JSON on stdin, whose first line of output covey shows under its status
// bar (and in each subagent pane's header). It reads the settings and
// runs the command; when and where the line is drawn is the UI's
// (ui/statusline.go).
package statusline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"covey/hooks"
	"covey/internal/safefile"
)

// Timeout bounds one run: a status line that takes longer shows nothing
// new, and the next state change runs it again.
const Timeout = 5 * time.Second

// Setting is one statusLine object of a settings file.
type Setting struct {
	// Type is "command", the only type Claude Code has.
	Type    string `json:"type"`
	Command string `json:"command"`
	// Padding is the blank columns before the line.
	Padding int `json:"padding"`
	// Source names the settings file; Project is set for a repository's
	// (.claude/settings*.json), which runs only once trusted.
	Source  string `json:"-"`
	Project bool   `json:"-"`
}

// Settings are the status lines a session shows; nil for none.
type Settings struct {
	Main, Subagent *Setting
	// Problems are what could not be read, one line each.
	Problems []string
}

// maxSettingsSize bounds a settings file.
const maxSettingsSize = 1 << 20

// Read reads statusLine and subagentStatusLine from Claude Code's settings
// files, the first that sets each winning: the project's
// .claude/settings.local.json, then .claude/settings.json, then
// ~/.claude/settings.json (Claude Code's precedence).
func Read(home, workspace string) Settings {
	var out Settings
	type file struct {
		path, source string
		project      bool
	}
	var files []file
	if workspace != "" {
		for _, name := range []string{"settings.local.json", "settings.json"} {
			files = append(files, file{filepath.Join(workspace, ".claude", name), filepath.Join(".claude", name), true})
		}
	}
	if home != "" {
		files = append(files, file{filepath.Join(home, ".claude", "settings.json"), filepath.Join("~", ".claude", "settings.json"), false})
	}
	for _, f := range files {
		main, sub, err := readFile(f.path)
		if err != nil {
			out.Problems = append(out.Problems, fmt.Sprintf("%s: %v", f.source, err))
			continue
		}
		for _, s := range []struct {
			got  *Setting
			into **Setting
		}{{main, &out.Main}, {sub, &out.Subagent}} {
			if s.got != nil && *s.into == nil {
				s.got.Source, s.got.Project = f.source, f.project
				*s.into = s.got
			}
		}
	}
	return out
}

// readFile reads one settings file's status lines; a missing file has none.
func readFile(path string) (main, sub *Setting, err error) {
	data, err := safefile.Read(path, maxSettingsSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	var s struct {
		StatusLine         *Setting `json:"statusLine"`
		SubagentStatusLine *Setting `json:"subagentStatusLine"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		// The hooks' reading of the same file names a broken one.
		return nil, nil, fmt.Errorf("statusLine: %w", err)
	}
	for _, st := range []*Setting{s.StatusLine, s.SubagentStatusLine} {
		if st != nil && st.Type != "" && st.Type != "command" {
			return nil, nil, fmt.Errorf("statusLine: type %q is not supported (only command)", st.Type)
		}
	}
	if s.StatusLine != nil && strings.TrimSpace(s.StatusLine.Command) == "" {
		s.StatusLine = nil
	}
	if s.SubagentStatusLine != nil && strings.TrimSpace(s.SubagentStatusLine.Command) == "" {
		s.SubagentStatusLine = nil
	}
	return s.StatusLine, s.SubagentStatusLine, nil
}

// Input is the JSON the command reads on stdin: Claude Code's fields.
type Input struct {
	HookEventName  string        `json:"hook_event_name"`
	SessionID      string        `json:"session_id"`
	TranscriptPath string        `json:"transcript_path"`
	Cwd            string        `json:"cwd"`
	Model          Model         `json:"model"`
	Workspace      Workspace     `json:"workspace"`
	Version        string        `json:"version"`
	OutputStyle    OutputStyle   `json:"output_style"`
	Cost           Cost          `json:"cost"`
	ContextWindow  ContextWindow `json:"context_window"`
	// Exceeds200K is Claude Code's flag for a context past 200,000 tokens.
	Exceeds200K bool `json:"exceeds_200k_tokens"`
	// Agent is the child a subagentStatusLine is run for (nil for the
	// main status line).
	Agent *Agent `json:"agent,omitempty"`
}

// Model is the model of the agent the line is for.
type Model struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
}

// Workspace is where the session works.
type Workspace struct {
	CurrentDir string `json:"current_dir"`
	ProjectDir string `json:"project_dir"`
}

// OutputStyle is Claude Code's output style; covey's is "default".
type OutputStyle struct {
	Name string `json:"name"`
}

// Cost is what the session (or the child) spent.
type Cost struct {
	TotalCostUSD       float64 `json:"total_cost_usd"`
	TotalDurationMS    int64   `json:"total_duration_ms"`
	TotalAPIDurationMS int64   `json:"total_api_duration_ms"`
	TotalLinesAdded    int     `json:"total_lines_added"`
	TotalLinesRemoved  int     `json:"total_lines_removed"`
}

// ContextWindow is the context's fill.
type ContextWindow struct {
	TotalInputTokens    int      `json:"total_input_tokens"`
	TotalOutputTokens   int      `json:"total_output_tokens"`
	ContextWindowSize   int      `json:"context_window_size"`
	UsedPercentage      *float64 `json:"used_percentage"`
	RemainingPercentage *float64 `json:"remaining_percentage"`
	CurrentUsage        *Usage   `json:"current_usage"`
}

// Usage is the last request's tokens.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// Agent names the child of a subagentStatusLine.
type Agent struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	State       string `json:"state,omitempty"`
}

// Fill sets the context window's fields from tokens in a window of size
// (0 when unknown: the percentages stay null, as Claude Code leaves them
// before the first request).
func (c *ContextWindow) Fill(tokens, size int) {
	c.ContextWindowSize = size
	if tokens <= 0 || size <= 0 {
		return
	}
	used := float64(tokens) * 100 / float64(size)
	rest := max(100-used, 0)
	c.UsedPercentage, c.RemainingPercentage = &used, &rest
	c.CurrentUsage = &Usage{InputTokens: tokens}
}

// Run runs s's command with in on stdin, in dir, without the environment
// variables named in scrub (covey's own API keys), and returns the first
// line of its output (ANSI colours kept; the UI cleans and cuts it).
func Run(ctx context.Context, s Setting, in Input, dir string, scrub []string) (string, error) {
	if in.HookEventName == "" {
		in.HookEventName = "Status"
	}
	data, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	out, exit, err := hooks.RunCommand(ctx, s.Command, data, dir,
		hooks.Environ(scrub, "CLAUDE_PROJECT_DIR="+in.Workspace.ProjectDir, "COVEY_PROJECT_DIR="+in.Workspace.ProjectDir), Timeout)
	if err != nil {
		return "", err
	}
	if exit != 0 {
		return "", fmt.Errorf("exit %d", exit)
	}
	line, _, _ := strings.Cut(out, "\n")
	line = strings.TrimRight(line, "\r")
	if s.Padding > 0 {
		line = strings.Repeat(" ", min(s.Padding, 20)) + line
	}
	return line, nil
}
