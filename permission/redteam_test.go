package permission

import (
	"strings"
	"testing"

	"covey/tools/toolname"
)

// TestRedteamGrants: "allow for this session" grants what was approved,
// not a prefix that lets the same program run any code: an approved
// git -c line, python3.12 -c or sed script is granted exactly, so a
// later git -c core.fsmonitor=..., other inline code or a sed e command
// is asked about again; plain subcommands keep their prefix grant.
func TestRedteamGrants(t *testing.T) {
	tests := []struct {
		approved string
		rules    []string
		asked    []string // still asked about after the grant
		allowed  []string // allowed after the grant
	}{
		{"git -c color.ui=always log", []string{"bash(git -c color.ui=always log)"},
			[]string{"git -c core.fsmonitor='touch pwned' status", "git -c alias.x='!touch pwned' x"}, nil},
		{"git -C sub status", []string{"bash(git -C sub status)"}, []string{"git -C .. -c core.pager=x log"}, nil},
		{"python3.12 -c 'print(1)'", []string{"bash(python3.12 -c 'print(1)')"}, []string{"python3.12 -c 'import os; os.remove(\"x\")'"}, nil},
		{"sed -n 1p go.mod", []string{"bash(sed -n 1p go.mod)"}, []string{"sed -n '1e touch pwned' go.mod"}, nil},
		{"nodejs -e 'console.log(1)'", []string{"bash(nodejs -e 'console.log(1)')"}, []string{"nodejs -e 'require(\"fs\").rmSync(\"x\")'"}, nil},
		{"git status --short", []string{"bash(git status:*)"}, []string{"git -c core.fsmonitor=x status"}, []string{"git status"}},
	}
	for _, tt := range tests {
		t.Run(tt.approved, func(t *testing.T) {
			p := NewPolicy(ModeDefault, nil, nil)
			p.SetWorkspace(t.TempDir())
			got := p.Grant(Request{Tool: toolname.Bash, Command: tt.approved})
			if strings.Join(got, " ; ") != strings.Join(tt.rules, " ; ") {
				t.Errorf("granted %q, want %q", got, tt.rules)
			}
			for _, c := range tt.asked {
				if p.AllowedWithoutAsking(Request{Tool: toolname.Bash, Command: c}) {
					t.Errorf("after approving %q, %q runs without asking", tt.approved, c)
				}
			}
			for _, c := range tt.allowed {
				if !p.AllowedWithoutAsking(Request{Tool: toolname.Bash, Command: c}) {
					t.Errorf("after approving %q, %q is asked about", tt.approved, c)
				}
			}
		})
	}
}
