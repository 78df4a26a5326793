package agent

import "testing"

func TestContextLimit(t *testing.T) {
	tests := map[string]struct {
		msg  string
		want int
	}{
		"openai":    {"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.", 8192},
		"vllm":      {"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in the messages", 4096},
		"lmstudio":  {"Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.", 4096},
		"anthropic": {"prompt is too long: 210000 tokens > 200000 maximum", 200000},
		"gemini":    {"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1048576},
		"mistral":   {"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length", 32768},
		"commas":    {"maximum context length is 128,000 tokens", 128000},
		"llama.cpp": {"the request exceeds the available context size (n_ctx: 2048)", 2048},
		"no number": {"the request exceeds the available context size, try increasing it", 0},
		"other":     {"prompt is too long", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := contextLimit(tc.msg); got != tc.want {
				t.Errorf("contextLimit(%q) = %d, want %d", tc.msg, got, tc.want)
			}
		})
	}
}
