package config

import (
	"fmt"
	"net/url"
	"strings"

	"covey/agent"
	"covey/window"
)

// The wires: which one an endpoint and each of its models speak, and how
// much a model thinks.

// MinThinkingBudget is the smallest thinking budget Anthropic accepts.
const MinThinkingBudget = 1024

// checkAPI refuses a wire covey does not speak.
func checkAPI(where, api string) error {
	if _, err := ParseAPI(api); err != nil {
		return fmt.Errorf("%sapi: %w", where, err)
	}
	return nil
}

// ParseAPI checks a wire's name: chat, responses, anthropic, or "" (for
// covey to pick).
func ParseAPI(api string) (string, error) {
	switch api {
	case "", agent.APIChat, agent.APIResponses, agent.APIAnthropic:
		return api, nil
	}
	return "", fmt.Errorf("%q is not a wire covey speaks: use %s, %s or %s", api, agent.APIChat, agent.APIResponses, agent.APIAnthropic)
}

// hostName names a default endpoint's company in an error.
func hostName(base string) string {
	if base == defaultAnthropicURL {
		return "Anthropic"
	}
	return "OpenAI"
}

// APIFor is the wire model is spoken to in at ep: --api for the main
// endpoint, else the model's own api, else the endpoint's configured one,
// else what covey picks for it (see ResolveEndpoint). Children and /model
// use it, so one session may speak several wires.
func (c Config) APIFor(ep Endpoint, model string, getenv func(string) string) string {
	if model == ep.Model && ep.API != "" {
		return ep.API
	}
	if api := c.explicitAPI(ep, model); api != "" {
		return api
	}
	keyEnv := c.APIKeyEnv
	if p, ok := c.Providers[ep.Name]; ok && p.APIKeyEnv != "" {
		keyEnv = p.APIKeyEnv
	}
	return inferAPI(ep.BaseURL, model, keyEnv, getenv)
}

// ReasoningOf is how much model thinks when served by profile ("" for
// the top-level endpoint): the profile's models entry, then the top
// level's, field by field.
func (c Config) ReasoningOf(profile, model string) agent.Reasoning {
	var out agent.Reasoning
	for _, m := range []ModelSettings{c.Providers[profile].Models[model], c.Models[model]} {
		out.Effort = FirstNonEmpty(out.Effort, m.Effort)
		if out.Budget == 0 {
			out.Budget = m.ThinkingBudget
		}
	}
	return out
}

// explicitAPI is the wire config or --api sets for model at ep; "" when
// none does.
func (c Config) explicitAPI(ep Endpoint, model string) string {
	if ep.APIFlag != "" {
		return ep.APIFlag
	}
	p, hasProfile := c.Providers[ep.Name]
	if hasProfile {
		if api := p.Models[model].API; api != "" {
			return api
		}
	}
	if api := c.Models[model].API; api != "" {
		return api
	}
	if hasProfile {
		return p.API
	}
	return c.API
}

// inferAPI picks a wire nobody named: Anthropic's host, or no base URL
// and only an Anthropic key, means anthropic; a model the catalog says is
// served through Responses only means responses; else chat.
func inferAPI(base, model, keyEnv string, getenv func(string) string) string {
	switch {
	case onHost(base, "api.anthropic.com"):
		return agent.APIAnthropic
	case base == "" && getenv(FirstNonEmpty(keyEnv, "OPENAI_API_KEY")) == "" && getenv("ANTHROPIC_API_KEY") != "":
		return agent.APIAnthropic
	case window.CatalogAPI(FirstNonEmpty(base, defaultOpenAIURL), model) == agent.APIResponses:
		return agent.APIResponses
	}
	return agent.APIChat
}

// onHost reports whether base is a URL on host.
func onHost(base, host string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), host)
}
