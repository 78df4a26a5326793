package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"covey/internal/excerpt"
	"covey/internal/proctree"
)

// terminateGrace is how long a stdio server gets to exit after its stdin
// closes, before its process group is signalled.
const terminateGrace = 500 * time.Millisecond

// transport builds the SDK transport of a server. For stdio it returns a
// stop function that ends the server's whole process group (an npx
// wrapper's node child included); for HTTP and SSE, a probe reporting
// whether the server answered 401.
func (m *Manager) transport(life context.Context, cfg Server, s *server) (sdk.Transport, func(), func() bool, error) {
	c := cfg.Config
	switch c.TransportType() {
	case TypeStdio:
		return m.stdioTransport(cfg, s)
	case TypeHTTP, TypeSSE:
		rt := &headerTransport{base: http.DefaultTransport, headers: c.Headers}
		hc := &http.Client{Transport: rt}
		if c.TransportType() == TypeSSE {
			// The SSE stream lives on the context Connect gets: give it the
			// connection's lifetime, not the start-up attempt's.
			return &detached{inner: &sdk.SSEClientTransport{Endpoint: c.URL, HTTPClient: hc}, life: life}, nil, rt.saw401.Load, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: hc, MaxRetries: 2}, nil, rt.saw401.Load, nil
	}
	return nil, nil, nil, fmt.Errorf("unknown transport %q", c.Type)
}

func (m *Manager) stdioTransport(cfg Server, s *server) (sdk.Transport, func(), func() bool, error) {
	c := cfg.Config
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = m.opts.Dir
	// The mark finds what the server started outside its process group
	// (a setsid'd helper), so stopping the server ends that too.
	mark := proctree.NewMark()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !slices.Contains(m.opts.Scrub, name) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, proctree.EnvEntry(mark))
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		cmd.Env = append(cmd.Env, k+"="+c.Env[k])
	}
	// Its own process group, so stopping it reaches every process it
	// started; and killed with covey should covey die without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// A child the server left running may hold its stderr open; waiting
	// for the server must not wait for it.
	cmd.WaitDelay = time.Second
	logPath, err := m.logPathFor(cfg.Name)
	if err != nil {
		return nil, nil, nil, err
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open MCP server log: %w", err)
	}
	fmt.Fprintf(logFile, "--- %s covey starts %s %s\n", time.Now().Format(time.RFC3339), c.Command, strings.Join(c.Args, " "))
	m.mu.Lock()
	s.logPath = logPath
	m.mu.Unlock()
	s.tail.reset()
	// Never the terminal: the TUI owns it.
	cmd.Stderr = &multiWriter{ws: []writer{logFile, s.tail}}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			if cmd.Process != nil {
				// The SDK has closed stdin and waited for the server itself;
				// whatever it started is still in its group.
				pgid := cmd.Process.Pid
				_ = syscall.Kill(-pgid, syscall.SIGTERM)
				time.Sleep(100 * time.Millisecond)
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
			proctree.Kill(mark)
			_ = logFile.Close()
		})
	}
	s.stdout.reset()
	return &commandTransport{cmd: cmd, head: s.stdout}, stop, nil, nil
}

// commandTransport is the SDK's CommandTransport with the first bytes the
// server writes on stdout kept, so a server that prints something that is
// not JSON-RPC there (a banner, a log line) is named for it, with those
// bytes, rather than reported as having exited.
type commandTransport struct {
	cmd  *exec.Cmd
	head *stdoutHead
}

// Connect implements sdk.Transport.
//
// The server's stdout is a pipe of our own, read from the start by
// pumpStdout, not exec's StdoutPipe: cmd.Wait (stdinCloser) closes that
// one, and a banner the SDK's reader had not read yet when a failed
// connect closed the connection would be lost, the start then misreported
// as "exited before it answered".
func (t *commandTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t.cmd.Stdout = w
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, err
	}
	_ = w.Close() // the server holds its own copy
	pr, pw := io.Pipe()
	go pumpStdout(r, pw, t.head, t.head.begin())
	pipes := &sdk.IOTransport{
		Reader: pr, // closing it stops only the forwarding; closing stdin ends the server
		Writer: &stdinCloser{WriteCloser: stdin, cmd: t.cmd},
	}
	return pipes.Connect(ctx)
}

// pumpStdout reads a server's stdout to its end, keeping its first bytes
// in head and passing it on to pw while the SDK reads it (after the SDK
// closed its side, the rest is drained so the server never blocks or gets
// SIGPIPE); done closes at the end.
func pumpStdout(r *os.File, pw *io.PipeWriter, head *stdoutHead, done chan struct{}) {
	defer close(done)
	defer func() { _ = r.Close() }()
	buf := make([]byte, 32*1024)
	forward := true
	for {
		n, err := r.Read(buf)
		if n > 0 {
			head.keep(buf[:n])
			if forward {
				if _, werr := pw.Write(buf[:n]); werr != nil {
					forward = false
				}
			}
		}
		if err != nil {
			_ = pw.CloseWithError(err) // io.EOF: the SDK reads EOF
			return
		}
	}
}

// stdinCloser ends a stdio server as the MCP specification asks: close its
// stdin, wait, then SIGTERM, then SIGKILL.
type stdinCloser struct {
	io.WriteCloser
	cmd *exec.Cmd
}

func (s *stdinCloser) Close() error {
	closeErr := s.WriteCloser.Close()
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			_ = s.cmd.Process.Signal(sig)
		}
		select {
		case err := <-exited:
			if closeErr != nil {
				return fmt.Errorf("closing stdin: %w", closeErr)
			}
			return err
		case <-time.After(terminateGrace):
		}
	}
	return errors.New("the server did not exit after SIGKILL")
}

// maxStdoutHead is how much of a server's first output is kept.
const maxStdoutHead = 256

// stdoutHead keeps the first bytes a server wrote on stdout.
type stdoutHead struct {
	mu   sync.Mutex
	buf  []byte
	done chan struct{} // closed when the current server's stdout ended
}

// begin marks the start of a server's stdout; the channel returned is
// closed at its end.
func (h *stdoutHead) begin() chan struct{} {
	done := make(chan struct{})
	if h == nil {
		return done
	}
	h.mu.Lock()
	h.done = done
	h.mu.Unlock()
	return done
}

// settle waits up to d for the server's stdout to end, so that what it
// wrote before it exited is all kept when a failed start is described.
func (h *stdoutHead) settle(d time.Duration) {
	if h == nil {
		return
	}
	h.mu.Lock()
	done := h.done
	h.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(d):
	}
}

func (h *stdoutHead) reset() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.buf = h.buf[:0]
	h.mu.Unlock()
}

func (h *stdoutHead) keep(p []byte) {
	if h == nil {
		return
	}
	h.mu.Lock()
	if room := maxStdoutHead - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	h.mu.Unlock()
}

// notJSONRPC returns the first line the server wrote when it cannot be
// JSON-RPC (not a JSON object or array), quoted and cut for a message;
// "" when it wrote nothing or looks like JSON-RPC.
func (h *stdoutHead) notJSONRPC() string {
	if h == nil {
		return ""
	}
	h.mu.Lock()
	head := bytes.Clone(h.buf)
	h.mu.Unlock()
	line := bytes.TrimSpace(head)
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = bytes.TrimSpace(line[:i])
	}
	if len(line) == 0 || ((line[0] == '{' || line[0] == '[') && (json.Valid(line) || len(head) == maxStdoutHead)) {
		return ""
	}
	return strconv.Quote(excerpt.Clip(string(line), 120))
}

// detached connects inner on a context that lives as long as life, yet is
// cancelled should the connect attempt's own context end while connecting.
type detached struct {
	inner sdk.Transport
	life  context.Context
}

// Connect implements sdk.Transport.
func (d *detached) Connect(ctx context.Context) (sdk.Connection, error) {
	cctx, cancel := context.WithCancel(d.life)
	stop := context.AfterFunc(ctx, cancel)
	conn, err := d.inner.Connect(cctx)
	if !stop() || err != nil {
		cancel()
		if err == nil {
			_ = conn.Close()
			err = ctx.Err()
		}
		return nil, err
	}
	return conn, nil
}

// headerTransport adds the configured headers to every request and notes a
// 401 answer, so a failed start can say that OAuth is the problem.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	saw401  atomic.Bool
}

// RoundTrip implements http.RoundTripper.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.saw401.Store(true)
	}
	return resp, err
}

type writer interface {
	Write(p []byte) (int, error)
}

// multiWriter writes to each writer, ignoring their errors: a full disk
// must not stall a server writing to stderr.
type multiWriter struct{ ws []writer }

func (w *multiWriter) Write(p []byte) (int, error) {
	for _, x := range w.ws {
		_, _ = x.Write(p)
	}
	return len(p), nil
}

// tailWriter keeps the last n lines written to it.
type tailWriter struct {
	mu      sync.Mutex
	n       int
	buf     []string
	partial []byte
}

func newTailWriter(n int) *tailWriter { return &tailWriter{n: n} }

// Write implements io.Writer.
func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		// The lines end up on the user's terminal: no escape sequences.
		line := excerpt.TermSafe(strings.TrimRight(string(t.partial[:i]), "\r"))
		t.partial = t.partial[i+1:]
		if strings.TrimSpace(line) == "" {
			continue
		}
		t.buf = append(t.buf, line)
		if len(t.buf) > t.n {
			t.buf = t.buf[len(t.buf)-t.n:]
		}
	}
	if len(t.partial) > 4096 {
		t.partial = t.partial[len(t.partial)-4096:]
	}
	return len(p), nil
}

// lines returns the kept lines, plus an unfinished last line.
func (t *tailWriter) lines() []string {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Clone(t.buf)
	if p := strings.TrimSpace(excerpt.TermSafe(string(t.partial))); p != "" {
		out = append(out, p)
	}
	return out
}

func (t *tailWriter) reset() {
	t.mu.Lock()
	t.buf, t.partial = nil, nil
	t.mu.Unlock()
}
