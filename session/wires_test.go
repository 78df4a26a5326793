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
