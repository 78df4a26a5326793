package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// sessionFiles lists the session files of a sandbox.
func sessionFiles(t *testing.T, h headlessRun) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(h.box.home, ".local/share/covey/sessions/*.jsonl"))
	return files
}

func sessionNamed(h headlessRun, id string) string {
	return filepath.Join(h.box.home, ".local/share/covey/sessions", id+".jsonl")
}

var forkedLine = regexp.MustCompile(`covey: forked session (\S+) as (\S+) \(the original is left as it was\)`)

// TestHeadlessForkSession: --resume ID --fork-session and --continue
// --fork-session go on in a copy with a new ID, printed, and leave the
// original file byte-identical; the copy carries the conversation (the
// scripted server sees the first turn in the fork's request).
func TestHeadlessForkSession(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	h.srv.Add(scripted.Conversation{Name: "fork", Match: scripted.Match{FirstUser: "first question"}, Turns: []scripted.Turn{
		{Text: "FIRST ANSWER"}, {Text: "SECOND ANSWER"}, {Text: "THIRD ANSWER"},
	}})
	if r := h.run(t, "", "-p", "first question"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	files := sessionFiles(t, h)
	if len(files) != 1 {
		t.Fatalf("sessions %v", files)
	}
	orig := files[0]
	before, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(filepath.Base(orig), ".jsonl")
	// --continue then forks the newest session: the first fork, whose
	// two turns the scripted server counts.
	for i, args := range [][]string{{"--resume", id, "--fork-session"}, {"--continue", "--fork-session"}} {
		want := []string{"SECOND ANSWER", "THIRD ANSWER"}[i]
		if i == 1 {
			orig = sessionNamed(h, id)
			if before, err = os.ReadFile(orig); err != nil {
				t.Fatal(err)
			}
		}
		r := h.run(t, "", append(args, "-p", "a follow-up")...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		m := forkedLine.FindStringSubmatch(r.stderr)
		if m == nil || m[2] == id {
			t.Fatalf("%v: no new ID printed:\n%s", args, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(orig), m[2]+".jsonl")); err != nil {
			t.Errorf("%v: the fork's file: %v", args, err)
		}
		if i == 0 && m[1] != id || !strings.Contains(r.stdout, want) {
			t.Errorf("%v: the fork did not carry the conversation (answer %q)", args, r.stdout)
		}
		after, err := os.ReadFile(orig)
		if err != nil || string(after) != string(before) {
			t.Fatalf("%v: the original session file changed", args)
		}
		id = m[2]
	}
	if r := h.run(t, "", "--fork-session", "-p", "x"); r.code == 0 || !strings.Contains(r.stderr, "--fork-session goes with --resume ID or --continue") {
		t.Errorf("--fork-session alone: exit %d, %s", r.code, r.stderr)
	}
}

// TestHeadlessExport: covey export ID prints markdown (tool calls folded,
// a child's brief and report in its own section) or JSON, bounded.
func TestHeadlessExport(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	scriptDelegation(h.srv)
	if r := h.run(t, "", "-p", "where is greeting defined?"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	files := sessionFiles(t, h)
	if len(files) != 1 {
		t.Fatalf("sessions %v", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	md := runCovey(t, h.ws, h.box.env(), "", "export", id[:12], "--format", "md")
	if md.code != 0 {
		t.Fatalf("export md: exit %d\n%s", md.code, md.stderr)
	}
	for _, want := range []string{"# covey session " + id, "## You\n\nwhere is greeting defined?", "- `task` ", "### Subagent", "**Brief:** [e2e:headless] Find where greeting is defined.", "greet.go line 4 defines greeting.", headlessAnswer} {
		if !strings.Contains(md.stdout, want) {
			t.Errorf("the markdown lacks %q:\n%s", want, md.stdout)
		}
	}
	js := runCovey(t, h.ws, h.box.env(), "", "export", id, "--format", "json")
	var x struct {
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
		Messages []json.RawMessage `json:"messages"`
		Children []struct {
			Brief, Report, Transcript string
		} `json:"children"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &x); err != nil || js.code != 0 {
		t.Fatalf("export json: exit %d, %v\n%s%s", js.code, err, js.stdout, js.stderr)
	}
	if x.Session.ID != id || len(x.Messages) < 3 || len(x.Children) != 1 || !strings.Contains(x.Children[0].Report, "greet.go line 4") || !strings.HasSuffix(x.Children[0].Transcript, "#"+"explore-1") && x.Children[0].Transcript == "" {
		t.Errorf("json export: %+v", x)
	}
	if r := runCovey(t, h.ws, h.box.env(), "", "export", id, "--format", "pdf"); r.code == 0 || !strings.Contains(r.stderr, `unknown --format "pdf"`) {
		t.Errorf("--format pdf: exit %d, %s", r.code, r.stderr)
	}
	if r := runCovey(t, h.ws, h.box.env(), "", "export", "nosuchsession"); r.code == 0 || !strings.Contains(r.stderr, "no session") {
		t.Errorf("an unknown ID: exit %d, %s", r.code, r.stderr)
	}
}
