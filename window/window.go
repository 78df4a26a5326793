// Package window finds the context window of a model: in a catalog of
// hosted models (a snapshot of Charm's catwalk, see catalog.go) and by
// asking the server itself (vLLM, llama.cpp, Ollama, LM Studio; see
// discover.go). Configuration and what an overflow error teaches are the
// session's to weigh; this package only knows where else to look.
package window

import (
	"net"
	"net/url"
	"strings"
)

// Where a window came from, as agent.Config.ContextWindowFrom says it.
const (
	FromConfig  = "config"
	FromServer  = "server"
	FromCatalog = "catalog"
)

// Info is a model's window and its default output budget, in tokens (0:
// unknown).
type Info struct {
	Tokens    int `json:"tokens"`
	MaxOutput int `json:"max_output,omitempty"`
}

// IsLocal reports whether baseURL points at this machine or a private
// network: a server whose window is its own setting (llama.cpp's -c,
// Ollama's num_ctx), which a catalog of models cannot know.
func IsLocal(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "localhost", strings.HasSuffix(host, ".localhost"), strings.HasSuffix(host, ".local"),
		strings.HasSuffix(host, ".internal"), strings.HasSuffix(host, ".lan"), !strings.Contains(host, "."):
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}
