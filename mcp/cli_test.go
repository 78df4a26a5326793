package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestAddAndRemoveConfig(t *testing.T) {
	orig := []byte("# my settings\nmodel: gpt-4.1 # the default\npermissions:\n  allow: [\"bash(go test:*)\"]\n")
	out, err := AddToConfig(orig, "everything", ServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Env: map[string]string{"K": "v"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"# my settings", "model: gpt-4.1 # the default", "bash(go test:*)", "mcp_servers:", "  everything:", "command: npx", "- -y", "K: v"} {
		if !strings.Contains(s, want) {
			t.Errorf("config lacks %q:\n%s", want, s)
		}
	}
	out, err = AddToConfig(out, "remote", ServerConfig{Type: "http", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AddToConfig(out, "remote", ServerConfig{Type: "http", URL: "https://x"}, false); err == nil || !strings.Contains(err.Error(), "already configured") {
		t.Errorf("duplicate add: %v", err)
	}
	if _, err := AddToConfig(out, "bad", ServerConfig{Type: "http"}, false); err == nil || !strings.Contains(err.Error(), "needs a url") {
		t.Errorf("invalid add: %v", err)
	}
	out, found, err := RemoveFromConfig(out, "everything")
	if err != nil || !found {
		t.Fatalf("remove: %v %v", found, err)
	}
	s = string(out)
	if strings.Contains(s, "everything") || !strings.Contains(s, "remote:") || !strings.Contains(s, "${TOKEN}") || !strings.Contains(s, "# my settings") {
		t.Errorf("after remove:\n%s", s)
	}
	if _, found, _ := RemoveFromConfig(out, "nope"); found {
		t.Error("removed a server that was not there")
	}
	// An empty file gets a fresh map.
	out, err = AddToConfig(nil, "a", ServerConfig{Command: "srv"}, false)
	if err != nil || !strings.Contains(string(out), "mcp_servers:\n  a:\n    command: srv") {
		t.Errorf("from nothing: %q %v", out, err)
	}
}

func TestParseFlags(t *testing.T) {
	env, err := ParseEnvFlags([]string{"A=1", "B=x=y"})
	if err != nil || env["A"] != "1" || env["B"] != "x=y" {
		t.Errorf("env %v %v", env, err)
	}
	if _, err := ParseEnvFlags([]string{"novalue"}); err == nil {
		t.Error("bad --env accepted")
	}
	h, err := ParseHeaderFlags([]string{"Authorization: Bearer t"})
	if err != nil || h["Authorization"] != "Bearer t" {
		t.Errorf("headers %v %v", h, err)
	}
}

func TestWriteList(t *testing.T) {
	ss := []Status{
		{Name: "ok", State: StateConnected, Type: "stdio", Scope: ScopeUser, Source: "config.yaml",
			Tools: []ToolInfo{{Name: "mcp__ok__echo", Description: "Echoes.\nMore."}}},
		{Name: "bad", State: StateFailed, Type: "stdio", Scope: ScopeFlag, Source: "f.json", Err: "exit status 1",
			Stderr: []string{"boom"}, LogPath: "/tmp/bad.log"},
		{Name: "proj", State: StateUntrusted, Type: "http", Scope: ScopeProject, Source: ".mcp.json"},
	}
	var b bytes.Buffer
	if err := WriteList(&b, ss, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ok  connected  (stdio, user from config.yaml)", "  mcp__ok__echo  Echoes.\n", "error: exit status 1", "stderr: boom", "log: /tmp/bad.log", "not trusted yet"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("list lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteList(&b, ss, true); err != nil {
		t.Fatal(err)
	}
	var back []Status
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back) != 3 || back[1].Err != "exit status 1" || back[0].Tools[0].Name != "mcp__ok__echo" {
		t.Errorf("json %v %+v", err, back)
	}
}
