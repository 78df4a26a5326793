package ui

import (
	"covey/permission"
	"covey/ui/approval"
	"covey/ui/keys"
)

// newApprovalBlock is the approval of req, its hints naming the default
// KeyMap's keys (what the transcript's hints name too).
func newApprovalBlock(req permission.Request) *approval.Block {
	return approval.New(req, approvalHintKeys(keys.Default()))
}

// approvalHintKeys are the bindings of k an approval names in its hints.
func approvalHintKeys(k keys.KeyMap) approval.Keys {
	return approval.Keys{
		ApproveYes: k.ApproveYes, ApproveSession: k.ApproveSession, ApproveNo: k.ApproveNo,
		ApproveFeedback: k.ApproveFeedback, ApproveEdit: k.ApproveEdit,
		ApproveLayout: k.ApproveLayout, ApproveKeep: k.ApproveKeep,
		ApproveUp: k.ApproveUp, ApproveDown: k.ApproveDown, ApprovePageUp: k.ApprovePageUp, ApprovePageDown: k.ApprovePageDown,
		ApproveLeft: k.ApproveLeft, ApproveRight: k.ApproveRight,
		ApproveFileToggle: k.ApproveFileToggle, ApproveFileNext: k.ApproveFileNext, ApproveFilePrev: k.ApproveFilePrev,
		ApproveHunkToggle: k.ApproveHunkToggle, ApproveHunkNext: k.ApproveHunkNext, ApproveHunkPrev: k.ApproveHunkPrev,
		ApproveAttemptNext: k.ApproveAttemptNext, ApproveAttemptPrev: k.ApproveAttemptPrev,
		FeedbackSend: k.FeedbackSend, FeedbackBack: k.FeedbackBack, FocusApproval: k.FocusApproval,
		QuestionNumber: k.QuestionNumber, QuestionPick: k.QuestionPick, QuestionToggle: k.QuestionToggle,
		ApproveToInput: k.ApproveToInput,
		Cancel:         k.Cancel,
	}
}
