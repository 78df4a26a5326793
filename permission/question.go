package permission

import "covey/tools/toolname"

// ToolAskUser is the Request.Tool of a question the model puts to the
// user (the ask_user tool); Request.Question holds it.
const ToolAskUser = toolname.AskUser

// ToolExitPlanMode is the Request.Tool of a plan presented for the
// user's approval (the exit_plan_mode tool); Request.Plan holds it.
const ToolExitPlanMode = toolname.ExitPlanMode

// IsUserQuestion reports whether tool names something only the user can
// answer (a question, a plan to approve) rather than a permission: no
// mode or rule decides it, and it does not wait behind other requests,
// since no grant can settle it.
func IsUserQuestion(tool string) bool { return tool == ToolAskUser || tool == ToolExitPlanMode }

// Question is what ask_user asks: the question, one to four options to
// pick from, and whether several may be picked. The user may always type
// a free answer instead.
type Question struct {
	Question    string           `json:"question"`
	Options     []QuestionOption `json:"options"`
	MultiSelect bool             `json:"multi_select,omitempty"`
}

// QuestionOption is one answer the user may pick.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// NoUserReason is what a question or plan gets in a run nobody can be
// asked in (headless).
const NoUserReason = "no user is available to answer (covey runs without a user, headless): " +
	"decide yourself, say in your answer what you assumed, and go on"

// DeclinedAnswer is a question's refusal when the user declines to answer.
const DeclinedAnswer = "the user declined to answer"
