package scripted_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// Example scripts a tool round trip and reads it with go-openai, the client
// covey's provider is built on.
func Example() {
	s := scripted.New()
	if err := s.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	s.Add(scripted.Conversation{
		Name:  "lister",
		Match: scripted.Match{FirstUser: "list files"},
		Turns: []scripted.Turn{
			{ToolCalls: []scripted.Call{{Name: "glob", Args: map[string]any{"pattern": "*.go"}}}},
			{Text: "There are two Go files."},
		},
	})

	cfg := openai.DefaultConfig("not-a-real-key")
	cfg.BaseURL = s.URL()
	client := openai.NewClientWithConfig(cfg)
	stream, err := client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model:    "any-model",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "please list files"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range chunk.Choices {
			for _, tc := range c.Delta.ToolCalls {
				if tc.Function.Name != "" {
					fmt.Print("call ", tc.Function.Name, " ")
				}
				fmt.Print(tc.Function.Arguments)
			}
			if c.FinishReason != "" {
				fmt.Println("\nfinish:", c.FinishReason)
			}
		}
	}
	e := s.Journal()[0]
	fmt.Println("served:", e.Conversation, "turn", e.Turn)
	// Output:
	// call glob {"pattern":"*.go"}
	// finish: tool_calls
	// served: lister turn 0
}

// streamAll reads a go-openai stream to the end, assembling text, calls and
// usage.
func streamAll(t *testing.T, client *openai.Client, req openai.ChatCompletionRequest) (text string, calls []openai.ToolCall, usage *openai.Usage, err error) {
	t.Helper()
	stream, err := client.CreateChatCompletionStream(t.Context(), req)
	if err != nil {
		return "", nil, nil, err
	}
	defer stream.Close()
	var b strings.Builder
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), calls, usage, nil
		}
		if err != nil {
			return b.String(), calls, usage, err
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, c := range chunk.Choices {
			b.WriteString(c.Delta.Content)
			for _, tc := range c.Delta.ToolCalls {
				i := *tc.Index
				for len(calls) <= i {
					calls = append(calls, openai.ToolCall{})
				}
				if tc.ID != "" {
					calls[i].ID = tc.ID
				}
				calls[i].Function.Name += tc.Function.Name
				calls[i].Function.Arguments += tc.Function.Arguments
			}
		}
	}
}

// TestGoOpenAIOnExampleScript runs the example script's conversations through
// go-openai: the tool round trip, with usage, and the rate-limited retry.
func TestGoOpenAIOnExampleScript(t *testing.T) {
	convs, err := scripted.LoadScript(filepath.Join("testdata", "example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := scriptedtest.New(t)
	for _, c := range convs {
		s.Add(c)
	}
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = s.URL()
	client := openai.NewClientWithConfig(cfg)

	req := openai.ChatCompletionRequest{
		Model:         "m",
		Messages:      []openai.ChatCompletionMessage{{Role: "user", Content: "list files please"}},
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		Tools:         []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "glob"}}},
	}
	_, calls, _, err := streamAll(t, client, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].ID != "call_glob1" || calls[0].Function.Name != "glob" || calls[0].Function.Arguments != `{"pattern":"*"}` {
		t.Fatalf("calls %+v", calls)
	}
	calls[0].Type = openai.ToolTypeFunction
	req.Messages = append(req.Messages,
		openai.ChatCompletionMessage{Role: "assistant", ToolCalls: calls},
		openai.ChatCompletionMessage{Role: "tool", ToolCallID: "call_glob1", Content: "go.mod\nmain.go"},
	)
	text, _, usage, err := streamAll(t, client, req)
	if err != nil {
		t.Fatal(err)
	}
	if text != "Here are the files in the workspace." || usage == nil || usage.PromptTokens != 120 || usage.TotalTokens != 129 {
		t.Errorf("text %q usage %+v", text, usage)
	}
	j := s.Journal()
	if got := j[1].Messages[2]; got.Role != "tool" || got.ToolCallID != "call_glob1" || got.Content != "go.mod\nmain.go" {
		t.Errorf("tool result recorded as %+v", got)
	}
	if j[1].Tools[0] != "glob" || !j[1].StreamOptions || !j[1].HasAuth {
		t.Errorf("journal entry %+v", j[1])
	}

	flaky := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "flaky"}}}
	_, _, _, err = streamAll(t, client, flaky)
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 429 || apiErr.Code != "rate_limit_exceeded" {
		t.Fatalf("first attempt: %v, want a 429 APIError", err)
	}
	if text, _, _, err := streamAll(t, client, flaky); err != nil || text != "Answered after a retry." {
		t.Errorf("retry: %q, %v", text, err)
	}
}

// TestGoOpenAISeesUnmatchedAsError checks the unmatched answer reaches a
// go-openai caller as a readable error.
func TestGoOpenAISeesUnmatchedAsError(t *testing.T) {
	s := scriptedtest.New(t)
	s.AllowUnmatched()
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = s.URL()
	_, _, _, err := streamAll(t, openai.NewClientWithConfig(cfg), openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "surprise"}},
	})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 500 || !strings.Contains(apiErr.Message, `"surprise"`) {
		t.Errorf("got %v, want a 500 naming the first user message", err)
	}
}
