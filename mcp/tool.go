package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"covey/tools/tool"

	"covey/permission"
)

// Tool is one MCP server tool offered as a covey tool.
type Tool struct {
	m        *Manager
	server   string // as configured
	name     string // as offered: mcp__srv__tool
	remote   string // as the server calls it
	desc     string
	schema   map[string]any
	readOnly bool // the server's readOnlyHint: only decides concurrency
	// gate asks before each call; views made by Manager.Source carry the
	// gate of the agent they serve (a child's labels its requests).
	gate permission.Gate
}

var _ tool.Tool = (*Tool)(nil)

func newTool(m *Manager, s Server, name string, t *sdk.Tool) *Tool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("The %s tool of the MCP server %s.", t.Name, s.Name)
	}
	if len(desc) > maxDescription {
		// Every request carries every description: a server's essay
		// must not crowd out the conversation.
		cut := maxDescription
		for cut > 0 && !utf8.RuneStart(desc[cut]) {
			cut--
		}
		desc = desc[:cut] + "… (description shortened by covey)"
	}
	return &Tool{
		m: m, server: s.Name, name: name, remote: t.Name, desc: desc,
		schema:   inputSchema(t.InputSchema),
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
		gate:     m.opts.Gate,
	}
}

// inputSchema turns a server's schema into an object schema a provider
// accepts: always type object with properties.
func inputSchema(v any) map[string]any {
	var m map[string]any
	switch x := v.(type) {
	case map[string]any:
		m = x
	case nil:
	default:
		if b, err := json.Marshal(x); err == nil {
			_ = json.Unmarshal(b, &m)
		}
	}
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	return m
}

// Name implements tool.Tool.
func (t *Tool) Name() string { return t.name }

// Description implements tool.Tool.
func (t *Tool) Description() string { return t.desc }

// Schema implements tool.Tool.
func (t *Tool) Schema() map[string]any { return t.schema }

// ReadOnly implements tool.Tool: false, since covey cannot know what a
// server's tool does (its readOnlyHint is the server's claim, not a fact).
func (t *Tool) ReadOnly() bool { return false }

// Concurrent implements tool.Concurrent: calls of tools their server
// marks read-only may run alongside other calls.
func (t *Tool) Concurrent() bool { return t.readOnly }

// Server returns the configured name of the tool's server.
func (t *Tool) Server() string { return t.server }

// Remote returns the tool's name on its server.
func (t *Tool) Remote() string { return t.remote }

// maxDescription bounds a tool's description in bytes.
const maxDescription = 2048

var progressSeq atomic.Int64

// Run implements tool.Tool: it asks the gate, calls the server with the
// server's tool_timeout, forwards progress, and formats the result.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) tool.Result {
	var argMap map[string]any
	if len(bytes.TrimSpace(args)) > 0 {
		if err := json.Unmarshal(args, &argMap); err != nil {
			return tool.Errorf("%s takes a JSON object of arguments: %v", t.name, err)
		}
	}
	if g := t.gate; g != nil {
		compact := compactJSON(args)
		v := g.Check(ctx, permission.Request{Tool: t.name, Server: t.server, ServerTool: t.remote, Args: compact})
		if !v.Allowed {
			return tool.Errorf("%s", v.Reason)
		}
	}
	m := t.m
	m.mu.Lock()
	s := m.find(t.server)
	var cs *sdk.ClientSession
	var state State
	var serr string
	if s != nil {
		cs, state, serr = s.session, s.state, s.err
	}
	m.mu.Unlock()
	if cs == nil {
		msg := fmt.Sprintf("the MCP server %s is not connected (%s)", t.server, state)
		if serr != "" {
			msg += ": " + serr
		}
		return tool.Errorf("%s; the user can reconnect it with /mcp", msg)
	}
	timeout := s.cfg.Config.toolTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	token := "covey-" + strconv.FormatInt(progressSeq.Add(1), 10)
	m.mu.Lock()
	var finished atomic.Bool // progress arriving after the result is dropped
	s.progress[token] = func(p tool.Progress) {
		if !finished.Load() {
			tool.ReportProgress(ctx, p)
		}
	}
	m.mu.Unlock()
	defer func() {
		finished.Store(true)
		m.mu.Lock()
		delete(s.progress, token)
		m.mu.Unlock()
	}()
	params := &sdk.CallToolParams{Name: t.remote, Arguments: argMap}
	params.SetProgressToken(token)
	res, err := cs.CallTool(cctx, params)
	switch {
	case err != nil && ctx.Err() != nil:
		return tool.Result{Content: "cancelled by the user", IsError: true, Summary: "cancelled"}
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tool.Errorf("%s did not answer within %s (tool_timeout of the server %s)", t.name, timeout, t.server)
	case err != nil:
		return tool.Errorf("%s failed: %v", t.name, err)
	}
	limit := m.opts.OutputCap
	if limit <= 0 {
		limit = tool.HardResultCap
	}
	return FormatResult(res, tool.ResultBudget(ctx, limit))
}

// compactJSON returns args as one line of JSON.
func compactJSON(args json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, args) != nil {
		return string(args)
	}
	return b.String()
}

// FormatResult turns a server's result into what the model sees: text as
// it is, structured content as JSON, images, audio and resources noted by
// type and size, cut to limit bytes with a note. isError makes an error
// result.
func FormatResult(res *sdk.CallToolResult, limit int) tool.Result {
	if res == nil {
		return tool.Result{Content: "(no output)", Summary: "no output"}
	}
	var parts []string
	texts := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			texts++
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %s; covey does not show images to the model]", orUnknown(c.MIMEType), sizeOf(len(c.Data))))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s]", orUnknown(c.MIMEType), sizeOf(len(c.Data))))
		case *sdk.ResourceLink:
			desc := c.URI
			if c.Name != "" && c.Name != c.URI {
				desc += " (" + c.Name + ")"
			}
			extra := orUnknown(c.MIMEType)
			if c.Size != nil {
				extra += ", " + sizeOf(int(*c.Size))
			}
			parts = append(parts, fmt.Sprintf("[resource link: %s, %s]", desc, extra))
		case *sdk.EmbeddedResource:
			r := c.Resource
			if r == nil {
				continue
			}
			if r.Text != "" {
				parts = append(parts, fmt.Sprintf("[resource %s, %s]\n%s", r.URI, orUnknown(r.MIMEType), r.Text))
			} else {
				parts = append(parts, fmt.Sprintf("[resource: %s, %s, %s]", r.URI, orUnknown(r.MIMEType), sizeOf(len(r.Blob))))
			}
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.MarshalIndent(res.StructuredContent, "", "  "); err == nil && !sameJSONAsText(b, parts, texts) {
			parts = append(parts, "structured content:\n"+string(b))
		}
	}
	out := strings.Join(parts, "\n")
	if strings.TrimSpace(out) == "" {
		out = "(no output)"
	}
	out, cut := capText(out, limit)
	r := tool.Result{Content: out, IsError: res.IsError, Summary: summaryOf(out, cut)}
	if res.IsError {
		r.Content = "Error: " + out
	}
	return r
}

// sameJSONAsText reports whether the only text content already is the
// structured content serialised, as the spec asks servers to send it.
func sameJSONAsText(structured []byte, parts []string, texts int) bool {
	if texts != 1 || len(parts) != 1 {
		return false
	}
	var a, b any
	if json.Unmarshal(structured, &a) != nil || json.Unmarshal([]byte(parts[0]), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// capText cuts s to limit bytes at a rune boundary, with a note saying so.
func capText(s string, limit int) (string, bool) {
	if limit <= 0 || len(s) <= limit {
		return s, false
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n\n[output truncated: %s of %s shown (the MCP output cap: mcp_max_output_tokens in config, or a share of the model's context window). Ask the tool for less, e.g. a page or a filter.]",
		sizeOf(cut), sizeOf(len(s))), true
}

func summaryOf(out string, cut bool) string {
	n := strings.Count(out, "\n") + 1
	s := fmt.Sprintf("%d lines", n)
	if n == 1 {
		s = sizeOf(len(out))
	}
	if cut {
		s += ", truncated"
	}
	return s
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// sizeOf formats a byte count for people.
func sizeOf(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
