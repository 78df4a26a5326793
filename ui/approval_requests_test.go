package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"covey/permission"
	"covey/theme"
	"covey/tools/diff"
	"covey/tools/tool"
	"covey/tools/toolname"
	"covey/ui/approval"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// The approval block's own tests are ui/approval's block_test.go; these
// helpers build the requests the root model's approval tests ask.

// approvalOld and approvalNew are a small Go file before and after an edit.
const approvalOld = `package handlers

import "net/http"

// Health answers the load balancer.
func Health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
}

// Version reports the build.
func Version(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("dev"))
}
`

const approvalNew = `package handlers

import (
	"fmt"
	"net/http"
)

// Health answers the load balancer.
func Health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}

// Version reports the build.
func Version(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "%s\n", build)
}
`

// editRequest is an edit_file request changing old into new.
func editRequest(path, old, new string) permission.Request {
	diff, added, removed := diff.UnifiedDiff(path, old, new)
	return permission.Request{Tool: toolname.EditFile, Path: path, Content: new,
		Change: &tool.FileChange{Path: path, Diff: diff, Added: added, Removed: removed}}
}

// writeRequest is a write_file request creating path with content.
func writeRequest(path, content string) permission.Request {
	diff, added, removed := diff.UnifiedDiff(path, "", content)
	return permission.Request{Tool: toolname.WriteFile, Path: path, Content: content,
		Change: &tool.FileChange{Path: path, Created: true, Diff: diff, Added: added, Removed: removed}}
}

func bashRequest(cmd string) permission.Request {
	return permission.Request{Tool: toolname.Bash, Command: cmd, Dir: "/work/project"}
}

func approvalCtx(width int) transcript.RenderContext {
	th := theme.New(theme.ModeDark, true, false)
	return transcript.RenderContext{Width: width, Styles: &th.Styles}
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestApprovalHintsFollowTheKeyMap: the keys an approval names come from
// the KeyMap's help text, so a rebinding changes what the screen says.
func TestApprovalHintsFollowTheKeyMap(t *testing.T) {
	keys := keys.Default()
	keys.ApproveYes.SetHelp("ctrl+y", "allow")
	keys.Cancel.SetHelp("ctrl+x", "cancel turn")
	b := approval.New(bashRequest("go test ./..."), approvalHintKeys(keys))
	b.SetActive(true)
	text := ansi.Strip(strings.Join(b.Lines(approvalCtx(100)), "\n"))
	for _, want := range []string{"ctrl+y allow", "ctrl+x cancel turn"} {
		if !strings.Contains(text, want) {
			t.Errorf("the approval lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "y allow ·") && !strings.Contains(text, "ctrl+y allow") {
		t.Errorf("the approval still names the old key:\n%s", text)
	}
}
