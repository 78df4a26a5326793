package scripted

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
)

// endlessKinds are the values of Turn.Endless.
var endlessKinds = []string{"text", "reasoning", "arguments", "calls", "keepalive", "empty"}

func checkEndless(kind string) error {
	for _, k := range endlessKinds {
		if k == kind {
			return nil
		}
	}
	return fmt.Errorf("endless %q: use one of %v", kind, endlessKinds)
}

// writeEndless streams turn.Endless's events until ctx ends or a write
// fails; it always returns an error (the stream never ends by itself).
func writeEndless(ctx context.Context, w http.ResponseWriter, turn Turn, model string) error {
	flusher, _ := w.(http.Flusher)
	piece := turn.Text
	if piece == "" {
		piece = "and on "
	}
	quoted := strconv.Quote(piece)
	head := `data: {"id":"chatcmpl-endless","object":"chat.completion.chunk","created":0,"model":` + strconv.Quote(model) + `,"choices":[{"index":0,"delta":`
	const tail = `,"finish_reason":null}]}` + "\n\n"
	event := func(n int) string {
		switch turn.Endless {
		case "text":
			return head + `{"content":` + quoted + `}` + tail
		case "reasoning":
			return head + `{"reasoning_content":` + quoted + `}` + tail
		case "arguments":
			if n == 0 {
				return head + `{"tool_calls":[{"index":0,"id":"call_endless","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"x\",\"content\":\""}}]}` + tail
			}
			return head + `{"tool_calls":[{"index":0,"function":{"arguments":` + strconv.Quote(piece) + `}}]}` + tail
		case "calls":
			i := strconv.Itoa(n)
			return head + `{"tool_calls":[{"index":` + i + `,"id":"call_endless_` + i + `","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]}` + tail
		case "empty":
			return head + `{}` + tail
		}
		return ": keep-alive\n\n"
	}
	for n := 0; ; n++ {
		if n > 0 && turn.ChunkDelay > 0 {
			if err := sleep(ctx, turn.ChunkDelay); err != nil {
				return err
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := w.Write([]byte(event(n))); err != nil {
			return fmt.Errorf("write event: %w", err)
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}
