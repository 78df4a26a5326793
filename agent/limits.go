package agent

import (
	"fmt"
	"unicode/utf8"

	"covey/internal/safefile"
)

// StreamLimits bound what one streamed answer may hold, so a broken or
// hostile server cannot fill memory and the session file: an endless
// stream ends with ErrStreamLimit at the first cap it reaches, and what
// arrived up to the cap is kept. A zero field takes its default
// (DefaultStreamLimits).
type StreamLimits struct {
	// MaxText bounds the answer's text, in bytes.
	MaxText int `yaml:"max_text"`
	// MaxReasoning bounds its reasoning, in bytes.
	MaxReasoning int `yaml:"max_reasoning"`
	// MaxToolArgs bounds the arguments of one tool call, in bytes.
	MaxToolArgs int `yaml:"max_tool_args"`
	// MaxToolCalls bounds the tool calls of one message.
	MaxToolCalls int `yaml:"max_tool_calls"`
	// MaxMessage bounds the whole message: text, reasoning and every
	// call's arguments, in bytes.
	MaxMessage int `yaml:"max_message"`
}

// DefaultStreamLimits are generous: a model's longest answers (128k output
// tokens, about 512 KB) fit eight times over.
var DefaultStreamLimits = StreamLimits{
	MaxText:      4 << 20,
	MaxReasoning: 4 << 20,
	MaxToolArgs:  4 << 20,
	MaxToolCalls: 256,
	MaxMessage:   16 << 20,
}

// withDefaults fills the zero fields from DefaultStreamLimits.
func (l StreamLimits) withDefaults() StreamLimits {
	d := DefaultStreamLimits
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	return StreamLimits{
		MaxText:      pick(l.MaxText, d.MaxText),
		MaxReasoning: pick(l.MaxReasoning, d.MaxReasoning),
		MaxToolArgs:  pick(l.MaxToolArgs, d.MaxToolArgs),
		MaxToolCalls: pick(l.MaxToolCalls, d.MaxToolCalls),
		MaxMessage:   pick(l.MaxMessage, d.MaxMessage),
	}
}

// Endings of a cap's error: what is kept of the stream.
const (
	keptBefore = "the stream was stopped and what came before the limit is kept"
	noCallRun  = "the stream was stopped and no call was run"
)

// limitError is the error of a stream stopped at a cap: what passed which
// limit (the config key), and what was kept.
func limitError(what string, limit int, key, kept string) *ProviderError {
	return &ProviderError{
		Kind:    ErrStreamLimit,
		Message: fmt.Sprintf("%s %s limit (%s); %s", what, safefile.Size(int64(limit)), key, kept),
	}
}

// fitBytes returns the longest prefix of s that fits in room bytes,
// cut on a rune boundary, and whether s had to be cut.
func fitBytes(s string, room int) (string, bool) {
	if len(s) <= room {
		return s, false
	}
	if room <= 0 {
		return "", true
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}
