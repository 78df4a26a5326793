package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// scriptCrew scripts a crew for the report tests: the main agent starts a
// reader and a writer at once; the reader globs, the writer writes NOTES.md
// (one call refused first: a path outside the workspace); then the main
// agent answers.
func scriptCrew(srv *scripted.Server) {
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
		{Text: "Two helpers.", ToolCalls: []scripted.Call{{ID: "call_task", Name: "task", Args: map[string]any{"tasks": []map[string]string{
			{"description": "scan the docs", "name": "scout", "subagent_type": "Explore", "prompt": "[e2e:scout] Look at the docs."},
			{"description": "write notes", "name": "scribe", "subagent_type": "general-purpose", "prompt": "[e2e:scribe] Write the notes."},
		}}}}},
		{Text: "REPORT ANSWER: notes written."},
	}})
	srv.Add(scripted.Conversation{Name: "scout", Match: scripted.Match{FirstUser: "[e2e:scout]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("glob", map[string]any{"pattern": "**/*.md"})}},
		{Text: "Two docs."},
	}})
	srv.Add(scripted.Conversation{Name: "scribe", Match: scripted.Match{FirstUser: "[e2e:scribe]"}, Turns: []scripted.Turn{
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "/etc/covey-notes", "content": "x\n"})}},
		{ToolCalls: []scripted.Call{call("write_file", map[string]any{"path": "NOTES.md", "content": "crew notes\nline two\n"})}},
		{Text: "NOTES.md written."},
	}})
}

// volatile are the report's fields that differ from run to run: they are
// checked for shape, then blanked before the comparison with the golden.
var volatile = regexp.MustCompile(`"(id|workspace|started|transcript|span_s|elapsed_s|paused_s|start_s|end_s|at_s|in|out)": ("[^"]*"|[0-9.e+-]+)`)

// TestHeadlessCrewReport runs a scripted crew headless, then `covey report
// --format json` against a golden, and the markdown and html forms: each
// agent once, the writer's file with its diffstat and failed call, no
// transcript inlined.
func TestHeadlessCrewReport(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	scriptCrew(h.srv)
	r := h.run(t, "", "--permission-mode", "acceptEdits", "-p", "write the notes")
	if r.code != 0 || !strings.Contains(r.stdout, "REPORT ANSWER") {
		t.Fatalf("crew run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	j := h.run(t, "", "report", "--format", "json")
	if j.code != 0 {
		t.Fatalf("covey report: exit %d\n%s", j.code, j.stderr)
	}
	var parsed struct {
		Timed  bool `json:"timed"`
		Agents []struct {
			Name  string `json:"name"`
			Spans []struct {
				Start float64 `json:"start_s"`
				End   float64 `json:"end_s"`
			} `json:"spans"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &parsed); err != nil {
		t.Fatalf("report json: %v\n%s", err, j.stdout)
	}
	if !parsed.Timed || len(parsed.Agents) != 3 {
		t.Fatalf("report: timed %v, %d agents:\n%s", parsed.Timed, len(parsed.Agents), j.stdout)
	}
	for _, a := range parsed.Agents {
		if len(a.Spans) == 0 {
			t.Errorf("%s has no span on the timeline", a.Name)
		}
	}
	got := volatile.ReplaceAllString(j.stdout, `"$1": "…"`)
	golden := filepath.Join("testdata", "report.golden.json")
	if os.Getenv("COVEY_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (COVEY_UPDATE_GOLDEN=1 writes it)", err)
	}
	if got != string(want) {
		t.Errorf("covey report --format json differs from %s:\n%s", golden, got)
	}

	md := h.run(t, "", "report")
	for _, want := range []string{"# Crew report · session ", "| main |", "| scout |", "| scribe |", "`NOTES.md` added +2 −0", "2 (1 failed)"} {
		if !strings.Contains(md.stdout, want) {
			t.Errorf("the markdown report lacks %q:\n%s", want, md.stdout)
		}
	}
	out := filepath.Join(t.TempDir(), "crew.html")
	if hr := h.run(t, "", "report", "--format", "html", "-o", out); hr.code != 0 {
		t.Fatalf("html report: exit %d\n%s", hr.code, hr.stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `class="tl-row"`); n != 3 {
		t.Errorf("%d timeline rows, want one per agent (3)", n)
	}
	if regexp.MustCompile(`(src|href)="?(https?:)?//`).Match(page) || strings.Contains(string(page), "@import") {
		t.Error("the page loads something from the network")
	}
	checkInBrowser(t, out, 3)
}

// checkInBrowser opens the page in headless Chromium (installed by .ci/run
// from Debian's packages; skipped with a reason where it is missing): no
// console error, rows timeline rows in the DOM, and screenshots at laptop
// and phone sizes kept in COVEY_ARTIFACTS (or the test's temp folder).
func checkInBrowser(t *testing.T, page string, rows int) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is missing in CI: .ci/run installs it")
		}
		t.Skip("chromium is not installed (apt-get install chromium): the page is not opened in a browser")
	}
	art := os.Getenv("COVEY_ARTIFACTS")
	if art == "" {
		art = t.TempDir()
	}
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	url := "file://" + page
	dom, err := exec.Command(bin, append(base, "--dump-dom", url)...).CombinedOutput()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, dom)
	}
	if n := strings.Count(string(dom), `class="tl-row"`); n != rows {
		t.Errorf("the browser's DOM has %d timeline rows, want %d", n, rows)
	}
	if m := regexp.MustCompile(`(?i)(Uncaught|CONSOLE\(\d+\)\].*error)[^\n]*`).Find(dom); m != nil {
		t.Errorf("console error in the browser: %s", m)
	}
	for _, size := range []string{"1280,800", "390,844"} {
		shot := filepath.Join(art, "crew-report-"+strings.Replace(size, ",", "x", 1)+".png")
		out, err := exec.Command(bin, append(base, "--window-size="+size, "--screenshot="+shot, url)...).CombinedOutput()
		if err != nil {
			t.Fatalf("chromium screenshot %s: %v\n%s", size, err, out)
		}
		if fi, err := os.Stat(shot); err != nil || fi.Size() < 1000 {
			t.Errorf("no screenshot at %s: %v", size, err)
		}
		t.Logf("screenshot %s: %s", size, shot)
	}
}
