package window

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DiscoverTimeout bounds one discovery: every probe together.
const DiscoverTimeout = time.Second

// maxProbeBody bounds what is read of a probe's answer (a server listing
// many models answers /v1/models with a few hundred KB).
const maxProbeBody = 4 << 20

// Discoverer asks OpenAI-compatible servers for a model's window and
// remembers the answers per endpoint and model: in memory, and in a small
// JSON file when CacheFile is set, so the next start shows the window at
// once (and asks again in the background). It is safe for concurrent use.
type Discoverer struct {
	// Client sends the probes; nil means a client of its own.
	Client *http.Client
	// Timeout bounds one discovery; 0 means DiscoverTimeout.
	Timeout time.Duration
	// CacheFile, when set, keeps the answers across runs.
	CacheFile string

	mu       sync.Mutex
	mem      map[string]Info
	loaded   bool
	inflight map[string]*call
}

type call struct {
	done chan struct{}
	info Info
	err  error
}

// CacheFile is where covey keeps discovered windows: under
// XDG_CACHE_HOME (default ~/.cache)/covey.
func CacheFile() string {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".cache")
	}
	return filepath.Join(dir, "covey", "windows.json")
}

func key(baseURL, model string) string { return strings.TrimRight(baseURL, "/") + " " + model }

// Cached returns what an earlier discovery found for model at baseURL, in
// this run or (from the cache file) an earlier one.
func (d *Discoverer) Cached(baseURL, model string) (Info, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loadLocked()
	info, ok := d.mem[key(baseURL, model)]
	return info, ok && info.Tokens > 0
}

// ErrNotTold means no probe answered with a window for the model.
var ErrNotTold = errors.New("the server does not tell its context window")

// Discover asks the server at baseURL (an API root such as
// http://localhost:8000/v1) for model's window, trying at once what vLLM
// (/v1/models max_model_len), llama.cpp (/props n_ctx), Ollama (/api/show)
// and LM Studio (/api/v0/models) answer, for at most Timeout. Concurrent
// calls for one endpoint and model share one discovery; an answer is
// remembered, a failure is not (the server may come up later).
func (d *Discoverer) Discover(ctx context.Context, baseURL, apiKey, model string) (Info, error) {
	k := key(baseURL, model)
	d.mu.Lock()
	if d.inflight == nil {
		d.inflight = map[string]*call{}
	}
	if c, ok := d.inflight[k]; ok {
		d.mu.Unlock()
		select {
		case <-c.done:
			return c.info, c.err
		case <-ctx.Done():
			return Info{}, ctx.Err()
		}
	}
	c := &call{done: make(chan struct{})}
	d.inflight[k] = c
	d.mu.Unlock()

	c.info, c.err = d.probe(ctx, baseURL, apiKey, model)
	d.mu.Lock()
	delete(d.inflight, k)
	if c.err == nil {
		d.loadLocked()
		d.mem[k] = c.info
		d.saveLocked()
	}
	d.mu.Unlock()
	close(c.done)
	return c.info, c.err
}

// probe runs the probes together and takes the most specific answer.
func (d *Discoverer) probe(ctx context.Context, baseURL, apiKey, model string) (Info, error) {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DiscoverTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := d.Client
	if client == nil {
		client = &http.Client{}
	}
	api := strings.TrimRight(baseURL, "/")
	root := strings.TrimSuffix(api, "/v1")
	p := prober{ctx: ctx, client: client, key: apiKey}
	// In order of trust: a running server's own setting first.
	probes := []func() int{
		func() int { return p.llamaCpp(root + "/props") },
		func() int { return p.lmStudio(root+"/api/v0/models", model) },
		func() int { return p.openAIModels(api+"/models", model) },
		func() int { return p.ollama(root+"/api/show", model) },
	}
	found := make([]int, len(probes))
	var wg sync.WaitGroup
	for i, f := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i] = f()
		}()
	}
	wg.Wait()
	for _, n := range found {
		if n > 0 {
			return Info{Tokens: n}, nil
		}
	}
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return Info{}, err
	}
	return Info{}, fmt.Errorf("%s for %s: %w", baseURL, model, ErrNotTold)
}

// prober sends one kind of probe each; every method returns 0 for any
// failure: a 404 is the usual answer of a server of another kind.
type prober struct {
	ctx    context.Context
	client *http.Client
	key    string
}

func (p prober) fetch(method, url string, body []byte, v any) bool {
	req, err := http.NewRequestWithContext(p.ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return false
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxProbeBody)).Decode(v) == nil
}

// llamaCpp reads llama.cpp's /props: the context of one slot.
func (p prober) llamaCpp(url string) int {
	var v struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		NCtx int `json:"n_ctx"`
	}
	if !p.fetch(http.MethodGet, url, nil, &v) {
		return 0
	}
	if v.Settings.NCtx > 0 {
		return v.Settings.NCtx
	}
	return v.NCtx
}

// lmStudio reads LM Studio's /api/v0/models: the length the model is
// loaded with, else the most it can be loaded with.
func (p prober) lmStudio(url, model string) int {
	var v struct {
		Data []struct {
			ID     string `json:"id"`
			Loaded int    `json:"loaded_context_length"`
			Max    int    `json:"max_context_length"`
		} `json:"data"`
	}
	if !p.fetch(http.MethodGet, url, nil, &v) {
		return 0
	}
	for _, m := range v.Data {
		if m.ID == model {
			if m.Loaded > 0 {
				return m.Loaded
			}
			return m.Max
		}
	}
	return 0
}

// openAIModels reads /v1/models: vLLM's max_model_len, or the
// context_length some gateways list.
func (p prober) openAIModels(url, model string) int {
	var v struct {
		Data []struct {
			ID            string `json:"id"`
			MaxModelLen   int    `json:"max_model_len"`
			ContextLength int    `json:"context_length"`
		} `json:"data"`
	}
	if !p.fetch(http.MethodGet, url, nil, &v) {
		return 0
	}
	for _, m := range v.Data {
		if m.ID == model {
			return max(m.MaxModelLen, m.ContextLength)
		}
	}
	return 0
}

// ollama reads Ollama's /api/show: num_ctx when the model sets it (the
// length Ollama runs it with), else the model's own context length.
func (p prober) ollama(url, model string) int {
	body, _ := json.Marshal(map[string]string{"model": model})
	var v struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	if !p.fetch(http.MethodPost, url, body, &v) {
		return 0
	}
	for _, line := range strings.Split(v.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	arch, _ := v.ModelInfo["general.architecture"].(string)
	if n, ok := v.ModelInfo[arch+".context_length"].(float64); ok && n > 0 {
		return int(n)
	}
	for k, val := range v.ModelInfo {
		if n, ok := val.(float64); ok && strings.HasSuffix(k, ".context_length") && n > 0 {
			return int(n)
		}
	}
	return 0
}

// cacheDoc is the cache file's form.
type cacheDoc struct {
	Windows map[string]Info `json:"windows"`
}

// maxCached bounds the cache file.
const maxCached = 256

// loadLocked reads the cache file once; d.mu is held.
func (d *Discoverer) loadLocked() {
	if d.loaded {
		return
	}
	d.loaded = true
	if d.mem == nil {
		d.mem = map[string]Info{}
	}
	if d.CacheFile == "" {
		return
	}
	data, err := os.ReadFile(d.CacheFile)
	if err != nil {
		return
	}
	var doc cacheDoc
	if json.Unmarshal(data, &doc) != nil {
		return // a damaged cache is only a cache: it is rewritten
	}
	for k, v := range doc.Windows {
		if v.Tokens > 0 {
			d.mem[k] = v
		}
	}
}

// saveLocked writes the cache file atomically; d.mu is held. A failure
// costs only the next start's head start.
func (d *Discoverer) saveLocked() {
	if d.CacheFile == "" {
		return
	}
	doc := cacheDoc{Windows: map[string]Info{}}
	for k, v := range d.mem {
		if len(doc.Windows) >= maxCached {
			break
		}
		doc.Windows[k] = v
	}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(d.CacheFile), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(d.CacheFile), ".windows-*.json")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), d.CacheFile) != nil {
		_ = os.Remove(tmp.Name())
	}
}
