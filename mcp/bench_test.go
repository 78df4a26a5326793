package mcp

import (
	"context"
	"fmt"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"covey/tools/tool"
)

// sdkTools returns n tools as a server lists them, with small schemas.
func sdkTools(n int) []*sdk.Tool {
	out := make([]*sdk.Tool, n)
	for i := range out {
		out[i] = &sdk.Tool{
			Name:        fmt.Sprintf("tool.%d-with/odd chars", i),
			Description: fmt.Sprintf("Tool number %d of a big server.", i),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"query": map[string]any{"type": "string"}, "limit": map[string]any{"type": "integer"}}},
		}
	}
	return out
}

// BenchmarkToolListBuild500 measures turning a server's 500-tool listing
// into offered tools (names sanitised and claimed, schemas checked): the
// work of a connect or a tools/list_changed.
func BenchmarkToolListBuild500(b *testing.B) {
	ts := sdkTools(500)
	srv := &server{cfg: Server{Name: "big"}, tail: newTailWriter(1), progress: map[string]func(tool.Progress){}}
	b.ReportAllocs()
	for b.Loop() {
		m := &Manager{opts: Options{OutputCap: DefaultOutputCap}, names: newNameSet(), servers: []*server{srv}}
		m.setToolsLocked(srv, ts)
		srv.state = StateConnected
		if len(m.Tools()) != 500 {
			b.Fatal("tools lost")
		}
	}
}

// BenchmarkToolsPerRequest500 measures what every model request pays for
// 500 MCP tools once they are built: the registry's list with a child's
// gated, filtered view of them.
func BenchmarkToolsPerRequest500(b *testing.B) {
	ts := sdkTools(500)
	srv := &server{cfg: Server{Name: "big"}, tail: newTailWriter(1), progress: map[string]func(tool.Progress){}, state: StateConnected}
	m := &Manager{opts: Options{OutputCap: DefaultOutputCap}, names: newNameSet(), servers: []*server{srv}, changed: make(chan struct{})}
	m.setToolsLocked(srv, ts)
	reg := tool.NewRegistry()
	reg.AddSource(m.Source(nil, nil))
	b.ReportAllocs()
	for b.Loop() {
		if len(reg.Tools()) != 500 {
			b.Fatal("tools lost")
		}
	}
	_ = context.Background()
}
