package e2e

import (
	"encoding/json"
	"html"
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
// and phone sizes kept in COVEY_ARTIFACTS (else covey-artifacts in the
// temp folder, which outlives the test).
func checkInBrowser(t *testing.T, page string, rows int) {
	t.Helper()
	bin := chromium(t)
	dom, errs := browserErrors(t, bin, page)
	for _, e := range errs {
		t.Errorf("console error in the browser: %s", e)
	}
	if n := strings.Count(dom, `class="tl-row"`); n != rows {
		t.Errorf("the browser's DOM has %d timeline rows, want %d", n, rows)
	}
	art := os.Getenv("COVEY_ARTIFACTS")
	if art == "" {
		art = filepath.Join(os.TempDir(), "covey-artifacts")
	}
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []string{"1280,800", "390,844"} {
		shot := filepath.Join(art, "crew-report-"+strings.Replace(size, ",", "x", 1)+".png")
		out, err := exec.Command(bin, append(chromiumFlags(t), "--window-size="+size, "--screenshot="+shot, "file://"+page)...).CombinedOutput()
		if err != nil {
			t.Fatalf("chromium screenshot %s: %v\n%s", size, err, out)
		}
		if fi, err := os.Stat(shot); err != nil || fi.Size() < 1000 {
			t.Errorf("no screenshot at %s: %v", size, err)
		}
		t.Logf("screenshot %s: %s", size, shot)
	}
}

// chromium is the browser's path; a test without it is skipped, or fails
// in CI, where .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is missing in CI: .ci/run installs it")
		}
		t.Skip("chromium is not installed (apt-get install chromium): the page is not opened in a browser")
	}
	return bin
}

func chromiumFlags(t *testing.T) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
}

// consoleWatch goes first in the page's head: it writes every uncaught
// error, failed load, refused content and console.error or warn into the
// DOM, where --dump-dom shows it, whatever the browser logs.
const consoleWatch = `<script>(function(){var d=document.documentElement;d.setAttribute("data-console-watch","on");` +
	`function rec(s){var p=d.getAttribute("data-console-errors")||"";d.setAttribute("data-console-errors",p+String(s).replace(/[\n|]/g," ")+"|");}` +
	`window.addEventListener("error",function(e){rec(e.message?"uncaught: "+e.message:"failed to load: "+((e.target&&(e.target.src||e.target.href))||"?"));},true);` +
	`window.addEventListener("unhandledrejection",function(e){rec("unhandled rejection: "+e.reason);});` +
	`document.addEventListener("securitypolicyviolation",function(e){rec("refused: "+e.blockedURI);});` +
	`["error","warn"].forEach(function(k){var f=console[k];console[k]=function(){rec("console."+k+": "+Array.prototype.join.call(arguments," "));return f.apply(console,arguments);};});})();</script>`

var (
	consoleErrorsRe = regexp.MustCompile(`data-console-errors="([^"]*)"`)
	// A page's own console line in Chromium's log ("INFO:CONSOLE:12]" or
	// "CONSOLE(12)]"): the report logs nothing, so any is a fault.
	consoleLogRe = regexp.MustCompile(`:CONSOLE[:(]\d+\)?\] [^\n]*`)
)

// browserErrors loads a copy of page with consoleWatch put first in its
// head, and returns the DOM Chromium dumps after the load and the errors
// the page met (from the watch in the DOM and from the browser's log).
func browserErrors(t *testing.T, bin, page string) (dom string, errs []string) {
	t.Helper()
	body, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(body), "<head>")
	if i < 0 {
		t.Fatalf("%s has no <head>", page)
	}
	i += len("<head>")
	watched := filepath.Join(filepath.Dir(page), "watched-"+filepath.Base(page))
	if err := os.WriteFile(watched, []byte(string(body[:i])+consoleWatch+string(body[i:])), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(chromiumFlags(t), "--dump-dom", "file://"+watched)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.String())
	}
	dom = stdout.String()
	if !strings.Contains(dom, `data-console-watch="on"`) {
		t.Fatalf("the console watch did not run in the page (a content policy?):\n%s", dom)
	}
	if m := consoleErrorsRe.FindStringSubmatch(dom); m != nil {
		for _, e := range strings.Split(strings.TrimSuffix(m[1], "|"), "|") {
			errs = append(errs, html.UnescapeString(e))
		}
	}
	errs = append(errs, consoleLogRe.FindAllString(stderr.String(), -1)...)
	return dom, errs
}

// TestReportBrowserCatchesErrors: the browser check itself finds an
// uncaught error, a console.error and a failed load in a page, and
// nothing in a clean one.
func TestReportBrowserCatchesErrors(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	dir := t.TempDir()
	pages := map[string]struct {
		body string
		want []string
	}{
		"clean.html": {`<p>fine</p><script>document.title="ok";</script>`, nil},
		"bad.html": {`<p>bad</p><img src="missing.png"><script>console.error("told off");undefinedFn();</script>`,
			[]string{"failed to load: file://", "console.error: told off", "uncaught: ", "undefinedFn"}},
	}
	for name, p := range pages {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("<!DOCTYPE html><html><head><title>t</title></head><body>"+p.body+"</body></html>"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs := browserErrors(t, bin, path)
		all := strings.Join(errs, "\n")
		if p.want == nil && len(errs) > 0 {
			t.Errorf("%s: errors in a clean page:\n%s", name, all)
		}
		for _, w := range p.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no %q among the errors found:\n%s", name, w, all)
			}
		}
	}
}
