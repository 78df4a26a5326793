package config

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
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

// PriceBook is the session's prices: the prices: table, then the
// catalog's (window/catalog.json: Anthropic's and OpenAI's own prices,
// cache reads and writes included) at the base URL of main and of every
// provider profile. It has no catalog when none of those is on a vendor
// the catalog prices (local servers, gateways), so such a session prices
// only what the table names.
func (c Config) PriceBook(main Endpoint) agent.PriceBook {
	bases := []string{main.BaseURL}
	names := make([]string, 0, len(c.Providers))
	for name := range c.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := c.Providers[name]
		base := p.BaseURL
		if base == "" {
			base = defaultOpenAIURL
			if p.API == agent.APIAnthropic {
				base = defaultAnthropicURL
			}
		}
		bases = append(bases, base)
	}
	var priced []string
	for _, b := range bases {
		if b != "" && window.PricesAt(b) && !slices.Contains(priced, b) {
			priced = append(priced, b)
		}
	}
	book := agent.PriceBook{Table: c.Prices}
	if len(priced) > 0 {
		book.Catalog = func(model string) (agent.Price, bool) {
			for _, b := range priced {
				if p, ok := window.CatalogPrice(b, model); ok {
					return agent.Price{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite}, true
				}
			}
			return agent.Price{}, false
		}
	}
	return book
}
