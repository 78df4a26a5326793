package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"covey/internal/safefile"
)

// ProjectFile is the project's MCP config at the workspace root.
const ProjectFile = ".mcp.json"

// Trust is the user's answer about a workspace's project servers.
type Trust string

// The answers.
const (
	// TrustUnknown: never asked, or .mcp.json changed since.
	TrustUnknown Trust = ""
	// TrustYes: start them.
	TrustYes Trust = "trusted"
	// TrustNo: keep them off.
	TrustNo Trust = "denied"
)

// TrustStore remembers, per workspace, whether the user trusts its
// .mcp.json servers, keyed to a hash of the file so a changed file is asked
// about again. It lives in covey's state folder.
type TrustStore struct {
	path string
	mu   sync.Mutex
}

// NewTrustStore returns the store kept in the file at path.
func NewTrustStore(path string) *TrustStore { return &TrustStore{path: path} }

type trustEntry struct {
	Trust Trust  `json:"trust"`
	Hash  string `json:"hash"`
}

// FileHash returns the hash a decision is keyed to: SHA-256 of the
// project's .mcp.json content.
func FileHash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

func (t *TrustStore) load() (map[string]trustEntry, error) {
	m := map[string]trustEntry{}
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read MCP trust file: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("MCP trust file %s: %w", t.path, err)
	}
	return m, nil
}

// Get returns the answer recorded for workspace with .mcp.json hashing to
// hash; TrustUnknown when none, or the file changed since.
func (t *TrustStore) Get(workspace, hash string) (Trust, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, err := t.load()
	if err != nil {
		return TrustUnknown, err
	}
	e, ok := m[workspace]
	if !ok || e.Hash != hash {
		return TrustUnknown, nil
	}
	return e.Trust, nil
}

// Set records the answer for workspace, atomically.
func (t *TrustStore) Set(workspace, hash string, answer Trust) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, err := t.load()
	if err != nil {
		m = map[string]trustEntry{} // a broken file is replaced, not fatal
	}
	m[workspace] = trustEntry{Trust: answer, Hash: hash}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("save MCP trust: %w", err)
	}
	tmp := t.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("save MCP trust: %w", err)
	}
	if err := os.Rename(tmp, t.path); err != nil {
		return fmt.Errorf("save MCP trust: %w", err)
	}
	return nil
}

// Sources are where a session's servers come from.
type Sources struct {
	// Workspace is the root whose .mcp.json holds project servers.
	Workspace string
	// User are the servers of covey's user config (mcp_servers:).
	User map[string]ServerConfig
	// UserSource names the user config file, for messages.
	UserSource string
	// Project are the servers of the project's config file (mcp_servers in
	// .covey/config.yaml): untrusted like .mcp.json; ProjectSource names it.
	Project       map[string]ServerConfig
	ProjectSource string
	// Files are --mcp-config values, in order: file paths, or JSON.
	Files []string
}

// Loaded is every configured server plus what the project file was.
type Loaded struct {
	Servers []Server
	// ProjectHash is the hash of .mcp.json ("" when there is none), the key
	// of the trust decision.
	ProjectHash string
	// Problems are what was wrong with the project's .mcp.json. It comes
	// with the repository, not from the user, so a file covey cannot
	// read costs its servers, not the session.
	Problems []string
}

// Load reads every source. Flags' files override the user config, which
// overrides the project's file, name by name: a trusted definition is
// never replaced by an untrusted one.
func Load(src Sources) (Loaded, error) {
	var out Loaded
	var errs []error
	var project []Server
	var hashed []byte
	path := filepath.Join(src.Workspace, ProjectFile)
	if data, err := safefile.Read(path, MaxConfigSize); err == nil {
		hashed = data
		project, err = ParseFile(path, data, ScopeProject)
		if err != nil {
			project = nil
			out.Problems = append(out.Problems, fmt.Sprintf("%v; its MCP servers were not started", err))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		out.Problems = append(out.Problems, fmt.Sprintf("%v; its MCP servers were not started", err)) // err names the file
	}
	if len(src.Project) > 0 {
		more, err := Servers(src.Project, ScopeProject, src.ProjectSource)
		if err != nil {
			errs = append(errs, err)
		}
		project = Merge(project, more)
		b, _ := json.Marshal(src.Project) // maps marshal in key order
		hashed = append(append(hashed, 0), b...)
	}
	if hashed != nil {
		out.ProjectHash = FileHash(hashed)
	}
	user, err := Servers(src.User, ScopeUser, src.UserSource)
	if err != nil {
		errs = append(errs, err)
	}
	lists := [][]Server{project, user}
	for _, f := range src.Files {
		var s []Server
		var err error
		if strings.HasPrefix(strings.TrimSpace(f), "{") {
			// Inline JSON, as Claude Code's --mcp-config also takes.
			s, err = ParseFile("--mcp-config", []byte(f), ScopeFlag)
		} else {
			s, err = ReadFile(f, ScopeFlag, false)
		}
		if err != nil {
			errs = append(errs, err)
		}
		lists = append(lists, s)
	}
	out.Servers = Merge(lists...)
	return out, errors.Join(errs...)
}

// HasProject reports whether any server is a project server.
func (l Loaded) HasProject() bool {
	for _, s := range l.Servers {
		if s.Scope == ScopeProject {
			return true
		}
	}
	return false
}

// ProjectNames lists the project servers' names.
func (l Loaded) ProjectNames() []string {
	var out []string
	for _, s := range l.Servers {
		if s.Scope == ScopeProject {
			out = append(out, s.Name)
		}
	}
	return out
}

// TrustFile is the trust store's file name in covey's state folder.
const TrustFile = "mcp-trust.json"

// Describe is one line naming a server and what it runs or reaches, for
// the trust question and listings: "github: npx -y server-github".
func Describe(s Server) string {
	c := s.Config
	if c.TransportType() == TypeStdio {
		return strings.TrimSpace(s.Name + ": " + c.Command + " " + strings.Join(c.Args, " "))
	}
	return s.Name + ": " + c.TransportType() + " " + c.URL
}

// Untrusted returns the servers waiting for the user's trust.
func (m *Manager) Untrusted() []Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Server
	for _, s := range m.servers {
		if s.state == StateUntrusted {
			out = append(out, s.cfg)
		}
	}
	return out
}
