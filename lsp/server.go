package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"covey/internal/procmark"
	"covey/internal/proctree"
)

// The states of a server, as /lsp shows them.
const (
	StateStarting = "starting"
	StateRunning  = "running"
	StateCrashed  = "crashed"
	StateStopped  = "stopped"
	StateFailed   = "failed" // could not start at all (no such command)
)

// Bounds of a server's life.
const (
	startTimeout = 30 * time.Second // initialize's answer
	callTimeout  = 15 * time.Second // any one request covey makes
	maxBackoff   = time.Minute
	maxDocs      = 2000 // documents a server's diagnostics are kept for
	stderrTail   = 2 << 10
)

// published is a document's latest diagnostics.
type published struct {
	version *int
	seq     uint64 // which publish this was, counting all of the server's
	diags   []Diagnostic
}

// openDoc is a document covey opened in the server.
type openDoc struct {
	version int
	text    string // what covey last sent
	sentSeq uint64 // publishes seen when its last change was sent
}

// server is one running (or crashed) language server for one root.
type server struct {
	spec spec
	root string

	mu        sync.Mutex
	state     string
	lastErr   string
	conn      *conn
	cmd       *exec.Cmd
	mark      string
	pid       int
	ready     chan struct{} // closed when started or failed to
	startErr  error
	docs      map[string]*openDoc
	diags     map[string]published
	seq       uint64
	versioned bool          // the server sends versions with its publishes
	changed   chan struct{} // closed and replaced at each publish
	crashes   int
	retryAt   time.Time
	stderr    *tailBuffer
	rename    bool // the server can rename
	notify    func()
	ended     bool // stopped for good (covey is ending): never started again
	// sendMu keeps a document's version order and the order its
	// notifications are sent in the same.
	sendMu sync.Mutex
}

func newServer(sp spec, root string, notify func()) *server {
	return &server{spec: sp, root: root, state: StateStopped, docs: map[string]*openDoc{}, diags: map[string]published{},
		changed: make(chan struct{}), stderr: &tailBuffer{max: stderrTail}, notify: notify}
}

// ensure returns the server's connection once it runs, starting it on
// first need and again after a crash (no sooner than the backoff allows).
// It waits at most as ctx allows; the start goes on without the caller.
func (s *server) ensure(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil, errors.New("covey is ending: language servers are stopped")
	}
	switch s.state {
	case StateFailed:
		err := s.startErr
		s.mu.Unlock()
		return nil, err
	case StateCrashed:
		if wait := time.Until(s.retryAt); wait > 0 {
			s.mu.Unlock()
			return nil, fmt.Errorf("%s crashed (%s); it is restarted in %s", s.spec.name, s.lastErr, wait.Round(time.Second))
		}
		s.start()
	case StateStopped:
		s.start()
	}
	ready := s.ready
	s.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s is still starting", s.spec.name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateRunning {
		if s.startErr != nil {
			return nil, s.startErr
		}
		return nil, fmt.Errorf("%s is %s: %s", s.spec.name, s.state, s.lastErr)
	}
	return s.conn, nil
}

// start launches the process and initializes it in the background.
// Called with s.mu held.
func (s *server) start() {
	s.state, s.ready, s.startErr = StateStarting, make(chan struct{}), nil
	s.docs, s.diags = map[string]*openDoc{}, map[string]published{}
	s.stderr.reset()
	cmd := exec.Command(s.spec.Command, s.spec.Args...)
	cmd.Dir = s.root
	s.mark = proctree.NewMark()
	cmd.Env = append(os.Environ(), proctree.EnvEntry(s.mark))
	for _, k := range mapKeys(s.spec.Env) {
		cmd.Env = append(cmd.Env, k+"="+s.spec.Env[k])
	}
	// Its own process group, so stopping it reaches what it started; tied
	// to covey's life (dies with it, reaped by the next covey if not).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	procmark.Tie(cmd)
	cmd.Stderr = s.stderr
	cmd.WaitDelay = time.Second
	stdin, err1 := cmd.StdinPipe()
	stdout, err2 := cmd.StdoutPipe()
	if err := errors.Join(err1, err2); err != nil {
		s.failStart(fmt.Errorf("%s: %w", s.spec.name, err))
		return
	}
	if err := cmd.Start(); err != nil {
		s.failStart(fmt.Errorf("start %s (%s): %w", s.spec.name, s.spec.Command, err))
		return
	}
	s.cmd, s.pid = cmd, cmd.Process.Pid
	c := newConn(stdout, stdin, s.handle)
	s.conn = c
	go s.watch(cmd, c)
	go s.initialize(c)
}

// failStart records a start that could not happen at all.
func (s *server) failStart(err error) {
	s.state, s.startErr, s.lastErr = StateFailed, err, err.Error()
	close(s.ready)
}

// initialize runs the handshake.
func (s *server) initialize(c *conn) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	params := map[string]any{
		"processId":  os.Getpid(),
		"clientInfo": map[string]any{"name": "covey"},
		"rootUri":    fileURI(s.root),
		"workspaceFolders": []map[string]any{{
			"uri": fileURI(s.root), "name": s.root,
		}},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
				"definition":         map[string]any{"linkSupport": true},
				"references":         map[string]any{},
				"hover":              map[string]any{"contentFormat": []string{"plaintext", "markdown"}},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"rename":             map[string]any{"prepareSupport": false},
			},
			"workspace": map[string]any{
				"workspaceFolders": true,
				"configuration":    true,
				"symbol":           map[string]any{},
				"workspaceEdit":    map[string]any{"documentChanges": true},
			},
			"window": map[string]any{"workDoneProgress": false},
		},
	}
	if s.spec.InitializationOptions != nil {
		params["initializationOptions"] = s.spec.InitializationOptions
	}
	var res struct {
		Capabilities struct {
			RenameProvider json.RawMessage `json:"renameProvider"`
		} `json:"capabilities"`
	}
	err := c.Call(ctx, "initialize", params, &res)
	if err == nil {
		err = c.Notify(ctx, "initialized", map[string]any{})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c { // stopped or restarted meanwhile
		return
	}
	if err != nil {
		// Treated as a crash: tried again after the backoff.
		s.lastErr = fmt.Sprintf("initialize: %v%s", err, s.stderrNote())
		s.startErr = fmt.Errorf("%s did not start: %s", s.spec.name, s.lastErr)
		s.state = StateCrashed
		s.crashes++
		s.retryAt = time.Now().Add(min(time.Second<<min(s.crashes-1, 6), maxBackoff))
		s.killLocked()
		close(s.ready)
		return
	}
	r := strings.TrimSpace(string(res.Capabilities.RenameProvider))
	s.rename = r != "" && r != "false" && r != "null"
	s.state = StateRunning
	close(s.ready)
	if s.notify != nil {
		go s.notify()
	}
}

// stderrNote is the end of what the server wrote on stderr, for errors.
func (s *server) stderrNote() string {
	t := strings.TrimSpace(s.stderr.String())
	if t == "" {
		return ""
	}
	if i := strings.LastIndexByte(t, '\n'); i >= 0 && len(t)-i > 20 {
		t = t[i+1:]
	}
	return " (stderr: " + oneLine(t, 200) + ")"
}

// watch waits for the process; an exit covey did not ask for is a crash.
func (s *server) watch(cmd *exec.Cmd, c *conn) {
	err := cmd.Wait()
	s.mu.Lock()
	if s.cmd != cmd {
		s.mu.Unlock()
		return
	}
	proctree.Kill(s.mark)
	if s.state == StateRunning || s.state == StateStarting {
		why := "exited"
		if err != nil {
			why = err.Error()
		}
		s.lastErr = why + s.stderrNote()
		wasStarting := s.state == StateStarting
		s.state = StateCrashed
		s.crashes++
		backoff := min(time.Second<<min(s.crashes-1, 6), maxBackoff)
		s.retryAt = time.Now().Add(backoff)
		s.docs, s.diags = map[string]*openDoc{}, map[string]published{}
		if wasStarting {
			s.startErr = fmt.Errorf("%s exited while starting: %s", s.spec.name, s.lastErr)
			close(s.ready)
		}
		s.broadcastLocked()
	}
	s.mu.Unlock()
	if s.notify != nil {
		s.notify()
	}
}

// stop ends the server and everything it started.
func (s *server) stop() {
	s.mu.Lock()
	c := s.conn
	running := s.state == StateRunning
	s.mu.Unlock()
	if running && c != nil {
		// A polite shutdown, briefly; then the process group is killed.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		if c.Call(ctx, "shutdown", nil, nil) == nil {
			_ = c.Notify(ctx, "exit", nil)
		}
		cancel()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	if s.state == StateStarting {
		s.startErr = fmt.Errorf("%s was stopped", s.spec.name)
		close(s.ready)
	}
	s.state = StateStopped
	s.killLocked()
}

// killLocked kills the process group and what escaped it.
func (s *server) killLocked() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.pid, syscall.SIGKILL)
	}
	if s.mark != "" {
		proctree.Kill(s.mark)
	}
	s.cmd, s.conn = nil, nil
}

// handle answers what the server sends on its own.
func (s *server) handle(method string, params json.RawMessage) (any, error) {
	switch method {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if json.Unmarshal(params, &p) == nil {
			s.publish(p)
		}
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		return make([]any, len(p.Items)), nil
	case "workspace/workspaceFolders":
		return []map[string]any{{"uri": fileURI(s.root), "name": s.root}}, nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability":
		return nil, nil
	case "window/showMessageRequest", "workspace/applyEdit":
		// covey applies edits itself, through the permission gate.
		return map[string]any{"applied": false}, nil
	}
	return nil, fmt.Errorf("covey does not handle %s", method)
}

// publish records a document's diagnostics and wakes who waits.
func (s *server) publish(p publishDiagnosticsParams) {
	s.mu.Lock()
	s.seq++
	if p.Version != nil {
		s.versioned = true
	}
	if _, known := s.diags[p.URI]; known || len(s.diags) < maxDocs || len(p.Diagnostics) == 0 {
		if len(p.Diagnostics) == 0 {
			// Kept (as empty) only for documents covey opened.
			if _, open := s.docs[p.URI]; open {
				s.diags[p.URI] = published{version: p.Version, seq: s.seq}
			} else {
				delete(s.diags, p.URI)
			}
		} else {
			s.diags[p.URI] = published{version: p.Version, seq: s.seq, diags: p.Diagnostics}
		}
	}
	s.broadcastLocked()
	s.mu.Unlock()
	if s.notify != nil {
		s.notify()
	}
}

func (s *server) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// sync tells the server a document's new content (opening it the first
// time) and returns the version sent.
func (s *server) sync(ctx context.Context, c *conn, abs, text string) (int, error) {
	return s.syncDoc(ctx, c, abs, text, false)
}

// syncDoc is sync; with onlyOpen it does nothing to a document already
// open (decided under the lock, so a background open never sends older
// content after an edit's).
func (s *server) syncDoc(ctx context.Context, c *conn, abs, text string, onlyOpen bool) (int, error) {
	uri := fileURI(abs)
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.mu.Lock()
	d, open := s.docs[uri]
	if open && onlyOpen {
		s.mu.Unlock()
		return d.version, nil
	}
	if !open {
		d = &openDoc{}
		s.docs[uri] = d
	}
	d.version++
	d.sentSeq = s.seq
	d.text = text
	v := d.version
	s.mu.Unlock()
	if !open {
		return v, c.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": s.spec.languageID(abs), "version": v, "text": text,
		}})
	}
	err := c.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []map[string]any{{"text": text}},
	})
	if err == nil {
		_ = c.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	return v, err
}

// waitDiagnostics waits until the server has published diagnostics for
// version v of the document (or, from a server that sends no versions,
// any publish for it after the change was sent), and returns them.
func (s *server) waitDiagnostics(ctx context.Context, abs string, v int) ([]Diagnostic, error) {
	uri := fileURI(abs)
	for {
		s.mu.Lock()
		p, ok := s.diags[uri]
		d := s.docs[uri]
		versioned := s.versioned
		changed := s.changed
		state := s.state
		s.mu.Unlock()
		if d == nil || state != StateRunning {
			return nil, fmt.Errorf("%s stopped before it reported (%s)", s.spec.name, state)
		}
		if ok {
			fresh := false
			switch {
			case p.version != nil:
				fresh = *p.version >= v
			case !versioned:
				fresh = p.seq > d.sentSeq
			}
			if fresh {
				return p.diags, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		}
	}
}

// otherErrors returns the errors the server reports in documents other
// than abs, by path.
func (s *server) otherErrors(abs string) map[string][]Diagnostic {
	uri := fileURI(abs)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]Diagnostic{}
	for u, p := range s.diags {
		if u == uri {
			continue
		}
		for _, d := range p.diags {
			if d.Severity == SeverityError || d.Severity == 0 {
				out[u] = append(out[u], d)
			}
		}
	}
	return out
}

// counts returns the errors and warnings the server reports now.
func (s *server) counts() (errs, warns int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.diags {
		for _, d := range p.diags {
			switch d.Severity {
			case SeverityError, 0:
				errs++
			case SeverityWarning:
				warns++
			}
		}
	}
	return errs, warns
}

// status describes the server for /lsp.
func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.spec.name, Command: strings.TrimSpace(s.spec.Command + " " + strings.Join(s.spec.Args, " ")),
		Root: s.root, State: s.state, LastError: s.lastErr, PID: s.pid, Restarts: s.crashes, Documents: len(s.docs)}
	if s.state == StateCrashed {
		st.RetryIn = max(0, time.Until(s.retryAt))
	}
	if s.state != StateRunning && s.state != StateStarting {
		st.PID = 0
	}
	for _, p := range s.diags {
		for _, d := range p.diags {
			switch d.Severity {
			case SeverityError, 0:
				st.Errors++
			case SeverityWarning:
				st.Warnings++
			}
		}
	}
	return st
}

// sortDiagnostics orders diagnostics errors first, then by position.
func sortDiagnostics(ds []Diagnostic) {
	rank := func(s Severity) int {
		if s == 0 {
			return 1
		}
		return int(s)
	}
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if rank(a.Severity) != rank(b.Severity) {
			return rank(a.Severity) < rank(b.Severity)
		}
		if a.Range.Start.Line != b.Range.Start.Line {
			return a.Range.Start.Line < b.Range.Start.Line
		}
		return a.Range.Start.Character < b.Range.Start.Character
	})
}

// readBounded reads a regular file of at most maxLineFile bytes.
func readBounded(abs string) ([]byte, error) {
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", abs)
	}
	if fi.Size() > maxLineFile {
		return nil, fmt.Errorf("%s is larger than %d MB", abs, maxLineFile>>20)
	}
	return os.ReadFile(abs)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func (t *tailBuffer) reset() {
	t.mu.Lock()
	t.b = nil
	t.mu.Unlock()
}

var _ io.Writer = (*tailBuffer)(nil)

// oneLine puts s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
