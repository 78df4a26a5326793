package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"covey/tools/tool"
)

func TestTodoWrite(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr string
		want    []tool.Todo
		content string
		summary string
	}{
		{
			name:    "stores the list",
			args:    `{"todos":[{"content":"read code","status":"completed"},{"content":"fix bug","status":"in_progress"},{"content":"run tests","status":"pending"}]}`,
			want:    []tool.Todo{{Content: "read code", Status: "completed"}, {Content: "fix bug", Status: "in_progress"}, {Content: "run tests", Status: "pending"}},
			content: "Task list updated:\n[x] read code\n[~] fix bug\n[ ] run tests",
			summary: "1/3 done",
		},
		{name: "empty list clears", args: `{"todos":[]}`, want: []tool.Todo{}, content: "Task list cleared.", summary: "0/0 done"},
		{name: "bad status", args: `{"todos":[{"content":"a","status":"done"}]}`, wantErr: `item 1 ("a") has status "done"`},
		{name: "no content", args: `{"todos":[{"content":" ","status":"pending"}]}`, wantErr: "item 1 has no content"},
		{name: "missing todos", args: `{}`, wantErr: "todos is required"},
		{name: "not json", args: `{"todos":`, wantErr: "invalid arguments"},
		{name: "wrong type", args: `{"todos":"a"}`, wantErr: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := NewTodoList()
			list.Set([]tool.Todo{{Content: "previous", Status: "pending"}})
			tl := NewTodoWrite(&Env{Todos: list})
			if !tl.ReadOnly() {
				t.Error("todo_write should be read-only: it changes no workspace state")
			}
			res := tl.Run(context.Background(), json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("want error %q, got %+v", tt.wantErr, res)
				}
				if got := list.Get(); len(got) != 1 || got[0].Content != "previous" {
					t.Fatalf("a refused call changed the list: %+v", got)
				}
				return
			}
			if res.IsError {
				t.Fatal(res.Content)
			}
			if got := list.Get(); len(got) != len(tt.want) || (len(got) > 0 && !reflect.DeepEqual(got, tt.want)) {
				t.Errorf("stored %+v, want %+v", got, tt.want)
			}
			if d, ok := res.Display.([]tool.Todo); !ok || len(d) != len(tt.want) {
				t.Errorf("Display = %#v", res.Display)
			}
			if res.Content != tt.content || res.Summary != tt.summary {
				t.Errorf("content %q summary %q", res.Content, res.Summary)
			}
		})
	}
	// No list configured: still validates and answers.
	if res := NewTodoWrite(&Env{}).Run(context.Background(), json.RawMessage(`{"todos":[{"content":"a","status":"pending"}]}`)); res.IsError {
		t.Fatal(res.Content)
	}
}
