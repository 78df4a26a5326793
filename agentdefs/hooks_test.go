package agentdefs

import (
	"testing"

	"covey/hooks"
)

// TestParseHooks: an agent file's hooks (Claude Code's shape) load into its
// definition, without a warning.
func TestParseHooks(t *testing.T) {
	file := "---\nname: guarded\ndescription: d\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n" +
		"          command: ./guard.sh\n          timeout: 5\n  Stop:\n    - hooks: [{type: command, command: notify}]\n---\np\n"
	d, problems, err := Parse("guarded.md", []byte(file))
	if err != nil || len(problems) > 0 {
		t.Fatalf("err %v, problems %v", err, problems)
	}
	pre := d.Hooks[hooks.PreToolUse]
	if len(pre) != 1 || pre[0].Matcher != "Bash" || len(pre[0].Hooks) != 1 || pre[0].Hooks[0].Command != "./guard.sh" || pre[0].Hooks[0].Timeout != 5 {
		t.Errorf("PreToolUse = %+v", pre)
	}
	if stop := d.Hooks[hooks.Stop]; len(stop) != 1 || stop[0].Hooks[0].Command != "notify" {
		t.Errorf("Stop = %+v", stop)
	}
	_, problems, err = Parse("bad.md", []byte("---\nname: b\ndescription: d\nhooks: [nope]\n---\np\n"))
	if err != nil || len(problems) != 1 || problems[0].Field != "hooks" || !problems[0].Warning {
		t.Errorf("hooks of the wrong shape: err %v, problems %v", err, problems)
	}
}
