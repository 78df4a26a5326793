package subagent

import (
	"sort"
	"sync"
	"time"

	"covey/agent"
	"covey/internal/excerpt"
	"covey/tools/tool"
)

// activity is what a child is doing and has done, as its own events tell:
// the step it is on, its last tool call, its failures and the files it
// changed. It is what crew_status reports of a child beside its state.
type activity struct {
	mu       sync.Mutex
	turns    int
	step     string // the call running now ("" between calls)
	last     string // the last finished call, "name key-arg"
	lastErr  bool
	lastAt   time.Time
	failed   int
	changed  map[string]bool // workspace-relative paths
	thinking bool            // a request is streaming
}

// maxStepText bounds a step or a call as crew_status shows it.
const maxStepText = 100

// observe updates the activity from one of the child's own events.
func (a *activity) observe(e agent.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch e := e.(type) {
	case agent.ToolStarted:
		a.step = excerpt.Cut(e.Name+" "+e.KeyArg, maxStepText)
		a.thinking = false
	case agent.ToolFinished:
		a.step = ""
		a.last = excerpt.Cut(e.Name+" "+e.KeyArg, maxStepText)
		a.lastErr = e.Result.IsError
		a.lastAt = time.Now()
		if e.Result.IsError {
			a.failed++
		}
		if fc, ok := e.Result.Display.(*tool.FileChange); ok && fc != nil && !e.Result.IsError {
			a.note(fc.Path)
		}
	case agent.TextDelta, agent.ReasoningDelta:
		a.thinking = true
	case agent.TurnFinished:
		a.turns = e.Turn
		a.thinking = false
	case agent.ChildFiles:
		for _, f := range e.Files {
			a.note(f.Path)
		}
	}
}

func (a *activity) note(path string) {
	if path == "" {
		return
	}
	if a.changed == nil {
		a.changed = map[string]bool{}
	}
	a.changed[path] = true
}

// activityView is a copy of an activity, safe to read without its lock.
type activityView struct {
	turns    int
	step     string
	last     string
	lastErr  bool
	lastAt   time.Time
	failed   int
	changed  []string
	thinking bool
}

func (a *activity) view() activityView {
	a.mu.Lock()
	defer a.mu.Unlock()
	v := activityView{turns: a.turns, step: a.step, last: a.last, lastErr: a.lastErr, lastAt: a.lastAt, failed: a.failed, thinking: a.thinking}
	for p := range a.changed {
		v.changed = append(v.changed, p)
	}
	sort.Strings(v.changed)
	return v
}
