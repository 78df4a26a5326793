package tool

import "sort"

// Source supplies tools that come and go while a session runs (MCP
// servers' tools join as each server connects). Tools must be cheap: it is
// called for every model request and every tool lookup.
type Source func() []Tool

// Registry is an ordered set of tools, looked up by name: fixed tools
// first, then the current tools of its sources. A fixed tool wins over a
// source's tool of the same name. Add and AddSource are for set-up; the
// lookups are safe for concurrent use once it is built.
type Registry struct {
	order   []string
	byName  map[string]Tool
	sources []Source
}

// NewRegistry returns a registry holding ts; a later tool of the same name
// replaces an earlier one.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range ts {
		r.Add(t)
	}
	return r
}

// Add registers t, replacing any tool of the same name.
func (r *Registry) Add(t Tool) {
	if _, ok := r.byName[t.Name()]; !ok {
		r.order = append(r.order, t.Name())
	}
	r.byName[t.Name()] = t
}

// AddSource adds a source of tools that change over time.
func (r *Registry) AddSource(src Source) {
	if src != nil {
		r.sources = append(r.sources, src)
	}
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	if t, ok := r.byName[name]; ok {
		return t, true
	}
	for _, src := range r.sources {
		for _, t := range src() {
			if t.Name() == name {
				return t, true
			}
		}
	}
	return nil, false
}

// Tools returns the fixed tools in registration order, then the sources'.
func (r *Registry) Tools() []Tool {
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n])
	}
	for _, src := range r.sources {
		for _, t := range src() {
			if _, fixed := r.byName[t.Name()]; !fixed {
				out = append(out, t)
			}
		}
	}
	return out
}

// Names returns the tool names, sorted.
func (r *Registry) Names() []string {
	var out []string
	for _, t := range r.Tools() {
		out = append(out, t.Name())
	}
	sort.Strings(out)
	return out
}

// Filter returns a registry holding only the tools keep accepts, in order;
// sources are filtered as they change.
func (r *Registry) Filter(keep func(Tool) bool) *Registry {
	out := NewRegistry()
	for _, n := range r.order {
		if t := r.byName[n]; keep(t) {
			out.Add(t)
		}
	}
	for _, src := range r.sources {
		out.AddSource(FilterSource(src, keep))
	}
	return out
}

// FilterSource returns a source holding the tools of src that keep accepts.
func FilterSource(src Source, keep func(Tool) bool) Source {
	return func() []Tool {
		var out []Tool
		for _, t := range src() {
			if keep(t) {
				out = append(out, t)
			}
		}
		return out
	}
}
