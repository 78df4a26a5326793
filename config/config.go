// Package config loads covey's configuration: the user's and the project's
// config.yaml merged, then the environment and flags on top, resolved into
// the endpoint a session talks to.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"covey/agent"
	"covey/hooks"
	"covey/internal/safefile"
	"covey/lsp"
	"covey/mcp"
	"covey/permission"
	"covey/sandbox"
	"covey/websearch"
	"covey/worktree"
)

// Config is covey's configuration, read from the user's and the project's
// config.yaml; the project's values override the user's, flags override both.
type Config struct {
	Model            string                     `yaml:"model"`
	BaseURL          string                     `yaml:"base_url"`
	APIKeyEnv        string                     `yaml:"api_key_env"`
	Provider         string                     `yaml:"provider"`
	Providers        map[string]ProviderProfile `yaml:"providers"`
	SubagentModel    string                     `yaml:"subagent_model"`
	SubagentProvider string                     `yaml:"subagent_provider"`
	MaxTurns         int                        `yaml:"max_turns"`
	PermissionMode   string                     `yaml:"permission_mode"`
	Theme            string                     `yaml:"theme"`
	Subagents        SubagentConfig             `yaml:"subagents"`
	Permissions      PermissionRules            `yaml:"permissions"`
	Worktree         WorktreeConfig             `yaml:"worktree"`
	// Sandbox confines bash commands (see the sandbox package).
	Sandbox sandbox.Config `yaml:"sandbox"`
	// ModelAliases maps the model names of Claude Code agent files
	// (sonnet, opus, haiku, or a full Claude id) to models your server
	// serves; the project's entries win over the user's, one by one.
	ModelAliases map[string]string `yaml:"model_aliases"`
	// AllowAgentModeRaise lets an agent file's permissionMode be more
	// permissive than the session's mode. It is read from the user's
	// config only: a repository must not raise its own agents.
	AllowAgentModeRaise bool `yaml:"allow_agent_mode_raise"`
	// TrustedFolders are folders whose repositories' settings the user
	// trusts without being asked (and their subfolders); read from the
	// user's config only. See docs/permissions.md.
	TrustedFolders []string `yaml:"trusted_folders"`
	// PassKeysToTools gives commands (bash) covey's API key variables,
	// which they do not get otherwise (see KeyEnvNames); read from the
	// user's config only.
	PassKeysToTools bool `yaml:"pass_keys_to_tools"`
	// StreamIdleTimeout is how long a model's stream may stay silent
	// before the request is abandoned (default 120s); slow local models
	// thinking before their first token want more.
	StreamIdleTimeout time.Duration `yaml:"stream_idle_timeout"`
	// ApprovalGrace is how long a new approval ignores keys until the
	// keyboard has been quiet (unset: the TUI's default, 425ms; 0s: none;
	// at most MaxApprovalGrace).
	ApprovalGrace *time.Duration `yaml:"approval_grace"`
	// AskUser is "deny" to refuse the ask_user tool (the model decides
	// alone); "" or "ask" puts its questions to the user.
	AskUser string `yaml:"ask_user"`
	// Vision false says the model takes no images: an attached image is
	// refused before any request is sent.
	Vision *bool `yaml:"vision"`
	// StreamKeepAliveTimeout is how long a stream may go without progress
	// while only keep-alives or empty chunks arrive (default 10m);
	// StreamLimits cap one streamed answer
	// (see agent.StreamLimits). A project's file may lower both, not
	// raise them.
	StreamKeepAliveTimeout time.Duration      `yaml:"stream_keepalive_timeout"`
	StreamLimits           agent.StreamLimits `yaml:"stream_limits"`
	// MCPServers are MCP servers in Claude Code's shape (NAME: {type,
	// command, args, env, url, headers}). After Load it holds the user's
	// (trusted); the project's config file's are in ProjectMCPServers,
	// asked about like the project's .mcp.json.
	MCPServers        map[string]mcp.ServerConfig `yaml:"mcp_servers"`
	ProjectMCPServers map[string]mcp.ServerConfig `yaml:"-"`
	// MCPStartupGrace is how long the TUI's first request waits for MCP
	// servers still starting (default 2s); MCPMaxOutputTokens caps one MCP
	// result (default 25000 tokens, about 100 KB).
	MCPStartupGrace    time.Duration `yaml:"mcp_startup_grace"`
	MCPMaxOutputTokens int           `yaml:"mcp_max_output_tokens"`
	// FetchModel answers web_fetch's prompt over a fetched page (a model
	// of the main endpoint); without it the page itself is returned.
	FetchModel string `yaml:"fetch_model"`
	// Prices is what each model costs per million tokens ({model: {input,
	// output}}): /cost, the crew overview and children's cost budgets
	// use it. The project's entries win over the user's, model by model.
	Prices agent.Prices `yaml:"prices"`
	// Hooks are hook commands in Claude Code's shape (see docs/hooks.md).
	// After Load it holds the user's (trusted); the project's config
	// file's are in ProjectHooks, run once the user trusts them.
	Hooks        hooks.Config `yaml:"hooks"`
	ProjectHooks hooks.Config `yaml:"-"`
	// Notifications turns the bell and desktop notifications on or off,
	// per moment (see docs/hooks.md).
	Notifications Notifications `yaml:"notifications"`
	// AutoCompact is when covey compacts the conversation by itself (see
	// compact.go): a share of the window, or false.
	AutoCompact AutoCompact `yaml:"auto_compact"`
	// ContextWindow and MaxOutputTokens are the main model's window and
	// the part of it kept for an answer, in tokens (0: found out, see
	// docs/context.md); Models sets them per model name, with the
	// model's wire and reasoning.
	ContextWindow   int                      `yaml:"context_window"`
	MaxOutputTokens int                      `yaml:"max_output_tokens"`
	Models          map[string]ModelSettings `yaml:"models"`
	// API is the wire the top-level endpoint speaks: chat (Chat
	// Completions, the default), responses (OpenAI Responses) or anthropic
	// (Anthropic Messages); "" lets covey pick (see ResolveEndpoint).
	API string `yaml:"api"`
	// LSP configures the language servers (docs/code-intelligence.md).
	LSP lsp.Config `yaml:"lsp"`
	// WebSearch is web_search's backend; unset, the tool is not offered.
	WebSearch websearch.Config `yaml:"web_search"`
}

// ModelLimits are one model's context window and output budget in tokens;
// 0 leaves a value to be found out.
type ModelLimits struct {
	ContextWindow   int `yaml:"context_window"`
	MaxOutputTokens int `yaml:"max_output_tokens"`
}

// ModelSettings are what config says of one model under models: its
// limits, the wire it is served by, and how much it thinks.
type ModelSettings struct {
	ModelLimits `yaml:",inline"`
	// API is the model's wire (chat, responses, anthropic); "" is the
	// endpoint's.
	API string `yaml:"api"`
	// Effort is the model's reasoning effort (low, medium, high, ...):
	// Anthropic's output_config.effort, the Responses API's
	// reasoning.effort. "" leaves it to the server.
	Effort string `yaml:"effort"`
	// ThinkingBudget turns on Anthropic's extended thinking with this
	// many tokens (budget_tokens, at least 1024); 0 leaves it off.
	ThinkingBudget int `yaml:"thinking_budget"`
}

// Limits returns the configured window and output budget of model served
// by profile ("" for the top-level endpoint); mainModel is the model the
// session started with. The most specific setting wins, field by field:
// the profile's models entry, the top-level models entry, the profile's
// own values (for the profile's model), the top-level values (for the
// main model).
func (c Config) Limits(profile, model, mainModel string) ModelLimits {
	var out ModelLimits
	take := func(l ModelLimits) {
		if out.ContextWindow == 0 {
			out.ContextWindow = l.ContextWindow
		}
		if out.MaxOutputTokens == 0 {
			out.MaxOutputTokens = l.MaxOutputTokens
		}
	}
	p, hasProfile := c.Providers[profile]
	if hasProfile {
		take(p.Models[model].ModelLimits)
	}
	take(c.Models[model].ModelLimits)
	if hasProfile && (p.Model == model || (p.Model == "" && model == mainModel)) {
		take(ModelLimits{ContextWindow: p.ContextWindow, MaxOutputTokens: p.MaxOutputTokens})
	}
	if model == mainModel {
		take(ModelLimits{ContextWindow: c.ContextWindow, MaxOutputTokens: c.MaxOutputTokens})
	}
	return out
}

// Notifications says how the TUI calls the user back: a terminal bell
// and/or a desktop notification (OSC 9 / OSC 777), at each moment. Unset
// fields are on.
type Notifications struct {
	Bell    *bool `yaml:"bell"`
	Desktop *bool `yaml:"desktop"`
	// Approval: an approval waits (the main agent's or a child's).
	Approval *bool `yaml:"approval"`
	// Background: a background child finished.
	Background *bool `yaml:"background"`
	// TurnEnd: a turn ended while the terminal was not focused.
	TurnEnd *bool `yaml:"turn_end"`
	// Protocol overrides the desktop notification protocol covey picks
	// from the terminal: osc9, osc777, osc99 or none.
	Protocol string `yaml:"protocol"`
}

// On reports whether a setting is on: set true, or not set at all.
func On(b *bool) bool { return b == nil || *b }

// WorktreeConfig configures the git worktrees of isolated children.
type WorktreeConfig struct {
	// Base is what a child's worktree starts from: "working" (the
	// default: HEAD plus your uncommitted changes to tracked files) or
	// "head" (HEAD alone).
	Base string `yaml:"base"`
}

// ProviderProfile is one named endpoint, so OpenAI, a local Ollama and
// OpenRouter can be configured side by side.
type ProviderProfile struct {
	BaseURL   string `yaml:"base_url"`
	APIKeyEnv string `yaml:"api_key_env"`
	Model     string `yaml:"model"`
	// API is the profile's wire (chat, responses, anthropic); "" lets
	// covey pick.
	API string `yaml:"api"`
	// ContextWindow and MaxOutputTokens are the profile's model's; Models
	// sets them (and a wire, a reasoning effort) for any model the profile
	// serves.
	ContextWindow   int                      `yaml:"context_window"`
	MaxOutputTokens int                      `yaml:"max_output_tokens"`
	Models          map[string]ModelSettings `yaml:"models"`
}

// SubagentConfig holds the limits of children.
type SubagentConfig struct {
	Concurrency int           `yaml:"concurrency"` // children running at once (default 4)
	MaxDepth    int           `yaml:"max_depth"`   // nesting levels (default 1: children cannot spawn)
	MaxTurns    int           `yaml:"max_turns"`   // per child (default 15)
	Timeout     time.Duration `yaml:"timeout"`     // per child (default 5m)
	// MaxTokens and MaxCost are each child's default budgets (0: none):
	// tokens in + out, and cost by Prices. A definition's own win.
	MaxTokens int     `yaml:"max_tokens"`
	MaxCost   float64 `yaml:"max_cost"`
	// Judge names the agent type that picks one attempt of a best-of-N
	// task when nobody can be asked (headless); "": all are kept.
	Judge string `yaml:"judge"`
	// Check is a command run in each finished attempt's worktree of a
	// best-of-N task ("go build ./..."); CheckTimeout bounds it (default
	// 5m).
	Check        string        `yaml:"check"`
	CheckTimeout time.Duration `yaml:"check_timeout"`
}

// PermissionRules are allow and deny rules such as bash(go test:*).
type PermissionRules struct {
	Allow []string `yaml:"allow"`
	Deny  []string `yaml:"deny"`
}

// Paths returns the user's and the project's config file paths.
func Paths(workspace string) (user, project string) {
	return filepath.Join(UserDir(), "config.yaml"), filepath.Join(workspace, ".covey", "config.yaml")
}

// UserDir is covey's folder under XDG_CONFIG_HOME (default ~/.config).
func UserDir() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "covey")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "covey")
}

// Load reads and merges the user's and the project's config files.
// A missing file is fine; a broken one is an error naming the file and line.
// The project's settings that need trust apply only once the user trusted
// them (see trust.go); LoadTrusted says which those are. Load does not
// know the commands the folder brings, which the answer covers too, so a
// folder trusted with commands reads as untrusted here (fail closed):
// the session reads its config through LoadTrusted.
func Load(workspace string) (Config, error) {
	c, _, err := LoadTrusted(workspace, LoadOptions{})
	return c, err
}

// maxConfigSize bounds a config file: a real one is a few KB, and the
// project's comes from the repository, which may be hostile.
const maxConfigSize = 1 << 20

func readFile(path string) (Config, error) {
	data, err := safefile.Read(path, maxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err) // err names the file
	}
	return parseFile(path, data)
}

// parseFile decodes and checks one config file's content.
func parseFile(path string, data []byte) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("config %s: %s", path, plainYAMLError(err))
	}
	if g := c.ApprovalGrace; g != nil && (*g < 0 || *g > MaxApprovalGrace) {
		return Config{}, fmt.Errorf("config %s: approval_grace must be between 0s and %s (got %s)", path, MaxApprovalGrace, *g)
	}
	if c.AskUser != "" && c.AskUser != "ask" && c.AskUser != "deny" {
		return Config{}, fmt.Errorf("config %s: ask_user must be ask or deny (got %q)", path, c.AskUser)
	}
	if c.StreamIdleTimeout < 0 {
		return Config{}, fmt.Errorf("config %s: stream_idle_timeout must not be negative (got %s)", path, c.StreamIdleTimeout)
	}
	// A negative count or duration would silently become the default.
	for _, n := range []struct {
		key string
		neg bool
	}{
		{"max_turns", c.MaxTurns < 0},
		{"subagents.concurrency", c.Subagents.Concurrency < 0},
		{"subagents.max_depth", c.Subagents.MaxDepth < 0},
		{"subagents.max_turns", c.Subagents.MaxTurns < 0},
		{"subagents.timeout", c.Subagents.Timeout < 0},
		{"mcp_startup_grace", c.MCPStartupGrace < 0},
		{"stream_keepalive_timeout", c.StreamKeepAliveTimeout < 0},
		{"stream_limits.max_text", c.StreamLimits.MaxText < 0},
		{"stream_limits.max_reasoning", c.StreamLimits.MaxReasoning < 0},
		{"stream_limits.max_tool_args", c.StreamLimits.MaxToolArgs < 0},
		{"stream_limits.max_tool_calls", c.StreamLimits.MaxToolCalls < 0},
		{"stream_limits.max_message", c.StreamLimits.MaxMessage < 0},
		{"mcp_max_output_tokens", c.MCPMaxOutputTokens < 0},
	} {
		if n.neg {
			return Config{}, fmt.Errorf("config %s: %s must not be negative", path, n.key)
		}
	}
	if _, err := permission.ParseMode(c.PermissionMode); err != nil {
		return Config{}, fmt.Errorf("config %s: permission_mode: %w", path, err)
	}
	if _, err := permission.ParseRules(c.Permissions.Allow, c.Permissions.Deny); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if c.Subagents.MaxTokens < 0 || c.Subagents.MaxCost < 0 {
		return Config{}, fmt.Errorf("config %s: subagents.max_tokens and max_cost must not be negative", path)
	}
	for model, p := range c.Prices {
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return Config{}, fmt.Errorf("config %s: prices.%s: a price must not be negative", path, model)
		}
	}
	switch c.Notifications.Protocol {
	case "", "osc9", "osc777", "osc99", "none":
	default:
		return Config{}, fmt.Errorf("config %s: notifications.protocol must be osc9, osc777, osc99 or none, not %q", path, c.Notifications.Protocol)
	}
	if err := c.Hooks.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: hooks: %w", path, err)
	}
	if err := c.LSP.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := c.WebSearch.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if c.Subagents.CheckTimeout < 0 {
		return Config{}, fmt.Errorf("config %s: subagents.check_timeout must not be negative", path)
	}
	if err := c.validateLimits(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := c.Sandbox.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: sandbox: %w", path, err)
	}
	if _, err := worktree.ParseBase(c.Worktree.Base); err != nil {
		return Config{}, fmt.Errorf("config %s: worktree.base: %w", path, err)
	}
	return c, nil
}

// minContextWindow is the smallest window covey accepts: its own system
// prompt and tools take about 3k tokens.
const minContextWindow = 1024

// validateLimits refuses a negative or tiny window and an output budget
// that leaves no room for the prompt.
func (c Config) validateLimits() error {
	check := func(where string, l ModelLimits) error {
		switch {
		case l.ContextWindow < 0 || l.MaxOutputTokens < 0:
			return fmt.Errorf("%scontext_window and max_output_tokens must not be negative", where)
		case l.ContextWindow > 0 && l.ContextWindow < minContextWindow:
			return fmt.Errorf("%scontext_window %d is too small: covey needs at least %d tokens", where, l.ContextWindow, minContextWindow)
		case l.ContextWindow > 0 && l.MaxOutputTokens >= l.ContextWindow:
			return fmt.Errorf("%smax_output_tokens %d leaves no room in context_window %d", where, l.MaxOutputTokens, l.ContextWindow)
		}
		return nil
	}
	model := func(where string, m ModelSettings) error {
		if err := check(where, m.ModelLimits); err != nil {
			return err
		}
		if err := checkAPI(where, m.API); err != nil {
			return err
		}
		if m.ThinkingBudget < 0 || (m.ThinkingBudget > 0 && m.ThinkingBudget < MinThinkingBudget) {
			return fmt.Errorf("%sthinking_budget must be 0 (off) or at least %d tokens (got %d)", where, MinThinkingBudget, m.ThinkingBudget)
		}
		return nil
	}
	if err := check("", ModelLimits{ContextWindow: c.ContextWindow, MaxOutputTokens: c.MaxOutputTokens}); err != nil {
		return err
	}
	if err := checkAPI("", c.API); err != nil {
		return err
	}
	for m, l := range c.Models {
		if err := model("models."+m+": ", l); err != nil {
			return err
		}
	}
	for name, p := range c.Providers {
		if err := check("providers."+name+": ", ModelLimits{ContextWindow: p.ContextWindow, MaxOutputTokens: p.MaxOutputTokens}); err != nil {
			return err
		}
		if err := checkAPI("providers."+name+": ", p.API); err != nil {
			return err
		}
		for m, l := range p.Models {
			if err := model("providers."+name+".models."+m+": ", l); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlUnknownField is how yaml.v3 words a key the struct does not have.
var yamlUnknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field (\S+) not found in type \S+`) })

// plainYAMLError words a decoding error for a user: one line per problem,
// "unknown key" rather than Go's type names.
func plainYAMLError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	msg = yamlUnknownField().ReplaceAllString(msg, `unknown key "$1"`)
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "; ")
}

// MaxApprovalGrace bounds approval_grace: longer, an approval would seem
// not to take its keys.
const MaxApprovalGrace = 5 * time.Second

// merge returns base with every set field of over applied.
func merge(base, over Config) Config {
	setS := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	setS(&base.Model, over.Model)
	setS(&base.BaseURL, over.BaseURL)
	setS(&base.APIKeyEnv, over.APIKeyEnv)
	setS(&base.Provider, over.Provider)
	setS(&base.API, over.API)
	setS(&base.SubagentModel, over.SubagentModel)
	setS(&base.SubagentProvider, over.SubagentProvider)
	setS(&base.PermissionMode, over.PermissionMode)
	setS(&base.Theme, over.Theme)
	setS(&base.AskUser, over.AskUser)
	if over.Vision != nil {
		base.Vision = over.Vision
	}
	setS(&base.Worktree.Base, over.Worktree.Base)
	base.Sandbox = base.Sandbox.Merge(over.Sandbox)
	if over.MaxTurns != 0 {
		base.MaxTurns = over.MaxTurns
	}
	if over.ApprovalGrace != nil {
		base.ApprovalGrace = over.ApprovalGrace
	}
	if over.StreamIdleTimeout != 0 {
		base.StreamIdleTimeout = over.StreamIdleTimeout
	}
	if over.StreamKeepAliveTimeout != 0 {
		base.StreamKeepAliveTimeout = over.StreamKeepAliveTimeout
	}
	base.StreamLimits = mergeLimits(base.StreamLimits, over.StreamLimits)
	if over.ContextWindow != 0 {
		base.ContextWindow = over.ContextWindow
	}
	if over.AutoCompact.IsSet() {
		base.AutoCompact = over.AutoCompact
	}
	if over.Subagents.Concurrency != 0 {
		base.Subagents.Concurrency = over.Subagents.Concurrency
	}
	if over.Subagents.MaxDepth != 0 {
		base.Subagents.MaxDepth = over.Subagents.MaxDepth
	}
	if over.Subagents.MaxTurns != 0 {
		base.Subagents.MaxTurns = over.Subagents.MaxTurns
	}
	if over.Subagents.Timeout != 0 {
		base.Subagents.Timeout = over.Subagents.Timeout
	}
	if over.Subagents.MaxTokens != 0 {
		base.Subagents.MaxTokens = over.Subagents.MaxTokens
	}
	if over.Subagents.MaxCost != 0 {
		base.Subagents.MaxCost = over.Subagents.MaxCost
	}
	setS(&base.Subagents.Judge, over.Subagents.Judge)
	setS(&base.Subagents.Check, over.Subagents.Check)
	if over.Subagents.CheckTimeout != 0 {
		base.Subagents.CheckTimeout = over.Subagents.CheckTimeout
	}
	base.LSP = mergeLSP(base.LSP, over.LSP)
	if over.WebSearch.Enabled() {
		base.WebSearch = over.WebSearch
	}
	for model, p := range over.Prices {
		if base.Prices == nil {
			base.Prices = agent.Prices{}
		}
		base.Prices[model] = p
	}
	for name, p := range over.Providers {
		if base.Providers == nil {
			base.Providers = map[string]ProviderProfile{}
		}
		base.Providers[name] = p
	}
	setS(&base.FetchModel, over.FetchModel)
	if over.MaxOutputTokens != 0 {
		base.MaxOutputTokens = over.MaxOutputTokens
	}
	for model, l := range over.Models {
		if base.Models == nil {
			base.Models = map[string]ModelSettings{}
		}
		base.Models[model] = l
	}
	if over.MCPStartupGrace != 0 {
		base.MCPStartupGrace = over.MCPStartupGrace
	}
	if over.MCPMaxOutputTokens != 0 {
		base.MCPMaxOutputTokens = over.MCPMaxOutputTokens
	}
	base.MCPServers = mergeServers(base.MCPServers, over.MCPServers)
	base.ProjectMCPServers = mergeServers(base.ProjectMCPServers, over.ProjectMCPServers)
	base.Hooks = mergeHooks(base.Hooks, over.Hooks)
	base.ProjectHooks = mergeHooks(base.ProjectHooks, over.ProjectHooks)
	setS(&base.Notifications.Protocol, over.Notifications.Protocol)
	n, o := &base.Notifications, over.Notifications
	for _, f := range []struct{ dst, src **bool }{{&n.Bell, &o.Bell}, {&n.Desktop, &o.Desktop},
		{&n.Approval, &o.Approval}, {&n.Background, &o.Background}, {&n.TurnEnd, &o.TurnEnd}} {
		if *f.src != nil {
			*f.dst = *f.src
		}
	}
	base.Permissions.Allow = append(base.Permissions.Allow, over.Permissions.Allow...)
	base.Permissions.Deny = append(base.Permissions.Deny, over.Permissions.Deny...)
	for k, v := range over.ModelAliases {
		if base.ModelAliases == nil {
			base.ModelAliases = map[string]string{}
		}
		base.ModelAliases[k] = v
	}
	base.AllowAgentModeRaise = base.AllowAgentModeRaise || over.AllowAgentModeRaise
	base.TrustedFolders = append(base.TrustedFolders, over.TrustedFolders...)
	base.PassKeysToTools = base.PassKeysToTools || over.PassKeysToTools
	return base
}

// mergeHooks adds over's hooks to base's, event by event: hooks add up,
// as Claude Code's settings files do.
func mergeHooks(base, over hooks.Config) hooks.Config {
	for ev, groups := range over {
		if base == nil {
			base = hooks.Config{}
		}
		base[ev] = append(base[ev], groups...)
	}
	return base
}

// mergeServers adds over's servers to base's, by name.
func mergeServers(base, over map[string]mcp.ServerConfig) map[string]mcp.ServerConfig {
	for name, s := range over {
		if base == nil {
			base = map[string]mcp.ServerConfig{}
		}
		base[name] = s
	}
	return base
}

// Endpoint is a resolved provider: where to send requests, with which key,
// wire and default model.
type Endpoint struct {
	Name    string // profile name, "" for the top-level settings
	BaseURL string
	APIKey  string
	Model   string
	// API is the wire Model is spoken to in (agent.APIChat, APIResponses,
	// APIAnthropic); APIFor tells another model's.
	API string
	// APIFlag is --api: it wins for every model of the main endpoint.
	APIFlag string
}

// ErrNoEndpoint is the one clear message for a covey with nothing to talk to.
var ErrNoEndpoint = errors.New(`no model endpoint is configured.
Set one of:
  OPENAI_API_KEY=sk-...                          (OpenAI)
  ANTHROPIC_API_KEY=sk-ant-... --model NAME      (Anthropic, spoken natively)
  OPENAI_BASE_URL=http://localhost:11434/v1      (Ollama, vLLM, llama.cpp, any OpenAI-compatible server)
  --base-url URL --model NAME                    (flags; --api anthropic or responses for those wires)
  base_url / model / providers in ~/.config/covey/config.yaml or .covey/config.yaml
Or try covey without any key: covey --demo`)

// Default endpoints of each wire, used when only a key is configured.
const (
	defaultOpenAIURL    = "https://api.openai.com/v1"
	defaultAnthropicURL = "https://api.anthropic.com"
)

// Overrides are the command-line values that override config and the
// environment.
type Overrides struct {
	Model, BaseURL, Provider string
	// API is --api: chat, responses or anthropic.
	API string
}

// ResolveEndpoint works out the endpoint for a profile name ("" = the
// configured default), honouring flags, then the environment, then config.
//
// The wire is --api, else the model's api under models (the profile's,
// then the top level's), else the profile's (or the top level's) api,
// else picked: a base URL on api.anthropic.com, or no base URL with only
// ANTHROPIC_API_KEY set, means anthropic; a model the catalog says OpenAI
// serves through Responses only means responses; anything else chat.
func ResolveEndpoint(c Config, profile string, fl Overrides, getenv func(string) string) (Endpoint, error) {
	if profile == "" {
		profile = c.Provider
	}
	var ep Endpoint
	if _, err := ParseAPI(fl.API); err != nil {
		return ep, fmt.Errorf("--api: %w", err)
	}
	keyEnv := c.APIKeyEnv
	if profile != "" {
		p, ok := c.Providers[profile]
		if !ok {
			return ep, fmt.Errorf("unknown provider profile %q; configured: %s", profile, profileNames(c))
		}
		ep.Name, ep.BaseURL, ep.Model = profile, p.BaseURL, p.Model
		if p.APIKeyEnv != "" {
			keyEnv = p.APIKeyEnv
		}
	}
	if ep.Model == "" {
		ep.Model = c.Model
	}
	if m := FirstNonEmpty(fl.Model, getenv("COVEY_MODEL")); m != "" && profile == c.Provider {
		ep.Model = m
	}
	ep.APIFlag = fl.API // the flags are the main endpoint's
	api := c.explicitAPI(ep, ep.Model)
	if ep.BaseURL == "" {
		envURL := "OPENAI_BASE_URL"
		if api == agent.APIAnthropic {
			envURL = "ANTHROPIC_BASE_URL"
		}
		ep.BaseURL = FirstNonEmpty(getenv(envURL), c.BaseURL)
	}
	if fl.BaseURL != "" {
		ep.BaseURL = fl.BaseURL
	}
	if api == "" {
		api = inferAPI(ep.BaseURL, ep.Model, keyEnv, getenv)
	}
	ep.API = api
	if p, ok := c.Providers[profile]; ok && p.APIKeyEnv == "" && api == agent.APIAnthropic {
		// The top level's api_key_env is its own endpoint's (OpenAI's,
		// most likely): an Anthropic profile without one takes Anthropic's.
		keyEnv = ""
	}
	if keyEnv == "" {
		keyEnv = "OPENAI_API_KEY"
		if api == agent.APIAnthropic {
			keyEnv = "ANTHROPIC_API_KEY"
		}
	}
	ep.APIKey = getenv(keyEnv)
	switch {
	case ep.BaseURL != "":
	case api == agent.APIAnthropic:
		ep.BaseURL = defaultAnthropicURL
	case ep.APIKey == "":
		return ep, ErrNoEndpoint
	default:
		ep.BaseURL = defaultOpenAIURL
	}
	if u, err := url.Parse(ep.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ep, fmt.Errorf("base URL %q is not an http(s) URL with a host (e.g. http://localhost:11434/v1)", ep.BaseURL)
	}
	if (ep.BaseURL == defaultOpenAIURL || ep.BaseURL == defaultAnthropicURL) && ep.APIKey == "" {
		return ep, fmt.Errorf("%s is not set: %s needs an API key (or point --base-url at a local server, or try --demo)", keyEnv, hostName(ep.BaseURL))
	}
	if ep.Model == "" {
		return ep, fmt.Errorf("no model is configured for %s: pass --model NAME, set COVEY_MODEL, or set model in config", ep.BaseURL)
	}
	return ep, nil
}

func profileNames(c Config) string {
	if len(c.Providers) == 0 {
		return "(none)"
	}
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// FirstNonEmpty returns the first of ss that is not empty.
func FirstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Secrets lists the configured keys, so no session line ever holds one.
func Secrets(cfg Config, ep Endpoint, getenv func(string) string) []string {
	out := []string{ep.APIKey}
	for _, name := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", cfg.APIKeyEnv} {
		if name != "" {
			out = append(out, getenv(name))
		}
	}
	for _, p := range cfg.Providers {
		if p.APIKeyEnv != "" {
			out = append(out, getenv(p.APIKeyEnv))
		}
	}
	var keep []string
	for _, s := range out {
		if len(s) >= 8 { // shorter values would redact ordinary words
			keep = append(keep, s)
		}
	}
	return keep
}

// Edit rewrites a config file (covey mcp add and remove edit the user's)
// through edit, atomically; a missing file starts empty.
func Edit(path string, edit func([]byte) ([]byte, error)) error {
	data, err := safefile.Read(path, maxConfigSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read config: %w", err)
	}
	out, err := edit(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("config folder: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// mergeLimits sets the stream limits over gives.
func mergeLimits(base, over agent.StreamLimits) agent.StreamLimits {
	for _, f := range []struct{ dst, v *int }{
		{&base.MaxText, &over.MaxText}, {&base.MaxReasoning, &over.MaxReasoning},
		{&base.MaxToolArgs, &over.MaxToolArgs}, {&base.MaxToolCalls, &over.MaxToolCalls},
		{&base.MaxMessage, &over.MaxMessage},
	} {
		if *f.v != 0 {
			*f.dst = *f.v
		}
	}
	return base
}

// raisesStream names the first stream bound the project's config p would
// raise above what the user's u (or the default) sets; "" when none.
func raisesStream(u, p Config) string {
	or := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	d := agent.DefaultStreamLimits
	for _, f := range []struct {
		key      string
		now, set int
	}{
		{"stream_limits.max_text", or(u.StreamLimits.MaxText, d.MaxText), p.StreamLimits.MaxText},
		{"stream_limits.max_reasoning", or(u.StreamLimits.MaxReasoning, d.MaxReasoning), p.StreamLimits.MaxReasoning},
		{"stream_limits.max_tool_args", or(u.StreamLimits.MaxToolArgs, d.MaxToolArgs), p.StreamLimits.MaxToolArgs},
		{"stream_limits.max_tool_calls", or(u.StreamLimits.MaxToolCalls, d.MaxToolCalls), p.StreamLimits.MaxToolCalls},
		{"stream_limits.max_message", or(u.StreamLimits.MaxMessage, d.MaxMessage), p.StreamLimits.MaxMessage},
	} {
		if f.set > f.now {
			return f.key
		}
	}
	keep := u.StreamKeepAliveTimeout
	if keep == 0 {
		keep = agent.DefaultKeepAliveTimeout
	}
	if p.StreamKeepAliveTimeout > keep {
		return "stream_keepalive_timeout"
	}
	return ""
}

// mergeLSP lays over's lsp settings on base's: servers by name, the
// switches when set.
func mergeLSP(base, over lsp.Config) lsp.Config {
	for name, sc := range over.Servers {
		if base.Servers == nil {
			base.Servers = map[string]lsp.ServerConfig{}
		}
		base.Servers[name] = sc
	}
	base.Disabled = base.Disabled || over.Disabled
	base.OtherFiles = base.OtherFiles || over.OtherFiles
	if over.Wait != 0 {
		base.Wait = over.Wait
	}
	return base
}
