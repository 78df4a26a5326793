package transcript

import (
	"strings"
	"testing"

	"covey/tools/tool"
)

func TestTodoView(t *testing.T) {
	tests := map[string]struct {
		todos []tool.Todo
		width int
		want  []string
	}{
		"empty": {nil, 30, []string{"(no tasks)"}},
		"states": {[]tool.Todo{{Content: "read", Status: "completed"}, {Content: "think", Status: "in_progress"}, {Content: "write", Status: "pending"}, {Content: "odd", Status: "blocked"}}, 30,
			[]string{"☑ read", "◐ think", "☐ write", "☐ odd"}},
		"wrapped": {[]tool.Todo{{Content: "write the retry tests first", Status: "pending"}}, 14,
			[]string{"☐ write the", "  retry tests", "  first"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := renderTodos(tc.todos, tc.width, blockCtx(t, tc.width).Styles)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("renderTodos = %q, want %q", got, tc.want)
			}
			checkWidth(t, got, tc.width)
		})
	}
	if done, total := todoCounts([]tool.Todo{{Content: "a", Status: "completed"}, {Content: "b", Status: "pending"}}); done != 1 || total != 2 {
		t.Errorf("todoCounts = %d/%d, want 1/2", done, total)
	}
}
