package sessionfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"covey/agent"
)

var (
	mainSrc  = agent.Source{AgentID: agent.MainAgentID}
	childSrc = agent.Source{AgentID: "c1", ParentCallID: "task1", AgentType: "Explore", Description: "look around", Depth: 1}
)

// testStore returns a store under a fresh XDG_DATA_HOME, as a user's would be.
func testStore(t *testing.T) Store {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir, err := DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	return Store{Dir: dir}
}

// manualTimer replaces the recorder's periodic flush with one fired by hand.
type manualTimer struct {
	fire  func()
	armed int
}

func (m *manualTimer) install(r *Recorder) {
	r.mu.Lock()
	r.schedule = func(d time.Duration, f func()) func() bool {
		if d != flushEvery {
			panic("unexpected flush interval")
		}
		m.armed++
		m.fire = f
		return func() bool { return true }
	}
	r.mu.Unlock()
}

// readFile returns the session file's bytes as on disk now.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decodeReplay flattens a replay into its messages and events.
func decodeReplay(t *testing.T, recs []Record) (items []any) {
	t.Helper()
	for i, rec := range recs {
		switch {
		case rec.Message != nil && rec.Event == nil:
			items = append(items, *rec.Message)
		case rec.Message == nil && rec.Event != nil:
			items = append(items, rec.Event)
		default:
			t.Fatalf("record %d sets both or neither of Message and Event", i)
		}
	}
	return items
}

// writeSession writes a session file by hand, for IDs and contents a
// recorder would not produce.
func writeSession(t *testing.T, s Store, id, workspace string, mod time.Time, lines ...string) string {
	t.Helper()
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h, _ := json.Marshal(Header{Type: typeSession, ID: id, Workspace: workspace, Created: mod.UTC(), Model: "m", Version: Version})
	path := filepath.Join(s.Dir, id+Ext)
	body := string(h) + "\n" + strings.Join(lines, "")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	return path
}

// msgLine is a message line as the recorder writes it.
func msgLine(m agent.Message) string {
	b, _ := json.Marshal(m)
	return string(wrap(typeMessage, "message", b))
}

// eventLine is an event line as the recorder writes it.
func eventLine(e agent.Event) string {
	b, _ := agent.MarshalEvent(e)
	return string(wrap(typeEvent, "event", b))
}

// checkHistory fails unless every tool call is answered right after its
// assistant message and every tool result answers one: what providers
// require of a conversation.
func checkHistory(msgs []agent.Message) string {
	prev := ""
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == agent.RoleTool {
			return "tool result at " + itoa(i) + " answers no call"
		}
		if m.Role == agent.RoleAssistant && (prev == "" || prev == agent.RoleAssistant) {
			return "assistant message at " + itoa(i) + " follows " + map[string]string{"": "nothing", agent.RoleAssistant: "another"}[prev]
		}
		if m.Role != agent.RoleSystem {
			prev = m.Role
			if m.Role == agent.RoleAssistant && len(m.ToolCalls) > 0 {
				prev = agent.RoleTool
			}
		}
		if m.Role != agent.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]int{}
		for _, c := range m.ToolCalls {
			want[c.ID]++
		}
		for i+1 < len(msgs) && msgs[i+1].Role == agent.RoleTool {
			i++
			if want[msgs[i].ToolCallID] == 0 {
				return "tool result at " + itoa(i) + " answers no call of its assistant message"
			}
			want[msgs[i].ToolCallID]--
		}
		for id, n := range want {
			if n != 0 {
				return "tool call " + id + " has no result"
			}
		}
	}
	return ""
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func mustEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.MarshalIndent(got, "", " ")
		wb, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}
