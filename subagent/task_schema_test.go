package subagent

import (
	"reflect"
	"testing"
)

// TestTaskSchemaMatchesParser: the task schema is made from TaskArgs, and
// its tags name the same values the parser holds a task to.
func TestTaskSchemaMatchesParser(t *testing.T) {
	props := (&taskTool{}).Schema()["properties"].(map[string]any)
	att := props["attempts"].(map[string]any)
	if att["minimum"] != float64(MinAttempts) || att["maximum"] != float64(MaxAttempts) {
		t.Errorf("attempts bounds %v..%v, the parser's %d..%d", att["minimum"], att["maximum"], MinAttempts, MaxAttempts)
	}
	if enum := props["isolation"].(map[string]any)["enum"]; !reflect.DeepEqual(enum, []any{IsolationWorktree}) {
		t.Errorf("isolation enum %v, the parser's %q", enum, IsolationWorktree)
	}
	if _, ok := (&taskTool{}).Schema()["required"]; ok {
		t.Error("a batch sends its fields under tasks, so no top-level field may be required")
	}
	for _, f := range []string{"description", "prompt", "subagent_type", "name", "run_in_background", "fork", "tasks"} {
		if props[f] == nil {
			t.Errorf("no %s in the schema", f)
		}
	}
}
