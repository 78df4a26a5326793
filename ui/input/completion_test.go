package input

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"covey/theme"
)

var testFiles = []string{
	"README.md", "go.mod", "main.go",
	"src/main.go", "src/main_test.go", "src/util/strings.go",
	"docs/ui.md", "internal/scripted/server.go",
}

// TestPathIndexMatch: paths that start with what is typed come first, then
// those with a name or folder that does, then substrings, then fuzzy
// matches; folders are entries of their own; nothing typed lists the top
// level.
func TestPathIndexMatch(t *testing.T) {
	x := newPathIndex(testFiles, time.Now())
	tests := map[string]struct {
		typed string
		want  []string // the first matches, in order
		none  []string // never among the matches
	}{
		"prefix first":         {typed: "src/ma", want: []string{"src/main.go", "src/main_test.go"}, none: []string{"main.go"}},
		"a name's prefix":      {typed: "strings", want: []string{"src/util/strings.go"}},
		"folders too":          {typed: "src/u", want: []string{"src/util/", "src/util/strings.go"}},
		"prefix before a name": {typed: "main", want: []string{"main.go", "src/main.go"}},
		"substring":            {typed: "cripted", want: []string{"internal/scripted/", "internal/scripted/server.go"}},
		"fuzzy last":           {typed: "isv", want: []string{"internal/scripted/server.go"}, none: []string{"src/util/strings.go"}},
		"case is ignored":      {typed: "readme", want: []string{"README.md"}},
		"nothing matches":      {typed: "zzz", none: testFiles},
		"the top level":        {typed: "", want: []string{"README.md", "docs/", "go.mod", "internal/", "main.go", "src/"}, none: []string{"src/main.go"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := x.Match(strings.ToLower(tc.typed))
			if len(got) < len(tc.want) {
				t.Fatalf("Match(%q) = %q, want it to start %q", tc.typed, got, tc.want)
			}
			for i, w := range tc.want {
				if got[i] != w {
					t.Fatalf("Match(%q) = %q, want it to start %q", tc.typed, got, tc.want)
				}
			}
			for _, n := range tc.none {
				for _, g := range got {
					if g == n {
						t.Errorf("Match(%q) holds %q: %q", tc.typed, n, got)
					}
				}
			}
		})
	}
}

// TestPathIndexBounds: a huge listing is cut to maxListedFiles, and a
// match returns at most maxPathMatches paths.
func TestPathIndexBounds(t *testing.T) {
	files := make([]string, maxListedFiles+500)
	for i := range files {
		files[i] = fmt.Sprintf("f/%07d.go", i)
	}
	x := newPathIndex(files, time.Now())
	if n := len(x.paths); n != maxListedFiles+1 { // the files kept, and f/
		t.Errorf("%d paths kept", n)
	}
	if n := len(x.Match("go")); n != maxPathMatches {
		t.Errorf("%d matches, want %d", n, maxPathMatches)
	}
}

func BenchmarkPathIndexMatch(b *testing.B) {
	files := make([]string, 0, 50_000)
	for i := range 50_000 {
		files = append(files, fmt.Sprintf("pkg%03d/sub%02d/file_%05d.go", i%500, i%37, i))
	}
	x := newPathIndex(files, time.Now())
	b.ResetTimer()
	for range b.N {
		x.Match("pkg42/fil")
	}
}

// TestCompletionAt: after "@" the popup lists agent types first (only for
// a word that starts the input), then paths; completing keeps the text
// before the word; a file is followed by a space, a folder is not.
func TestCompletionAt(t *testing.T) {
	th := theme.New(theme.ModeDark, true, false)
	c := NewCompletion(nil, Keys{}, &th.Styles)
	c.agents = []Entry{{Name: "Explore", Args: "BRIEF"}, {Name: "Plan", Args: "BRIEF"}}
	c.files = newPathIndex([]string{"explain.md", "src/main.go"}, time.Now())
	names := func() []string {
		var out []string
		for _, m := range c.matches {
			out = append(out, m.Name)
		}
		return out
	}
	tests := map[string]struct {
		value, want, completed string
	}{
		"types first":         {value: "@exp", want: "Explore explain.md", completed: "@Explore "},
		"a path mid-text":     {value: "look at @exp", want: "explain.md", completed: "look at @explain.md "},
		"a folder goes on":    {value: "see @sr", want: "src/ src/main.go", completed: "see @src/"},
		"a path with a slash": {value: "@src/m", want: "src/main.go", completed: "@src/main.go "},
		"a finished word":     {value: "@src/main.go and", want: ""},
		"a command still":     {value: "/he", want: ""},
		"an @ inside a word":  {value: "mail@exp", want: ""},
		"a line of its own":   {value: "first\n@sr", want: "src/ src/main.go", completed: "first\n@src/"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c.Filter(tc.value)
			_, _, at := atWord(tc.value)
			if c.WantsFiles(time.Now().Add(time.Hour)) != at {
				t.Errorf("wants a listing: %v, want %v", !at, at)
			}
			if got := strings.Join(names(), " "); got != tc.want {
				t.Fatalf("matches %q, want %q", got, tc.want)
			}
			if tc.completed != "" {
				if got, _ := c.Complete(tc.value); got != tc.completed {
					t.Errorf("completed %q, want %q", got, tc.completed)
				}
			}
		})
	}
}
