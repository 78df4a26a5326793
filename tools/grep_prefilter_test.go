package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"testing"

	"covey/tools/workspace"
)

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		pattern string
		want    requiredLit
		ok      bool
	}{
		{"func main", requiredLit{s: "func main", whole: true}, true},
		{`[A-Z][a-z]+Reader\(`, requiredLit{s: "Reader("}, true},
		{"(?i)deadline", requiredLit{s: "deadline", fold: true, whole: true}, true},
		{"(?i)DeadLine", requiredLit{s: "deadline", fold: true, whole: true}, true},
		{"(?i:dead)Line", requiredLit{s: "deadline", fold: true}, true}, // "Line" keeps its case
		{"(?i)dead-line", requiredLit{s: "dead-line", fold: true, whole: true}, true},
		{`foo\d+barbaz`, requiredLit{s: "barbaz"}, true},
		{`(foo)+x`, requiredLit{s: "foox"}, true},
		{`a(bc)d`, requiredLit{s: "abcd", whole: true}, true},
		{`^func \w+`, requiredLit{s: "func "}, true},
		{`x{2,}`, requiredLit{s: "xx"}, true}, // simplified to x x+
		{`ab+cd`, requiredLit{s: "bcd"}, true},
		{`(?i)ab+c`, requiredLit{s: "ab", fold: true}, true},
		{"foo|bar", requiredLit{}, false},
		{"x?yz", requiredLit{s: "yz"}, true},
		{"a", requiredLit{}, false}, // too short to pay off
		{"(?i)straße", requiredLit{}, false},
		{`\d+`, requiredLit{}, false},
		{"a\nb", requiredLit{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := syntax.Parse(tt.pattern, syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := requiredLiteral(re)
			if ok != tt.ok || got != tt.want {
				t.Errorf("requiredLiteral(%q) = %+v, %v; want %+v, %v", tt.pattern, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// naiveLines is the reference: the numbers of the lines the regexp matches,
// one line at a time.
func naiveLines(re *regexp.Regexp, buf []byte) []int {
	var out []int
	if len(buf) == 0 {
		return nil // an empty file has no lines
	}
	lines := bytes.Split(buf, []byte{'\n'})
	if len(buf) > 0 && buf[len(buf)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if re.Match(l) {
			out = append(out, i+1)
		}
	}
	return out
}

// searcherLines is what the searcher finds, as line numbers.
func searcherLines(s *searcher, buf []byte) []int {
	var out []int
	s.eachMatch(buf, func(start, end int) bool {
		out = append(out, bytes.Count(buf[:start], []byte{'\n'})+1)
		return true
	})
	return out
}

// TestPrefilterMatchesNaive cross-checks every search strategy against
// the plain per-line regexp on real files (GOROOT/src/strings and
// GOROOT/src/bufio) and on hand-made edge cases, with fixed patterns and
// random ones built from the files' own text.
func TestPrefilterMatchesNaive(t *testing.T) {
	var bufs [][]byte
	for _, dir := range []string{"strings", "bufio"} {
		paths, err := filepath.Glob(filepath.Join(goSrc(t), dir, "*.go"))
		if err != nil || len(paths) == 0 {
			t.Skipf("no Go sources in GOROOT: %v", err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			bufs = append(bufs, b)
		}
	}
	bufs = append(bufs,
		[]byte(""),
		[]byte("no newline at end"),
		[]byte("\n\n\n"),
		[]byte("crlf line\r\nCRLF LINE\r\n"),
		[]byte("Kelvin \u212a and long \u017f, mask MASK\nplain mask\n"),
		[]byte("func a\nfunc\nb\n"),
		// The rare letter of the literal in either case, at a buffer's
		// edges and with its neighbours in other cases.
		[]byte("ZQ at the start\nmid zQ, zq-ZQ\nqz z q\nend Zq"),
	)
	patterns := []string{
		"func", "func main", `[A-Z][a-z]+Reader\(`, "(?i)deadline", "(?i)mask", "(?i)string",
		`^\s*//`, `\)$`, `^$`, `x*`, `\bRune\b`, `func\s+b`, `\Afunc`, `line\z`, `(?i)CRLF line$`,
		`(Index|Last)Byte`, `[0-9]{3,}`, `(?s)a.b`, `\pL+\d`, "(?i)kelvin \u212a", "(?i)long s",
		`func (\w+) \w+\(`, `return nil, err`, `(?m)^}$`, "(?i)zq", "(?i)end zq", "(?i)q z",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		b := bufs[rng.IntN(len(bufs)-7)]
		if len(b) < 40 {
			continue
		}
		i := rng.IntN(len(b) - 20)
		lit := string(b[i : i+2+rng.IntN(12)])
		if strings.ContainsRune(lit, '\n') || !isASCII(lit) {
			continue
		}
		p := regexp.QuoteMeta(lit)
		switch rng.IntN(4) {
		case 0:
			p = "(?i)" + p
		case 1:
			p = `\w` + p + `.?`
		case 2:
			p = "[a-z]+" + p
		}
		patterns = append(patterns, p)
	}
	for _, p := range patterns {
		t.Run(p, func(t *testing.T) {
			ref := regexp.MustCompile(p)
			s, err := newSearcher(p, false, modeCount, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range bufs {
				want := naiveLines(ref, b)
				if got := searcherLines(s, b); !slices.Equal(got, want) {
					t.Fatalf("buffer %d: searcher found lines %v, per-line regexp %v", i, got, want)
				}
			}
		})
	}
}

// TestGrepMatchesRipgrep compares per-file matching-line counts of the grep
// tool and rg on GOROOT/src for the benchmark patterns. Files holding a NUL
// byte anywhere are left out: rg searches a binary file up to its first
// NUL, the tool skips a file with a NUL in its first 8 KB.
func TestGrepMatchesRipgrep(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg not installed")
	}
	if testing.Short() {
		t.Skip("searches all of GOROOT/src")
	}
	src := goSrc(t)
	ws, err := workspace.NewWorkspace(src)
	if err != nil {
		t.Fatal(err)
	}
	tool := &grepTool{env: &Env{WS: ws}, maxMatches: 1 << 30, maxBytes: 1 << 30, maxFiles: 1 << 30}
	binary := map[string]bool{}
	for _, c := range grepBenchCases {
		t.Run(c.name, func(t *testing.T) {
			raw, _ := json.Marshal(map[string]any{"pattern": c.pattern, "ignore_case": c.ignoreCase, "output_mode": "count"})
			res := tool.Run(context.Background(), raw)
			if res.IsError {
				t.Fatal(res.Content)
			}
			got := parseCounts(t, res.Content)
			cmd := exec.Command("rg", append([]string{"-c", "--no-messages"}, c.rgArgs[1:]...)...)
			cmd.Dir = src
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("rg: %v", err)
			}
			want := parseCounts(t, string(out))
			for _, m := range []map[string]int{got, want} {
				for p := range m {
					if _, seen := binary[p]; !seen {
						data, _ := os.ReadFile(filepath.Join(src, p))
						binary[p] = bytes.IndexByte(data, 0) >= 0
					}
					if binary[p] {
						delete(m, p)
					}
				}
			}
			if len(want) == 0 {
				t.Fatal("rg found nothing: test setup is wrong")
			}
			for p, n := range want {
				if got[p] != n {
					t.Errorf("%s: tool %d, rg %d", p, got[p], n)
				}
			}
			for p, n := range got {
				if _, ok := want[p]; !ok {
					t.Errorf("%s: tool %d, rg none", p, n)
				}
			}
		})
	}
}

// parseCounts reads "path:N" lines.
func parseCounts(t *testing.T, out string) map[string]int {
	t.Helper()
	m := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "(") {
			continue
		}
		i := strings.LastIndexByte(line, ':')
		n, err := strconv.Atoi(line[i+1:])
		if i < 0 || err != nil {
			t.Fatalf("bad count line %q", line)
		}
		m[strings.TrimPrefix(line[:i], "./")] = n
	}
	return m
}
