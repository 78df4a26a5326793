package permission

import (
	"strings"
	"testing"

	"covey/tools/toolname"
)

// MCP tools in plan mode: offered and allowed only when an allow rule names
// them; deny rules still win; other modes ask or allow as usual.
func TestPlanModeMCPTools(t *testing.T) {
	rs := mustRules(t, []string{"mcp__docs", "mcp__gh__search"}, []string{"mcp__docs__delete"})
	tests := []struct {
		name   string
		mode   Mode
		tool   string
		offers bool
		allow  bool
		reason string
	}{
		{"server rule", ModePlan, "mcp__docs__read", true, true, ""},
		{"tool rule", ModePlan, "mcp__gh__search", true, true, ""},
		{"other tool of a named server", ModePlan, "mcp__gh__create_issue", false, false, "plan"},
		{"unnamed server", ModePlan, "mcp__fs__write", false, false, "plan"},
		{"deny wins in plan mode", ModePlan, "mcp__docs__delete", true, false, "permissions.deny"},
		{"default mode asks (headless refuses)", ModeDefault, "mcp__fs__write", false, false, "headless"},
		{"bypass runs it", ModeBypass, "mcp__fs__write", false, true, ""},
		{"built-in tools are not MCP", ModePlan, toolname.Bash, false, false, "plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(tt.mode, rs, nil)
			if got := p.PlanOffers(tt.tool); got != tt.offers {
				t.Errorf("PlanOffers = %v, want %v", got, tt.offers)
			}
			v := p.Check(t.Context(), Request{Tool: tt.tool, Server: "x", Args: "{}"})
			if v.Allowed != tt.allow || !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("Check = %+v, want allowed %v with %q", v, tt.allow, tt.reason)
			}
		})
	}
}
