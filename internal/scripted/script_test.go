package scripted

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoadScriptExample(t *testing.T) {
	convs, err := LoadScript(filepath.Join("testdata", "example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Conversation{
		{Name: "list-files", Match: Match{FirstUser: "list files"}, Turns: []Turn{
			{
				Reasoning:  "The user wants the files; glob lists them.",
				ToolCalls:  []Call{{ID: "call_glob1", Name: "glob", Args: map[string]any{"pattern": "*"}}},
				ChunkDelay: 20 * time.Millisecond,
			},
			{Text: "Here are the files in the workspace.", ChunkDelay: 20 * time.Millisecond, Usage: &Usage{Prompt: 120, Completion: 9}},
		}},
		{Name: "flaky", Match: Match{FirstUser: "flaky"}, Turns: []Turn{{
			Text:     "Answered after a retry.",
			Attempts: []Turn{{Status: 429, Headers: map[string]string{"Retry-After": "1"}}},
		}}},
		{Name: "greeting", Turns: []Turn{{Text: "Hello from the example script.", Delay: 300 * time.Millisecond}}},
	}
	if !reflect.DeepEqual(convs, want) {
		t.Errorf("loaded\n%#v\nwant\n%#v", convs, want)
	}
}

func TestParseScript(t *testing.T) {
	tests := map[string]struct {
		src     string
		wantErr string
		check   func(t *testing.T, c []Conversation)
	}{
		"json list": {
			src: `[{"name":"j","match":{"model":"m"},"turns":[{"tool_calls":[{"name":"ls","args":"{\"a\":1}"}],"chunk_size":3,"disconnect_after":40}]}]`,
			check: func(t *testing.T, c []Conversation) {
				tr := c[0].Turns[0]
				if c[0].Match.Model != "m" || tr.ToolCalls[0].Args != `{"a":1}` || tr.ChunkSize != 3 || tr.DisconnectAfter != 40 {
					t.Errorf("parsed %#v", c)
				}
			},
		},
		"yaml list with raw and stall": {
			src: "- turns:\n  - raw: \"data: [DONE]\\n\\n\"\n  - stall: true\n    body: x\n    status: 0\n",
			check: func(t *testing.T, c []Conversation) {
				if c[0].Turns[0].Raw != "data: [DONE]\n\n" || !c[0].Turns[1].Stall {
					t.Errorf("parsed %#v", c)
				}
			},
		},
		"empty":            {src: "", wantErr: "empty script"},
		"no conversations": {src: "conversations: []", wantErr: "no conversations"},
		"misspelt field":   {src: "- match: {fist_user: x}\n  turns: [{text: a}]", wantErr: "fist_user"},
		"no turns":         {src: "- name: a", wantErr: `conversation "a": no turns`},
		"nameless call":    {src: "- turns: [{tool_calls: [{args: {}}]}]", wantErr: "tool call 0: no name"},
		"bad status":       {src: "- turns: [{status: 42}]", wantErr: "status 42 out of range"},
		"bad attempt":      {src: "- turns: [{attempts: [{status: 1000}]}]", wantErr: "attempt 0: status 1000"},
		"bad duration":     {src: "- turns: [{delay: soon}]", wantErr: "decode"},
		"negative size":    {src: "- turns: [{chunk_size: -1}]", wantErr: "negative chunk_size"},
		"not a script":     {src: "just text", wantErr: "decode"},
		"syntax error":     {src: "- turns: [", wantErr: "parse"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := ParseScript([]byte(tc.src))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestLoadScriptMissingFile(t *testing.T) {
	_, err := LoadScript(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v, want one wrapping fs.ErrNotExist", err)
	}
}

func TestLoadScriptNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("- name: a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScript(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v does not name %s", err, path)
	}
}
