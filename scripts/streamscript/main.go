// Command streamscript prints the scripted-server script that
// scripts/bench-stream streams (JSON, which the server reads as YAML):
//
//   - "answer": a 600-chunk markdown answer (headings, bold, lists, a code
//     fence) at 100 chunks/s, ending with END-OF-ANSWER;
//   - "children": ten Explore subagents streaming 300 chunks each at once,
//     then a main answer ending with END-OF-CREW.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"covey/tools/toolname"
)

// answerChunks and chunkRunes size the markdown answer: 600 deltas.
const (
	answerChunks = 600
	chunkRunes   = 6
	childChunks  = 300
	children     = 10
)

type turn struct {
	Text       string `json:"text,omitempty"`
	ToolCalls  []call `json:"tool_calls,omitempty"`
	ChunkSize  int    `json:"chunk_size,omitempty"`
	ChunkDelay string `json:"chunk_delay,omitempty"`
}

type call struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type conversation struct {
	Name  string            `json:"name"`
	Match map[string]string `json:"match"`
	Turns []turn            `json:"turns"`
}

// markdown returns an answer of about runes runes that ends with end.
func markdown(runes int, end string) string {
	section := "## Where the retries happen\n\nThe loop calls **provider.Stream** and retries on `429` and *5xx* answers, " +
		"waiting a little longer each time before it gives up on the request.\n\n" +
		"- backoff doubles after each failure\n- capped at **60 s** in all\n- honours `Retry-After` when the server sends it\n\n" +
		"```go\nfor attempt := 0; attempt < 4; attempt++ {\n\tif err := call(ctx); err == nil {\n\t\tbreak\n\t}\n}\n```\n\n"
	var b strings.Builder
	for n := 0; b.Len() < runes-len(end)-2; n++ {
		b.WriteString(section)
	}
	s := []rune(b.String())[:runes-len(end)-2]
	return string(s) + "\n\n" + end
}

func main() {
	convs := []conversation{{
		Name:  "answer",
		Match: map[string]string{"first_user": "answer"},
		Turns: []turn{{Text: markdown(answerChunks*chunkRunes, "END-OF-ANSWER"), ChunkSize: chunkRunes, ChunkDelay: "10ms"}},
	}}
	var calls []call
	for i := range children {
		prompt := fmt.Sprintf("child %d: stream", i)
		calls = append(calls, call{ID: fmt.Sprintf("call_%d", i), Name: toolname.Task, Args: map[string]any{
			"description": fmt.Sprintf("stream %d", i), "prompt": prompt, "subagent_type": "Explore"}})
		convs = append(convs, conversation{
			Name:  fmt.Sprintf("child-%d", i),
			Match: map[string]string{"first_user": prompt},
			Turns: []turn{{Text: markdown(childChunks*chunkRunes, "done"), ChunkSize: chunkRunes, ChunkDelay: "10ms"}},
		})
	}
	convs = append(convs, conversation{
		Name:  "children",
		Match: map[string]string{"first_user": "children"},
		Turns: []turn{{ToolCalls: calls}, {Text: "All ten children reported. END-OF-CREW"}},
	})
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any{"conversations": convs}); err != nil {
		fmt.Fprintln(os.Stderr, "streamscript:", err)
		os.Exit(1)
	}
}
