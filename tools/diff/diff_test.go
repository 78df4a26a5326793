package diff

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name           string
		old, new       string
		want           string
		added, removed int
	}{
		{name: "identical", old: "a\nb\n", new: "a\nb\n"},
		{name: "both empty"},
		{
			name: "create", old: "", new: "a\nb\n", added: 2,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			name: "delete all", old: "a\nb\n", new: "", removed: 2,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +0,0 @@\n-a\n-b\n",
		},
		{
			name: "change in middle", old: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", new: "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			added: 1, removed: 1,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			name: "insert at start", old: "b\nc\n", new: "a\nb\nc\n", added: 1,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n+a\n b\n c\n",
		},
		{
			name: "append at end", old: "a\nb\n", new: "a\nb\nc\n", added: 1,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n",
		},
		{
			name: "add missing final newline", old: "a\nb", new: "a\nb\n", added: 1, removed: 1,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name: "change last line without newline", old: "a\nb", new: "a\nc", added: 1, removed: 1,
			want: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
		},
		{
			name: "two hunks", old: numbered(1, 20), new: strings.Replace(strings.Replace(numbered(1, 20), "2\n", "two\n", 1), "19\n", "nineteen\n", 1),
			added: 2, removed: 2,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n" +
				"@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+nineteen\n 20\n",
		},
		{
			// Six unchanged lines between changes: the contexts touch, one hunk.
			name: "close changes merge", old: numbered(1, 9), new: strings.Replace(strings.Replace(numbered(1, 9), "1\n", "one\n", 1), "8\n", "eight\n", 1),
			added: 2, removed: 2,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,9 +1,9 @@\n-1\n+one\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+eight\n 9\n",
		},
		{
			name: "seven apart split", old: numbered(1, 10), new: strings.Replace(strings.Replace(numbered(1, 10), "1\n", "one\n", 1), "9\n", "nine\n", 1),
			added: 2, removed: 2,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n" +
				"@@ -6,5 +6,5 @@\n 6\n 7\n 8\n-9\n+nine\n 10\n",
		},
		{
			name: "minimal, not naive", old: "a\nb\nc\na\nb\nb\na\n", new: "c\nb\na\nb\na\nc\n",
			added: 2, removed: 3,
			// Myers' classic example: edit distance 5.
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, added, removed := UnifiedDiff("f.txt", tt.old, tt.new)
			if tt.want != "" && got != tt.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tt.want)
			}
			if added != tt.added || removed != tt.removed {
				t.Errorf("added, removed = %d, %d; want %d, %d", added, removed, tt.added, tt.removed)
			}
			if tt.old == tt.new && got != "" {
				t.Errorf("equal inputs gave diff %q", got)
			}
			if applied, err := applyUnified(tt.old, got); err != nil || applied != tt.new {
				t.Errorf("applying the diff: %v, got %q want %q", err, applied, tt.new)
			}
		})
	}
}

func TestUnifiedDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		old := randomLines(rng, rng.Intn(30))
		new := mutateLines(rng, old)
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			d, added, removed := UnifiedDiff("x", old, new)
			got, err := applyUnified(old, d)
			if err != nil || got != new {
				t.Fatalf("apply: %v\nold %q\nnew %q\ngot %q\ndiff:\n%s", err, old, new, got, d)
			}
			if plus, minus := countPrefixed(d); plus != added || minus != removed {
				t.Fatalf("counts %d/%d, lines in diff %d/%d", added, removed, plus, minus)
			}
		})
	}
}

func TestUnifiedDiffFallback(t *testing.T) {
	// Two unrelated 3000-line files pass the edit-distance budget; the
	// fallback must still be a correct diff.
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	d, added, removed := UnifiedDiff("big", a.String(), b.String())
	if added != 3000 || removed != 3000 {
		t.Fatalf("added, removed = %d, %d", added, removed)
	}
	if got, err := applyUnified(a.String(), d); err != nil || got != b.String() {
		t.Fatalf("fallback diff does not apply: %v", err)
	}
	if _, ok := myers([]int32{1, 2, 3}, []int32{4, 5, 6}, 2); ok {
		t.Fatal("myers should give up past maxD")
	}
}

func BenchmarkUnifiedDiff(b *testing.B) {
	for _, n := range []int{200, 2000, 10000} {
		old := numbered(1, n)
		lines := splitLines(old)
		for i := 7; i < len(lines); i += n / 10 {
			lines[i] = "changed " + lines[i]
		}
		new := strings.Join(lines, "")
		b.Run(strconv.Itoa(n)+" lines", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				UnifiedDiff("f.go", old, new)
			}
		})
	}
}

// numbered returns the lines "from\n" … "to\n".
func numbered(from, to int) string {
	var sb strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&sb, "%d\n", i)
	}
	return sb.String()
}

func randomLines(rng *rand.Rand, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteString(string(rune('a' + rng.Intn(4))))
		if i < n-1 || rng.Intn(3) > 0 {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

func mutateLines(rng *rand.Rand, s string) string {
	lines := splitLines(s)
	var out []string
	for _, l := range lines {
		switch rng.Intn(6) {
		case 0: // drop
		case 1:
			out = append(out, string(rune('a'+rng.Intn(4)))+"\n", l)
		case 2:
			out = append(out, strings.TrimSuffix(l, "\n")+"x\n")
		default:
			out = append(out, l)
		}
	}
	if rng.Intn(4) == 0 {
		out = append(out, "tail")
	}
	return strings.Join(out, "")
}

func countPrefixed(d string) (plus, minus int) {
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			plus++
		case strings.HasPrefix(l, "-"):
			minus++
		}
	}
	return plus, minus
}

// applyUnified is a strict patch applier for the diffs UnifiedDiff writes:
// it checks every context and removed line, so a wrong diff fails.
func applyUnified(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	src := splitLines(old)
	lines := splitLines(diff)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- a/") || !strings.HasPrefix(lines[1], "+++ b/") {
		return "", fmt.Errorf("bad headers")
	}
	var out []string
	pos := 0 // next unconsumed line of src
	for i := 2; i < len(lines); {
		var aStart, aCount, bStart, bCount int
		if _, err := fmt.Sscanf(lines[i], "@@ -%d,%d +%d,%d @@\n", &aStart, &aCount, &bStart, &bCount); err != nil {
			return "", fmt.Errorf("hunk header %q: %w", lines[i], err)
		}
		i++
		from := aStart - 1
		if aCount == 0 {
			from = aStart
		}
		if from < pos {
			return "", fmt.Errorf("hunks overlap at %d", aStart)
		}
		out = append(out, src[pos:from]...)
		pos = from
		if bCount > 0 && len(out) != bStart-1 {
			return "", fmt.Errorf("new start %d but %d lines before", bStart, len(out))
		}
		seenA, seenB := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			i++
			body := l[1:]
			if i < len(lines) && lines[i] == "\\ No newline at end of file\n" {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != body {
					return "", fmt.Errorf("line %d: have %q, diff says %q", pos+1, at(src, pos), body)
				}
				pos++
				seenA++
				if l[0] == ' ' {
					out = append(out, body)
					seenB++
				}
			case '+':
				out = append(out, body)
				seenB++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
		if seenA != aCount || seenB != bCount {
			return "", fmt.Errorf("hunk counts -%d +%d, lines -%d +%d", aCount, bCount, seenA, seenB)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<EOF>"
}
