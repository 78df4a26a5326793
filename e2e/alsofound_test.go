package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// flat joins a screen's lines with single spaces, so text a narrow
// terminal wrapped reads as one line.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// shortTokens reads a figure as covey writes token counts (950, 3.9k).
func shortTokens(t *testing.T, s string) float64 {
	t.Helper()
	k := strings.HasSuffix(s, "k")
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "k"), 64)
	if err != nil {
		t.Fatalf("token figure %q: %v", s, err)
	}
	if k {
		f *= 1000
	}
	return f
}

// TestCompactKeepsContextsWord: /compact starts from the figure /context
// and the gauge showed (the server's count, not an estimate beside it),
// frees about what /context promised, and the gauge then shows what the
// divider says (it once read "2.8k → 2.8k" after a promise of 362).
func TestCompactKeepsContextsWord(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	answer := strings.Repeat("The answer goes on about the code at some length. ", 12)
	var turns []scripted.Turn
	for i := range 3 {
		// The server counts more than covey estimates, as real ones do.
		turns = append(turns, scripted.Turn{Text: answer + "END-OF-ANSWER-" + strconv.Itoa(i+1), Usage: &scripted.Usage{Prompt: 5200 + 300*i, Completion: 150}})
	}
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: turns})
	srv.Add(scripted.Conversation{Name: "summary", Match: scripted.Match{SystemContains: "conversation summariser"},
		Turns: []scripted.Turn{{Text: "The user asked three questions about the code; each was answered."}}})
	ws := workspace(t, sampleFiles())
	tm := startTUI(t, ws, newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.resize(80, 24)
	tm.waitText("? more")
	for i, q := range []string{"first question", "second question", "third question"} {
		tm.submit(q)
		// Each answer ends before the next question: a question typed
		// while a turn runs is queued, and /context would come before
		// the answer it should count.
		tm.waitFor("answer "+strconv.Itoa(i+1), waitLong, func(s string) bool {
			return strings.Contains(s, "END-OF-ANSWER-"+strconv.Itoa(i+1)) && !strings.Contains(s, "esc interrupt")
		})
	}
	tm.submit("/context")
	ctxRe := regexp.MustCompile(`Context: ([0-9.]+k?) tokens .*/compact would free about ([0-9.]+k?) tokens: \d+ messages? \(([0-9.]+k?)\) become a summary of up to ([0-9.]+k?)`)
	s := tm.waitFor("/context's report", waitLong, func(s string) bool { return ctxRe.MatchString(flat(s)) })
	m := ctxRe.FindStringSubmatch(flat(s))
	total, promise, ask := m[1], shortTokens(t, m[2]), shortTokens(t, m[4])
	tm.submit("/compact")
	divRe := regexp.MustCompile(`context compacted: ([0-9.]+k?) → ([0-9.]+k?) tokens`)
	s = tm.waitFor("the compaction's divider", waitLong, func(s string) bool { return divRe.MatchString(s) })
	d := divRe.FindStringSubmatch(s)
	if d[1] != total {
		t.Errorf("/compact starts from %s; /context said %s:\n%s", d[1], total, frame(s))
	}
	// Figures of thousands are shown to a hundred.
	freed := shortTokens(t, d[1]) - shortTokens(t, d[2])
	if slack := ask/2 + 100; freed < promise-slack || freed > promise+slack {
		t.Errorf("/context promised about %v (summary up to %v); /compact freed %v:\n%s", promise, ask, freed, frame(s))
	}
	if !strings.Contains(s, "ctx "+d[2]) {
		t.Errorf("the gauge does not show the %s the divider says:\n%s", d[2], frame(s))
	}
	tm.quitAndCheck("? more")
}

// TestResumePickerSearch: covey --resume with no id lists the
// workspace's sessions with relative times ("just now", never a UTC
// stamp), typing filters them at 80x24, and enter resumes the one found.
func TestResumePickerSearch(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "penguins", Match: scripted.Match{FirstUser: "tell me about penguins"}, Turns: []scripted.Turn{{Text: "PENGUIN-ANSWER"}}})
	h.srv.Add(scripted.Conversation{Name: "walruses", Match: scripted.Match{FirstUser: "tell me about walruses"}, Turns: []scripted.Turn{{Text: "WALRUS-ANSWER"}}})
	for _, q := range []string{"tell me about penguins", "tell me about walruses"} {
		if r := h.run(t, "", "-p", q); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", q, r.code, r.stderr)
		}
	}
	tm := startTUI(t, h.ws, h.box.env("OPENAI_BASE_URL="+h.srv.URL()), "--resume", "--model", "e2e-model")
	tm.resize(80, 24)
	s := tm.waitText("Resume a session (2)", "type to search", "tell me about penguins", "tell me about walruses")
	if !strings.Contains(s, "just now") && !strings.Contains(s, "minute ago") {
		t.Errorf("the picker does not say how long ago:\n%s", frame(s))
	}
	if regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d`).MatchString(s) || strings.Contains(s, "1 messages") {
		t.Errorf("the picker shows a timestamp or a wrong plural:\n%s", frame(s))
	}
	tm.typeText("walrus")
	s = tm.waitText("search: walrus", "(1 of 2)")
	if strings.Contains(s, "penguins") {
		t.Errorf("the search does not filter:\n%s", frame(s))
	}
	tm.press("Enter")
	tm.waitText("WALRUS-ANSWER", "? more")
	tm.quitAndCheck("? more")
}

// TestStreamingOpenBlocksTUI: while an answer streams, a code fence not
// yet closed shows as code (no ``` marker, the code indented as the
// finished block draws it) and a table whose rows are still arriving as
// a table (no pipe rows), at 80x24.
func TestStreamingOpenBlocksTUI(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	code := "Here is the fix:\n\n```go\nfunc main() {\n\tfmt.Println(\"streaming hello\")\n\treturn\n}\n```\n\nCODE-DONE."
	table := "The results:\n\n| test | result |\n|------|--------|\n| TestAlpha | ok |\n| TestBeta | FAIL |\n| TestGamma | ok |\n\nTABLE-DONE."
	holdCode, holdTable := make(chan struct{}), make(chan struct{})
	srv.Add(scripted.Conversation{Name: "blocks", Match: scripted.Match{FirstUser: "show the code"}, Turns: []scripted.Turn{
		{Text: code, Hold: holdCode, HoldAt: len([]rune(code[:strings.Index(code, "Println")]))},
		{Text: table, Hold: holdTable, HoldAt: len([]rune(table[:strings.Index(table, "| TestBeta")]))},
	}})
	tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.resize(80, 24)
	tm.waitText("? more")

	tm.submit("show the code")
	s := tm.waitText("Here is the fix:", "  func main() {")
	if strings.Contains(s, "```") {
		t.Errorf("the open fence shows its marker:\n%s", frame(s))
	}
	close(holdCode)
	s = tm.waitText("CODE-DONE.")
	if strings.Contains(s, "```") || !strings.Contains(s, `      fmt.Println("streaming hello")`) {
		t.Errorf("the finished code block:\n%s", frame(s))
	}

	tm.submit("show the table")
	s = tm.waitText("The results:", "TestAlpha")
	if !strings.Contains(s, "│") || strings.Contains(s, "|------") || strings.Contains(s, "| TestAlpha") || strings.Contains(s, "| test") {
		t.Errorf("the table streams raw:\n%s", frame(s))
	}
	close(holdTable)
	s = tm.waitText("TABLE-DONE.", "TestGamma")
	if strings.Contains(s, "| TestGamma") {
		t.Errorf("the finished table is raw:\n%s", frame(s))
	}
	tm.quitAndCheck("? more")
}

// TestAlsoFoundScreens: at 80x24, /cost has a row for the main agent with
// its figures in aligned columns; /help is a screen whose start is on
// screen, that pages and closes with q and esc (also at 200x50); /clear
// leaves the welcome card and a notice, not an empty screen.
func TestAlsoFoundScreens(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "hi", Match: scripted.Match{FirstUser: "say hi"},
		Turns: []scripted.Turn{{Text: "HI-ANSWER", Usage: &scripted.Usage{Prompt: 4321, Completion: 12}}}})
	tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.resize(80, 24)
	tm.waitText("? more")
	tm.submit("say hi")
	tm.waitText("HI-ANSWER")

	tm.submit("/cost")
	s := tm.waitText("session total")
	var heading, mainRow, total string
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.Contains(l, " in ") && strings.HasSuffix(strings.TrimSpace(l), "out"):
			heading = l
		case strings.Contains(l, "main agent"):
			mainRow = l
		case strings.Contains(l, "session total"):
			total = l
		}
	}
	if heading == "" || !strings.Contains(mainRow, "4.3k") || !strings.Contains(mainRow, "12") {
		t.Errorf("/cost has no heading or main agent row with its 4.3k in, 12 out:\n%s", frame(s))
	}
	end := func(l string) int { return len([]rune(strings.TrimRight(l, " "))) }
	if end(mainRow) != end(heading) || end(total) != end(heading) {
		t.Errorf("/cost's columns do not line up (%d, %d, %d):\n%s", end(heading), end(mainRow), end(total), frame(s))
	}

	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		tm.resize(size[0], size[1])
		tm.submit("/help")
		s = tm.waitText("covey help · lines 1–", "Keys", "▸ help")
		first := strings.Split(s, "\n")[0]
		if !strings.HasPrefix(first, "covey help") {
			t.Errorf("%dx%d: the help's title is not the first line:\n%s", size[0], size[1], frame(s))
		}
		if size[1] == 24 {
			tm.press("End")
			tm.waitText("leave covey")
			tm.press("q")
		} else {
			tm.press("PageDown")
			tm.waitFor("the help to page", waitLong, func(s string) bool { return !strings.Contains(s, "covey help · lines 1–") })
			tm.press("Escape")
		}
		tm.waitFor("the help to close", waitLong, func(s string) bool { return !strings.Contains(s, "covey help") && strings.Contains(s, "› ") })
	}
	tm.resize(80, 24)

	tm.submit("/clear")
	s = tm.waitText("Conversation cleared", "/agents")
	if strings.Contains(s, "HI-ANSWER") {
		t.Errorf("/clear left the conversation on screen:\n%s", frame(s))
	}
	tm.quitAndCheck("? more")
}
