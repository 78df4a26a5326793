package approval

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/permission"
	"covey/ui/keys"
)

// Action is what an approval's key asks of the root model, the part only
// it can do (settle the request, grant a rule, start an editor, move the
// focus, cancel the turn, say a word); nil asks nothing. A key that only
// changes the block (a hunk taken, the diff scrolled) is done by the block
// itself and asks nothing.
type Action any

// Allow allows the change as the block has chosen it: the files and hunks
// taken (nil: all of them), the attempt shown (0 unless a best-of-N
// review), and the user's note for the model ("" for none).
type Allow struct {
	Files   []string
	Dropped map[string][]int
	Attempt int
	Note    string
}

// Deny refuses the request, with the user's feedback for the model ("" for
// none).
type Deny struct{ Feedback string }

// GrantSession allows the request and, through the policy, the like of it
// for the rest of the session.
type GrantSession struct{}

// Keep leaves a merge on its branch for later.
type Keep struct{}

// Edit opens the proposed content in $EDITOR before allowing it.
type Edit struct{}

// ToInput gives the keyboard to the input while the request waits.
type ToInput struct{}

// CancelTurn cancels the running turn, which withdraws the request; with no
// turn running the root denies it instead.
type CancelTurn struct{}

// Say shows a one-line notice: why a key does nothing here.
type Say struct{ Text string }

// HandleKey takes a key while the approval has the keyboard: it answers
// the feedback input while that is open, else it moves through the change
// or names the answer as an Action. km is the root's KeyMap, with the
// bindings that do not apply now disabled. handled is false for the keys it
// leaves to the root's global bindings.
func (b *Block) HandleKey(k tea.KeyMsg, km *keys.KeyMap) (a Action, cmd tea.Cmd, handled bool) {
	if b.question != nil {
		return b.questionKey(k, km)
	}
	if b.plan != nil && !b.feedbackOn {
		switch {
		case key.Matches(k, km.ApproveYes):
			return ApprovePlan{Mode: permission.ModeDefault}, nil, true
		case key.Matches(k, km.ApproveSession):
			return ApprovePlan{Mode: permission.ModeAcceptEdits}, nil, true
		case key.Matches(k, km.ApproveFeedback):
			b.startPlanFeedback()
		}
	}
	if b.feedbackOn {
		switch {
		case key.Matches(k, km.FeedbackSend):
			// d denies with feedback, whatever hunks are dropped: one key,
			// one meaning (y allows the hunks taken).
			a = Deny{Feedback: b.Feedback()}
		case key.Matches(k, km.FeedbackBack):
			b.StopFeedback()
		default:
			cmd = b.typeFeedback(k)
		}
		return a, cmd, true
	}
	switch {
	case key.Matches(k, km.ApproveYes):
		a = b.allowChosen()
	case key.Matches(k, km.ApproveSession):
		a = GrantSession{}
	case key.Matches(k, km.ApproveNo):
		a = Deny{}
	case key.Matches(k, km.ApproveFeedback):
		cmd = b.StartFeedback()
	case key.Matches(k, km.ApproveHunkToggle):
		b.ToggleHunk()
	case key.Matches(k, km.ApproveHunkNext):
		b.MoveHunk(1)
	case key.Matches(k, km.ApproveHunkPrev):
		b.MoveHunk(-1)
	case key.Matches(k, km.ApproveAttemptNext):
		b.MoveAttempt(1)
	case key.Matches(k, km.ApproveAttemptPrev):
		b.MoveAttempt(-1)
	case key.Matches(k, km.ApproveEdit):
		a = Edit{}
	case key.Matches(k, km.ApproveLayout):
		b.ToggleLayout()
	case keys.MatchesAny(k, km.ApproveLayout) && b.OneSided():
		// Disabled here, yet not ignored in silence: the word says why.
		a = Say{Text: "a new or deleted file is shown unified: no side by side"}
	case key.Matches(k, km.ApproveKeep):
		a = Keep{}
	case key.Matches(k, km.ApproveFileToggle):
		b.ToggleFile()
	case key.Matches(k, km.ApproveFileNext):
		b.MoveFile(1)
	case key.Matches(k, km.ApproveFilePrev):
		b.MoveFile(-1)
	case key.Matches(k, km.ApproveUp):
		b.ScrollBy(-1)
	case key.Matches(k, km.ApproveDown):
		b.ScrollBy(1)
	case key.Matches(k, km.ApprovePageUp):
		b.PageBy(-1)
	case key.Matches(k, km.ApprovePageDown):
		b.PageBy(1)
	case key.Matches(k, km.ApproveLeft):
		b.ShiftBy(-1)
	case key.Matches(k, km.ApproveRight):
		b.ShiftBy(1)
	case key.Matches(k, km.ApproveToInput):
		a = ToInput{}
	case key.Matches(k, km.Cancel):
		a = CancelTurn{}
	default:
		return nil, nil, false
	}
	return a, cmd, true
}

// allowChosen allows what the block has chosen: the whole change, or the
// files and hunks taken; taking nothing is a denial. For a best-of-N
// review it applies the attempt shown.
func (b *Block) allowChosen() Action {
	files := b.ChosenFiles()
	if (files != nil && len(files) == 0) || b.AllDropped() {
		return Deny{}
	}
	return Allow{Files: files, Dropped: b.DroppedHunks(), Attempt: b.Attempt()}
}

// KeyState is what the waiting request b (nil: none) allows, for the
// KeyMap to enable its keys.
func (b *Block) KeyState() keys.Approval {
	if b == nil {
		return keys.Approval{}
	}
	return keys.Approval{
		Pending:  true,
		Feedback: b.FeedbackOpen(),
		Editable: b.Editable(),
		OneSided: b.OneSided(),
		WideDiff: b.MaxShift() > 0,
		Merge:    b.IsMerge(),
		Hunks:    b.ChoosesHunks(),
		Trimmed:  b.Trimmed(),
		Attempts: b.IsPick(),
		Question: b.question != nil,
		Multi:    b.question != nil && b.question.q.MultiSelect,
		Options:  b.questionRows(),
		Plan:     b.plan != nil,
	}
}

// questionRows is how many rows a question offers to pick (its options
// and "type an answer"), 0 for any other request.
func (b *Block) questionRows() int {
	if b.question == nil {
		return 0
	}
	return b.question.typeRow() + 1
}
