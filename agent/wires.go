package agent

import "fmt"

// NewProvider returns the provider that speaks wire api (APIChat,
// APIResponses, APIAnthropic; "" means APIChat) with cfg. It is the one
// place that maps a wire's name to its client.
func NewProvider(api string, cfg OpenAIConfig) (Provider, error) {
	switch api {
	case "", APIChat:
		return NewOpenAI(cfg), nil
	case APIResponses:
		return NewResponses(cfg), nil
	default:
		return nil, fmt.Errorf("unknown api %q: covey speaks %s and %s", api, APIChat, APIResponses)
	}
}
