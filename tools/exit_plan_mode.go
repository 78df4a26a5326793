package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"covey/permission"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// Results of exit_plan_mode the model reads.
const (
	// PlanNotInPlanMode answers a call made outside plan mode.
	PlanNotInPlanMode = "You are not in plan mode: there is nothing to approve; carry on with the work."
	// PlanReport answers a child's call: the plan ends its run as its report.
	PlanReport = "Your plan is your report: it goes to the agent that started you."
	// PlanHeadless answers a call nobody can approve (a headless run).
	PlanHeadless = "Nobody can approve the plan in a headless run: it is printed and the run ends here."
)

// ExitPlanConfig is what exit_plan_mode needs: the gate that asks the user,
// the mode it is in now, and whether it serves a child (whose plan is its
// report, returned to its parent rather than put to the user).
type ExitPlanConfig struct {
	Gate  permission.Gate
	Mode  func() permission.Mode
	Child bool
}

// exitPlanTool is exit_plan_mode.
type exitPlanTool struct{ cfg ExitPlanConfig }

// NewExitPlanMode returns the exit_plan_mode tool.
func NewExitPlanMode(cfg ExitPlanConfig) tool.Tool { return &exitPlanTool{cfg: cfg} }

func (t *exitPlanTool) Name() string { return toolname.ExitPlanMode }

// ReadOnly is true: presenting a plan changes no file.
func (t *exitPlanTool) ReadOnly() bool { return true }

// Concurrent is false: an approval changes the mode the calls after it
// are decided in.
func (t *exitPlanTool) Concurrent() bool { return false }

func (t *exitPlanTool) Description() string {
	return "In plan mode, once your plan is ready, present it to the user for approval with this tool " +
		"(markdown: the steps, the files to change, the risks, the tests). If the user approves, plan mode ends " +
		"and you carry the plan out; if not, the result holds their feedback: revise the plan and present it again."
}

func (t *exitPlanTool) Schema() map[string]any { return exitPlanSchema() }

var exitPlanSchema = tool.ArgsSchema[exitPlanArgs](tool.SchemaClosed)

// exitPlanArgs are exit_plan_mode's arguments.
type exitPlanArgs struct {
	Plan string `json:"plan" jsonschema:"The plan, in markdown."`
}

func (t *exitPlanTool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	var a exitPlanArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("exit_plan_mode: invalid arguments: %v", err)
	}
	plan := strings.TrimSpace(a.Plan)
	if plan == "" {
		return tool.Errorf("exit_plan_mode: plan is required (markdown)")
	}
	if t.cfg.Child {
		return tool.Result{Content: PlanReport, Summary: "plan reported", Final: plan}
	}
	if t.cfg.Mode != nil && t.cfg.Mode() != permission.ModePlan {
		return tool.Result{Content: PlanNotInPlanMode, Summary: "not in plan mode"}
	}
	if t.cfg.Gate == nil {
		return tool.Result{Content: PlanHeadless, Summary: "plan presented", Final: plan}
	}
	v := t.cfg.Gate.Check(ctx, permission.Request{Tool: toolname.ExitPlanMode, Plan: plan})
	switch {
	case v.Allowed:
		return tool.Result{Content: fmt.Sprintf("The user approved the plan. Permission mode is now %s: carry the plan out.", v.Mode),
			Summary: "approved: " + string(v.Mode)}
	case v.ByUser:
		return tool.Result{Content: "The user did not approve the plan; stay in plan mode and revise it. " + v.Reason, Summary: "keep planning"}
	case ctx.Err() != nil:
		return tool.Errorf("%s", v.Reason)
	}
	return tool.Result{Content: PlanHeadless, Summary: "plan presented", Final: plan}
}
