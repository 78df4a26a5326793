package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/permission"
)

func TestPlaceInTime(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	s := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	tests := map[string]struct {
		in, want []time.Time
	}{
		"text between two events is spread":         {in: []time.Time{s(0), {}, {}, {}, s(4)}, want: []time.Time{s(0), s(1), s(2), s(3), s(4)}},
		"text after the last takes its time":        {in: []time.Time{s(2), {}}, want: []time.Time{s(2), s(2)}},
		"text before the first starts at the start": {in: []time.Time{{}, s(2)}, want: []time.Time{s(1), s(2)}},
		"a time going back takes the one before":    {in: []time.Time{s(3), s(2), s(4)}, want: []time.Time{s(3), s(3), s(4)}},
		"nothing timed plays at a steady pace":      {in: []time.Time{{}, {}, {}}, want: []time.Time{s(0), t0.Add(untimedStep), t0.Add(2 * untimedStep)}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			evs := make([]sessionfile.Timed, len(tc.in))
			for i, at := range tc.in {
				evs[i] = sessionfile.Timed{Event: agent.TextDelta{}, At: at}
			}
			got := placeInTime(evs, t0)
			for i := range got {
				if !got[i].At.Equal(tc.want[i]) {
					t.Errorf("event %d at %v, want %v", i, got[i].At.Sub(t0), tc.want[i].Sub(t0))
				}
			}
		})
	}
}

func TestOutcomeOf(t *testing.T) {
	edited := "x"
	tests := map[string]struct {
		v             permission.Verdict
		ended         bool
		outcome, said string
	}{
		"allowed":            {v: permission.Verdict{Allowed: true}, outcome: agent.OutcomeAllowed},
		"answered":           {v: permission.Verdict{Allowed: true, Answer: "blue"}, outcome: agent.OutcomeAllowed, said: "blue"},
		"edited":             {v: permission.Verdict{Allowed: true, Content: &edited}, outcome: agent.OutcomeEdited},
		"granted":            {v: permission.Verdict{Allowed: true, Granted: []string{"Bash(ls:*)"}}, outcome: agent.OutcomeSession, said: "Bash(ls:*)"},
		"denied with reason": {v: permission.Verdict{Reason: deniedPrefix + "not now"}, outcome: agent.OutcomeDenied, said: "not now"},
		"denied":             {v: permission.Verdict{Reason: "the user denied this; ask what they would like instead"}, outcome: agent.OutcomeDenied},
		"kept":               {v: permission.Verdict{Keep: true}, outcome: agent.OutcomeKept},
		"withdrawn":          {v: permission.Verdict{Reason: "cancelled by the user"}, ended: true, outcome: agent.OutcomeCancelled},
	}
	for name, tc := range tests {
		if o, d := outcomeOf(tc.v, tc.ended); o != tc.outcome || d != tc.said {
			t.Errorf("%s: %q %q, want %q %q", name, o, d, tc.outcome, tc.said)
		}
	}
}

// TestJournalRequestBounded: a request to write a huge file is journaled
// without its content and with its diff cut.
func TestJournalRequestBounded(t *testing.T) {
	big := strings.Repeat("+line\n", 100_000)
	b := journalRequest(permission.Request{Tool: "write_file", Path: "big.txt", Content: big, Change: &permission.FileChange{Path: "big.txt", Diff: big}})
	if len(b) > 2*maxJournalDiff || strings.Contains(string(b), `"Content":"+line`) || !strings.Contains(string(b), "cut in the session file") {
		t.Errorf("journaled %d bytes: %.200s", len(b), b)
	}
}

// TestOpenRecordedPathAndUnknown: a session file's path replays; an ID
// that names nothing is a clear error.
func TestOpenRecordedPathAndUnknown(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	if _, err := OpenRecorded("20990101T000000Z-nosuch"); err == nil || !strings.Contains(err.Error(), "no session found") {
		t.Errorf("an unknown ID: %v", err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	data := `{"type":"session","id":"x","workspace":"/ws","created":"2026-01-01T00:00:00Z","model":"m","version":1}
{"type":"checkpoint","id":"c1","time":"2026-01-01T00:00:05Z","text":"hi"}
{"type":"message","message":{"role":"user","content":"hi"}}
{"type":"event","event":{"type":"done","agent_id":"main","answer":"","reason":"ok","usage":{},"turns":1},"at":1767225610000}
`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRecorded(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 2 || r.Events[0].At.Sub(r.Created) != 5*time.Second || r.Events[1].At.Sub(r.Created) != 10*time.Second {
		t.Errorf("events %#v", r.Events)
	}
}
