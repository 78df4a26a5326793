// Package websearch searches the web through one configured backend:
// SearXNG's JSON API (self-hosted, no key) or a hosted API with a key
// (Brave Search, Tavily, Exa). It returns ranked results (title, URL,
// snippet); the web_search tool (package tools) words them for the model
// and asks the permission gate first.
package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// The backends.
const (
	SearXNG = "searxng"
	Brave   = "brave"
	Tavily  = "tavily"
	Exa     = "exa"
)

// Backends lists the backend names config accepts.
func Backends() []string { return []string{SearXNG, Brave, Tavily, Exa} }

// Config is the `web_search:` key of covey's config.
type Config struct {
	// Backend is searxng, brave, tavily or exa; "" offers no web_search.
	Backend string `yaml:"backend"`
	// URL is the SearXNG instance (http://localhost:8888), or another
	// endpoint for a hosted backend (default: its public API).
	URL string `yaml:"url"`
	// Key is the hosted backend's API key; KeyEnv names a variable
	// holding it instead (keys are better kept out of files).
	Key    string `yaml:"key"`
	KeyEnv string `yaml:"key_env"`
	// MaxResults bounds the results (default 8, at most 20).
	MaxResults int `yaml:"max_results"`
}

// Enabled reports whether a backend is configured.
func (c Config) Enabled() bool { return c.Backend != "" }

// Validate reports a mistake in c.
func (c Config) Validate() error {
	if c.Backend == "" {
		if c.URL != "" || c.Key != "" || c.KeyEnv != "" {
			return errors.New("web_search: backend is required (searxng, brave, tavily or exa)")
		}
		return nil
	}
	switch c.Backend {
	case SearXNG:
		if c.URL == "" {
			return errors.New("web_search: searxng needs url, the instance's address (e.g. http://localhost:8888)")
		}
	case Brave, Tavily, Exa:
		if c.Key == "" && c.KeyEnv == "" {
			return fmt.Errorf("web_search: %s needs key or key_env", c.Backend)
		}
	default:
		return fmt.Errorf("web_search: unknown backend %q: use searxng, brave, tavily or exa", c.Backend)
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("web_search: url %q is not an http(s) address", c.URL)
		}
	}
	if c.MaxResults < 0 {
		return errors.New("web_search: max_results must not be negative")
	}
	return nil
}

// Endpoint is the address a search is sent to.
func (c Config) Endpoint() string {
	if c.URL != "" {
		return c.URL
	}
	switch c.Backend {
	case Brave:
		return "https://api.search.brave.com/res/v1/web/search"
	case Tavily:
		return "https://api.tavily.com/search"
	case Exa:
		return "https://api.exa.ai/search"
	}
	return ""
}

func (c Config) key() string {
	if c.KeyEnv != "" {
		return os.Getenv(c.KeyEnv)
	}
	return c.Key
}

// Limit is the number of results asked for.
func (c Config) Limit() int {
	switch {
	case c.MaxResults <= 0:
		return 8
	case c.MaxResults > 20:
		return 20
	}
	return c.MaxResults
}

// Result is one search result.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// maxBody bounds a backend's answer.
const maxBody = 4 << 20

// Search asks the backend for query.
func Search(ctx context.Context, client *http.Client, c Config, query string) ([]Result, error) {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := c.request(ctx, query)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "covey-web-search/1")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Backend, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %w", c.Backend, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		hint := ""
		if c.Backend == SearXNG && resp.StatusCode == http.StatusForbidden {
			hint = " (SearXNG answers 403 when its json format is off: add json to search.formats in its settings.yml)"
		}
		return nil, fmt.Errorf("%s answered HTTP %d: %s%s", c.Backend, resp.StatusCode, snippet(string(body), 200), hint)
	}
	res, err := c.decode(body)
	if err != nil {
		return nil, fmt.Errorf("%s: the answer is not the JSON expected: %w", c.Backend, err)
	}
	var out []Result
	for _, r := range res {
		if r.URL == "" {
			continue
		}
		r.Title, r.Snippet = snippet(r.Title, 200), snippet(r.Snippet, 500)
		out = append(out, r)
		if len(out) == c.Limit() {
			break
		}
	}
	return out, nil
}

// request builds the backend's request.
func (c Config) request(ctx context.Context, query string) (*http.Request, error) {
	switch c.Backend {
	case SearXNG:
		u, err := url.Parse(strings.TrimRight(c.Endpoint(), "/"))
		if err != nil {
			return nil, err
		}
		if !strings.HasSuffix(u.Path, "/search") {
			u.Path = strings.TrimRight(u.Path, "/") + "/search"
		}
		q := u.Query()
		q.Set("q", query)
		q.Set("format", "json")
		u.RawQuery = q.Encode()
		return http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	case Brave:
		u, err := url.Parse(c.Endpoint())
		if err != nil {
			return nil, err
		}
		q := u.Query()
		q.Set("q", query)
		q.Set("count", fmt.Sprint(c.Limit()))
		u.RawQuery = q.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-Subscription-Token", c.key())
		return req, nil
	case Tavily:
		return jsonPost(ctx, c.Endpoint(), map[string]any{"query": query, "max_results": c.Limit()}, "Authorization", "Bearer "+c.key())
	case Exa:
		return jsonPost(ctx, c.Endpoint(), map[string]any{"query": query, "numResults": c.Limit(), "contents": map[string]any{"text": map[string]any{"maxCharacters": 500}}}, "x-api-key", c.key())
	}
	return nil, fmt.Errorf("web_search: unknown backend %q", c.Backend)
}

func jsonPost(ctx context.Context, endpoint string, body any, hk, hv string) (*http.Request, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(hk, hv)
	return req, nil
}

// decode reads the backend's answer.
func (c Config) decode(body []byte) ([]Result, error) {
	var out []Result
	switch c.Backend {
	case SearXNG:
		var r struct {
			Results []struct {
				Title   string  `json:"title"`
				URL     string  `json:"url"`
				Content string  `json:"content"`
				Score   float64 `json:"score"`
			} `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, x := range r.Results {
			out = append(out, Result{Title: x.Title, URL: x.URL, Snippet: x.Content})
		}
	case Brave:
		var r struct {
			Web struct {
				Results []struct {
					Title       string `json:"title"`
					URL         string `json:"url"`
					Description string `json:"description"`
				} `json:"results"`
			} `json:"web"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, x := range r.Web.Results {
			out = append(out, Result{Title: x.Title, URL: x.URL, Snippet: stripTags(x.Description)})
		}
	case Tavily:
		var r struct {
			Results []struct {
				Title   string `json:"title"`
				URL     string `json:"url"`
				Content string `json:"content"`
			} `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, x := range r.Results {
			out = append(out, Result{Title: x.Title, URL: x.URL, Snippet: x.Content})
		}
	case Exa:
		var r struct {
			Results []struct {
				Title string `json:"title"`
				URL   string `json:"url"`
				Text  string `json:"text"`
			} `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, x := range r.Results {
			out = append(out, Result{Title: x.Title, URL: x.URL, Snippet: x.Text})
		}
	}
	return out, nil
}

// stripTags drops the <strong> marks Brave puts in descriptions.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// snippet puts s on one line, cut to n runes.
func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
