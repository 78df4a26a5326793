package tools

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestBuiltinSchemas holds every built-in tool's schema to what a model
// and a prompt cache need: an object whose required names are properties,
// no null types, and the same bytes on every call.
func TestBuiltinSchemas(t *testing.T) {
	ts := append(Builtins(&Env{}), NewWebFetch(WebFetchConfig{}))
	ts = append(ts, ShellTools(&Env{Shells: NewShells()})...)
	for _, tl := range ts {
		t.Run(tl.Name(), func(t *testing.T) {
			s := tl.Schema()
			first, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(tl.Schema()); string(again) != string(first) {
				t.Errorf("the schema changed between calls:\n%s\n%s", first, again)
			}
			if s["type"] != "object" {
				t.Errorf("type %v, want object", s["type"])
			}
			props, _ := s["properties"].(map[string]any)
			req, _ := s["required"].([]any)
			for _, r := range req {
				if _, ok := props[r.(string)]; !ok {
					t.Errorf("required %q is no property", r)
				}
			}
			var walk func(v any)
			walk = func(v any) {
				switch v := v.(type) {
				case map[string]any:
					if _, ok := v["type"].([]any); ok {
						t.Errorf("a nullable type: %v", v)
					}
					for _, c := range v {
						walk(c)
					}
				case []any:
					for _, c := range v {
						walk(c)
					}
				}
			}
			walk(s)
		})
	}
}

// TestTodoStatusEnum keeps todo_write's schema in step with the statuses
// its parser accepts.
func TestTodoStatusEnum(t *testing.T) {
	items := todoWriteSchema()["properties"].(map[string]any)["todos"].(map[string]any)["items"].(map[string]any)
	var got []string
	for _, v := range items["properties"].(map[string]any)["status"].(map[string]any)["enum"].([]any) {
		got = append(got, v.(string))
	}
	if want := []string{TodoPending, TodoInProgress, TodoCompleted}; !slices.Equal(got, want) {
		t.Errorf("status enum %q, want %q", got, want)
	}
}
