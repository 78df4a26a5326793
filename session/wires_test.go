package session

import (
	"path/filepath"
	"testing"

	"covey/agent"
	"covey/agentdefs"
	"covey/config"
)

// TestEachAgentOnItsWire: the main agent speaks its endpoint's wire; a
// child whose model is served by another wire gets that wire's provider;
// /model to such a model moves the main agent to it, and back.
func TestEachAgentOnItsWire(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	cfg := config.Config{Models: map[string]config.ModelSettings{"big-model": {API: agent.APIAnthropic}}}
	s, err := New(Options{Workspace: t.TempDir(), NoMCP: true, NoHooks: true, Config: cfg,
		Endpoint: config.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "qwen", API: agent.APIChat}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range s.Events() {
		}
	}()
	defer s.EndEvents()
	if s.API() != agent.APIChat {
		t.Fatalf("main wire = %q", s.API())
	}
	p, model, err := s.resolveChild(agentdefs.Definition{Name: "explore", Model: "big-model"})
	if _, ok := p.(*agent.Anthropic); !ok || err != nil || model != "big-model" {
		t.Fatalf("child on big-model: %T %q %v, want the Anthropic wire", p, model, err)
	}
	if p, _, _ := s.resolveChild(agentdefs.Definition{Name: "plain"}); !isChat(p) {
		t.Fatalf("child on the parent's model: %T, want Chat Completions", p)
	}
	s.SetModel("big-model")
	if s.API() != agent.APIAnthropic {
		t.Fatalf("after /model big-model the wire is %q", s.API())
	}
	s.SetModel("qwen")
	if s.API() != agent.APIChat {
		t.Fatalf("after /model qwen the wire is %q", s.API())
	}
}

func isChat(p agent.Provider) bool { _, ok := p.(*agent.OpenAI); return ok }

// TestPricesFromCatalog: a session on Anthropic's API prices its tokens
// with the catalog's prices, cache reads at a tenth of input and writes
// at 1.25 times, with no prices: in config (what /cost and the json
// results read); one on a local server prices nothing the table does not
// name.
func TestPricesFromCatalog(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	open := func(cfg config.Config, ep config.Endpoint) *Session {
		t.Helper()
		s, err := New(Options{Workspace: t.TempDir(), NoMCP: true, NoHooks: true, Config: cfg, Endpoint: ep})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for range s.Events() {
			}
		}()
		t.Cleanup(s.EndEvents)
		return s
	}
	u := agent.Usage{InputTokens: 1_000_000, CachedTokens: 800_000, CacheWriteTokens: 100_000, OutputTokens: 10_000}
	s := open(config.Config{}, config.Endpoint{BaseURL: "https://api.anthropic.com", Model: "claude-sonnet-4-5", API: agent.APIAnthropic})
	// 0.1M fresh at $3, 0.8M read at $0.30, 0.1M written at $3.75, 10k out at $15
	want := 0.3 + 0.24 + 0.375 + 0.15
	if got, ok := s.Prices().Cost("claude-sonnet-4-5", u); !ok || got < want-1e-9 || got > want+1e-9 {
		t.Errorf("claude-sonnet-4-5 on Anthropic's API: $%v, %v; want $%v", got, ok, want)
	}
	local := open(config.Config{Prices: agent.Prices{"qwen": {Input: 1, Output: 1}}},
		config.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "qwen", API: agent.APIChat})
	if _, ok := local.Prices().Cost("claude-sonnet-4-5", u); ok {
		t.Error("a local session priced a model from the catalog")
	}
	if _, ok := local.Prices().Cost("qwen", u); !ok {
		t.Error("the table's price is lost")
	}
}
