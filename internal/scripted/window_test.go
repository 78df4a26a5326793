package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// get fetches path (relative to the server's root, not /v1) and decodes
// its JSON body into v, returning the status.
func get(t *testing.T, s *Server, method, path, body string, v any) int {
	t.Helper()
	root := strings.TrimSuffix(s.URL(), "/v1")
	req, err := http.NewRequestWithContext(t.Context(), method, root+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

// TestWindowOverflow checks that a request under the window is answered
// and one over it refused in the style's words, naming the limit, without
// using up a scripted turn.
func TestWindowOverflow(t *testing.T) {
	tests := map[string]struct {
		style string
		want  []string // substrings of the refusal
	}{
		"openai":   {StyleOpenAI, []string{`"code":"context_length_exceeded"`, "maximum context length is 300 tokens"}},
		"vllm":     {StyleVLLM, []string{`"object":"error"`, "maximum context length is 300 tokens"}},
		"llamacpp": {StyleLlamaCpp, []string{`"type":"exceed_context_size_error"`, `"n_ctx":300`}},
		"lmstudio": {StyleLMStudio, []string{"context length of only 300 tokens"}},
		"ollama":   {StyleOllama, []string{"maximum context length is 300 tokens"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t, WithWindow("", Window{Tokens: 300, Style: tc.style}))
			s.Add(Conversation{Turns: []Turn{{Text: "fits"}}})
			big := post(t, s, chatBody(t, "m", true, false, "user", strings.Repeat("x", 2000)))
			if big.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d for a prompt over the window, want 400", big.StatusCode)
			}
			body := string(readAll(t, big))
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("refusal %s lacks %q", body, w)
				}
			}
			small := post(t, s, chatBody(t, "m", true, false, "user", "hi"))
			if got := assemble(t, readAll(t, small)); got.text != "fits" {
				t.Errorf("answer under the window %q, want the scripted turn 0 (the refusal used none)", got.text)
			}
			j := s.Journal()
			if len(j) != 2 || !j[0].Overflow || j[1].Overflow || j[0].PromptTokens <= 300 || j[1].PromptTokens > 300 {
				t.Errorf("journal %+v, want the overflow then the answer, with their prompt tokens", j)
			}
		})
	}
}

// TestWindowPerModel checks that a model's own window wins over the
// default and that a model without one is never refused.
func TestWindowPerModel(t *testing.T) {
	s := NewTest(t, WithWindow("small", Window{Tokens: 50}))
	s.Add(Conversation{Turns: []Turn{{Text: "ok"}}})
	body := func(model string) []byte {
		return chatBody(t, model, true, false, "user", strings.Repeat("y", 400))
	}
	if r := post(t, s, body("small")); r.StatusCode != http.StatusBadRequest {
		t.Errorf("small: status %d, want 400", r.StatusCode)
	}
	if r := post(t, s, body("large")); r.StatusCode != http.StatusOK {
		t.Errorf("large: status %d, want 200", r.StatusCode)
	}
}

// TestWindowDiscovery checks each style's discovery endpoint, and that the
// others answer 404 without counting as unmatched requests.
func TestWindowDiscovery(t *testing.T) {
	const n = 4096
	type check func(t *testing.T, s *Server) int
	models := func(t *testing.T, s *Server) int {
		var v struct {
			Data []struct {
				ID          string `json:"id"`
				MaxModelLen int    `json:"max_model_len"`
			} `json:"data"`
		}
		get(t, s, http.MethodGet, "/v1/models", "", &v)
		for _, m := range v.Data {
			if m.ID == "qwen" {
				return m.MaxModelLen
			}
		}
		return -1
	}
	props := func(t *testing.T, s *Server) int {
		var v struct {
			Settings struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
		}
		if get(t, s, http.MethodGet, "/props", "", &v) != http.StatusOK {
			return 0
		}
		return v.Settings.NCtx
	}
	show := func(t *testing.T, s *Server) int {
		var v struct {
			Info map[string]any `json:"model_info"`
		}
		if get(t, s, http.MethodPost, "/api/show", `{"model":"qwen"}`, &v) != http.StatusOK {
			return 0
		}
		f, _ := v.Info[fmt.Sprint(v.Info["general.architecture"])+".context_length"].(float64)
		return int(f)
	}
	lms := func(t *testing.T, s *Server) int {
		var v struct {
			Data []struct {
				ID  string `json:"id"`
				Max int    `json:"max_context_length"`
			} `json:"data"`
		}
		if get(t, s, http.MethodGet, "/api/v0/models", "", &v) != http.StatusOK {
			return 0
		}
		for _, m := range v.Data {
			if m.ID == "qwen" {
				return m.Max
			}
		}
		return -1
	}
	checks := map[string]check{"models": models, "props": props, "show": show, "lmstudio": lms}
	tests := map[string]struct {
		style  string
		hidden bool
		tells  string // the check that finds n; the others find 0
	}{
		"vllm":     {style: StyleVLLM, tells: "models"},
		"llamacpp": {style: StyleLlamaCpp, tells: "props"},
		"ollama":   {style: StyleOllama, tells: "show"},
		"lmstudio": {style: StyleLMStudio, tells: "lmstudio"},
		"openai":   {style: StyleOpenAI},
		"hidden":   {style: StyleVLLM, hidden: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := NewTest(t, WithWindow("qwen", Window{Tokens: n, Style: tc.style, Hidden: tc.hidden}))
			for cname, c := range checks {
				want := 0
				if cname == tc.tells {
					want = n
				}
				if got := c(t, s); got != want {
					t.Errorf("%s: window %d, want %d", cname, got, want)
				}
			}
			if p := s.Probes(); len(p) != len(checks) {
				t.Errorf("probes %q, want %d", p, len(checks))
			}
		})
	}
}

// TestWindowCountMatchesUsage checks that the prompt a window judges is the
// prompt the usage chunk reports, so a client that adds up usage sees the
// same numbers the server refuses by.
func TestWindowCountMatchesUsage(t *testing.T) {
	s := NewTest(t)
	s.Add(Conversation{Turns: []Turn{{Text: "ok"}}})
	body := chatBody(t, "m", true, true, "user", "count me")
	raw := readAll(t, post(t, s, body))
	want := fmt.Sprintf(`"prompt_tokens":%d`, promptTokens(body))
	if !bytes.Contains(raw, []byte(want)) {
		t.Errorf("stream lacks %s:\n%s", want, raw)
	}
	if e := s.Journal()[0]; e.PromptTokens != promptTokens(body) {
		t.Errorf("journal prompt tokens %d, want %d", e.PromptTokens, promptTokens(body))
	}
}

func TestLoadWindows(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	conv := "conversations:\n  - turns: [{text: hi}]\n"
	tests := map[string]struct {
		text    string
		want    map[string]Window
		wantErr string
	}{
		"map form":   {conv + "windows:\n  qwen: {tokens: 8192, style: vllm}\n  \"\": {tokens: 4096, hidden: true}\n", map[string]Window{"qwen": {Tokens: 8192, Style: StyleVLLM}, "": {Tokens: 4096, Hidden: true}}, ""},
		"none":       {conv, nil, ""},
		"list form":  {"- turns: [{text: hi}]\n", nil, ""},
		"bad style":  {conv + "windows: {m: {tokens: 10, style: tgi}}\n", nil, "unknown style"},
		"no tokens":  {conv + "windows: {m: {style: vllm}}\n", nil, "tokens must be positive"},
		"misspelled": {conv + "windows: {m: {tokns: 10}}\n", nil, "field tokns not found"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := write(strings.ReplaceAll(name, " ", "_")+".yaml", tc.text)
			got, err := LoadWindows(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("windows %v, want %v", got, tc.want)
			}
			for m, w := range tc.want {
				if got[m] != w {
					t.Errorf("windows[%q] = %+v, want %+v", m, got[m], w)
				}
			}
			if _, err := LoadScript(p); err != nil {
				t.Errorf("LoadScript refuses the file: %v", err)
			}
		})
	}
}
