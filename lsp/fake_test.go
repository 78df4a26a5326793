package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/textproto"
	"os"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a fake language server: run with
// COVEY_FAKE_LSP set to a mode, it speaks LSP on stdin and stdout.
//
//	ok:          answers everything; each line holding BAD is an error
//	noversion:   as ok, but publishes without versions
//	crash:       as ok, but exits in the middle of a definition call
//	hang:        answers initialize, then never answers or publishes
//	hanginit:    never answers initialize
//	flood:       as ok, and each change also publishes 200 diagnostics
//	             in each of 40 other files, and 5000 in the file itself
func TestMain(m *testing.M) {
	if mode := os.Getenv("COVEY_FAKE_LSP"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServer(mode string) {
	r := bufio.NewReader(os.Stdin)
	tp := textproto.NewReader(r)
	w := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(b), b)
		_ = w.Flush()
	}
	docs := map[string]string{}
	publish := func(uri string, version int) {
		var diags []map[string]any
		for i, line := range strings.Split(docs[uri], "\n") {
			if c := strings.Index(line, "BAD"); c >= 0 {
				diags = append(diags, map[string]any{"range": map[string]any{"start": map[string]int{"line": i, "character": c}, "end": map[string]int{"line": i, "character": c + 3}},
					"severity": 1, "source": "fake", "message": "BAD is not allowed"})
			}
			if c := strings.Index(line, "MEH"); c >= 0 {
				diags = append(diags, map[string]any{"range": map[string]any{"start": map[string]int{"line": i, "character": c}, "end": map[string]int{"line": i, "character": c + 3}},
					"severity": 2, "source": "fake", "message": "MEH is dubious"})
			}
		}
		if diags == nil {
			diags = []map[string]any{}
		}
		p := map[string]any{"uri": uri, "diagnostics": diags}
		if mode != "noversion" {
			p["version"] = version
		}
		if mode == "flood" {
			for f := 0; f < 40; f++ {
				var many []map[string]any
				for i := 0; i < 200; i++ {
					many = append(many, map[string]any{"range": map[string]any{"start": map[string]int{"line": i, "character": 0}, "end": map[string]int{"line": i, "character": 1}},
						"severity": 1, "message": "flood"})
				}
				send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
					"params": map[string]any{"uri": fmt.Sprintf("file:///flood/%d.fake", f), "diagnostics": many}})
			}
			for i := 0; i < 5000; i++ {
				diags = append(diags, map[string]any{"range": map[string]any{"start": map[string]int{"line": i, "character": 0}, "end": map[string]int{"line": i, "character": 1}},
					"severity": 1, "message": "flooded"})
			}
			p["diagnostics"] = diags
		}
		send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": p})
	}
	for {
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		var n int
		fmt.Sscan(hdr.Get("Content-Length"), &n)
		body := make([]byte, n)
		if _, err := ioReadFull(r, body); err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &m)
		reply := func(result any) { send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result}) }
		if mode == "hanginit" || (mode == "hang" && m.Method != "initialize") {
			continue
		}
		switch m.Method {
		case "initialize":
			reply(map[string]any{"capabilities": map[string]any{"renameProvider": true, "definitionProvider": true}})
		case "textDocument/didOpen":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
					Text    string `json:"text"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			docs[p.TextDocument.URI] = p.TextDocument.Text
			publish(p.TextDocument.URI, p.TextDocument.Version)
		case "textDocument/didChange":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if len(p.ContentChanges) > 0 {
				docs[p.TextDocument.URI] = p.ContentChanges[len(p.ContentChanges)-1].Text
			}
			// Slow enough that a stale publish would be caught.
			time.Sleep(20 * time.Millisecond)
			publish(p.TextDocument.URI, p.TextDocument.Version)
		case "textDocument/definition":
			if mode == "crash" {
				os.Exit(3)
			}
			var p struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			reply([]map[string]any{{"uri": p.TextDocument.URI, "range": map[string]any{"start": map[string]int{"line": 0, "character": 2}, "end": map[string]int{"line": 0, "character": 3}}}})
		case "textDocument/rename":
			var p struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				NewName string `json:"newName"`
			}
			_ = json.Unmarshal(m.Params, &p)
			reply(map[string]any{"changes": map[string]any{p.TextDocument.URI: []map[string]any{
				{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 3}}, "newText": p.NewName},
			}}})
		case "shutdown":
			reply(nil)
		case "exit":
			return
		default:
			if len(m.ID) > 0 {
				reply(nil)
			}
		}
	}
}

func ioReadFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := r.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
