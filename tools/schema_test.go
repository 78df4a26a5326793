package tools

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

func TestSchemaOf(t *testing.T) {
	type item struct {
		Name string `json:"name" jsonschema:"The name."`
		Kind string `json:"kind,omitempty" enum:"a,b"`
	}
	type args struct {
		Path  string   `json:"path" jsonschema:"A path."`
		Count *flexInt `json:"count,omitempty" jsonschema:"How many."`
		Body  *string  `json:"body"`
		Items []item   `json:"items,omitempty"`
		Quiet flexBool `json:"quiet,omitempty"`
		Ratio *float64 `json:"ratio,omitempty"`
	}
	tests := map[string]struct {
		typ    reflect.Type
		closed bool
		want   string
	}{
		"open: no additionalProperties at any level, pointers not nullable": {
			typ:  reflect.TypeFor[args](),
			want: `{"properties":{"body":{"type":"string"},"count":{"description":"How many.","type":"integer"},"items":{"items":{"properties":{"kind":{"enum":["a","b"],"type":"string"},"name":{"description":"The name.","type":"string"}},"required":["name"],"type":"object"},"type":"array"},"path":{"description":"A path.","type":"string"},"quiet":{"type":"boolean"},"ratio":{"type":"number"}},"required":["path","body"],"type":"object"}`,
		},
		"bounds, and a batch's items by their type alone": {
			typ: reflect.TypeFor[struct {
				N     int    `json:"n,omitempty" minimum:"2" maximum:"4"`
				Batch []item `json:"batch,omitempty" items:"object"`
			}](),
			want: `{"properties":{"batch":{"items":{"type":"object"},"type":"array"},"n":{"maximum":4,"minimum":2,"type":"integer"}},"type":"object"}`,
		},
		"closed: additionalProperties false at every level": {
			typ:    reflect.TypeFor[struct{ Items *[]item }](),
			closed: true,
			want:   `{"additionalProperties":false,"properties":{"Items":{"items":{"additionalProperties":false,"properties":{"kind":{"enum":["a","b"],"type":"string"},"name":{"description":"The name.","type":"string"}},"required":["name"],"type":"object"},"type":"array"}},"required":["Items"],"type":"object"}`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			m, err := schemaOf(tt.typ, tt.closed)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("schema\n%s\nwant\n%s", b, tt.want)
			}
		})
	}
}

func TestSchemaOfRefuses(t *testing.T) {
	tests := map[string]reflect.Type{
		"an enum on a number": reflect.TypeFor[struct {
			N int `json:"n" enum:"1,2"`
		}](),
		"a function": reflect.TypeFor[struct{ F func() }](),
		"a minimum on a string": reflect.TypeFor[struct {
			S string `json:"s" minimum:"1"`
		}](),
		"a maximum that is no number": reflect.TypeFor[struct {
			N int `json:"n" maximum:"four"`
		}](),
		"items on a string": reflect.TypeFor[struct {
			S string `json:"s" items:"object"`
		}](),
	}
	for name, typ := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := schemaOf(typ, false); err == nil {
				t.Error("want an error")
			}
		})
	}
}

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
