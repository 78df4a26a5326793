package subagent

import (
	"testing"

	"covey/agent"
)

// TestReportSummaryNamesTheFailure checks the one-line summary of a task call
// (the headless progress line, the tool block's header): one failed child
// says why, not a bare "error".
func TestReportSummaryNamesTheFailure(t *testing.T) {
	m := &Manager{cfg: Config{ResultCap: 10000}}
	tests := map[string]struct {
		outs []outcome
		want string
	}{
		"unknown type": {
			outs: []outcome{{reason: agent.StopError, text: "Error: unknown subagent_type \"Explorer\". Available:\n- Explore: reads"}},
			want: `error: unknown subagent_type "Explorer"`,
		},
		"done":         {outs: []outcome{{reason: agent.StopOK, text: "found it"}}, want: agent.StopOK},
		"two children": {outs: []outcome{{reason: agent.StopError, text: "Error: x"}, {reason: agent.StopOK, text: "y"}}, want: "2 children: 1 ok, 1 error"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			specs := make([]TaskSpec, len(tc.outs))
			for i := range specs {
				specs[i] = TaskSpec{Description: "d", SubagentType: "Explorer"}
			}
			if got := m.report(specs, tc.outs).Summary; got != tc.want {
				t.Errorf("summary %q, want %q", got, tc.want)
			}
		})
	}
}
