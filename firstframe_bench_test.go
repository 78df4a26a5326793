package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/config"
	"covey/session"
	"covey/theme"
	"covey/ui"
)

// BenchmarkFirstFrame measures from opening a session to the TUI's first
// frame, with no MCP server configured and with three that take a minute
// to start. The two must match: servers connect in the background and
// never hold up the screen (scripts/bench-mcp compares them in one run).
func BenchmarkFirstFrame(b *testing.B) {
	for _, tc := range []struct {
		name    string
		servers int
	}{{"no MCP servers", 0}, {"3 slow MCP servers", 3}} {
		b.Run(tc.name, func(b *testing.B) {
			home := b.TempDir()
			b.Setenv("HOME", home)
			b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			b.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
			b.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			ws := b.TempDir()
			servers := map[string]any{}
			for i := range tc.servers {
				servers[fmt.Sprintf("slow%d", i)] = map[string]any{"command": "sh", "args": []string{"-c", "sleep 60; true"}}
			}
			data, _ := json.Marshal(map[string]any{"mcpServers": servers})
			cfgFile := filepath.Join(b.TempDir(), "mcp.json")
			if err := os.WriteFile(cfgFile, data, 0o644); err != nil {
				b.Fatal(err)
			}
			o := &options{mcpConfigs: []string{cfgFile}}
			ep := config.Endpoint{BaseURL: "http://127.0.0.1:9/v1", Model: "bench-model"}
			th := theme.New(theme.ModeDark, true, false)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// As the TUI opens it: servers start after the first frame.
				so := sessionOptions(o, ws, config.Config{}, ep, ui.NewApprover(), false)
				so.DeferMCPStart = true
				s, err := session.New(so)
				if err != nil {
					b.Fatal(err)
				}
				m := ui.New(ui.Options{Engine: s, Events: s.Events(), Theme: th, Workspace: ws, PermissionMode: "default", MarkdownStyle: "dark",
					AfterFirstFrame: s.StartMCP})
				next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				if next.View() == "" {
					b.Fatal("no frame")
				}
				b.StopTimer()
				// The frame is drawn; now the servers start, as the TUI's
				// first-frame hook does.
				s.StartMCP()
				if got := len(s.MCPServers()); got != tc.servers {
					b.Fatalf("%d MCP servers, want %d", got, tc.servers)
				}
				s.Close(io.Discard)
				// Let the killed servers' exits settle, so they do not
				// compete with the next measured frame.
				time.Sleep(50 * time.Millisecond)
				b.StartTimer()
			}
		})
	}
}
