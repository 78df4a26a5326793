package tool

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"covey/tools/toolname"
)

type namedTool struct{ name string }

func (t namedTool) Name() string           { return t.name }
func (t namedTool) Description() string    { return t.name }
func (t namedTool) Schema() map[string]any { return map[string]any{"type": "object"} }
func (t namedTool) ReadOnly() bool         { return false }
func (t namedTool) Run(context.Context, json.RawMessage) Result {
	return Result{Content: t.name}
}

func names(ts []Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

func TestRegistrySources(t *testing.T) {
	var mu sync.Mutex
	var dynamic []Tool
	src := func() []Tool { mu.Lock(); defer mu.Unlock(); return dynamic }
	r := NewRegistry(namedTool{toolname.ReadFile}, namedTool{toolname.Bash})
	r.AddSource(src)
	if got := names(r.Tools()); !slices.Equal(got, []string{toolname.ReadFile, toolname.Bash}) {
		t.Fatalf("before the source has tools: %v", got)
	}
	mu.Lock()
	dynamic = []Tool{namedTool{"mcp__a__x"}, namedTool{toolname.Bash}, namedTool{"mcp__b__y"}}
	mu.Unlock()
	// A source's tools join; a fixed tool keeps its name.
	if got := names(r.Tools()); !slices.Equal(got, []string{toolname.ReadFile, toolname.Bash, "mcp__a__x", "mcp__b__y"}) {
		t.Errorf("with the source's tools: %v", got)
	}
	if _, ok := r.Get("mcp__b__y"); !ok {
		t.Error("Get misses a source's tool")
	}
	if _, ok := r.Get("mcp__gone"); ok {
		t.Error("Get found a tool nobody has")
	}
	if got := r.Names(); !slices.Equal(got, []string{toolname.Bash, "mcp__a__x", "mcp__b__y", toolname.ReadFile}) {
		t.Errorf("Names %v", got)
	}
	only := r.Filter(func(t Tool) bool { return t.Name() != "mcp__a__x" && t.Name() != toolname.Bash })
	if got := names(only.Tools()); !slices.Equal(got, []string{toolname.ReadFile, "mcp__b__y"}) {
		t.Errorf("filtered: %v", got)
	}
	mu.Lock()
	dynamic = nil // the server went away
	mu.Unlock()
	if got := names(only.Tools()); !slices.Equal(got, []string{toolname.ReadFile}) {
		t.Errorf("filtered after the source emptied: %v", got)
	}
}
