package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"covey/tools/tool"
	"covey/tools/toolname"
)

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// todoWriteTool is todo_write.
type todoWriteTool struct{ env *Env }

// NewTodoWrite returns the todo_write tool, storing into env.Todos.
func NewTodoWrite(env *Env) tool.Tool { return &todoWriteTool{env: env} }

func (t *todoWriteTool) Name() string { return toolname.TodoWrite }

// ReadOnly is true: the list is covey's own state, not the workspace's, so
// the call may run alongside read-only tools.
func (t *todoWriteTool) ReadOnly() bool { return true }

func (t *todoWriteTool) Description() string {
	return "Write your task list for multi-step work, the whole list each time; the user sees it. " +
		"Keep one item in_progress; mark items completed as soon as they are done."
}

func (t *todoWriteTool) Schema() map[string]any { return todoWriteSchema() }

var todoWriteSchema = tool.ArgsSchema[todoWriteArgs](tool.SchemaClosed)

// todoWriteArgs are todo_write's arguments; Todos is a pointer so an empty
// list (which clears it) can be told from a missing argument. An item's
// schema comes from Todo's own tags.
type todoWriteArgs struct {
	Todos *[]tool.Todo `json:"todos" jsonschema:"The complete task list."`
}

func (t *todoWriteTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	var a todoWriteArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("todo_write: invalid arguments: %v", err)
	}
	if a.Todos == nil {
		return tool.Errorf("todo_write: todos is required (an empty list clears it)")
	}
	todos := *a.Todos
	for i := range todos {
		todos[i].Content = strings.TrimSpace(todos[i].Content)
		todos[i].Status = strings.TrimSpace(todos[i].Status)
		if todos[i].Content == "" {
			return tool.Errorf("todo_write: item %d has no content", i+1)
		}
		switch todos[i].Status {
		case TodoPending, TodoInProgress, TodoCompleted:
		default:
			return tool.Errorf("todo_write: item %d (%q) has status %q; use pending, in_progress or completed",
				i+1, todos[i].Content, todos[i].Status)
		}
	}
	if t.env != nil && t.env.Todos != nil {
		t.env.Todos.Set(todos)
	}
	done := 0
	for _, td := range todos {
		if td.Status == TodoCompleted {
			done++
		}
	}
	return tool.Result{
		Content: renderTodos(todos),
		Summary: fmt.Sprintf("%d/%d done", done, len(todos)),
		Display: append([]tool.Todo(nil), todos...),
	}
}

// renderTodos is the list as the model reads it back.
func renderTodos(todos []tool.Todo) string {
	if len(todos) == 0 {
		return "Task list cleared."
	}
	var sb strings.Builder
	sb.WriteString("Task list updated:\n")
	for _, td := range todos {
		mark := "[ ]"
		switch td.Status {
		case TodoInProgress:
			mark = "[~]"
		case TodoCompleted:
			mark = "[x]"
		}
		fmt.Fprintf(&sb, "%s %s\n", mark, td.Content)
	}
	return strings.TrimRight(sb.String(), "\n")
}

// TodoList holds the current task list written by todo_write. It is safe for
// concurrent use.
type TodoList struct {
	mu    sync.Mutex
	items []tool.Todo
}

// NewTodoList returns an empty list.
func NewTodoList() *TodoList { return &TodoList{} }

// Set replaces the list with a copy of todos.
func (t *TodoList) Set(todos []tool.Todo) {
	cp := append([]tool.Todo(nil), todos...)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.items = cp
}

// Get returns a copy of the current list.
func (t *TodoList) Get() []tool.Todo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]tool.Todo(nil), t.items...)
}
