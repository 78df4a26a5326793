package window

import (
	_ "embed" // the catalog snapshot
	"encoding/json"
	"net/url"
	"strings"
	"sync"
)

// catalogJSON is a snapshot of the context windows in Charm's catwalk
// catalog (charm.land/catwalk, MIT licence: the catalog crush ships),
// reduced to provider hosts, model ids, windows and output budgets.
// scripts/catalog regenerates it. covey keeps the snapshot rather than
// importing catwalk: the package would embed 730 KB of JSON and parse all
// of it on each call, and its module pulls prometheus and protobuf into
// covey's module graph and newer x/net and x/text than covey uses.
//
//go:embed catalog.json
var catalogJSON []byte

type catalogModel struct {
	ID        string `json:"id"`
	Window    int    `json:"window"`
	MaxOutput int    `json:"max_output"`
	// API is "responses" for a model served through OpenAI's Responses
	// API only; "" for the rest.
	API string `json:"api"`
	// Price is set for Anthropic's and OpenAI's own models.
	Price *Price `json:"price"`
}

// Price is what a model costs at its vendor, in dollars per million
// tokens: fresh input, output, and input read from and written to the
// prompt cache (0: unknown).
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

type catalogProvider struct {
	ID     string         `json:"id"`
	Host   string         `json:"host"`
	Models []catalogModel `json:"models"`
}

// hostAliases are the hosts of providers whose catalog entry names its
// endpoint by an environment variable.
var hostAliases = map[string]string{
	"api.openai.com":                    "openai",
	"api.anthropic.com":                 "anthropic",
	"generativelanguage.googleapis.com": "gemini",
}

var catalog = sync.OnceValue(func() []catalogProvider {
	var doc struct {
		Providers []catalogProvider `json:"providers"`
	}
	if err := json.Unmarshal(catalogJSON, &doc); err != nil {
		return nil // the snapshot is tested; a broken one knows nothing
	}
	return doc.Providers
})

// Catalog returns the window of model as served at baseURL, from the
// catalog of hosted models. The provider whose host baseURL names is asked
// first; a model it does not list (or an endpoint the catalog does not
// know, like a gateway) is looked up among all providers, by its id or by
// the id after a vendor prefix ("openai/gpt-4o"), taking the smallest
// window listed so a request never passes it. Local servers are never
// looked up: their window is their own setting.
func Catalog(baseURL, model string) (Info, bool) {
	if model == "" || IsLocal(baseURL) {
		return Info{}, false
	}
	host := ""
	if u, err := url.Parse(baseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	provs := catalog()
	for _, p := range provs {
		if p.Host != host && hostAliases[host] != p.ID {
			continue
		}
		if m, ok := findModel(p.Models, model); ok {
			return Info{Tokens: m.Window, MaxOutput: m.MaxOutput}, true
		}
	}
	var best Info
	for _, p := range provs {
		if m, ok := findModel(p.Models, model); ok && (best.Tokens == 0 || m.Window < best.Tokens) {
			best = Info{Tokens: m.Window, MaxOutput: m.MaxOutput}
		}
	}
	return best, best.Tokens > 0
}

// findModel finds id among ms, exactly or case-insensitively, or with a
// vendor prefix on either side.
func findModel(ms []catalogModel, id string) (catalogModel, bool) {
	bare := func(s string) string {
		if i := strings.LastIndexByte(s, '/'); i >= 0 {
			return s[i+1:]
		}
		return s
	}
	for _, m := range ms {
		if m.ID == id {
			return m, true
		}
	}
	for _, m := range ms {
		if strings.EqualFold(m.ID, id) || strings.EqualFold(bare(m.ID), bare(id)) {
			return m, true
		}
	}
	return catalogModel{}, false
}

// CatalogAPI returns the wire the catalog says model is served by at
// baseURL when it is not Chat Completions ("responses" for OpenAI's codex
// and pro models), else "". Only the provider baseURL names is asked: a
// gateway serving the same model id may speak Chat Completions for it.
func CatalogAPI(baseURL, model string) string {
	if model == "" || IsLocal(baseURL) {
		return ""
	}
	host := ""
	if u, err := url.Parse(baseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	for _, p := range catalog() {
		if p.Host != host && hostAliases[host] != p.ID {
			continue
		}
		if m, ok := findModel(p.Models, model); ok {
			return m.API
		}
	}
	return ""
}

// CatalogPrice returns what model costs at baseURL, from the catalog:
// only the provider baseURL names is asked (a gateway's prices are its
// own), and only Anthropic's and OpenAI's own APIs have prices. A model
// id with or without a date ("claude-sonnet-4-5" for
// "claude-sonnet-4-5-20250929") matches.
func CatalogPrice(baseURL, model string) (Price, bool) {
	if model == "" || IsLocal(baseURL) {
		return Price{}, false
	}
	host := ""
	if u, err := url.Parse(baseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	for _, p := range catalog() {
		if p.Host != host && hostAliases[host] != p.ID {
			continue
		}
		m, ok := findModel(p.Models, model)
		if !ok {
			m, ok = findUndated(p.Models, model)
		}
		if ok && m.Price != nil {
			return *m.Price, true
		}
	}
	return Price{}, false
}

// PricesAt reports whether the catalog has prices for the provider
// baseURL names.
func PricesAt(baseURL string) bool {
	if IsLocal(baseURL) {
		return false
	}
	host := ""
	if u, err := url.Parse(baseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	for _, p := range catalog() {
		if p.Host != host && hostAliases[host] != p.ID {
			continue
		}
		for _, m := range p.Models {
			if m.Price != nil {
				return true
			}
		}
	}
	return false
}

// findUndated finds id among ms with the date of a dated id
// ("-20250929") left out on either side.
func findUndated(ms []catalogModel, id string) (catalogModel, bool) {
	want := undated(strings.ToLower(id))
	for _, m := range ms {
		if undated(strings.ToLower(m.ID)) == want {
			return m, true
		}
	}
	return catalogModel{}, false
}

// undated drops a trailing "-YYYYMMDD" from a model id.
func undated(id string) string {
	i := strings.LastIndexByte(id, '-')
	if i < 0 || len(id)-i-1 != 8 {
		return id
	}
	for _, c := range id[i+1:] {
		if c < '0' || c > '9' {
			return id
		}
	}
	return id[:i]
}
