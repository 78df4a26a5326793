package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{1, "file", "1 file"},
		{0, "file", "0 files"},
		{2, "candidate file", "2 candidate files"},
		{1, "message", "1 message"},
		{3, "match", "3 matches"},
		{2, "box", "2 boxes"},
		{2, "entry", "2 entries"},
		{2, "day", "2 days"},
		{1, "entry", "1 entry"},
		{2, "bash", "2 bashes"},
		{-1, "token", "-1 tokens"},
	}
	for _, tc := range tests {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
	if got := CountOf(1, "child", "children"); got != "1 child" {
		t.Errorf("CountOf(1) = %q", got)
	}
	if got := CountOf(4, "child", "children"); got != "4 children" {
		t.Errorf("CountOf(4) = %q", got)
	}
	if got := Noun(1, ""); got != "" {
		t.Errorf("Noun(1, \"\") = %q", got)
	}
}

func TestPick(t *testing.T) {
	for n, want := range map[int]string{0: "them", 1: "it", 2: "them"} {
		if got := Pick(n, "it", "them"); got != want {
			t.Errorf("Pick(%d) = %q, want %q", n, got, want)
		}
	}
}
