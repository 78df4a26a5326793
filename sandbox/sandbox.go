// Package sandbox confines the commands covey runs with the operating
// system's own means, whatever the permission gate decided: the file
// system is read-only except the workspace, the temp folder, the caches
// of the usual toolchains and the paths the config adds, and the network
// can be cut off.
//
// On Linux it uses Landlock (kernel 5.13 or later), applied by covey
// itself re-executed as a small helper (HelperArg) that restricts itself
// and then executes the command, or bubblewrap where Landlock is missing.
// A backend is anything that turns a command into a confined one, so
// macOS's Seatbelt (sandbox-exec) can be added as another.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// HelperArg is the first argument that makes covey the sandbox helper:
// main hands such a run to RunHelper before parsing anything else.
const HelperArg = "__covey-sandbox-helper"

// Mode says whether commands run confined.
type Mode string

// Sandbox modes.
const (
	// ModeWorkspaceWrite lets commands write only the workspace, the temp
	// folder, toolchain caches and configured paths.
	ModeWorkspaceWrite Mode = "workspace-write"
	// ModeOff runs commands unconfined.
	ModeOff Mode = "off"
)

// ParseMode validates a --sandbox or sandbox.mode value; "" is the default.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return DefaultMode(), nil
	case ModeWorkspaceWrite, ModeOff:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q: use workspace-write or off", s)
}

// Config is the sandbox block of covey's config.
type Config struct {
	// Mode is workspace-write or off; empty means the platform default.
	Mode string `yaml:"mode"`
	// Network allows network access (the default); false cuts it off.
	Network *bool `yaml:"network"`
	// Writable are more paths commands may write (~/ is the home folder).
	Writable []string `yaml:"writable"`
	// Required refuses to run commands when no sandbox backend works,
	// rather than warning once and running them unconfined.
	Required *bool `yaml:"required"`
}

// Merge returns c with every field set in over applied (a project's
// config over the user's).
func (c Config) Merge(over Config) Config {
	if over.Mode != "" {
		c.Mode = over.Mode
	}
	if over.Network != nil {
		c.Network = over.Network
	}
	if over.Required != nil {
		c.Required = over.Required
	}
	c.Writable = append(slices.Clone(c.Writable), over.Writable...)
	return c
}

// Loosens names the first setting of c that makes the sandbox less strict
// than the default (mode off, writable paths, network true, required
// false), or "". A project's config may only make it stricter: the
// repository is what the sandbox guards against.
func (c Config) Loosens() string {
	switch {
	case c.Mode == string(ModeOff):
		return "sandbox.mode off"
	case len(c.Writable) > 0:
		return "sandbox.writable"
	case c.Network != nil && *c.Network:
		return "sandbox.network: true"
	case c.Required != nil && !*c.Required:
		return "sandbox.required: false"
	}
	return ""
}

// Validate reports a bad mode or writable path.
func (c Config) Validate() error {
	if _, err := ParseMode(c.Mode); err != nil {
		return err
	}
	for _, p := range c.Writable {
		if _, err := extraPath(p); err != nil {
			return err
		}
	}
	return nil
}

// ErrUnavailable is the refusal of a command when the sandbox is required
// and no backend works.
var ErrUnavailable = errors.New("covey's sandbox is required (sandbox.required in the config) but cannot run here")

// Spec is what one confined command may do.
type Spec struct {
	// Writable are absolute paths, symlinks resolved, writable with all
	// beneath them; everything else is read-only.
	Writable []string `json:"writable"`
	// ReadOnly are paths beneath Writable ones that stay read-only where
	// the backend can express it (bubblewrap; Landlock cannot).
	ReadOnly []string `json:"read_only,omitempty"`
	// Network allows network access.
	Network bool `json:"network"`
}

// backend turns a command into a confined one.
type backend interface {
	// name is shown to users ("landlock", "bubblewrap").
	name() string
	// probe reports why the backend cannot work here, or nil.
	probe() error
	// wrap returns the program and arguments that run argv under spec,
	// starting in dir.
	wrap(spec Spec, dir string, argv []string) (string, []string, error)
}

// Sandbox confines commands as its config says. It is safe for
// concurrent use.
type Sandbox struct {
	mode     Mode
	network  bool
	required bool
	extra    []string
	backend  backend // nil when none works (or mode is off)
	reason   string  // why no backend works
	scrub    []string

	cachesOnce sync.Once
	caches     []string
}

// Options choose a backend by name ("landlock", "bubblewrap"), for tests
// and for forcing the second backend; empty tries them in order.
type Options struct {
	Backend string
	// Scrub names environment variables the commands do not get (covey's
	// own API keys): see Environ.
	Scrub []string
}

// New returns the sandbox cfg describes, with the first backend that works
// here. A bad config is an error; a missing backend is not (see Warning).
func New(cfg Config, opts Options) (*Sandbox, error) {
	mode, err := ParseMode(cfg.Mode)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{mode: mode, network: cfg.Network == nil || *cfg.Network, required: cfg.Required != nil && *cfg.Required, scrub: opts.Scrub}
	for _, p := range cfg.Writable {
		abs, err := extraPath(p)
		if err != nil {
			return nil, err
		}
		s.extra = append(s.extra, abs)
	}
	if mode == ModeOff {
		return s, nil
	}
	var reasons []string
	for _, b := range backends() {
		if opts.Backend != "" && b.name() != opts.Backend {
			continue
		}
		if !s.network {
			if nb, ok := b.(interface{ probeNetwork() error }); ok {
				if err := nb.probeNetwork(); err != nil {
					reasons = append(reasons, fmt.Sprintf("%s: %v", b.name(), err))
					continue
				}
			}
		}
		if err := b.probe(); err != nil {
			reasons = append(reasons, fmt.Sprintf("%s: %v", b.name(), err))
			continue
		}
		s.backend = b
		return s, nil
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "no sandbox backend exists for this operating system yet")
	}
	s.reason = strings.Join(reasons, "; ")
	return s, nil
}

// Mode returns the sandbox mode.
func (s *Sandbox) Mode() Mode { return s.mode }

// Backend names the backend in use, or "" when commands run unconfined.
func (s *Sandbox) Backend() string {
	if s == nil || s.backend == nil {
		return ""
	}
	return s.backend.name()
}

// Warning is the one message to show when the sandbox is on but no
// backend works here; "" otherwise.
func (s *Sandbox) Warning() string {
	if s == nil || s.mode == ModeOff || s.backend != nil {
		return ""
	}
	if s.required {
		return fmt.Sprintf("covey's sandbox cannot run here (%s), and sandbox.required is set: bash commands will be refused", s.reason)
	}
	return fmt.Sprintf("covey's sandbox cannot run here (%s): bash commands run unconfined; install bubblewrap, "+
		"or set sandbox.required: true to refuse them, or --sandbox off to silence this", s.reason)
}

// Describe says in one line what commands may write.
func (s *Sandbox) Describe(workspace string) string {
	if s == nil || s.mode == ModeOff {
		return "sandbox off: commands may write anywhere you can"
	}
	if s.backend == nil {
		return "sandbox unavailable: " + s.reason
	}
	spec := s.spec(workspace, nil)
	net := "network allowed"
	if !spec.Network {
		net = "no network"
	}
	d := fmt.Sprintf("sandbox %s (%s): writable %s; %s", s.mode, s.backend.name(), strings.Join(spec.Writable, ", "), net)
	if ws := realPath(workspace); ws != "" && holdsHome(ws) {
		d += "; the workspace " + ws + " holds your home folder, so commands may not write in it: start covey in a project folder"
	}
	return d
}

// holdsHome reports whether the workspace ws is /, the home folder or a
// folder above it.
func holdsHome(ws string) bool {
	if ws == "/" {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	for _, h := range []string{home, realPath(home)} {
		if ws == h || within(ws, h) {
			return true
		}
	}
	return false
}

// Command returns the program and arguments that run argv (a shell and
// its arguments) confined to workspace, starting in dir. With the sandbox
// off, or unavailable and not required, it returns argv unchanged; when
// it is required and unavailable, it returns ErrUnavailable.
func (s *Sandbox) Command(workspace, dir string, argv []string) (string, []string, error) {
	return s.CommandWithin(workspace, nil, dir, argv)
}

// CommandWithin is Command for an agent that may write only some folders
// of the workspace (an agent file's allowed_paths): only, when not empty, are those folders (absolute), writable instead of the whole
// workspace; the temp folder, caches and configured paths stay writable.
func (s *Sandbox) CommandWithin(workspace string, only []string, dir string, argv []string) (string, []string, error) {
	if len(argv) == 0 {
		return "", nil, errors.New("sandbox: empty command")
	}
	if s == nil || s.mode == ModeOff || (s.backend == nil && !s.required) {
		return argv[0], argv[1:], nil
	}
	if s.backend == nil {
		return "", nil, fmt.Errorf("%w: %s; use --sandbox off to run commands unconfined", ErrUnavailable, s.reason)
	}
	return s.backend.wrap(s.spec(workspace, only), dir, argv)
}

// spec is what a command in workspace may do; only, when set, narrows
// the workspace to those folders.
func (s *Sandbox) spec(workspace string, only []string) Spec {
	s.cachesOnce.Do(func() { s.caches = toolchainCaches() })
	var w []string
	add := func(p string) {
		if p == "" {
			return
		}
		p = realPath(p)
		if !slices.Contains(w, p) && safeWritable(p) {
			w = append(w, p)
		}
	}
	ws := realPath(workspace)
	switch {
	case ws != "" && len(only) > 0:
		for _, d := range only {
			if r := realPath(d); r == ws || within(ws, r) {
				w = append(w, r)
			}
		}
	case ws != "" && holdsHome(ws):
		// The home folder (or /) as the workspace: writable, it would
		// open ~/.bashrc, ~/.ssh and ~/.gitconfig to every command, so it
		// stays read-only (Describe says so).
	case ws != "":
		w = append(w, ws)
	}
	add(os.TempDir())
	add("/tmp")
	add("/var/tmp")
	add("/dev/shm")
	for _, c := range s.caches {
		add(c)
	}
	for _, e := range s.extra {
		add(e)
	}
	var ro []string
	if ws != "" {
		for _, sub := range []string{".git/hooks", ".git/config", ".covey", ".claude"} {
			if p := filepath.Join(ws, sub); exists(p) {
				ro = append(ro, p)
			}
		}
	}
	return Spec{Writable: w, ReadOnly: ro, Network: s.network}
}

// extraPath resolves a configured writable path, refusing those that
// would open the home folder, its dotfiles or covey's own settings.
func extraPath(p string) (string, error) {
	orig := p
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("sandbox.writable %q: %w", orig, err)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("sandbox.writable %q: give an absolute path or one starting with ~/", orig)
	}
	p = filepath.Clean(p)
	if !safeWritable(realPath(p)) || !safeWritable(p) {
		return "", fmt.Errorf("sandbox.writable %q: covey never lets commands write the file system root, your home folder, "+
			"its dotfiles, ~/.ssh or covey's own settings", orig)
	}
	return p, nil
}

// safeWritable reports whether p may be writable: not the root, not the
// home folder or a folder holding it, not a dotfile or dot-folder of the
// home folder other than the caches, and not covey's settings.
func safeWritable(p string) bool {
	if p == "" || holdsHome(p) {
		return false
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return true
	}
	for _, h := range []string{home, realPath(home)} {
		if rel, err := filepath.Rel(h, p); err == nil && !strings.HasPrefix(rel, "..") {
			top := strings.Split(filepath.ToSlash(rel), "/")[0]
			if strings.HasPrefix(top, ".") && !allowedDotDir(filepath.ToSlash(rel)) {
				return false
			}
		}
	}
	cfg, err := os.UserConfigDir()
	if err == nil && (p == filepath.Join(cfg, "covey") || within(filepath.Join(cfg, "covey"), p) || within(p, filepath.Join(cfg, "covey"))) {
		return false
	}
	return true
}

// allowedDotDir reports whether a path under the home folder, starting
// with a dot-folder, is a cache commands may write (rel is slash-separated).
func allowedDotDir(rel string) bool {
	for _, ok := range []string{".cache", ".npm", ".cargo/registry", ".cargo/git", ".local/share/pnpm", ".yarn/berry/cache", ".gradle/caches", ".m2/repository"} {
		if rel == ok || strings.HasPrefix(rel, ok+"/") {
			return true
		}
	}
	return false
}

// within reports whether p lies strictly beneath dir.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../")
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// realPath resolves the symlinks of p; p itself when it does not exist.
func realPath(p string) string {
	if p == "" {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// Environ is covey's environment for a command: os.Environ() without the
// variables the sandbox scrubs (covey's own API keys, which a command
// has no use for and a prompt-injected one would send away). A nil
// Sandbox scrubs nothing.
func (s *Sandbox) Environ() []string {
	env := os.Environ()
	if s == nil || len(s.scrub) == 0 {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(s.scrub, name) {
			out = append(out, kv)
		}
	}
	return out
}
