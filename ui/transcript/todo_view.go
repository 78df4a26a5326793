package transcript

import (
	"covey/theme"
	"covey/tools/tool"
	"covey/ui/cells"

	"github.com/charmbracelet/lipgloss"
)

// Todo statuses as todo_write reports them.
const (
	todoPending    = "pending"
	todoInProgress = "in_progress"
	todoCompleted  = "completed"
)

// renderTodos draws the agent's task list: ☐ pending, ◐ in progress and
// ☑ completed (struck through), each item wrapped under its glyph.
func renderTodos(todos []tool.Todo, width int, st *theme.Styles) []string {
	if len(todos) == 0 {
		return []string{cells.Fit(st.Tool.Output.Render("(no tasks)"), width)}
	}
	out := make([]string, 0, len(todos))
	for _, t := range todos {
		glyph, style := todoLook(t.Status, st)
		body := cells.Wrap(t.Content, max(width-2, 1))
		out = append(out, prefixedLines(body, width, style.Render(glyph+" "), "  ", style)...)
	}
	return out
}

// todoLook is the glyph and style of a status; an unknown status is shown
// as pending rather than dropped, so no item silently disappears.
func todoLook(status string, st *theme.Styles) (string, lipgloss.Style) {
	switch status {
	case todoCompleted:
		return "☑", st.Todo.Completed
	case todoInProgress:
		return "◐", st.Todo.InProgress
	default:
		return "☐", st.Todo.Pending
	}
}

// todoCounts returns how many items are completed, of how many.
func todoCounts(todos []tool.Todo) (done, total int) {
	for _, t := range todos {
		if t.Status == todoCompleted {
			done++
		}
	}
	return done, len(todos)
}
