package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"covey/agent"
	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/tools/tool"
)

// antCompactBody is the part of a Messages request the compaction test
// reads.
type antCompactBody struct {
	System   json.RawMessage `json:"system"`
	Tools    json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
}

// uncached is raw without its cache_control marks: what the cache hashes.
func uncached(raw []byte) []byte {
	return bytes.ReplaceAll(raw, []byte(`,"cache_control":{"type":"ephemeral"}`), nil)
}

// TestAnthropicCompactionReusesPrefix: on Anthropic's wire a compaction's
// summary is asked after the conversation as the turns sent it (the same
// system prompt and tools, the previous turn's messages byte for byte,
// thinking included), with a cache breakpoint on the last block of that
// conversation, where the previous turn's one was too, and none on the
// question: the whole conversation is read from the cache.
func TestAnthropicCompactionReusesPrefix(t *testing.T) {
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Match: scripted.Match{FirstUser: "look around"}, Turns: []scripted.Turn{
		{Reasoning: "I should echo", ToolCalls: []scripted.Call{{ID: "toolu_1", Name: "echo", Args: map[string]any{"n": 1}}}},
		{Text: "Looked around."},
		{Text: "## Goals\nlook around\n## Current state\ndone"},
	}})
	rec := &recorder{}
	a := agent.New(agent.Config{
		Provider: agent.NewAnthropic(agent.OpenAIConfig{BaseURL: srv.URL()}),
		Model:    "claude-x", System: testSystem,
		Tools: tool.NewRegistry(echoTool("echo", true)),
		Emit:  rec.emit,
	})
	if res, err := a.Run(context.Background(), "look around"); err != nil || res.Answer != "Looked around." {
		t.Fatalf("run: %q, %v", res.Answer, err)
	}
	ev, err := a.Compact(context.Background(), "")
	if err != nil || !strings.Contains(ev.Summary, "Current state") {
		t.Fatalf("compact: %+v, %v", ev, err)
	}
	j := srv.Journal()
	if len(j) != 3 || j[2].API != "anthropic" {
		t.Fatalf("%d requests; want two turns and the summary on Anthropic's wire", len(j))
	}
	var prev, sum antCompactBody
	if err := json.Unmarshal(j[1].Body, &prev); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j[2].Body, &sum); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(uncached(prev.System), uncached(sum.System)) || !bytes.Equal(uncached(prev.Tools), uncached(sum.Tools)) {
		t.Errorf("the summary request's system or tools differ from the turn's:\n%s\n%s", sum.System, prev.System)
	}
	if len(sum.Messages) < len(prev.Messages)+1 {
		t.Fatalf("summary request: %d messages, the previous turn's %d", len(sum.Messages), len(prev.Messages))
	}
	// The previous turn's messages, byte for byte (thinking included),
	// and its breakpoints where they were.
	for i, m := range prev.Messages {
		if m.Role != sum.Messages[i].Role || len(m.Content) != len(sum.Messages[i].Content) {
			t.Fatalf("message %d: %s with %d blocks, was %s with %d", i, sum.Messages[i].Role, len(sum.Messages[i].Content), m.Role, len(m.Content))
		}
		for k := range m.Content {
			if !bytes.Equal(uncached(m.Content[k]), uncached(sum.Messages[i].Content[k])) {
				t.Errorf("message %d block %d changed:\n%s\nwas\n%s", i, k, sum.Messages[i].Content[k], m.Content[k])
			}
		}
	}
	if !bytes.Contains(prev.Messages[1].Content[0], []byte(`"type":"thinking"`)) {
		t.Errorf("the turn's thinking is not in the reused prefix: %s", prev.Messages[1].Content[0])
	}
	// The reused prefix ends with the answer "Looked around."; the
	// question follows it, unmarked.
	last := sum.Messages[len(sum.Messages)-1]
	end := sum.Messages[len(sum.Messages)-2]
	endBlock := end.Content[len(end.Content)-1]
	if end.Role != agent.RoleAssistant || !bytes.Contains(endBlock, []byte("Looked around.")) || !bytes.Contains(endBlock, []byte("cache_control")) {
		t.Errorf("the last block of the reused prefix carries no breakpoint: %s", endBlock)
	}
	lastPrev := prev.Messages[len(prev.Messages)-1]
	if at := sum.Messages[len(prev.Messages)-1]; !bytes.Contains(at.Content[len(at.Content)-1], []byte("cache_control")) ||
		!bytes.Contains(lastPrev.Content[len(lastPrev.Content)-1], []byte("cache_control")) {
		t.Errorf("the previous turn's write point is not read back: %s", at.Content[len(at.Content)-1])
	}
	if last.Role != agent.RoleUser || bytes.Contains(last.Content[len(last.Content)-1], []byte("cache_control")) ||
		!bytes.Contains(last.Content[len(last.Content)-1], []byte("write its summary")) {
		t.Errorf("the question: %s %s", last.Role, last.Content[len(last.Content)-1])
	}
	if n := bytes.Count(j[2].Body, []byte(`"cache_control"`)); n > 4 {
		t.Errorf("%d breakpoints, the API allows 4", n)
	}
}
