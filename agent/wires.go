package agent

import "fmt"

// NewProvider returns the provider that speaks wire api (APIChat,
// APIResponses, APIAnthropic; "" means APIChat) with cfg. It is the one
// place that maps a wire's name to its client.
func NewProvider(api string, cfg OpenAIConfig) (Provider, error) {
	switch api {
	case "", APIChat:
		return NewOpenAI(cfg), nil
	case APIAnthropic:
		return NewAnthropic(cfg), nil
	case APIResponses:
		return NewResponses(cfg), nil
	default:
		return nil, fmt.Errorf("unknown api %q: covey speaks %s, %s and %s", api, APIChat, APIResponses, APIAnthropic)
	}
}

// Reasoning is how much a model thinks before it answers, as config sets
// it per model. The zero value leaves it to the server.
type Reasoning struct {
	// Effort is a level (low, medium, high, ...): Anthropic's
	// output_config.effort, the Responses API's reasoning.effort.
	Effort string
	// Budget turns on Anthropic's extended thinking with this many
	// tokens (budget_tokens); 0 leaves it off.
	Budget int
}

// WireName is a wire's name in words, for the user: "Anthropic Messages"
// for APIAnthropic; an unknown wire's name as it is.
func WireName(api string) string {
	switch api {
	case "", APIChat:
		return "Chat Completions"
	case APIResponses:
		return "OpenAI Responses"
	case APIAnthropic:
		return "Anthropic Messages"
	}
	return api
}
