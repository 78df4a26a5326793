package tool

import (
	"encoding/json"
	"reflect"
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

// flexInt and flexBool stand for the tools' lenient argument types (see
// tools/read_file.go): named types with their own UnmarshalJSON, whose
// schema is still their kind's.
type flexInt int

func (f *flexInt) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, (*int)(f)) }

type flexBool bool

func (f *flexBool) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, (*bool)(f)) }
