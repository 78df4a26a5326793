package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"covey/config"
)

// hookSession builds a session whose user settings hold hooks (event →
// command), in a private home.
func hookSession(t *testing.T, hooks map[string]string, project string) (*Session, string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	groups := map[string]any{}
	for ev, cmd := range hooks {
		groups[ev] = []map[string]any{{"hooks": []map[string]any{{"type": "command", "command": cmd}}}}
	}
	data, _ := json.Marshal(map[string]any{"hooks": groups})
	write := func(p string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "settings.json"), data)
	if project != "" {
		write(filepath.Join(ws, ".claude", "settings.json"), []byte(project))
	}
	s, err := New(Options{Workspace: ws, Config: config.Config{}, NoMCP: true,
		Endpoint: config.Endpoint{Name: "test", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		go func() {
			for range s.Events() {
			}
		}()
		s.EndEvents()
	})
	return s, home
}

// TestBeforeCompactRunsPreCompact: the PreCompact hooks read the trigger
// and the user's instructions; their additionalContext comes back for the
// summary; an exit 2 never stops the compaction.
func TestBeforeCompactRunsPreCompact(t *testing.T) {
	s, home := hookSession(t, map[string]string{
		"PreCompact": `cat > "$HOME/compact.json"; echo '{"hookSpecificOutput":{"additionalContext":"keep the API list"}}'`,
	}, "")
	extra, err := s.BeforeCompact(context.Background(), "manual", "focus on tests")
	if err != nil || extra != "keep the API list" {
		t.Errorf("extra %q, err %v", extra, err)
	}
	data, _ := os.ReadFile(filepath.Join(home, "compact.json"))
	if !strings.Contains(string(data), `"trigger":"manual"`) || !strings.Contains(string(data), `"custom_instructions":"focus on tests"`) ||
		!strings.Contains(string(data), `"hook_event_name":"PreCompact"`) {
		t.Errorf("hook stdin = %s", data)
	}
	s2, _ := hookSession(t, map[string]string{"PreCompact": "exit 2"}, "")
	if _, err := s2.BeforeCompact(context.Background(), "overflow", ""); err != nil {
		t.Errorf("an exit 2 stopped the compaction: %v", err)
	}
}

// TestNotifyHooksAndListing: Notification hooks run for a moment the UI
// calls the user back for; Hooks lists every hook with its source, and an
// untrusted project hook is listed as not running and named as skipped.
func TestNotifyHooksAndListing(t *testing.T) {
	s, home := hookSession(t, map[string]string{"Notification": `cat > "$HOME/note.json"`},
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"touch x"}]}]}}`)
	s.NotifyHooks("permission_prompt", "bash waits for your approval")
	deadline := time.Now().Add(10 * time.Second)
	var data []byte
	for time.Now().Before(deadline) {
		if data, _ = os.ReadFile(filepath.Join(home, "note.json")); strings.Contains(string(data), "}") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(string(data), `"notification_type":"permission_prompt"`) || !strings.Contains(string(data), `"message":"bash waits for your approval"`) {
		t.Errorf("hook stdin = %s", data)
	}
	hs := s.Hooks()
	if len(hs) != 2 {
		t.Fatalf("hooks %+v", hs)
	}
	for _, h := range hs {
		switch h.Event {
		case "Notification":
			if h.Scope != "user" || !h.Trusted || !strings.HasSuffix(h.Source, filepath.Join(".claude", "settings.json")) {
				t.Errorf("user hook %+v", h)
			}
		case "Stop":
			if h.Scope != "project" || h.Trusted {
				t.Errorf("project hook %+v", h)
			}
		}
	}
	if sk := s.SkippedHooks(); len(sk) != 1 || !strings.Contains(sk[0], "touch x") {
		t.Errorf("skipped %v", sk)
	}
	if err := s.TrustProjectHooks(); err != nil || len(s.SkippedHooks()) != 0 {
		t.Errorf("trust: %v, skipped %v", err, s.SkippedHooks())
	}
}
