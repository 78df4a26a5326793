package subagent

import (
	"testing"

	"covey/agent"
)

// TestChildCacheKey: a child's prompt cache key is its own under the
// session's; a fork, whose requests begin as its parent's, takes its
// parent's; outside a recorded session there is none.
func TestChildCacheKey(t *testing.T) {
	m := &Manager{cfg: Config{SessionID: "sess"}}
	for name, tc := range map[string]struct {
		c    *child
		want string
	}{
		"child":             {&child{m: m, src: agent.Source{AgentID: "explore-2", ParentID: agent.MainAgentID}}, "sess/explore-2"},
		"fork of the main":  {&child{m: m, fork: &forked{}, src: agent.Source{AgentID: "general-3", ParentID: agent.MainAgentID}}, "sess"},
		"fork of a child":   {&child{m: m, fork: &forked{}, src: agent.Source{AgentID: "general-4", ParentID: "general-3"}}, "sess/general-3"},
		"no session record": {&child{m: &Manager{}, src: agent.Source{AgentID: "explore-1"}}, ""},
	} {
		if got := tc.c.cacheKey(); got != tc.want {
			t.Errorf("%s: key %q, want %q", name, got, tc.want)
		}
	}
}
