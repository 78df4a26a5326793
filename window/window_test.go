package window_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
	"covey/window"
)

func TestDiscover(t *testing.T) {
	tests := map[string]struct {
		win  scripted.Window
		want int
	}{
		"vllm":         {scripted.Window{Tokens: 32768, Style: scripted.StyleVLLM}, 32768},
		"llama.cpp":    {scripted.Window{Tokens: 8192, Style: scripted.StyleLlamaCpp}, 8192},
		"ollama":       {scripted.Window{Tokens: 40960, Style: scripted.StyleOllama}, 40960},
		"lm studio":    {scripted.Window{Tokens: 4096, Style: scripted.StyleLMStudio}, 4096},
		"openai style": {scripted.Window{Tokens: 4096, Style: scripted.StyleOpenAI}, 0},
		"hidden":       {scripted.Window{Tokens: 4096, Style: scripted.StyleVLLM, Hidden: true}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := scriptedtest.New(t, scripted.WithWindow("qwen3", tc.win))
			d := &window.Discoverer{}
			info, err := d.Discover(context.Background(), srv.URL(), "", "qwen3")
			if tc.want == 0 {
				if !errors.Is(err, window.ErrNotTold) {
					t.Errorf("Discover = %v, %v; want ErrNotTold", info, err)
				}
				return
			}
			if err != nil || info.Tokens != tc.want {
				t.Fatalf("Discover = %+v, %v; want %d", info, err, tc.want)
			}
			if got, ok := d.Cached(srv.URL(), "qwen3"); !ok || got.Tokens != tc.want {
				t.Errorf("Cached = %+v, %v; want %d", got, ok, tc.want)
			}
			if len(srv.Probes()) != 4 {
				t.Errorf("probes %q, want the four kinds at once", srv.Probes())
			}
		})
	}
}

// TestDiscoverCacheFile checks that an answer survives to the next run
// through the cache file, and that a damaged file is only a miss.
func TestDiscoverCacheFile(t *testing.T) {
	srv := scriptedtest.New(t, scripted.WithWindow("m", scripted.Window{Tokens: 16384, Style: scripted.StyleVLLM}))
	file := filepath.Join(t.TempDir(), "covey", "windows.json")
	first := &window.Discoverer{CacheFile: file}
	if _, err := first.Discover(context.Background(), srv.URL(), "", "m"); err != nil {
		t.Fatal(err)
	}
	next := &window.Discoverer{CacheFile: file}
	if got, ok := next.Cached(srv.URL(), "m"); !ok || got.Tokens != 16384 {
		t.Errorf("next run's Cached = %+v, %v; want 16384", got, ok)
	}
	if _, ok := next.Cached(srv.URL(), "other"); ok {
		t.Error("Cached found a model never discovered")
	}
}

// TestDiscoverBounded checks that a server that never answers costs one
// bounded wait, not a hang.
func TestDiscoverBounded(t *testing.T) {
	release := make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer stall.Close()
	defer close(release)
	d := &window.Discoverer{Timeout: 50 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := d.Discover(ctx, stall.URL+"/v1", "", "m")
	if !errors.Is(err, window.ErrNotTold) || ctx.Err() != nil {
		t.Errorf("Discover on a silent server = %v (outer ctx %v), want ErrNotTold within the timeout", err, ctx.Err())
	}
}

func TestCatalog(t *testing.T) {
	tests := map[string]struct {
		base, model string
		want        int
	}{
		"openai":            {"https://api.openai.com/v1", "gpt-4o", 128000},
		"openai case":       {"https://api.openai.com/v1", "GPT-4o", 128000},
		"deepseek":          {"https://api.deepseek.com/v1", "deepseek-chat", -1},
		"openrouter prefix": {"https://openrouter.ai/api/v1", "openai/gpt-4o", 128000},
		"unknown host":      {"https://gateway.example.com/v1", "gpt-4o", 128000},
		"unknown model":     {"https://api.openai.com/v1", "no-such-model-xyz", 0},
		"local server":      {"http://localhost:11434/v1", "gpt-4o", 0},
		"private address":   {"http://192.168.1.20:8000/v1", "gpt-4o", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			info, ok := window.Catalog(tc.base, tc.model)
			switch {
			case tc.want == 0 && ok:
				t.Errorf("Catalog = %+v, want nothing", info)
			case tc.want == -1 && (!ok || info.Tokens < 8192):
				t.Errorf("Catalog = %+v, %v; want a window", info, ok)
			case tc.want > 0 && info.Tokens != tc.want:
				t.Errorf("Catalog = %+v, want %d", info, tc.want)
			}
		})
	}
}

func TestCatalogAPI(t *testing.T) {
	for _, tc := range []struct{ base, model, want string }{
		{"https://api.openai.com/v1", "gpt-5-codex", "responses"},
		{"https://api.openai.com/v1", "gpt-5.1-codex-mini", "responses"},
		{"https://api.openai.com/v1", "gpt-5.5-pro", "responses"},
		{"https://api.openai.com/v1", "gpt-4o", ""},
		// A gateway serves the same id through Chat Completions.
		{"https://openrouter.ai/api/v1", "openai/gpt-5-codex", ""},
		{"http://localhost:11434/v1", "gpt-5-codex", ""},
	} {
		if got := window.CatalogAPI(tc.base, tc.model); got != tc.want {
			t.Errorf("CatalogAPI(%s, %s) = %q, want %q", tc.base, tc.model, got, tc.want)
		}
	}
}

func TestIsLocal(t *testing.T) {
	for url, want := range map[string]bool{
		"http://localhost:11434/v1":    true,
		"http://127.0.0.1:8080/v1":     true,
		"http://[::1]:8080/v1":         true,
		"http://10.0.0.5:8000/v1":      true,
		"http://gpubox:8000/v1":        true,
		"http://box.local:1234/v1":     true,
		"https://api.openai.com/v1":    false,
		"https://llm.example.com/v1":   false,
		"https://8.8.8.8/v1":           false,
		"::not a url":                  false,
		"https://openrouter.ai/api/v1": false,
	} {
		if got := window.IsLocal(url); got != want {
			t.Errorf("IsLocal(%q) = %v, want %v", url, got, want)
		}
	}
}

// TestCatalogPrice: the vendors' own APIs price their models, cache reads
// and writes included (Anthropic's a tenth and 1.25 times input, OpenAI's
// cached input), dated ids and their aliases alike; local servers and
// gateways get no price from the catalog.
func TestCatalogPrice(t *testing.T) {
	cases := map[string]struct {
		base, model string
		want        window.Price
		ok          bool
	}{
		"claude alias":     {"https://api.anthropic.com", "claude-sonnet-4-5", window.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, true},
		"claude dated":     {"https://api.anthropic.com/v1", "claude-sonnet-4-5-20250929", window.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, true},
		"claude undated":   {"https://api.anthropic.com", "claude-opus-4-6", window.Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}, true},
		"codex":            {"https://api.openai.com/v1", "gpt-5-codex", window.Price{Input: 1.25, Output: 10, CacheRead: 0.125}, true},
		"4o cached input":  {"https://api.openai.com/v1", "gpt-4o", window.Price{Input: 2.5, Output: 10, CacheRead: 1.25}, true},
		"pro, no cache":    {"https://api.openai.com/v1", "gpt-5.5-pro", window.Price{Input: 30, Output: 180}, true},
		"unknown model":    {"https://api.openai.com/v1", "gpt-9", window.Price{}, false},
		"local server":     {"http://localhost:11434/v1", "gpt-4o", window.Price{}, false},
		"gateway":          {"https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4-5", window.Price{}, false},
		"another provider": {"https://api.anthropic.com", "gpt-4o", window.Price{}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := window.CatalogPrice(tc.base, tc.model)
			if ok != tc.ok || got != tc.want {
				t.Errorf("CatalogPrice(%q, %q) = %+v, %v; want %+v, %v", tc.base, tc.model, got, ok, tc.want, tc.ok)
			}
		})
	}
	if !window.PricesAt("https://api.anthropic.com") || !window.PricesAt("https://api.openai.com/v1") || window.PricesAt("http://127.0.0.1:8080/v1") || window.PricesAt("https://openrouter.ai/api/v1") {
		t.Error("PricesAt: want the two vendors' APIs only")
	}
}
