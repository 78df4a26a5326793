package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
)

// TestHeadlessAskUser: without a user, ask_user returns at once and tells
// the model to decide itself; stream-json reports the question; with
// ask_user: deny in the config the tool is refused.
func TestHeadlessAskUser(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		config string
		want   string
	}{
		"nobody to ask": {want: "no user is available"},
		"ask_user deny": {config: "ask_user: deny\n", want: "turned off"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHeadlessRun(t)
			if tc.config != "" {
				if err := os.MkdirAll(filepath.Join(h.ws, ".covey"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(h.ws, ".covey", "config.yaml"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_ask", Name: "ask_user", Args: askArgs("Which port?", "8080", "9090")}}},
				{Text: "decided myself"},
			}})
			r := h.run(t, "", "-p", "pick a port", "--output-format", "stream-json")
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			if got := toolResult(t, h.srv, "call_ask"); !strings.Contains(got, tc.want) {
				t.Errorf("the model read %q, want it to say %q", got, tc.want)
			}
			asked := false
			for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var ev struct {
					Type string          `json:"type"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				}
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "tool_started" && ev.Name == "ask_user" && strings.Contains(string(ev.Args), "Which port?") {
					asked = true
				}
			}
			if !asked {
				t.Errorf("stream-json does not report the question:\n%s", r.stdout)
			}
		})
	}
}

// TestHeadlessPlanPrinted: in plan mode, exit_plan_mode prints the plan on
// stdout, says on stderr that it waits for approval, and the run ends there
// (json reason "plan"), the model not asked again.
func TestHeadlessPlanPrinted(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			h := newHeadlessRun(t)
			h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{
				{Text: "Here is my plan.", ToolCalls: []scripted.Call{{ID: "call_plan", Name: "exit_plan_mode", Args: map[string]any{"plan": planText}}}},
				{Text: "SHOULD NOT BE ASKED"},
			}})
			r := h.run(t, "", "-p", "plan the rename", "--permission-mode", "plan", "--output-format", format)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "plan ready for approval") {
				t.Errorf("stderr does not say the plan waits for approval:\n%s", r.stderr)
			}
			switch format {
			case "text":
				if strings.TrimSpace(r.stdout) != planText {
					t.Errorf("stdout = %q, want the plan", r.stdout)
				}
			case "json":
				var out struct{ Answer, Reason string }
				if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Answer != planText || out.Reason != "plan" {
					t.Errorf("json %q (%v), want the plan with reason plan", r.stdout, err)
				}
			}
			for _, e := range h.srv.Journal() {
				if e.Turn > 1 {
					t.Errorf("the model was asked again after the plan (turn %d)", e.Turn)
				}
			}
		})
	}
}
