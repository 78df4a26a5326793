package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaShape says whether a tool's schema refuses properties it does not
// list. json.Unmarshal ignores them either way, so the shape only tells the
// model what to expect; it is part of the JSON every request carries, so a
// tool keeps the shape it has.
type SchemaShape bool

// The shapes of a schema: open (other properties are not read) or closed
// (additionalProperties: false at every level).
const (
	SchemaOpen   SchemaShape = false
	SchemaClosed SchemaShape = true
)

// ArgsSchema returns the JSON schema of a tool's arguments, made from T,
// the struct its Run decodes them into, so a schema and its parser cannot
// disagree: a property is a field's json name, a field without omitempty
// is required, a field's jsonschema tag is its description, its enum
// tag (comma-separated) its allowed values, its minimum and maximum tags
// its bounds, and an items tag ("object") describes a slice's items by
// that type alone, for a batch whose items repeat the fields beside it
// (spelling them out again would cost every request their bytes). Pointers, which a parser uses
// to tell a missing argument from a zero one, are not nullable in the
// schema: the model is never asked for null. A closed schema refuses other
// properties (additionalProperties: false) at every level.
//
// It returns the tool's Schema method's body: the schema is built once, on
// first use, and shared, so the JSON sent with every request
// is the same bytes (a provider's prompt cache depends on it); callers must
// not change it. T is fixed at compile time, so a failure is a programming
// error that the tools' tests catch: it panics.
func ArgsSchema[T any](shape SchemaShape) func() map[string]any {
	return sync.OnceValue(func() map[string]any {
		m, err := schemaOf(reflect.TypeFor[T](), bool(shape))
		if err != nil {
			panic(fmt.Sprintf("tools: the schema of %v: %v", reflect.TypeFor[T](), err))
		}
		return m
	})
}

// schemaOf builds the schema of t (see ArgsSchema) as a plain map, which is
// what the tool interface offers and what json.Marshal writes with its keys
// sorted.
func schemaOf(t reflect.Type, closed bool) (map[string]any, error) {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, err
	}
	if err := adjust(t, s, closed); err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// adjust walks t and its schema s together: it makes pointers and slices
// non-nullable, opens the objects of an open schema, and reads enum tags.
func adjust(t reflect.Type, s *jsonschema.Schema, closed bool) error {
	if s == nil {
		return nil
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return adjust(t.Elem(), s.Items, closed)
	case reflect.Struct:
		if !closed {
			s.AdditionalProperties = nil
		}
		for _, f := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			p := s.Properties[name]
			if f.Anonymous || !f.IsExported() || p == nil {
				continue
			}
			if enum, ok := f.Tag.Lookup("enum"); ok {
				if p.Type != "string" {
					return fmt.Errorf("field %s: an enum tag on a %s", f.Name, p.Type)
				}
				for _, v := range strings.Split(enum, ",") {
					p.Enum = append(p.Enum, v)
				}
			}
			if err := bounds(f, p); err != nil {
				return err
			}
			if err := adjust(f.Type, p, closed); err != nil {
				return err
			}
			if typ, ok := f.Tag.Lookup("items"); ok {
				if p.Items == nil {
					return fmt.Errorf("field %s: an items tag on a %s", f.Name, p.Type)
				}
				p.Items = &jsonschema.Schema{Type: typ}
			}
		}
	}
	return nil
}

// bounds reads a numeric field's minimum and maximum tags into p.
func bounds(f reflect.StructField, p *jsonschema.Schema) error {
	for tag, dst := range map[string]**float64{"minimum": &p.Minimum, "maximum": &p.Maximum} {
		v, ok := f.Tag.Lookup(tag)
		if !ok {
			continue
		}
		if p.Type != "integer" && p.Type != "number" {
			return fmt.Errorf("field %s: a %s tag on a %s", f.Name, tag, p.Type)
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("field %s: %s tag %q: %w", f.Name, tag, v, err)
		}
		*dst = &n
	}
	return nil
}
