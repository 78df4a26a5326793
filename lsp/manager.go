// Package lsp runs language servers for covey's agents: started on first
// need, one per project root and server (a child's worktree is a root of
// its own), shared by the agents working there, restarted with a backoff
// after a crash and ended with covey. It speaks the Language Server
// Protocol itself, over the server's stdin and stdout (see
// docs/code-intelligence.md for why), and bounds every call, so a slow or
// hung server never holds up a turn.
//
// Tools use it for two things: the diagnostics of a file right after an
// edit (Manager.AfterWrite), and queries (definition, references, hover,
// symbols, rename) through Manager.Query.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Status is one server as /lsp lists it.
type Status struct {
	Name, Command, Root, State, LastError string
	PID, Restarts, Documents              int
	Errors, Warnings                      int
	RetryIn                               time.Duration
}

// Manager owns the language servers of one covey. The zero value is not
// usable; a nil *Manager serves nothing.
type Manager struct {
	cfg      Config
	lookPath func(string) (string, error)

	specsOnce sync.Once
	specs     []spec

	mu       sync.Mutex
	servers  map[string]*server
	order    []string
	closed   bool
	onChange func()
}

// NewManager returns a manager for cfg. Nothing starts until a file a
// server serves is written or asked about.
func NewManager(cfg Config) *Manager {
	return &Manager{cfg: cfg, servers: map[string]*server{}}
}

// SetLookPath replaces exec.LookPath in finding the default servers
// (tests).
func (m *Manager) SetLookPath(f func(string) (string, error)) { m.lookPath = f }

// OnChange sets a function called (on some goroutine) whenever a server's
// state or diagnostics change, so a UI can refresh its counts.
func (m *Manager) OnChange(f func()) {
	m.mu.Lock()
	m.onChange = f
	m.mu.Unlock()
}

func (m *Manager) changed() {
	m.mu.Lock()
	f := m.onChange
	m.mu.Unlock()
	if f != nil {
		f()
	}
}

func (m *Manager) getSpecs() []spec {
	m.specsOnce.Do(func() { m.specs = m.cfg.specs(m.lookPath) })
	return m.specs
}

// Serves reports whether some server would serve the file at path.
func (m *Manager) Serves(path string) bool {
	if m == nil {
		return false
	}
	_, ok := m.specFor(path)
	return ok
}

// Any reports whether any server is configured or found on PATH.
func (m *Manager) Any() bool { return m != nil && len(m.getSpecs()) > 0 }

func (m *Manager) specFor(path string) (spec, bool) {
	for _, sp := range m.getSpecs() {
		if sp.serves(path) {
			return sp, true
		}
	}
	return spec{}, false
}

// rootFor is the project root of abs for sp: the nearest folder, from the
// file's up to the workspace root, holding one of sp's root markers; else
// the workspace root.
func rootFor(sp spec, wsRoot, abs string) string {
	wsRoot = filepath.Clean(wsRoot)
	dir := filepath.Dir(abs)
	rel, err := filepath.Rel(wsRoot, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return wsRoot
	}
	for {
		for _, mk := range sp.RootMarkers {
			if _, err := os.Stat(filepath.Join(dir, mk)); err == nil {
				return dir
			}
		}
		if dir == wsRoot || len(dir) <= len(wsRoot) {
			return wsRoot
		}
		dir = filepath.Dir(dir)
	}
}

// errNoServer says no server serves a file.
var errNoServer = errors.New("no language server serves this file")

// serverFor returns the server for abs in the workspace wsRoot, making it
// (not starting it) on first need.
func (m *Manager) serverFor(wsRoot, abs string) (*server, error) {
	if m == nil {
		return nil, errNoServer
	}
	sp, ok := m.specFor(abs)
	if !ok {
		return nil, fmt.Errorf("%w (%s); configure one under lsp.servers", errNoServer, filepath.Base(abs))
	}
	root := rootFor(sp, wsRoot, abs)
	key := root + "\x00" + sp.name
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("covey is ending: language servers are stopped")
	}
	s := m.servers[key]
	if s == nil {
		s = newServer(sp, root, m.changed)
		m.servers[key] = s
		m.order = append(m.order, key)
	}
	return s, nil
}

// Wait is how long an edit waits for diagnostics.
func (m *Manager) Wait() time.Duration {
	if m == nil || m.cfg.Wait <= 0 {
		return DefaultWait
	}
	return m.cfg.Wait
}

// AfterWrite tells the server serving abs its new content and returns
// what to append to the edit's result: the file's diagnostics after the
// change (errors first, bounded), a note that the server was late or
// failed, or "" when no server serves the file. It waits at most Wait.
func (m *Manager) AfterWrite(ctx context.Context, wsRoot, abs, content string) string {
	if m == nil || !m.Serves(abs) {
		return ""
	}
	s, err := m.serverFor(wsRoot, abs)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, m.Wait())
	defer cancel()
	rel := relTo(wsRoot, abs)
	c, err := s.ensure(ctx)
	if err != nil {
		return fmt.Sprintf("\n\n(%s: no diagnostics for this change: %v)", s.spec.name, err)
	}
	v, err := s.sync(ctx, c, abs, content)
	if err != nil {
		return fmt.Sprintf("\n\n(%s: no diagnostics for this change: %v)", s.spec.name, err)
	}
	diags, err := s.waitDiagnostics(ctx, abs, v)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Sprintf("\n\n(%s had not reported on this change within %s, so no diagnostics are shown; it goes on checking in the background)", s.spec.name, m.Wait())
		}
		return fmt.Sprintf("\n\n(%s: no diagnostics for this change: %v)", s.spec.name, err)
	}
	out := formatDiagnostics(s.spec.name, rel, diags)
	if m.cfg.OtherFiles {
		out += formatOthers(s.spec.name, wsRoot, s.otherErrors(abs))
	}
	return out
}

// Counts returns the errors and warnings the servers of the workspace
// root (and the projects inside it) report now.
func (m *Manager) Counts(wsRoot string) (errs, warns int) {
	if m == nil {
		return 0, 0
	}
	for _, s := range m.serversUnder(wsRoot) {
		e, w := s.counts()
		errs += e
		warns += w
	}
	return errs, warns
}

func (m *Manager) serversUnder(wsRoot string) []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*server
	for _, k := range m.order {
		s := m.servers[k]
		if inside(wsRoot, s.root) {
			out = append(out, s)
		}
	}
	return out
}

// Status lists every server started so far, in order of first need.
func (m *Manager) Status() []Status {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	ss := make([]*server, 0, len(m.order))
	for _, k := range m.order {
		ss = append(ss, m.servers[k])
	}
	m.mu.Unlock()
	out := make([]Status, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.status())
	}
	return out
}

// Available names the servers covey would start (configured, or found on
// PATH), for /lsp before any has started.
func (m *Manager) Available() []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, sp := range m.getSpecs() {
		out = append(out, fmt.Sprintf("%s (%s; %s)", sp.name, sp.Command, strings.Join(sp.Extensions, " ")))
	}
	return out
}

// PIDs returns the process ids of the running servers (for measuring
// their memory).
func (m *Manager) PIDs() []int {
	var out []int
	for _, st := range m.Status() {
		if st.PID > 0 {
			out = append(out, st.PID)
		}
	}
	return out
}

// Close stops every server and what it started, and refuses new ones.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.closed = true
	ss := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		ss = append(ss, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.stop()
		}()
	}
	wg.Wait()
}

// maxShown bounds the diagnostics listed after an edit.
const maxShown = 20

// formatDiagnostics words a file's diagnostics for the model.
func formatDiagnostics(name, rel string, diags []Diagnostic) string {
	if len(diags) == 0 {
		return fmt.Sprintf("\n\n%s reports no problems in %s after this change.", name, rel)
	}
	ds := append([]Diagnostic(nil), diags...)
	sortDiagnostics(ds)
	errs, warns, other := 0, 0, 0
	for _, d := range ds {
		switch d.Severity {
		case SeverityError, 0:
			errs++
		case SeverityWarning:
			warns++
		default:
			other++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n%s reports in %s after this change (%s):", name, rel, countWords(errs, warns, other))
	for i, d := range ds {
		if i == maxShown {
			fmt.Fprintf(&b, "\n  … and %d more", len(ds)-maxShown)
			break
		}
		b.WriteString("\n  " + diagLine(rel, d))
	}
	return b.String()
}

// diagLine is one diagnostic: path:line:column: severity: message (source).
func diagLine(rel string, d Diagnostic) string {
	sev := map[Severity]string{SeverityError: "error", SeverityWarning: "warning", SeverityInfo: "info", SeverityHint: "hint"}[d.Severity]
	if sev == "" {
		sev = "error"
	}
	line := fmt.Sprintf("%s:%d:%d: %s: %s", rel, d.Range.Start.Line+1, d.Range.Start.Character+1, sev, oneLine(d.Message, 300))
	if d.Source != "" {
		line += " (" + d.Source + ")"
	}
	return line
}

// formatOthers words the errors in other files.
func formatOthers(name, wsRoot string, others map[string][]Diagnostic) string {
	if len(others) == 0 {
		return ""
	}
	uris := make([]string, 0, len(others))
	for u := range others {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n%s reports errors in other files:", name)
	shown := 0
	for _, u := range uris {
		ds := others[u]
		sortDiagnostics(ds)
		rel := relTo(wsRoot, uriPath(u))
		for _, d := range ds {
			if shown == maxShown {
				b.WriteString("\n  … and more")
				return b.String()
			}
			b.WriteString("\n  " + diagLine(rel, d))
			shown++
		}
	}
	return b.String()
}

func countWords(errs, warns, other int) string {
	var parts []string
	add := func(n int, one, many string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(errs, "error", "errors")
	add(warns, "warning", "warnings")
	add(other, "note", "notes")
	return strings.Join(parts, ", ")
}

// relTo is abs relative to root when inside it, else abs.
func relTo(root, abs string) string {
	if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}

// inside reports whether p is root or inside it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Changed tells the server serving abs its new content when it has the
// file open (a rename's files), without waiting for its diagnostics.
func (m *Manager) Changed(ctx context.Context, wsRoot, abs, content string) {
	if m == nil || !m.Serves(abs) {
		return
	}
	s, err := m.serverFor(wsRoot, abs)
	if err != nil {
		return
	}
	s.mu.Lock()
	_, open := s.docs[fileURI(abs)]
	c := s.conn
	running := s.state == StateRunning
	s.mu.Unlock()
	if open && running && c != nil {
		ctx, cancel := context.WithTimeout(ctx, notifyWait)
		defer cancel()
		_, _ = s.sync(ctx, c, abs, content)
	}
}

// Reported reports whether a server of the workspace root has reported
// diagnostics (even none) for a file in it.
func (m *Manager) Reported(wsRoot string) bool {
	if m == nil {
		return false
	}
	for _, s := range m.serversUnder(wsRoot) {
		s.mu.Lock()
		n := len(s.diags)
		s.mu.Unlock()
		if n > 0 {
			return true
		}
	}
	return false
}

// Warm starts the server serving abs, if any, and opens the file in it,
// in the background: nothing waits. Reading a file calls it, so a server's
// cold start (gopls loading a module) overlaps the model's next request
// rather than delaying the edit's diagnostics.
func (m *Manager) Warm(wsRoot, abs, content string) {
	if m == nil || !m.Serves(abs) {
		return
	}
	s, err := m.serverFor(wsRoot, abs)
	if err != nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		if c, err := s.ensure(ctx); err == nil {
			_, _ = s.syncDoc(ctx, c, abs, content, true)
		}
	}()
}
