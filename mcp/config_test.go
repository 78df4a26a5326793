package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestParseFile(t *testing.T) {
	tests := map[string]struct {
		json    string
		want    []string // name:type
		wantErr string
	}{
		"claude code shape": {
			json: `{"mcpServers": {
				"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
				"remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
				"old": {"type": "sse", "url": "https://mcp.example.com/sse"},
				"slow": {"command": "srv", "startup_timeout": "90s", "tool_timeout": 5000}
			}}`,
			want: []string{"fs:stdio", "old:sse", "remote:http", "slow:stdio"},
		},
		"url without type is http": {json: `{"mcpServers": {"r": {"url": "http://x/mcp"}}}`, want: []string{"r:http"}},
		"unknown field":            {json: `{"mcpServers": {"a": {"comand": "x"}}}`, wantErr: `unknown field "comand"`},
		"no servers object":        {json: `{"servers": {}}`, wantErr: "unknown field"},
		"stdio without command":    {json: `{"mcpServers": {"a": {"type": "stdio"}}}`, wantErr: `server "a": type stdio needs a command`},
		"http without url":         {json: `{"mcpServers": {"a": {"type": "http"}}}`, wantErr: "needs a url"},
		"unknown type":             {json: `{"mcpServers": {"a": {"type": "ws", "url": "x"}}}`, wantErr: `unknown type "ws"`},
		"neither":                  {json: `{"mcpServers": {"a": {}}}`, wantErr: "give a command"},
		"bad duration":             {json: `{"mcpServers": {"a": {"command": "x", "tool_timeout": "soon"}}}`, wantErr: `bad duration "soon"`},
		"url not a url":            {json: `{"mcpServers": {"a": {"type": "http", "url": "notaurl"}}}`, wantErr: `url "notaurl" is not an http(s) URL with a host`},
		"url of another scheme":    {json: `{"mcpServers": {"a": {"url": "ws://x/mcp"}}}`, wantErr: "not an http(s) URL"},
		"url from variables":       {json: `{"mcpServers": {"a": {"url": "${MCP_BASE}/mcp"}}}`, want: []string{"a:http"}},
		"cut short":                {json: "{\"mcpServers\": {\"x\": {\"command\": ", wantErr: "the file ends early"},
		"syntax error at a line":   {json: "{\"mcpServers\": {\n  \"x\": {\"command\": 'npx'}\n}}", wantErr: "line 2, column 20: invalid character"},
		"wrong type at a line":     {json: "{\"mcpServers\": {\n\n  \"x\": {\"command\": 5}}}", wantErr: "line 3, column 20: mcpServers.command must be a string, not a number"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseFile(".mcp.json", []byte(tc.json), ScopeProject)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range got {
				names = append(names, s.Name+":"+s.Config.TransportType())
				if s.Scope != ScopeProject || s.Source != ".mcp.json" {
					t.Errorf("%s: scope %s source %s", s.Name, s.Scope, s.Source)
				}
			}
			if strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Errorf("servers %v, want %v", names, tc.want)
			}
		})
	}
}

func TestDurations(t *testing.T) {
	got, err := ParseFile("f", []byte(`{"mcpServers": {"a": {"command": "x", "startup_timeout": "90s", "tool_timeout": 5000}}}`), ScopeFlag)
	if err != nil {
		t.Fatal(err)
	}
	c := got[0].Config
	if c.startupTimeout() != 90*time.Second || c.toolTimeout() != 5*time.Second {
		t.Errorf("startup %s tool %s", c.startupTimeout(), c.toolTimeout())
	}
	if (ServerConfig{}).startupTimeout() != DefaultStartupTimeout || (ServerConfig{}).toolTimeout() != DefaultToolTimeout {
		t.Error("defaults not applied")
	}
}

func TestMergePrefersLaterLists(t *testing.T) {
	proj := []Server{{Name: "a", Scope: ScopeProject}, {Name: "b", Scope: ScopeProject}}
	user := []Server{{Name: "a", Scope: ScopeUser}}
	got := Merge(proj, user)
	if len(got) != 2 || got[0].Scope != ScopeUser || got[1].Scope != ScopeProject {
		t.Errorf("merged %+v", got)
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "EMPTY": "", "DIR": "/data"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := map[string]struct {
		in      ServerConfig
		want    ServerConfig
		wantErr string
	}{
		"every field": {
			in: ServerConfig{Command: "${DIR}/bin/srv", Args: []string{"--root=${DIR}", "${PORT:-8080}"},
				Env: map[string]string{"K": "${TOKEN}"}, URL: "", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
			want: ServerConfig{Command: "/data/bin/srv", Args: []string{"--root=/data", "8080"},
				Env: map[string]string{"K": "s3cret"}, Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		},
		"default for empty":  {in: ServerConfig{URL: "http://${EMPTY:-localhost}/mcp"}, want: ServerConfig{URL: "http://localhost/mcp"}},
		"set but empty":      {in: ServerConfig{URL: "http://h/${EMPTY}"}, want: ServerConfig{URL: "http://h/"}},
		"lone dollar kept":   {in: ServerConfig{Command: "echo $HOME $"}, want: ServerConfig{Command: "echo $HOME $"}},
		"missing in args":    {in: ServerConfig{Command: "x", Args: []string{"ok", "${NOPE}"}}, wantErr: `MCP server "srv", args[1]: environment variable NOPE is not set`},
		"missing in headers": {in: ServerConfig{URL: "u", Headers: map[string]string{"X-Key": "${KEY}"}}, wantErr: `headers.X-Key: environment variable KEY`},
		"missing in env":     {in: ServerConfig{Command: "x", Env: map[string]string{"A": "${NOPE}"}}, wantErr: "env.A"},
		"unclosed":           {in: ServerConfig{URL: "http://${HOST"}, wantErr: "url: unclosed"},
		"bad name":           {in: ServerConfig{URL: "${1X}"}, wantErr: "bad variable reference"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Expand("srv", tc.in, getenv)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(tc.want)
			if string(a) != string(b) {
				t.Errorf("got %s\nwant %s", a, b)
			}
		})
	}
}

func TestToolNames(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := map[string]struct {
		server, tool, want string
	}{
		"plain":     {"github", "create_issue", "mcp__github__create_issue"},
		"sanitised": {"my server", "get.file/v2", "mcp__my_server__get_file_v2"},
		"dashes":    {"a-b", "c-d", "mcp__a-b__c-d"},
		"unicode":   {"café", "ünï", "mcp__caf-___n_"},
		// "__" only ever separates the parts: a rule for server x must not
		// cover servers named x__y or x_.
		"double underscore in the server": {"x__y", "echo", "mcp__x_y__echo"},
		"underscore at the server's end":  {"x_", "echo", "mcp__x-__echo"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ToolName(tc.server, tc.tool); got != tc.want {
				t.Errorf("ToolName = %q, want %q", got, tc.want)
			}
		})
	}
	a, b := ToolName("srv", long+"a"), ToolName("srv", long+"b")
	if len(a) != 64 || len(b) != 64 || a == b || !strings.HasPrefix(a, "mcp__srv__xxx") {
		t.Errorf("long names %q %q", a, b)
	}
}

func TestNameCollisionsResolvedAndReported(t *testing.T) {
	n := newNameSet()
	first := n.claim("srv", "get.file")
	second := n.claim("srv", "get_file")
	again := n.claim("srv", "get.file")
	if first != "mcp__srv__get_file" || second != "mcp__srv__get_file_2" || again != first {
		t.Errorf("names %q %q %q", first, second, again)
	}
	if len(n.collisions) != 1 || !strings.Contains(n.collisions[0], "srv/get_file is offered as mcp__srv__get_file_2") {
		t.Errorf("collisions %v", n.collisions)
	}
}

func TestFormatResultCapsAndErrors(t *testing.T) {
	big := strings.Repeat("é", 1000) // 2000 bytes
	r := FormatResult(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: big}}}, 501)
	if !strings.Contains(r.Content, "[output truncated: 500 bytes of 2.0 KB shown") || !strings.HasSuffix(r.Summary, "truncated") {
		t.Errorf("capped result %q… summary %q", r.Content[len(r.Content)-150:], r.Summary)
	}
	if strings.Contains(r.Content, "\uFFFD") {
		t.Error("cut inside a rune")
	}
	r = FormatResult(&sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no such repo"}}}, 100)
	if !r.IsError || r.Content != "Error: no such repo" {
		t.Errorf("error result %+v", r)
	}
	// Structured content the text already carries is not repeated.
	r = FormatResult(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"a": 1}`}}, StructuredContent: map[string]any{"a": 1}}, 1000)
	if strings.Contains(r.Content, "structured") {
		t.Errorf("structured content repeated: %q", r.Content)
	}
	r = FormatResult(&sdk.CallToolResult{StructuredContent: map[string]any{"a": 1}}, 1000)
	if !strings.Contains(r.Content, `"a": 1`) {
		t.Errorf("structured content missing: %q", r.Content)
	}
	r = FormatResult(&sdk.CallToolResult{}, 1000)
	if r.Content != "(no output)" {
		t.Errorf("empty result %q", r.Content)
	}
}

func TestLoadSourcesAndTrust(t *testing.T) {
	ws := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(ws, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(".mcp.json", `{"mcpServers": {"proj": {"command": "p"}, "shared": {"command": "from-project"}}}`)
	flag := write("extra.json", `{"mcpServers": {"flagged": {"url": "http://localhost:1/mcp"}}}`)
	l, err := Load(Sources{
		Workspace: ws, User: map[string]ServerConfig{"shared": {Command: "from-user"}}, UserSource: "config.yaml",
		Project: map[string]ServerConfig{"cfgproj": {Command: "c"}}, ProjectSource: ".covey/config.yaml",
		Files: []string{flag},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Scope{}
	for _, s := range l.Servers {
		got[s.Name] = s.Scope
	}
	want := map[string]Scope{"proj": ScopeProject, "cfgproj": ScopeProject, "shared": ScopeUser, "flagged": ScopeFlag}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("scopes %v, want %v", got, want)
	}
	if !l.HasProject() || l.ProjectHash == "" {
		t.Fatalf("project hash %q", l.ProjectHash)
	}
	store := NewTrustStore(filepath.Join(t.TempDir(), "state", TrustFile))
	if tr, err := store.Get(ws, l.ProjectHash); err != nil || tr != TrustUnknown {
		t.Fatalf("before asking: %q %v", tr, err)
	}
	if err := store.Set(ws, l.ProjectHash, TrustYes); err != nil {
		t.Fatal(err)
	}
	if tr, _ := store.Get(ws, l.ProjectHash); tr != TrustYes {
		t.Errorf("after trusting: %q", tr)
	}
	// A changed .mcp.json is asked about again.
	write(".mcp.json", `{"mcpServers": {"proj": {"command": "p", "args": ["--evil"]}}}`)
	l2, _ := Load(Sources{Workspace: ws})
	if tr, _ := store.Get(ws, l2.ProjectHash); tr != TrustUnknown {
		t.Errorf("changed file kept its trust: %q", tr)
	}
	// --mcp-config also takes the JSON itself.
	inline, err := Load(Sources{Workspace: t.TempDir(), Files: []string{`{"mcpServers": {"inline": {"url": "http://127.0.0.1:1/mcp"}}}`}})
	if err != nil || len(inline.Servers) != 1 || inline.Servers[0].Name != "inline" || inline.Servers[0].Scope != ScopeFlag {
		t.Errorf("inline JSON: %+v %v", inline.Servers, err)
	}
	// A broken --mcp-config is an error naming the file.
	bad := write("bad.json", `{"mcpServers": {"x": {"type": "stdio"}}}`)
	if _, err := Load(Sources{Workspace: ws, Files: []string{bad}}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("bad file: %v", err)
	}
	if _, err := Load(Sources{Workspace: ws, Files: []string{filepath.Join(ws, "missing.json")}}); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLongDescriptionShortened(t *testing.T) {
	long := strings.Repeat("é", 3000)
	tool := newTool(&Manager{}, Server{Name: "s"}, "mcp__s__t", &sdk.Tool{Name: "t", Description: long})
	if len(tool.Description()) > maxDescription+64 || !strings.HasSuffix(tool.Description(), "(description shortened by covey)") || !utf8.ValidString(tool.Description()) {
		t.Errorf("description of %d bytes: …%q", len(tool.Description()), tool.Description()[len(tool.Description())-60:])
	}
	short := newTool(&Manager{}, Server{Name: "s"}, "mcp__s__t", &sdk.Tool{Name: "t", Title: "Title only"})
	if short.Description() != "Title only" {
		t.Errorf("title fallback %q", short.Description())
	}
}

// TestLoadBrokenProjectFile: a project's .mcp.json comes with the
// repository; one covey cannot read costs its servers and a problem, not
// the session, while the user's own servers still load.
func TestLoadBrokenProjectFile(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, ProjectFile), []byte(`{"mcpServers": {"p": {"command": "x", "disabled": true}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(Sources{Workspace: ws, User: map[string]ServerConfig{"mine": {Command: "m"}}, UserSource: "config.yaml"})
	if err != nil {
		t.Fatalf("a broken project file failed the load: %v", err)
	}
	if len(l.Servers) != 1 || l.Servers[0].Name != "mine" {
		t.Errorf("servers %+v, want the user's alone", l.Servers)
	}
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0], `unknown field "disabled"`) || !strings.Contains(l.Problems[0], "not started") {
		t.Errorf("problems %q", l.Problems)
	}
}
