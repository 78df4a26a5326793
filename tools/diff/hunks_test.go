package diff

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// numberedEOL makes a file of n numbered lines, "l1\n".."ln\n", with eol.
func numberedEOL(n int, eol string) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "l%d%s", i, eol)
	}
	return sb.String()
}

func TestKeepHunks(t *testing.T) {
	base := numberedEOL(30, "\n")
	twoEdits := strings.Replace(strings.Replace(base, "l3\n", "L3\n", 1), "l25\n", "L25\n", 1)
	crlf := numberedEOL(30, "\r\n")
	crlfEdits := strings.Replace(strings.Replace(crlf, "l3\r\n", "L3\r\n", 1), "l25\r\n", "L25\r\n", 1)
	addDel := strings.Replace(strings.Replace(base, "l2\n", "", 1), "l28\n", "l28\nnew\n", 1)
	// Changes 7 equal lines apart: two hunks whose context lines touch.
	adjacent := strings.Replace(strings.Replace(base, "l5\n", "L5\n", 1), "l13\n", "L13\n", 1)
	tests := []struct {
		name          string
		old, updated  string
		hunks         int
		dropped       []int
		want          string
		wantDropped   []string // headers
		wantErrSubstr string
	}{
		{name: "nothing dropped gives the proposal", old: base, updated: twoEdits, hunks: 2, want: twoEdits},
		{name: "first of two dropped", old: base, updated: twoEdits, hunks: 2, dropped: []int{0},
			want: strings.Replace(base, "l25\n", "L25\n", 1), wantDropped: []string{"@@ -1,6 +1,6 @@"}},
		{name: "second of two dropped", old: base, updated: twoEdits, hunks: 2, dropped: []int{1},
			want: strings.Replace(base, "l3\n", "L3\n", 1), wantDropped: []string{"@@ -22,7 +22,7 @@"}},
		{name: "all dropped gives the file back", old: base, updated: twoEdits, hunks: 2, dropped: []int{0, 1}, want: base,
			wantDropped: []string{"@@ -1,6 +1,6 @@", "@@ -22,7 +22,7 @@"}},
		{name: "a deletion dropped, an addition taken", old: base, updated: addDel, hunks: 2, dropped: []int{0},
			want: strings.Replace(base, "l28\n", "l28\nnew\n", 1), wantDropped: []string{"@@ -1,5 +1,4 @@"}},
		{name: "an addition dropped, a deletion taken", old: base, updated: addDel, hunks: 2, dropped: []int{1},
			want: strings.Replace(base, "l2\n", "", 1)},
		{name: "adjacent hunks", old: base, updated: adjacent, hunks: 2, dropped: []int{1},
			want: strings.Replace(base, "l5\n", "L5\n", 1)},
		{name: "CRLF lines stay CRLF", old: crlf, updated: crlfEdits, hunks: 2, dropped: []int{0},
			want: strings.Replace(crlf, "l25\r\n", "L25\r\n", 1)},
		{name: "a new file's one hunk dropped", old: "", updated: "a\nb\n", hunks: 1, dropped: []int{0}, want: ""},
		{name: "a new file kept whole", old: "", updated: "a\nb\n", hunks: 1, want: "a\nb\n"},
		{name: "last line without newline, change dropped", old: "a\nb", updated: "a\nc", hunks: 1, dropped: []int{0}, want: "a\nb"},
		{name: "no such hunk", old: base, updated: twoEdits, hunks: 2, dropped: []int{2}, wantErrSubstr: "no such hunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := HunkCount(tt.old, tt.updated); n != tt.hunks {
				t.Fatalf("HunkCount = %d, want %d", n, tt.hunks)
			}
			// The hunks counted are the hunks UnifiedDiff shows.
			d, _, _ := UnifiedDiff("f", tt.old, tt.updated)
			if n := strings.Count(d, "\n@@ "); n != tt.hunks {
				t.Fatalf("UnifiedDiff shows %d hunks, want %d:\n%s", n, tt.hunks, d)
			}
			got, dropped, err := KeepHunks(tt.old, tt.updated, tt.dropped)
			if tt.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSubstr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErrSubstr)
				}
				if !errors.Is(err, ErrHunkIndex) {
					t.Fatalf("err = %v, want ErrHunkIndex", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %q\nwant %q", got, tt.want)
			}
			if len(dropped) != len(tt.dropped) {
				t.Fatalf("dropped %d hunks, want %d", len(dropped), len(tt.dropped))
			}
			for i, h := range tt.wantDropped {
				if dropped[i].Header != h {
					t.Errorf("dropped[%d].Header = %q, want %q", i, dropped[i].Header, h)
				}
				// The dropped hunk is a piece of the diff shown.
				if !strings.Contains(d, h+"\n"+strings.Join(dropped[i].Lines, "\n")+"\n") {
					t.Errorf("dropped hunk %q is not in the diff:\n%s", h, d)
				}
			}
		})
	}
}

func TestKeepHunksLastLine(t *testing.T) {
	// The old last line lacks its newline; the proposal gives it one and
	// adds lines far below: whatever is taken, no two lines run together.
	old := numberedEOL(20, "\n") + "end"
	updated := strings.Replace(numberedEOL(20, "\n"), "l2\n", "L2\n", 1) + "end\n" + "x\n"
	n := HunkCount(old, updated)
	for mask := 0; mask < 1<<n; mask++ {
		var dropped []int
		for i := range n {
			if mask&(1<<i) != 0 {
				dropped = append(dropped, i)
			}
		}
		got, _, err := KeepHunks(old, updated, dropped)
		if err != nil {
			continue // refused is fine; corrupt is not
		}
		if strings.Contains(got, "endx") || strings.Contains(got, "endl") {
			t.Fatalf("dropped %v ran lines together: %q", dropped, got)
		}
	}
}

func TestDescribeHunks(t *testing.T) {
	_, hs, err := KeepHunks("a\r\nb\r\n", "a\r\nc\r\n", []int{0})
	if err != nil {
		t.Fatal(err)
	}
	got := DescribeHunks(hs, 1000)
	if want := "@@ -1,2 +1,2 @@\n a\n-b\n+c\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if s := DescribeHunks(hs, 10); !strings.Contains(s, "more bytes") {
		t.Fatalf("not cut: %q", s)
	}
}

// FuzzKeepHunks: taking every hunk gives the proposal, dropping every one
// gives the file back, and no choice panics or fails but the one refused
// on purpose (two lines that would run together).
func FuzzKeepHunks(f *testing.F) {
	f.Add(numberedEOL(30, "\n"), strings.Replace(numberedEOL(30, "\n"), "l3\n", "L3\n", 1)+"x\n", uint8(1))
	f.Add("a\r\nb\r\n", "a\r\nc\r\nd", uint8(3))
	f.Add("", "new\n", uint8(1))
	f.Add("a\nb", "a\nb\nc\n", uint8(2))
	f.Fuzz(func(t *testing.T, old, updated string, mask uint8) {
		if len(old) > 4096 || len(updated) > 4096 {
			return
		}
		n := HunkCount(old, updated)
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		if got, _, err := KeepHunks(old, updated, nil); err != nil || got != updated {
			t.Fatalf("nothing dropped: %q, %v; want the proposal", got, err)
		}
		if got, hs, err := KeepHunks(old, updated, all); n > 0 && (err != nil || got != old || len(hs) != n) {
			t.Fatalf("everything dropped: %q, %d hunks, %v; want the file back", got, len(hs), err)
		}
		var some []int
		for i := range n {
			if mask&(1<<(i%8)) != 0 {
				some = append(some, i)
			}
		}
		got, _, err := KeepHunks(old, updated, some)
		if err != nil {
			if !strings.Contains(err.Error(), "cannot be taken apart") {
				t.Fatalf("dropping %v: %v", some, err)
			}
			return
		}
		// What lands is made of the two versions' lines only.
		for _, l := range splitLines(got) {
			if !strings.Contains(old, l) && !strings.Contains(updated, l) {
				t.Fatalf("dropping %v made a line of neither version: %q", some, l)
			}
		}
	})
}
