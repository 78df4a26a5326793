package websearch

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHostedBackends(t *testing.T) {
	tests := map[string]struct {
		backend string
		answer  string
		check   func(r *http.Request, body map[string]any) string // "" when the request is right
	}{
		Brave: {Brave, `{"web": {"results": [{"title": "A", "url": "https://a.example", "description": "the <strong>first</strong>"}]}}`,
			func(r *http.Request, _ map[string]any) string {
				if r.Method != http.MethodGet || r.Header.Get("X-Subscription-Token") != "k3y" || r.URL.Query().Get("q") != "golang" || r.URL.Query().Get("count") != "8" {
					return "want GET with the token header, q and count"
				}
				return ""
			}},
		Tavily: {Tavily, `{"results": [{"title": "A", "url": "https://a.example", "content": "the first"}]}`,
			func(r *http.Request, body map[string]any) string {
				if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer k3y" || body["query"] != "golang" || body["max_results"] != 8.0 {
					return "want POST with a bearer key, query and max_results"
				}
				return ""
			}},
		Exa: {Exa, `{"results": [{"title": "A", "url": "https://a.example", "text": "the first"}]}`,
			func(r *http.Request, body map[string]any) string {
				if r.Method != http.MethodPost || r.Header.Get("x-api-key") != "k3y" || body["query"] != "golang" || body["numResults"] != 8.0 {
					return "want POST with x-api-key, query and numResults"
				}
				return ""
			}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var problem string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body map[string]any
				if b, _ := io.ReadAll(r.Body); len(b) > 0 {
					_ = json.Unmarshal(b, &body)
				}
				problem = tt.check(r, body)
				_, _ = io.WriteString(w, tt.answer)
			}))
			defer srv.Close()
			t.Setenv("COVEY_TEST_SEARCH_KEY", "k3y")
			c := Config{Backend: tt.backend, URL: srv.URL, KeyEnv: "COVEY_TEST_SEARCH_KEY"}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			res, err := Search(context.Background(), nil, c, "golang")
			if err != nil {
				t.Fatal(err)
			}
			if problem != "" {
				t.Error(problem)
			}
			if len(res) != 1 || res[0] != (Result{Title: "A", URL: "https://a.example", Snippet: "the first"}) {
				t.Errorf("results %+v", res)
			}
		})
	}
}

func TestSearchErrorsAreClear(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "json format disabled", http.StatusForbidden)
	}))
	defer srv.Close()
	_, err := Search(context.Background(), nil, Config{Backend: SearXNG, URL: srv.URL}, "x")
	if err == nil || !strings.Contains(err.Error(), "HTTP 403") || !strings.Contains(err.Error(), "search.formats") {
		t.Errorf("err = %v", err)
	}
}

func TestValidate(t *testing.T) {
	tests := map[string]struct {
		c    Config
		want string // "" for valid
	}{
		"none":                {Config{}, ""},
		"searxng":             {Config{Backend: SearXNG, URL: "http://localhost:8888"}, ""},
		"searxng without url": {Config{Backend: SearXNG}, "needs url"},
		"brave without key":   {Config{Backend: Brave}, "needs key or key_env"},
		"unknown":             {Config{Backend: "google", Key: "x"}, "unknown backend"},
		"bad url":             {Config{Backend: SearXNG, URL: "ftp://x"}, "not an http(s) address"},
		"key without backend": {Config{Key: "x"}, "backend is required"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			err := tt.c.Validate()
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}
