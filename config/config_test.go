package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"covey/agent"
)

func TestResolveEndpoint(t *testing.T) {
	cfg := Config{
		Model: "cfg-model", BaseURL: "http://cfg/v1",
		Providers: map[string]ProviderProfile{
			"local":  {BaseURL: "http://localhost:11434/v1", Model: "qwen"},
			"router": {BaseURL: "https://router/v1", APIKeyEnv: "ROUTER_KEY", Model: "ds"},
		},
	}
	tests := map[string]struct {
		cfg     Config
		profile string
		flags   Overrides
		env     map[string]string
		want    Endpoint
		wantErr string
	}{
		"config only":              {cfg: cfg, want: Endpoint{BaseURL: "http://cfg/v1", Model: "cfg-model", API: agent.APIChat}},
		"env over config":          {cfg: cfg, env: map[string]string{"OPENAI_BASE_URL": "http://env/v1", "COVEY_MODEL": "env-model"}, want: Endpoint{BaseURL: "http://env/v1", Model: "env-model", API: agent.APIChat}},
		"flags over env":           {cfg: cfg, flags: Overrides{BaseURL: "http://flag/v1", Model: "flag-model"}, env: map[string]string{"OPENAI_BASE_URL": "http://env/v1", "COVEY_MODEL": "env-model"}, want: Endpoint{BaseURL: "http://flag/v1", Model: "flag-model", API: agent.APIChat}},
		"profile":                  {cfg: cfg, profile: "local", want: Endpoint{Name: "local", BaseURL: "http://localhost:11434/v1", Model: "qwen", API: agent.APIChat}},
		"profile key env":          {cfg: cfg, profile: "router", env: map[string]string{"ROUTER_KEY": "rk", "OPENAI_API_KEY": "ok"}, want: Endpoint{Name: "router", BaseURL: "https://router/v1", APIKey: "rk", Model: "ds", API: agent.APIChat}},
		"profile from config":      {cfg: Config{Provider: "local", Providers: cfg.Providers}, want: Endpoint{Name: "local", BaseURL: "http://localhost:11434/v1", Model: "qwen", API: agent.APIChat}},
		"key only means openai":    {cfg: Config{Model: "gpt"}, env: map[string]string{"OPENAI_API_KEY": "sk"}, want: Endpoint{BaseURL: defaultOpenAIURL, APIKey: "sk", Model: "gpt", API: agent.APIChat}},
		"nothing configured":       {wantErr: "--demo"},
		"unknown profile":          {cfg: cfg, profile: "nope", wantErr: `unknown provider profile "nope"; configured: local, router`},
		"no model":                 {cfg: Config{BaseURL: "http://x/v1"}, wantErr: "no model is configured"},
		"base url without scheme":  {cfg: Config{BaseURL: "localhost:11434/v1", Model: "m"}, wantErr: `base URL "localhost:11434/v1" is not an http(s) URL`},
		"base url without host":    {cfg: Config{BaseURL: "http://", Model: "m"}, wantErr: "not an http(s) URL with a host"},
		"base url of another kind": {cfg: Config{BaseURL: "ftp://x/v1", Model: "m"}, wantErr: "not an http(s) URL"},
		"openai url without key":   {cfg: Config{BaseURL: defaultOpenAIURL, Model: "m"}, wantErr: "OPENAI_API_KEY is not set"},
		"api flag":                 {cfg: cfg, flags: Overrides{API: "anthropic"}, want: Endpoint{BaseURL: "http://cfg/v1", Model: "cfg-model", API: agent.APIAnthropic, APIFlag: "anthropic"}},
		"bad api flag":             {cfg: cfg, flags: Overrides{API: "grpc"}, wantErr: `--api: "grpc" is not a wire`},
		"anthropic key only": {cfg: Config{Model: "claude-x"}, env: map[string]string{"ANTHROPIC_API_KEY": "ak"},
			want: Endpoint{BaseURL: "https://api.anthropic.com", APIKey: "ak", Model: "claude-x", API: agent.APIAnthropic}},
		"openai key wins over anthropic's": {cfg: Config{Model: "gpt"}, env: map[string]string{"ANTHROPIC_API_KEY": "ak", "OPENAI_API_KEY": "sk"},
			want: Endpoint{BaseURL: defaultOpenAIURL, APIKey: "sk", Model: "gpt", API: agent.APIChat}},
		"anthropic host means anthropic": {cfg: Config{Model: "claude-x", BaseURL: "https://api.anthropic.com/v1"}, env: map[string]string{"ANTHROPIC_API_KEY": "ak", "OPENAI_API_KEY": "sk"},
			want: Endpoint{BaseURL: "https://api.anthropic.com/v1", APIKey: "ak", Model: "claude-x", API: agent.APIAnthropic}},
		"api anthropic defaults its base and key": {cfg: Config{Model: "claude-x", API: "anthropic"}, env: map[string]string{"ANTHROPIC_API_KEY": "ak", "OPENAI_BASE_URL": "http://openai-only/v1"},
			want: Endpoint{BaseURL: "https://api.anthropic.com", APIKey: "ak", Model: "claude-x", API: agent.APIAnthropic}},
		"anthropic base from its env": {cfg: Config{Model: "claude-x", API: "anthropic"}, env: map[string]string{"ANTHROPIC_BASE_URL": "http://proxy:4000"},
			want: Endpoint{BaseURL: "http://proxy:4000", Model: "claude-x", API: agent.APIAnthropic}},
		"anthropic without key": {cfg: Config{Model: "claude-x", API: "anthropic"}, wantErr: "ANTHROPIC_API_KEY is not set: Anthropic needs an API key"},
		"codex means responses": {cfg: Config{Model: "gpt-5-codex"}, env: map[string]string{"OPENAI_API_KEY": "sk"},
			want: Endpoint{BaseURL: defaultOpenAIURL, APIKey: "sk", Model: "gpt-5-codex", API: agent.APIResponses}},
		"codex at a gateway stays chat": {cfg: Config{Model: "openai/gpt-5-codex", BaseURL: "https://openrouter.ai/api/v1"},
			want: Endpoint{BaseURL: "https://openrouter.ai/api/v1", Model: "openai/gpt-5-codex", API: agent.APIChat}},
		"model api wins over profile api": {cfg: Config{Providers: map[string]ProviderProfile{"p": {BaseURL: "http://gw/v1", Model: "m", API: "chat",
			Models: map[string]ModelSettings{"m": {API: "responses"}}}}}, profile: "p",
			want: Endpoint{Name: "p", BaseURL: "http://gw/v1", Model: "m", API: agent.APIResponses}},
		"anthropic profile does not take the top level's key": {cfg: Config{APIKeyEnv: "OPENAI_API_KEY", Providers: map[string]ProviderProfile{"claude": {API: "anthropic", Model: "c"}}},
			profile: "claude", env: map[string]string{"OPENAI_API_KEY": "sk", "ANTHROPIC_API_KEY": "ak"},
			want: Endpoint{Name: "claude", BaseURL: "https://api.anthropic.com", APIKey: "ak", Model: "c", API: agent.APIAnthropic}},
		"profile api": {cfg: Config{Providers: map[string]ProviderProfile{"claude": {API: "anthropic", Model: "c", APIKeyEnv: "CK"}}}, profile: "claude", env: map[string]string{"CK": "ck"},
			want: Endpoint{Name: "claude", BaseURL: "https://api.anthropic.com", APIKey: "ck", Model: "c", API: agent.APIAnthropic}},
		"custom key env honoured": {cfg: Config{BaseURL: "http://x/v1", Model: "m", APIKeyEnv: "MY_KEY"}, env: map[string]string{"MY_KEY": "mine"}, want: Endpoint{BaseURL: "http://x/v1", APIKey: "mine", Model: "m", API: agent.APIChat}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ResolveEndpoint(tc.cfg, tc.profile, tc.flags, func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestLoadConfigMergesAndReportsErrors(t *testing.T) {
	tests := map[string]struct {
		user, project string
		// trusted: the user trusted the project's settings.
		trusted bool
		check   func(t *testing.T, c Config)
		wantErr string
	}{
		"project over user": {
			user:    "model: a\nbase_url: http://user/v1\nsubagents: {concurrency: 2, timeout: 90s}\npermissions: {allow: [\"bash(go test:*)\"]}\n",
			project: "model: b\npermissions: {deny: [\"bash(rm:*)\"]}\n",
			check: func(t *testing.T, c Config) {
				if c.Model != "b" || c.BaseURL != "http://user/v1" || c.Subagents.Concurrency != 2 || c.Subagents.Timeout != 90*time.Second {
					t.Fatalf("merged = %+v", c)
				}
				if len(c.Permissions.Allow) != 1 || len(c.Permissions.Deny) != 1 {
					t.Fatalf("rules = %+v", c.Permissions)
				}
			},
		},
		"wires and thinking": {
			user: "api: anthropic\nproviders: {local: {base_url: \"http://localhost:1/v1\", api: chat}}\n" +
				"models: {claude-x: {api: anthropic, thinking_budget: 2048, effort: high, context_window: 200000}}\n",
			check: func(t *testing.T, c Config) {
				m := c.Models["claude-x"]
				if c.API != "anthropic" || c.Providers["local"].API != "chat" || m.API != "anthropic" || m.ThinkingBudget != 2048 || m.Effort != "high" || m.ContextWindow != 200000 {
					t.Fatalf("wires = %q %+v %+v", c.API, c.Providers, m)
				}
			},
		},
		"unknown api":             {user: "api: grpc\n", wantErr: `api: "grpc" is not a wire covey speaks`},
		"unknown model api":       {user: "models: {m: {api: soap}}\n", wantErr: `models.m: api: "soap"`},
		"unknown profile api":     {user: "providers: {p: {api: soap}}\n", wantErr: `providers.p: api: "soap"`},
		"thinking budget too low": {user: "models: {m: {thinking_budget: 100}}\n", wantErr: "thinking_budget must be 0 (off) or at least 1024"},
		"worktree base": {
			user: "worktree: {base: working}\n", project: "worktree:\n  base: head\n",
			check: func(t *testing.T, c Config) {
				if c.Worktree.Base != "head" {
					t.Fatalf("worktree.base = %q, want the project's head", c.Worktree.Base)
				}
			},
		},
		"model aliases merge key by key": {
			user:    "model_aliases: {sonnet: user-coder, haiku: user-small}\nallow_agent_mode_raise: true\n",
			project: "model_aliases:\n  sonnet: project-coder\n  claude-opus-4-1: project-big\n",
			check: func(t *testing.T, c Config) {
				want := map[string]string{"sonnet": "project-coder", "haiku": "user-small", "claude-opus-4-1": "project-big"}
				if !reflect.DeepEqual(c.ModelAliases, want) || !c.AllowAgentModeRaise {
					t.Fatalf("model_aliases = %v, raise %v; want %v and true", c.ModelAliases, c.AllowAgentModeRaise, want)
				}
			},
		},
		"prices and budgets": {
			user:    "prices: {big: {input: 3, output: 15}, small: {input: 0.1, output: 0.4}}\nsubagents: {max_tokens: 50000, max_cost: 0.5}\n",
			project: "prices:\n  small: {input: 0.2, output: 0.8}\nsubagents: {max_cost: 0.25}\n",
			trusted: true,
			check: func(t *testing.T, c Config) {
				want := agent.Prices{"big": {Input: 3, Output: 15}, "small": {Input: 0.2, Output: 0.8}}
				if !reflect.DeepEqual(c.Prices, want) || c.Subagents.MaxTokens != 50000 || c.Subagents.MaxCost != 0.25 {
					t.Fatalf("prices %v, budgets %+v; want %v, 50000 tokens, 0.25", c.Prices, c.Subagents, want)
				}
				if cost, ok := c.Prices.Cost("big", agent.Usage{InputTokens: 1_000_000, OutputTokens: 100_000}); !ok || cost != 4.5 {
					t.Fatalf("cost = %v, %v; want 4.5", cost, ok)
				}
				if _, ok := c.Prices.Cost("unpriced", agent.Usage{InputTokens: 1}); ok {
					t.Fatal("a model without a price was priced")
				}
			},
		},
		"context windows": {
			user:    "context_window: 32768\nmodels: {qwen3-coder: {context_window: 65536, max_output_tokens: 8192}, small: {context_window: 8192}}\nproviders: {local: {base_url: http://localhost:8080/v1, model: llama, context_window: 16384, models: {qwen3-coder: {context_window: 40960}}}}\n",
			project: "models:\n  small: {context_window: 4096}\n",
			check: func(t *testing.T, c Config) {
				for _, tc := range []struct {
					profile, model, main string
					want                 ModelLimits
				}{
					{"", "main-model", "main-model", ModelLimits{32768, 0}},
					{"", "qwen3-coder", "main-model", ModelLimits{65536, 8192}},
					{"", "small", "main-model", ModelLimits{4096, 0}}, // the project's entry
					{"", "other", "main-model", ModelLimits{}},
					{"local", "llama", "main-model", ModelLimits{16384, 0}},
					{"local", "qwen3-coder", "main-model", ModelLimits{40960, 8192}}, // profile's entry, top-level's output
				} {
					if got := c.Limits(tc.profile, tc.model, tc.main); got != tc.want {
						t.Errorf("Limits(%q, %q) = %+v, want %+v", tc.profile, tc.model, got, tc.want)
					}
				}
			},
		},
		"context window negative":   {project: "context_window: -1\n", wantErr: "must not be negative"},
		"context window tiny":       {project: "models: {m: {context_window: 100}}\n", wantErr: "models.m: context_window 100 is too small"},
		"output budget over window": {user: "providers: {p: {base_url: http://x/v1, context_window: 8192, max_output_tokens: 8192}}\n", wantErr: "providers.p: max_output_tokens 8192 leaves no room"},
		"price negative":            {project: "prices: {m: {input: -1, output: 1}}\n", wantErr: "prices.m: a price must not be negative"},
		"price unknown key":         {project: "prices: {m: {inptu: 1}}\n", wantErr: "unknown key \"inptu\""},
		"budget negative":           {project: "subagents: {max_tokens: -5}\n", wantErr: "must not be negative"},
		"sandbox": {
			user:    "sandbox: {mode: workspace-write, network: true, writable: [/opt/cache]}\n",
			project: "sandbox:\n  network: false\n  required: true\n",
			check: func(t *testing.T, c Config) {
				sb := c.Sandbox
				if sb.Mode != "workspace-write" || sb.Network == nil || *sb.Network || sb.Required == nil || !*sb.Required || len(sb.Writable) != 1 {
					t.Fatalf("sandbox = %+v", sb)
				}
			},
		},
		"sandbox off from the user": {user: "sandbox: {mode: \"off\"}\n", check: func(t *testing.T, c Config) {
			if c.Sandbox.Mode != "off" {
				t.Fatalf("sandbox = %+v", c.Sandbox)
			}
		}},
		"sandbox off from a project":          {project: "sandbox: {mode: \"off\"}\n", wantErr: "sandbox.mode off is read from the user's config only"},
		"sandbox writable from a project":     {project: "sandbox: {writable: [/opt/x]}\n", wantErr: "sandbox.writable is read from the user's config only"},
		"sandbox network from a project":      {project: "sandbox: {network: true}\n", wantErr: "user's config only"},
		"sandbox unknown key":                 {user: "sandbox: {mdoe: off}\n", wantErr: "unknown key \"mdoe\""},
		"sandbox bad mode":                    {user: "sandbox: {mode: everything}\n", wantErr: "unknown sandbox mode"},
		"sandbox writable home":               {user: "sandbox: {writable: [\"~\"]}\n", wantErr: "never lets commands write"},
		"model aliases wrong shape":           {project: "model_aliases: [sonnet]\n", wantErr: "line 1"},
		"agent mode raise only from the user": {project: "allow_agent_mode_raise: true\n", wantErr: "user's config only"},
		"stream limits: the user raises, the project lowers": {
			user:    "stream_limits: {max_text: 33554432, max_tool_calls: 1000}\nstream_keepalive_timeout: 30m\n",
			project: "stream_limits: {max_text: 1048576, max_reasoning: 1024}\nstream_keepalive_timeout: 20m\n",
			check: func(t *testing.T, c Config) {
				want := agent.StreamLimits{MaxText: 1 << 20, MaxReasoning: 1024, MaxToolCalls: 1000}
				if c.StreamLimits != want || c.StreamKeepAliveTimeout != 20*time.Minute {
					t.Fatalf("limits %+v, keep-alive %s; want %+v, 20m", c.StreamLimits, c.StreamKeepAliveTimeout, want)
				}
			},
		},
		"stream limit raised by a project":      {project: "stream_limits: {max_text: 1073741824}\n", wantErr: "stream_limits.max_text may only be lowered by a project"},
		"stream keep-alive raised by a project": {project: "stream_keepalive_timeout: 100h\n", wantErr: "stream_keepalive_timeout may only be lowered"},
		"stream limit negative":                 {user: "stream_limits: {max_tool_calls: -1}\n", wantErr: "stream_limits.max_tool_calls must not be negative"},
		"stream idle timeout": {
			user: "stream_idle_timeout: 5m\n", project: "model: m\n",
			check: func(t *testing.T, c Config) {
				if c.StreamIdleTimeout != 5*time.Minute {
					t.Fatalf("stream_idle_timeout = %s, want the user's 5m", c.StreamIdleTimeout)
				}
			},
		},
		"approval grace": {
			user: "approval_grace: 1s\n", project: "approval_grace: 0s\n", trusted: true,
			check: func(t *testing.T, c Config) {
				if c.ApprovalGrace == nil || *c.ApprovalGrace != 0 {
					t.Fatalf("approval_grace = %v, want the project's 0s (none)", c.ApprovalGrace)
				}
			},
		},
		"approval grace unset": {
			user: "model: m\n",
			check: func(t *testing.T, c Config) {
				if c.ApprovalGrace != nil {
					t.Fatalf("approval_grace = %s, want unset (the TUI's default)", *c.ApprovalGrace)
				}
			},
		},
		"approval grace too long":            {project: "approval_grace: 1m\n", wantErr: "approval_grace must be between 0s and 5s"},
		"stream idle timeout negative":       {project: "stream_idle_timeout: -1s\n", wantErr: "stream_idle_timeout must not be negative"},
		"stream idle timeout not a duration": {project: "stream_idle_timeout: soon\n", wantErr: "line 1"},
		"worktree base unknown":              {project: "worktree: {base: tip}\n", wantErr: "worktree.base: unknown worktree base \"tip\""},
		"worktree unknown key":               {project: "worktree: {bse: head}\n", wantErr: "unknown key \"bse\""},
		"empty files":                        {user: "", project: "", check: func(t *testing.T, c Config) {}},
		"broken yaml":                        {project: "model: [unclosed\n", wantErr: "config.yaml"},
		"unknown key":                        {user: "mdoel: gpt\n", wantErr: "line 1: unknown key \"mdoel\""},
		"wrong type":                         {project: "max_turns: lots\n", wantErr: "line 1"},
		"missing dirs":                       {check: func(t *testing.T, c Config) {}},
		"nested unknown key on one line":     {project: "subagents:\n  concurency: 3\n", wantErr: "line 2: unknown key \"concurency\""},
		"not a mapping":                      {project: "- model\n", wantErr: "line 1"},
		"subagent provider unknown":          {project: "subagent_provider: nope\n", trusted: true, wantErr: `subagent_provider "nope" is not a profile under providers; configured: (none)`},
		"subagent provider from the user's profiles": {user: "providers: {local: {base_url: \"http://x/v1\"}}\n", project: "subagent_provider: local\n", trusted: true, check: func(t *testing.T, c Config) {
			if c.SubagentProvider != "local" {
				t.Fatalf("subagent_provider = %q", c.SubagentProvider)
			}
		}},
		"max turns negative":         {project: "max_turns: -5\n", wantErr: "max_turns must not be negative"},
		"child concurrency negative": {user: "subagents: {concurrency: -1}\n", wantErr: "subagents.concurrency must not be negative"},
		"child timeout negative":     {project: "subagents: {timeout: -5s}\n", wantErr: "subagents.timeout must not be negative"},
		"mcp output negative":        {user: "mcp_max_output_tokens: -9\n", wantErr: "mcp_max_output_tokens must not be negative"},
		"permission mode unknown":    {project: "permission_mode: yolo\n", wantErr: ".covey/config.yaml: permission_mode: unknown permission mode \"yolo\""},
		"permission rule broken":     {user: "permissions: {allow: [\"bash(\"]}\n", wantErr: "covey/config.yaml: permissions.allow[0]"},
		"hooks: the user's trusted, the project's apart": {
			user:    "hooks:\n  Stop:\n    - hooks: [{type: command, command: user-stop}]\n",
			project: "hooks:\n  Stop:\n    - hooks: [{type: command, command: project-stop, timeout: 5}]\n",
			check: func(t *testing.T, c Config) {
				if len(c.Hooks["Stop"]) != 1 || c.Hooks["Stop"][0].Hooks[0].Command != "user-stop" {
					t.Fatalf("hooks = %+v", c.Hooks)
				}
				if len(c.ProjectHooks["Stop"]) != 1 || c.ProjectHooks["Stop"][0].Hooks[0].Timeout != 5 {
					t.Fatalf("project hooks = %+v", c.ProjectHooks)
				}
			},
		},
		"hooks unknown event": {user: "hooks: {Sometimes: []}\n", wantErr: `hooks: unknown hook event "Sometimes"`},
		"hooks unknown key":   {project: "hooks: {Stop: [{hooks: [{comand: x}]}]}\n", wantErr: `unknown key "comand"`},
		"hooks empty command": {project: "hooks: {Stop: [{hooks: [{type: command}]}]}\n", wantErr: "command is empty"},
		"notifications": {user: "notifications: {bell: false, protocol: osc777}\n", project: "notifications: {turn_end: false}\n", trusted: true, check: func(t *testing.T, c Config) {
			n := c.Notifications
			if On(n.Bell) || !On(n.Desktop) || On(n.TurnEnd) || !On(n.Approval) || n.Protocol != "osc777" {
				t.Fatalf("notifications = %+v", n)
			}
		}},
		"notifications protocol": {user: "notifications: {protocol: smoke}\n", wantErr: "notifications.protocol must be osc9, osc777, osc99 or none"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			xdg, ws := t.TempDir(), t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			write := func(path, body string) {
				if body == "" && name == "missing dirs" {
					return
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			user, project := Paths(ws)
			write(user, tc.user)
			write(project, tc.project)
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			c, _, err := LoadTrusted(ws, LoadOptions{TrustProject: tc.trusted})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestAPIFor(t *testing.T) {
	cfg := Config{
		Models: map[string]ModelSettings{"claude-x": {API: "anthropic"}},
		Providers: map[string]ProviderProfile{
			"gw": {BaseURL: "http://gw/v1", Models: map[string]ModelSettings{"c": {API: "responses"}}},
		},
	}
	env := func(string) string { return "" }
	main := Endpoint{BaseURL: "http://gw/v1", Model: "qwen", API: agent.APIChat}
	for _, tc := range []struct {
		ep    Endpoint
		model string
		want  string
	}{
		{main, "qwen", agent.APIChat},
		{main, "claude-x", agent.APIAnthropic}, // the model's own api
		{main, "other", agent.APIChat},
		{Endpoint{Name: "gw", BaseURL: "http://gw/v1", Model: "m", API: agent.APIChat}, "c", agent.APIResponses},
		{Endpoint{BaseURL: "https://api.openai.com/v1", Model: "gpt-4o", API: agent.APIChat}, "gpt-5-codex", agent.APIResponses},
		{Endpoint{BaseURL: "https://api.anthropic.com", Model: "a", API: agent.APIAnthropic}, "b", agent.APIAnthropic},
		// --api wins for every model of the main endpoint.
		{Endpoint{BaseURL: "http://gw/v1", Model: "qwen", API: agent.APIAnthropic, APIFlag: "anthropic"}, "other", agent.APIAnthropic},
	} {
		if got := cfg.APIFor(tc.ep, tc.model, env); got != tc.want {
			t.Errorf("APIFor(%+v, %s) = %q, want %q", tc.ep, tc.model, got, tc.want)
		}
	}
}
