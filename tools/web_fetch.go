package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"covey/tools/tool"
	"covey/tools/toolname"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"

	"covey/permission"
)

// Limits of web_fetch.
const (
	webFetchTimeout   = 30 * time.Second
	webFetchMaxBytes  = 5 << 20   // download cap
	webFetchOutputCap = 100 << 10 // text the model sees
	webFetchRedirects = 5
	// fetchAnswerTimeout bounds the fetch_model's answer over a page, a
	// model request of its own.
	fetchAnswerTimeout = 3 * time.Minute
)

// PageAnswerer answers prompt over a fetched page's markdown with the
// configured fetch_model; web_fetch returns its answer instead of the page.
type PageAnswerer func(ctx context.Context, prompt, pageURL, markdown string) (string, error)

// WebFetchConfig configures web_fetch.
type WebFetchConfig struct {
	// Gate asks before each fetch (nil allows all).
	Gate permission.Gate
	// Client makes the requests (nil: a default client). Its redirect
	// policy is replaced.
	Client *http.Client
	// Answer, when set, answers a call's prompt over the page.
	Answer PageAnswerer
	// Timeout, MaxBytes and OutputCap override the defaults when positive.
	Timeout   time.Duration
	MaxBytes  int64
	OutputCap int
	// AllowPrivate says whether a URL's host may be reached at a
	// loopback, link-local or private address (nil: only when the gate is
	// a policy with an allow rule naming it, as web_fetch(domain:HOST));
	// see web_fetch_addr.go and PrivateByRule.
	AllowPrivate func(rawURL string) bool
	// NetworkOff refuses every fetch: the user's sandbox.network is false.
	NetworkOff bool
}

type webFetchTool struct{ cfg WebFetchConfig }

// NewWebFetch returns the web_fetch tool: it reads an http(s) page, turns
// HTML into markdown, and optionally answers a prompt over it.
func NewWebFetch(cfg WebFetchConfig) tool.Tool {
	if cfg.Timeout <= 0 {
		cfg.Timeout = webFetchTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = webFetchMaxBytes
	}
	if cfg.OutputCap <= 0 {
		cfg.OutputCap = webFetchOutputCap
	}
	return &webFetchTool{cfg: cfg}
}

func (t *webFetchTool) Name() string { return toolname.WebFetch }

// ReadOnly is true: a fetch changes nothing in the workspace (the gate
// still asks before it, for the domain).
func (t *webFetchTool) ReadOnly() bool { return true }

func (t *webFetchTool) Description() string {
	return "Fetch an http(s) page as markdown (text and JSON as they are; binaries refused). " +
		"With prompt, a helper model answers it from the page instead. A redirect to another host is reported, not followed."
}

func (t *webFetchTool) Schema() map[string]any { return webFetchSchema() }

var webFetchSchema = tool.ArgsSchema[webFetchArgs](tool.SchemaOpen)

type webFetchArgs struct {
	URL    string `json:"url" jsonschema:"http:// or https://"`
	Prompt string `json:"prompt,omitempty" jsonschema:"A question about the page."`
}

// errOtherHost stops a redirect to another host.
var errOtherHost = errors.New("redirect to another host")

func (t *webFetchTool) Run(ctx context.Context, raw json.RawMessage) tool.Result {
	var args webFetchArgs
	if err := decodeArgs(raw, &args); err != nil {
		return tool.Errorf("%v", err)
	}
	u, err := url.Parse(strings.TrimSpace(args.URL))
	switch {
	case args.URL == "":
		return tool.Errorf("url is required, e.g. https://pkg.go.dev/net/http")
	case err != nil:
		return tool.Errorf("%q is not a URL: %v", args.URL, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return tool.Errorf("web_fetch reads http:// and https:// URLs only, not %q", args.URL)
	case u.Hostname() == "":
		return tool.Errorf("%q has no host", args.URL)
	}
	if t.cfg.NetworkOff {
		return tool.Errorf("web_fetch is off: sandbox.network is false in the config, so neither commands nor covey's tools reach the network")
	}
	if t.cfg.Gate != nil {
		v := t.cfg.Gate.Check(ctx, permission.Request{Tool: toolname.WebFetch, URL: u.String()})
		if !v.Allowed {
			return tool.Errorf("%s", v.Reason)
		}
	}
	fetchCtx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	page, res := t.fetch(fetchCtx, u)
	if res != nil {
		return *res
	}
	note := ""
	if args.Prompt != "" && t.cfg.Answer != nil {
		// The download's timeout is not the model's: a slow fetch_model
		// gets its own, and failing, the page itself goes back.
		actx, acancel := context.WithTimeout(ctx, fetchAnswerTimeout)
		answer, err := t.cfg.Answer(actx, args.Prompt, page.url, page.text)
		acancel()
		if err == nil {
			return tool.Result{Content: answer, Summary: fmt.Sprintf("%s, answered", sizeText(len(page.text)))}
		}
		if ctx.Err() != nil {
			return tool.Errorf("fetched %s, but the fetch model could not answer: %v", page.url, err)
		}
		note = fmt.Sprintf("(the fetch model could not answer (%v), so here is the page itself; answer the prompt from it)\n\n", err)
	}
	out, cut := capWebText(page.text, tool.ResultBudget(ctx, t.cfg.OutputCap))
	out = note + out
	if page.partial {
		out += fmt.Sprintf("\n\n[the page is larger than %s; only its beginning was read]", sizeText(int(t.cfg.MaxBytes)))
	}
	if args.Prompt != "" && t.cfg.Answer == nil {
		out = "(no fetch_model is configured, so here is the page itself; answer the prompt from it)\n\n" + out
	}
	sum := fmt.Sprintf("%s %s", sizeText(len(page.text)), page.kind)
	if cut {
		sum += ", truncated"
	}
	return tool.Result{Content: out, Summary: sum}
}

// fetchedPage is a page read and converted.
type fetchedPage struct {
	url     string
	text    string
	kind    string // markdown | text | json
	partial bool   // the download cap cut it
}

func (t *webFetchTool) fetch(ctx context.Context, u *url.URL) (fetchedPage, *tool.Result) {
	client := http.Client{}
	if t.cfg.Client != nil {
		client = *t.cfg.Client
	}
	host := strings.ToLower(u.Hostname())
	client.Transport = guardedTransport(client.Transport, t.mayReachPrivate(u.String()))
	var redirectTo string
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if strings.ToLower(req.URL.Hostname()) != host {
			redirectTo = req.URL.String()
			return errOtherHost
		}
		if len(via) >= webFetchRedirects {
			return fmt.Errorf("more than %d redirects", webFetchRedirects)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		r := tool.Errorf("web_fetch %s: %v", u, err)
		return fetchedPage{}, &r
	}
	req.Header.Set("User-Agent", "covey-web-fetch/1 (+https://github.com/covey)")
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5")
	resp, err := client.Do(req)
	if redirectTo != "" {
		if resp != nil {
			_ = resp.Body.Close()
		}
		return fetchedPage{}, &tool.Result{
			Content: fmt.Sprintf("%s redirects to another host: %s\nThat page was not fetched. Call web_fetch again with that URL if you want it.", u, redirectTo),
			Summary: "redirect to " + hostOf(redirectTo),
		}
	}
	if err != nil && dialRefused(err) {
		r := tool.Errorf("web_fetch %s: %s", u, privateNote(host))
		return fetchedPage{}, &r
	}
	if err != nil {
		msg := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			msg = fmt.Sprintf("no answer within %s", t.cfg.Timeout)
		}
		r := tool.Errorf("web_fetch %s: %s", u, msg)
		return fetchedPage{}, &r
	}
	defer func() { _ = resp.Body.Close() }()
	final := resp.Request.URL.String()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		r := tool.Errorf("web_fetch %s: the server answered HTTP %d %s", final, resp.StatusCode, http.StatusText(resp.StatusCode))
		return fetchedPage{}, &r
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.cfg.MaxBytes+1))
	if err != nil && len(body) == 0 {
		r := tool.Errorf("web_fetch %s: reading the page: %v", final, err)
		return fetchedPage{}, &r
	}
	partial := int64(len(body)) > t.cfg.MaxBytes
	if partial {
		body = body[:t.cfg.MaxBytes]
	}
	ctype := resp.Header.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ctype)
	if mt == "" {
		mt, params, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "us-ascii" && !utf8.Valid(body) {
		r := tool.Errorf("web_fetch %s: the page is in the %s character set, which web_fetch does not convert", final, cs)
		return fetchedPage{}, &r
	}
	page := fetchedPage{url: final, partial: partial}
	switch kind := textKind(mt); kind {
	case "html":
		md, err := htmlToMarkdown(string(body), final)
		if err != nil {
			r := tool.Errorf("web_fetch %s: converting HTML: %v", final, err)
			return fetchedPage{}, &r
		}
		page.text, page.kind = md, "markdown"
	case "":
		r := tool.Errorf("web_fetch %s: the content is %s, a binary type; web_fetch reads text pages only", final, mt)
		return fetchedPage{}, &r
	default:
		page.text, page.kind = strings.ToValidUTF8(string(body), "\uFFFD"), kind
	}
	return page, nil
}

// textKind classifies a media type: html, json, text, or "" for binary.
func textKind(mt string) string {
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return "html"
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return "json"
	case strings.HasPrefix(mt, "text/"), mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/javascript", mt == "application/x-yaml", mt == "application/yaml", mt == "application/toml":
		return "text"
	}
	return ""
}

// htmlToMarkdown converts a page, dropping what is not its content:
// scripts, styles, navigation, footers, forms and the like. Relative links
// become absolute against pageURL.
func htmlToMarkdown(html, pageURL string) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	for _, tag := range []string{"nav", "footer", "aside", "form", "button", "svg", "canvas", "select", "dialog", "template"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	return conv.ConvertString(html, converter.WithDomain(pageURL))
}

// capWebText cuts s to limit bytes at a rune boundary, with a note.
func capWebText(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n\n[truncated: %s of %s shown. Pass a prompt to ask about the whole page instead.]", sizeText(cut), sizeText(len(s))), true
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return raw
}

// sizeText formats a byte count for people.
func sizeText(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
