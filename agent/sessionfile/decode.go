package sessionfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"covey/agent"
	tools "covey/tools/tool" // the tool interface alone: no tool implementation is linked
)

// DecodeEvent turns one event encoded by agent.MarshalEvent (the "event" of
// a session line, or a stream-json line) back into its concrete type, as a
// value like the agent emits it. Read uses it for every event line.
// A ToolFinished's Display comes back as *tools.FileChange or []tools.Todo
// when it has their shape, and as json.RawMessage otherwise.
func DecodeEvent(raw json.RawMessage) (agent.Event, error) {
	var head struct {
		Type string `json:"type"`
	}
	if t, ok := leadingType(raw); ok {
		head.Type = t
	} else if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("decode event: %w", err)
	}
	var (
		e   agent.Event
		err error
	)
	switch head.Type {
	case agent.UserMessage{}.Kind():
		e, err = decodeAs[agent.UserMessage](raw)
	case agent.TextDelta{}.Kind():
		e, err = decodeAs[agent.TextDelta](raw)
	case agent.ReasoningDelta{}.Kind():
		e, err = decodeAs[agent.ReasoningDelta](raw)
	case agent.ToolStarted{}.Kind():
		e, err = decodeAs[agent.ToolStarted](raw)
	case agent.ToolFinished{}.Kind():
		e, err = decodeToolFinished(raw)
	case agent.ToolProgress{}.Kind():
		e, err = decodeAs[agent.ToolProgress](raw)
	case agent.MCPStatus{}.Kind():
		e, err = decodeAs[agent.MCPStatus](raw)
	case agent.HookRan{}.Kind():
		e, err = decodeAs[agent.HookRan](raw)
	case agent.UsageReported{}.Kind():
		e, err = decodeAs[agent.UsageReported](raw)
	case agent.TurnFinished{}.Kind():
		e, err = decodeAs[agent.TurnFinished](raw)
	case agent.ContextReported{}.Kind():
		e, err = decodeAs[agent.ContextReported](raw)
	case agent.Retrying{}.Kind():
		e, err = decodeAs[agent.Retrying](raw)
	case agent.ErrorEvent{}.Kind():
		e, err = decodeAs[agent.ErrorEvent](raw)
	case agent.Done{}.Kind():
		e, err = decodeAs[agent.Done](raw)
	case agent.Notice{}.Kind():
		e, err = decodeAs[agent.Notice](raw)
	case agent.ChildStarted{}.Kind():
		e, err = decodeAs[agent.ChildStarted](raw)
	case agent.ChildFinished{}.Kind():
		e, err = decodeAs[agent.ChildFinished](raw)
	case agent.WorktreeResult{}.Kind():
		e, err = decodeAs[agent.WorktreeResult](raw)
	case agent.ChildState{}.Kind():
		e, err = decodeAs[agent.ChildState](raw)
	case agent.ChildMessage{}.Kind():
		e, err = decodeAs[agent.ChildMessage](raw)
	case agent.Collision{}.Kind():
		e, err = decodeAs[agent.Collision](raw)
	case agent.BackgroundResult{}.Kind():
		e, err = decodeAs[agent.BackgroundResult](raw)
	case agent.ChildFiles{}.Kind():
		e, err = decodeAs[agent.ChildFiles](raw)
	case agent.Compacted{}.Kind():
		e, err = decodeAs[agent.Compacted](raw)
	case agent.Compacting{}.Kind():
		e, err = decodeAs[agent.Compacting](raw)
	case agent.ApprovalAsked{}.Kind():
		e, err = decodeAs[agent.ApprovalAsked](raw)
	case agent.ApprovalAnswered{}.Kind():
		e, err = decodeAs[agent.ApprovalAnswered](raw)
	case "":
		return nil, errors.New("decode event: no type")
	default:
		return nil, fmt.Errorf("decode event: unknown type %q", head.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s event: %w", head.Type, err)
	}
	return e, nil
}

// leadingType reads the type that agent.MarshalEvent writes first, sparing
// a second parse of the whole event. Anything unusual (escapes, another
// first field) is left to the full decoder.
func leadingType(raw []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(raw, []byte(`{"type":"`))
	if !ok {
		return "", false
	}
	i := bytes.IndexByte(rest, '"')
	if i <= 0 || bytes.IndexByte(rest[:i], '\\') >= 0 {
		return "", false
	}
	return string(rest[:i]), true
}

func decodeAs[T agent.Event](raw json.RawMessage) (agent.Event, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeToolFinished keeps the Display raw until its shape is known.
func decodeToolFinished(raw json.RawMessage) (agent.Event, error) {
	var aux struct {
		agent.ToolFinished
		Result struct {
			Content string          `json:"content"`
			IsError bool            `json:"is_error"`
			Summary string          `json:"summary"`
			Display json.RawMessage `json:"display"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &aux); err != nil {
		return nil, err
	}
	ev := aux.ToolFinished
	ev.Result = tools.Result{
		Content: aux.Result.Content,
		IsError: aux.Result.IsError,
		Summary: aux.Result.Summary,
		Display: decodeDisplay(aux.Result.Display),
	}
	return ev, nil
}

// decodeDisplay recognises the Display types the UI draws: a file change
// (an object with "path" and "diff") and a todo list (an array).
func decodeDisplay(raw json.RawMessage) any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	switch raw[0] {
	case '{':
		var keys map[string]json.RawMessage
		if json.Unmarshal(raw, &keys) == nil && keys["path"] != nil && keys["diff"] != nil {
			var fc tools.FileChange
			if json.Unmarshal(raw, &fc) == nil {
				return &fc
			}
		}
	case '[':
		var todos []tools.Todo
		if json.Unmarshal(raw, &todos) == nil {
			return todos
		}
	}
	return raw
}
