package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Styles of server a Window plays: how it tells its window and how it
// words a refusal of a request that passes it.
const (
	// StyleOpenAI refuses with OpenAI's 400 context_length_exceeded naming
	// the limit and tells the window nowhere (a hosted model).
	StyleOpenAI = "openai"
	// StyleVLLM lists max_model_len in /v1/models and refuses with vLLM's
	// {"object":"error"} body.
	StyleVLLM = "vllm"
	// StyleLlamaCpp tells n_ctx in /props and refuses with llama.cpp's
	// exceed_context_size_error carrying n_prompt_tokens and n_ctx.
	StyleLlamaCpp = "llamacpp"
	// StyleOllama tells the context length in /api/show's model_info. Real
	// Ollama cuts an overlong prompt silently; this one refuses in OpenAI's
	// words, so a test sees the overflow.
	StyleOllama = "ollama"
	// StyleLMStudio lists max_context_length in /api/v0/models and refuses
	// in LM Studio's words.
	StyleLMStudio = "lmstudio"
)

// Window makes the server play a model with a context window: a request
// whose prompt passes Tokens is refused with HTTP 400 naming the limit, as
// the server of Style words it, and the server's own discovery endpoint
// tells Tokens. A prompt is counted as the usage chunk counts it: a quarter
// of the request body's bytes.
type Window struct {
	Tokens int `yaml:"tokens"`
	// Style is one of the Style constants; "" means StyleOpenAI.
	Style string `yaml:"style"`
	// Hidden keeps the window out of the discovery endpoints, so only an
	// overflow reveals it.
	Hidden bool `yaml:"hidden"`
}

// WithWindow makes the server play model (every model when "") with
// window w; see Server.SetWindow.
func WithWindow(model string, w Window) Option {
	return func(s *Server) { s.SetWindow(model, w) }
}

// SetWindow makes requests for model (every model without its own window
// when "") refuse prompts over w.Tokens; a zero Tokens removes the window.
// It is safe while serving.
func (s *Server) SetWindow(model string, w Window) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.windows == nil {
		s.windows = map[string]Window{}
	}
	if w.Tokens <= 0 {
		delete(s.windows, model)
		return
	}
	if w.Style == "" {
		w.Style = StyleOpenAI
	}
	s.windows[model] = w
}

// windowFor returns the window of model, if it has one.
func (s *Server) windowFor(model string) (Window, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.windows[model]; ok {
		return w, true
	}
	w, ok := s.windows[""]
	return w, ok
}

// Probes returns the discovery requests received so far ("GET /props",
// "POST /api/show qwen3"), in arrival order, so a test can check that a
// client asked, and how often.
func (s *Server) Probes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.probes...)
}

func (s *Server) probe(what string) {
	s.mu.Lock()
	s.probes = append(s.probes, what)
	s.mu.Unlock()
}

// promptTokens counts a request's prompt the way the usage chunk does.
func promptTokens(body []byte) int { return quarter(len(body)) }

// overflowBody is the refusal of a prompt of n tokens by window w.
func overflowBody(w Window, n int) []byte {
	var v any
	switch w.Style {
	case StyleVLLM:
		v = map[string]any{
			"object":  "error",
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens in the messages, Please reduce the length of the messages.", w.Tokens, n),
			"type":    "BadRequestError", "param": nil, "code": 400,
		}
	case StyleLlamaCpp:
		v = map[string]any{"error": map[string]any{
			"code": 400, "message": "the request exceeds the available context size, try increasing it",
			"type": "exceed_context_size_error", "n_prompt_tokens": n, "n_ctx": w.Tokens,
		}}
	case StyleLMStudio:
		v = map[string]any{"error": fmt.Sprintf("Trying to keep the first %d tokens when context the overflows. However, the model is loaded with context length of only %d tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input", n, w.Tokens)}
	default:
		return errorBody(fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", w.Tokens, n),
			"invalid_request_error", "context_length_exceeded")
	}
	b, _ := marshal(v)
	return b
}

// overWindow reports whether e's prompt passes the window of its model.
func (s *Server) overWindow(e Entry) bool {
	win, ok := s.windowFor(e.Model)
	return ok && e.PromptTokens > win.Tokens
}

// refuseOverflow answers e with the refusal of its model's window. The
// request is journaled with Overflow set and uses up no scripted turn.
func (s *Server) refuseOverflow(w http.ResponseWriter, e *Entry) {
	win, _ := s.windowFor(e.Model)
	s.mu.Lock()
	e.Overflow = true
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	body := overflowBody(win, e.PromptTokens)
	if e.API == APIAnthropic {
		body = antOverflowBody(e.PromptTokens, win.Tokens)
	}
	_, _ = w.Write(body)
	s.finish(e, http.StatusBadRequest)
}

// The discovery endpoints. Each answers only for a model whose window
// plays its style and is not hidden; otherwise it answers 404, as a server
// of another kind would, without counting the request as unmatched:
// clients probe these paths on purpose.

// discoverable returns the window of model when style tells it.
func (s *Server) discoverable(model, style string) (Window, bool) {
	w, ok := s.windowFor(model)
	if !ok || w.Hidden || w.Style != style {
		return Window{}, false
	}
	return w, true
}

// anyDiscoverable returns the models whose windows style tells, "" for
// the window of every model.
func (s *Server) anyDiscoverable(style string) map[string]Window {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]Window{}
	for m, w := range s.windows {
		if !w.Hidden && w.Style == style {
			out[m] = w
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func notFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"error":"not found"}`))
}

// handleProps plays llama.cpp's GET /props.
func (s *Server) handleProps(w http.ResponseWriter, r *http.Request) {
	s.probe(r.Method + " " + r.URL.Path)
	wins := s.anyDiscoverable(StyleLlamaCpp)
	if len(wins) == 0 {
		notFound(w)
		return
	}
	// llama.cpp serves one model: the window of any is the window.
	n, model := 0, "scripted"
	for m, win := range wins {
		n = win.Tokens
		if m != "" {
			model = m
		}
	}
	writeJSON(w, map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": n, "model": model},
		"total_slots":                 1,
		"model_path":                  "/models/" + model + ".gguf",
	})
}

// handleShow plays Ollama's POST /api/show {"model": ...}.
func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
	if req.Model == "" {
		req.Model = req.Name
	}
	s.probe(r.Method + " " + r.URL.Path + " " + req.Model)
	win, ok := s.discoverable(req.Model, StyleOllama)
	if !ok || r.Method != http.MethodPost {
		notFound(w)
		return
	}
	arch := "qwen2"
	writeJSON(w, map[string]any{
		"modelfile":  "FROM " + req.Model,
		"parameters": "stop \"<|im_end|>\"",
		"details":    map[string]any{"family": arch, "format": "gguf"},
		"model_info": map[string]any{
			"general.architecture":   arch,
			arch + ".context_length": win.Tokens,
			arch + ".block_count":    28,
		},
	})
}

// handleLMStudioModels plays LM Studio's GET /api/v0/models.
func (s *Server) handleLMStudioModels(w http.ResponseWriter, r *http.Request) {
	s.probe(r.Method + " " + r.URL.Path)
	wins := s.anyDiscoverable(StyleLMStudio)
	if len(wins) == 0 {
		notFound(w)
		return
	}
	type model struct {
		ID                  string `json:"id"`
		Object              string `json:"object"`
		Type                string `json:"type"`
		State               string `json:"state"`
		MaxContextLength    int    `json:"max_context_length"`
		LoadedContextLength int    `json:"loaded_context_length,omitempty"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for m, win := range wins {
		if m == "" {
			m = "scripted"
		}
		list.Data = append(list.Data, model{ID: m, Object: "model", Type: "llm", State: "loaded",
			MaxContextLength: win.Tokens, LoadedContextLength: win.Tokens})
	}
	writeJSON(w, list)
}

// modelWindow is the max_model_len vLLM adds to a /v1/models entry.
func (s *Server) modelWindow(model string) int {
	if w, ok := s.discoverable(model, StyleVLLM); ok {
		return w.Tokens
	}
	return 0
}
