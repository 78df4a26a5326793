package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"covey/mcp"
)

func TestLoadMCPSettings(t *testing.T) {
	tests := map[string]struct {
		user, project string
		check         func(t *testing.T, c Config)
		wantErr       string
	}{
		"servers and limits": {
			user: "mcp_servers:\n  everything: {command: npx, args: [-y, \"@modelcontextprotocol/server-everything\"], startup_timeout: 45s}\n" +
				"  remote: {type: http, url: \"https://mcp.example.com/mcp\", headers: {Authorization: \"Bearer ${TOKEN}\"}}\n" +
				"mcp_startup_grace: 3s\nmcp_max_output_tokens: 5000\nfetch_model: small\n",
			project: "mcp_servers:\n  repo-tool: {command: ./tool}\n",
			check: func(t *testing.T, c Config) {
				ev, remote := c.MCPServers["everything"], c.MCPServers["remote"]
				if len(c.MCPServers) != 2 || ev.Command != "npx" || len(ev.Args) != 2 || ev.StartupTimeout != mcp.Duration(45*time.Second) ||
					remote.TransportType() != "http" || remote.Headers["Authorization"] != "Bearer ${TOKEN}" {
					t.Fatalf("user servers %+v", c.MCPServers)
				}
				// The project's servers are kept apart: they are not trusted.
				if len(c.ProjectMCPServers) != 1 || c.ProjectMCPServers["repo-tool"].Command != "./tool" {
					t.Fatalf("project servers %+v", c.ProjectMCPServers)
				}
				if c.MCPStartupGrace != 3*time.Second || c.MCPMaxOutputTokens != 5000 || c.FetchModel != "small" {
					t.Fatalf("mcp settings %v %d %q", c.MCPStartupGrace, c.MCPMaxOutputTokens, c.FetchModel)
				}
			},
		},
		"unknown server key": {user: "mcp_servers:\n  a: {comand: x}\n", wantErr: "line 2: unknown key \"comand\""},
		"bad duration":       {user: "mcp_servers:\n  a: {command: x, tool_timeout: soon}\n", wantErr: "bad duration"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			xdg, ws := t.TempDir(), t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			user, project := Paths(ws)
			for path, body := range map[string]string{user: tc.user, project: tc.project} {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, err := Load(ws)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}
