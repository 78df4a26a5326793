package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxMessage bounds one message a server may send: a flood of diagnostics
// or a runaway server must not make covey allocate without end.
const maxMessage = 32 << 20

// ErrClosed is returned by calls on a connection whose server has gone.
var ErrClosed = errors.New("the language server's connection is closed")

// rpcError is a JSON-RPC error a server answered with.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// message is any JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID, Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// handler answers what the server sends on its own: notifications (the
// answer is ignored) and requests (the answer is sent back).
type handler func(method string, params json.RawMessage) (any, error)

// conn is a JSON-RPC 2.0 connection over a server's stdin and stdout,
// framed with Content-Length headers as the LSP base protocol says. Every
// call takes a context: a server that never answers holds up nobody who
// bounded their wait.
type conn struct {
	handle handler
	out    chan []byte // framed messages for the writer

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan message
	closed  bool
	err     error
	done    chan struct{}
}

// newConn starts reading r; handle gets what the server sends on its own.
func newConn(r io.Reader, w io.WriteCloser, handle handler) *conn {
	c := &conn{handle: handle, out: make(chan []byte, 64), pending: map[string]chan message{}, done: make(chan struct{})}
	go c.read(bufio.NewReaderSize(r, 64<<10))
	go c.writeLoop(w)
	return c
}

// writeLoop writes what write queues. A server that stops reading its
// stdin blocks it here, never a caller: they wait on the queue with their
// context.
func (c *conn) writeLoop(w io.WriteCloser) {
	defer func() { _ = w.Close() }()
	for {
		select {
		case <-c.done:
			return
		case b := <-c.out:
			if _, err := w.Write(b); err != nil {
				return
			}
		}
	}
}

// Done is closed when the connection has ended; Err says why.
func (c *conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil while it is open).
func (c *conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Call sends a request and decodes its result into out (which may be nil).
func (c *conn) Call(ctx context.Context, method string, params, out any) error {
	c.mu.Lock()
	if c.closed {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := strconv.FormatInt(c.nextID, 10)
	ch := make(chan message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	if err := c.write(ctx, message{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		// Tell the server it need not finish; the answer, if any, is dropped.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), notifyWait)
		_ = c.Notify(cctx, "$/cancelRequest", map[string]any{"id": c.nextIDValue(id)})
		cancel()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case <-c.done:
		return fmt.Errorf("%s: %w", method, c.Err())
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %w", method, m.Error)
		}
		if out == nil || len(m.Result) == 0 {
			return nil
		}
		if err := json.Unmarshal(m.Result, out); err != nil {
			return fmt.Errorf("%s: decode result: %w", method, err)
		}
		return nil
	}
}

// nextIDValue is id as the number it was sent as.
func (c *conn) nextIDValue(id string) int64 {
	n, _ := strconv.ParseInt(id, 10, 64)
	return n
}

// notifyWait bounds how long a notification may wait for a server that
// is not reading.
const notifyWait = 2 * time.Second

// Notify sends a notification, waiting at most as ctx allows for a
// server that is not reading.
func (c *conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	return c.write(ctx, message{JSONRPC: "2.0", Method: method, Params: raw})
}

// write queues one framed message for the writer.
func (c *conn) write(ctx context.Context, m message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	framed := append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	select {
	case <-c.done:
		return c.Err()
	case <-ctx.Done():
		return fmt.Errorf("the language server is not reading: %w", ctx.Err())
	case c.out <- framed:
		return nil
	}
}

// read reads messages until the stream ends, dispatching each.
func (c *conn) read(r *bufio.Reader) {
	tp := textproto.NewReader(r)
	var err error
	for {
		var body []byte
		body, err = readFrame(tp, r)
		if err != nil {
			break
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			continue // one bad message is skipped, not fatal
		}
		c.dispatch(m)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = ErrClosed
	}
	c.mu.Lock()
	c.closed, c.err = true, err
	c.mu.Unlock()
	close(c.done)
}

// readFrame reads one Content-Length framed body.
func readFrame(tp *textproto.Reader, r io.Reader) ([]byte, error) {
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(hdr.Get("Content-Length")))
	if err != nil || n < 0 {
		return nil, fmt.Errorf("the language server sent a message without a valid Content-Length (%q)", hdr.Get("Content-Length"))
	}
	if n > maxMessage {
		return nil, fmt.Errorf("the language server sent a message of %d bytes, more than the %d allowed", n, maxMessage)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// dispatch hands a response to its caller, or a server's own message to
// the handler (requests answered on a goroutine, so a slow answer never
// stops the reading).
func (c *conn) dispatch(m message) {
	switch {
	case m.Method == "" && len(m.ID) > 0:
		id := strings.Trim(string(m.ID), `"`)
		c.mu.Lock()
		ch := c.pending[id]
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	case len(m.ID) > 0:
		go func() {
			res, err := c.handle(m.Method, m.Params)
			reply := message{JSONRPC: "2.0", ID: m.ID}
			if err != nil {
				reply.Error = &rpcError{Code: -32601, Message: err.Error()}
			} else {
				raw, _ := json.Marshal(res)
				reply.Result = raw
			}
			ctx, cancel := context.WithTimeout(context.Background(), notifyWait)
			_ = c.write(ctx, reply)
			cancel()
		}()
	default:
		_, _ = c.handle(m.Method, m.Params)
	}
}
