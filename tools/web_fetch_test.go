package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"covey/tools/tool"
	"covey/tools/toolname"

	"covey/permission"
)

const testPage = `<!doctype html><html><head><title>Docs</title><style>body{color:red}</style>
<script>alert("x")</script></head><body>
<nav><a href="/">Home</a> | <a href="/blog">Blog</a></nav>
<main><h1>Install</h1><p>Run <code>go install</code> and read the <a href="/guide">guide</a>.</p>
<ul><li>one</li><li>two</li></ul></main>
<footer>© 2026 Example Corp</footer></body></html>`

func fetchServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, testPage)
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a": [1, 2]}`)
	})
	mux.HandleFunc("/notes.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain <b>text</b>")
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/untyped", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		_, _ = w.Write([]byte("%PDF-1.7\n\x00\x01\x02binary"))
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := strings.Repeat("x", 1023) + "\n"
		for range 6 * 1024 { // 6 MB: over the download cap
			if _, err := fmt.Fprint(w, line); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("y", 300<<10))
	})
	mux.HandleFunc("/same-host", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/page", http.StatusFound) })
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://other.example.net/landing", http.StatusMovedPermanently)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func runFetch(t *testing.T, tool tool.Tool, args map[string]any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	return tool.Run(context.Background(), raw)
}

func TestWebFetch(t *testing.T) {
	srv := fetchServer(t)
	tool := NewWebFetch(WebFetchConfig{AllowPrivate: testServersOK})
	tests := map[string]struct {
		path    string
		isError bool
		want    []string
		notWant []string
	}{
		"html page to markdown": {
			path: "/page",
			want: []string{"# Install", "`go install`", "[guide](" + srv.URL + "/guide)", "- one"},
			// Scripts, styles, navigation and footers are noise.
			notWant: []string{"alert", "color:red", "Blog", "Example Corp"},
		},
		"redirect on the same host is followed": {path: "/same-host", want: []string{"# Install"}},
		"redirect to another host is reported": {
			path: "/elsewhere",
			want: []string{"redirects to another host: https://other.example.net/landing", "not fetched"},
		},
		"404":            {path: "/missing", isError: true, want: []string{"HTTP 404 Not Found"}},
		"500":            {path: "/broken", isError: true, want: []string{"HTTP 500 Internal Server Error"}},
		"json as is":     {path: "/data.json", want: []string{`{"a": [1, 2]}`}},
		"text as is":     {path: "/notes.txt", want: []string{"plain <b>text</b>"}},
		"binary refused": {path: "/image.png", isError: true, want: []string{"image/png", "binary"}},
		"sniffed binary": {path: "/untyped", isError: true, want: []string{"application/pdf"}},
		"huge page capped": {
			path: "/huge",
			want: []string{"[truncated: 100.0 KB of 5.0 MB shown", "larger than 5.0 MB; only its beginning was read"},
		},
		"output capped": {path: "/big", want: []string{"[truncated: 100.0 KB of 300.0 KB shown"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := runFetch(t, tool, map[string]any{"url": srv.URL + tc.path})
			if r.IsError != tc.isError {
				t.Fatalf("IsError %v, want %v: %s", r.IsError, tc.isError, r.Content)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Content, w) {
					t.Errorf("result lacks %q:\n%s", w, head(r.Content))
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(r.Content, w) {
					t.Errorf("result has %q:\n%s", w, head(r.Content))
				}
			}
			if len(r.Content) > 101<<10 {
				t.Errorf("result is %d bytes, over the output cap", len(r.Content))
			}
		})
	}
}

func head(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

func TestWebFetchBadURLs(t *testing.T) {
	tool := NewWebFetch(WebFetchConfig{AllowPrivate: testServersOK})
	for _, u := range []string{"", "ftp://example.com/x", "file:///etc/passwd", "https://", "::nope"} {
		r := runFetch(t, tool, map[string]any{"url": u})
		if !r.IsError {
			t.Errorf("%q: not refused: %s", u, r.Content)
		}
	}
}

func TestWebFetchGateSeesDomain(t *testing.T) {
	srv := fetchServer(t)
	var seen permission.Request
	tool := NewWebFetch(WebFetchConfig{AllowPrivate: testServersOK, Gate: permission.GateFunc(func(_ context.Context, req permission.Request) permission.Verdict {
		seen = req
		return permission.Verdict{Reason: "no fetching"}
	})})
	r := runFetch(t, tool, map[string]any{"url": srv.URL + "/page"})
	if !r.IsError || !strings.Contains(r.Content, "no fetching") {
		t.Errorf("result %+v", r)
	}
	if seen.Tool != toolname.WebFetch || seen.URL != srv.URL+"/page" {
		t.Errorf("gate saw %+v", seen)
	}
}

func TestWebFetchPrompt(t *testing.T) {
	srv := fetchServer(t)
	var gotPrompt, gotPage string
	tool := NewWebFetch(WebFetchConfig{AllowPrivate: testServersOK, Answer: func(_ context.Context, prompt, pageURL, md string) (string, error) {
		gotPrompt, gotPage = prompt, md
		return "Run go install.", nil
	}})
	r := runFetch(t, tool, map[string]any{"url": srv.URL + "/page", "prompt": "How do I install it?"})
	if r.IsError || r.Content != "Run go install." {
		t.Errorf("result %+v", r)
	}
	if gotPrompt != "How do I install it?" || !strings.Contains(gotPage, "# Install") {
		t.Errorf("answerer saw %q over %q", gotPrompt, gotPage)
	}
	// Without a fetch model the page comes back, with a note.
	r = runFetch(t, NewWebFetch(WebFetchConfig{AllowPrivate: testServersOK}), map[string]any{"url": srv.URL + "/page", "prompt": "How?"})
	if r.IsError || !strings.Contains(r.Content, "no fetch_model") || !strings.Contains(r.Content, "# Install") {
		t.Errorf("result without fetch model %+v", r)
	}
	// The answer has a time of its own, not what is left of the
	// download's; a model that fails leaves the page, with why.
	slow := NewWebFetch(WebFetchConfig{AllowPrivate: testServersOK, Timeout: 100 * time.Millisecond, Answer: func(ctx context.Context, _, _, _ string) (string, error) {
		select {
		case <-time.After(300 * time.Millisecond):
			return "slow but sure", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}})
	if r = runFetch(t, slow, map[string]any{"url": srv.URL + "/page", "prompt": "How?"}); r.IsError || r.Content != "slow but sure" {
		t.Errorf("a fetch model slower than the download's timeout: %+v", r)
	}
	failing := NewWebFetch(WebFetchConfig{AllowPrivate: testServersOK, Answer: func(context.Context, string, string, string) (string, error) {
		return "", errors.New("model overloaded")
	}})
	if r = runFetch(t, failing, map[string]any{"url": srv.URL + "/page", "prompt": "How?"}); r.IsError ||
		!strings.Contains(r.Content, "model overloaded") || !strings.Contains(r.Content, "# Install") {
		t.Errorf("a failing fetch model: %+v", r)
	}
}
