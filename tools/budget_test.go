package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"covey/tools/tool"
)

func TestResultBudget(t *testing.T) {
	tests := map[string]struct {
		budget, def, want int
		sized             bool
	}{
		"no budget":          {0, 50 << 10, 50 << 10, false},
		"budget lowers":      {4 << 10, 50 << 10, 4 << 10, true},
		"budget above":       {100 << 10, 50 << 10, 50 << 10, false},
		"hard cap":           {0, 1 << 20, tool.HardResultCap, false},
		"negative is absent": {-5, 10, 10, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if tc.budget != 0 {
				ctx = tool.WithResultBudget(ctx, tc.budget)
			}
			if got := tool.ResultBudget(ctx, tc.def); got != tc.want {
				t.Errorf("ResultBudget = %d, want %d", got, tc.want)
			}
			if got := tool.SizedToWindow(ctx, tc.def); got != tc.sized {
				t.Errorf("SizedToWindow = %v, want %v", got, tc.sized)
			}
		})
	}
}

// TestToolsKeepToTheBudget runs each searching and reading tool over a
// workspace far larger than a small window's share, and checks the result
// keeps to the budget the call's context carries and says how to get the
// rest.
func TestToolsKeepToTheBudget(t *testing.T) {
	const budget = 2 << 10
	env := wtEnv(t)
	var big strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&big, "line %d: needle and some more words to make it long\n", i)
	}
	wtPut(t, env, "big.txt", big.String(), false)
	for i := range 300 {
		wtPut(t, env, filepath.Join("many", fmt.Sprintf("file-with-a-longish-name-%03d.txt", i)), "needle\n", false)
	}
	tests := map[string]struct {
		tool tool.Tool
		args map[string]any
		how  string // how the cut says to get the rest
	}{
		"read_file": {NewReadFile(env), map[string]any{"path": "big.txt"}, "offset="},
		"grep":      {NewGrep(env), map[string]any{"pattern": "needle"}, "narrow the pattern"},
		"grep files": {NewGrep(env), map[string]any{"pattern": "needle", "output_mode": "files_with_matches"},
			"narrow the search"},
		"glob":     {NewGlob(env), map[string]any{"pattern": "**/*.txt"}, "narrower pattern"},
		"list_dir": {NewListDir(env), map[string]any{"path": "many"}, "use glob"},
		"bash":     {NewBash(env), map[string]any{"command": "cat big.txt"}, "send the output to a file"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.args)
			res := tc.tool.Run(tool.WithResultBudget(context.Background(), budget), raw)
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			// The cut's own note may pass the budget by a line.
			if len(res.Content) > budget+300 {
				t.Errorf("result is %d bytes, budget %d", len(res.Content), budget)
			}
			if !strings.Contains(res.Content, tc.how) {
				t.Errorf("the cut does not say how to get the rest (%q):\n%s", tc.how, res.Content)
			}
			unbounded := tc.tool.Run(context.Background(), raw)
			if len(unbounded.Content) <= len(res.Content) {
				t.Errorf("without a budget the result is %d bytes, not more than %d", len(unbounded.Content), len(res.Content))
			}
		})
	}
}
