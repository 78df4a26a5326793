package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"covey/internal/excerpt"
	"covey/permission"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// Bounds of an ask_user question.
const (
	maxQuestionOptions = 4
	maxQuestionText    = 2000
)

// askUserTool is ask_user: a question put to the user through the gate,
// whose asker (the TUI) shows it and returns the answer.
type askUserTool struct {
	gate permission.Gate
	deny bool
}

// NewAskUser returns the ask_user tool asking through gate; with deny
// (config ask_user: deny) every call is refused.
func NewAskUser(gate permission.Gate, deny bool) tool.Tool {
	return &askUserTool{gate: gate, deny: deny}
}

func (t *askUserTool) Name() string { return toolname.AskUser }

// ReadOnly is true: a question changes nothing, so it may run beside reads.
func (t *askUserTool) ReadOnly() bool { return true }

func (t *askUserTool) Description() string {
	return "Ask the user a question when you need a decision only they can make (a choice between approaches, " +
		"a missing requirement), instead of guessing. Give 1 to 4 short options; the user picks one (or several " +
		"with multi_select) or types a free answer. Do not ask what you can find out yourself."
}

func (t *askUserTool) Schema() map[string]any { return askUserSchema() }

var askUserSchema = tool.ArgsSchema[askUserArgs](tool.SchemaClosed)

// askUserArgs are ask_user's arguments.
type askUserArgs struct {
	Question    string       `json:"question" jsonschema:"The question, complete and specific."`
	Options     []askUserOpt `json:"options" jsonschema:"1 to 4 answers to pick from."`
	MultiSelect bool         `json:"multi_select,omitempty" jsonschema:"Whether several options may be picked."`
}

// askUserOpt is one option of ask_user.
type askUserOpt struct {
	Label       string `json:"label" jsonschema:"The option, a few words."`
	Description string `json:"description,omitempty" jsonschema:"What choosing it means."`
}

// ParseQuestion reads ask_user's arguments into a question, or says what
// is wrong with them.
func ParseQuestion(args json.RawMessage) (*permission.Question, error) {
	var a askUserArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("invalid arguments: %w", err)
	}
	q := &permission.Question{Question: strings.TrimSpace(a.Question), MultiSelect: a.MultiSelect}
	if q.Question == "" {
		return nil, fmt.Errorf("question is required")
	}
	if len(q.Question) > maxQuestionText {
		return nil, fmt.Errorf("the question is %d bytes; keep it under %d", len(q.Question), maxQuestionText)
	}
	if len(a.Options) == 0 || len(a.Options) > maxQuestionOptions {
		return nil, fmt.Errorf("give 1 to %d options (got %d); the user can always type a free answer", maxQuestionOptions, len(a.Options))
	}
	for i, o := range a.Options {
		label := strings.TrimSpace(o.Label)
		if label == "" {
			return nil, fmt.Errorf("option %d has no label", i+1)
		}
		q.Options = append(q.Options, permission.QuestionOption{Label: label, Description: strings.TrimSpace(o.Description)})
	}
	return q, nil
}

func (t *askUserTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	if t.deny {
		return tool.Errorf("ask_user: asking the user is turned off in this setup (ask_user: deny in the config): decide yourself and say what you assumed")
	}
	q, err := ParseQuestion(args)
	if err != nil {
		return tool.Errorf("ask_user: %v", err)
	}
	if t.gate == nil {
		return tool.Result{Content: permission.NoUserReason, Summary: "no user"}
	}
	v := t.gate.Check(ctx, permission.Request{Tool: toolname.AskUser, Question: q})
	switch {
	case v.Allowed:
		return tool.Result{Content: "The user answered: " + v.Answer, Summary: excerpt.Line(v.Answer)}
	case v.ByUser:
		return tool.Result{Content: v.Reason, Summary: "declined"}
	case ctx.Err() != nil:
		return tool.Errorf("%s", v.Reason)
	}
	return tool.Result{Content: v.Reason, Summary: "no user"}
}
