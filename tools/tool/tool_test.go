package tool

import "testing"

// TestFailed: an error fails, and so does a command's non-zero exit, read
// back from the summary ExitSummary made; a zero exit and other summaries
// do not.
func TestFailed(t *testing.T) {
	tests := map[string]struct {
		r    Result
		want bool
	}{
		"error":          {Result{IsError: true, Summary: "file not found"}, true},
		"exit 0":         {Result{Summary: ExitSummary(0)}, false},
		"exit 1":         {Result{Summary: ExitSummary(1)}, true},
		"exit 127":       {Result{Summary: ExitSummary(127)}, true},
		"other summary":  {Result{Summary: "42 lines"}, false},
		"exit not a num": {Result{Summary: "exit now"}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Failed(tc.r); got != tc.want {
				t.Errorf("Failed(%+v) = %v, want %v", tc.r, got, tc.want)
			}
		})
	}
}
