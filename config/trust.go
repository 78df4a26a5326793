package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"covey/internal/excerpt"
	"covey/internal/safefile"
	"covey/mcp"
	"covey/permission"
)

// The one trust rule: what a repository brings may only tighten, unless
// the user trusted that repository's settings. A project's config.yaml
// keeps, untrusted, only the keys of untrustedKeys (harmless or tightening);
// every other key, including any key added after this list was written,
// needs trust: it is left out until the user says yes, and named in the
// question. See docs/permissions.md.

// keyRule says whether a project's value of one key may apply untrusted,
// given the user's own config.
type keyRule func(user Config, value *yaml.Node) bool

// always keeps a key untrusted: harmless, or checked elsewhere so that it
// can only tighten (the sandbox and stream limits are refused when a
// project loosens them).
func always(Config, *yaml.Node) bool { return true }

// ownTrust marks keys that have a trust question of their own: a
// project's hooks and MCP servers never run before the user trusts them
// (session/hooks.go, session/mcp.go).
func ownTrust(Config, *yaml.Node) bool { return true }

// onlyTrue keeps a switch a project turns on (a notification), never off.
func onlyTrue(_ Config, v *yaml.Node) bool {
	var b bool
	return v.Decode(&b) == nil && b
}

// DefaultApprovalGrace is the TUI's approval grace when none is set
// (ui.DefaultApprovalGrace; a test in package main holds them equal).
const DefaultApprovalGrace = 425 * time.Millisecond

// longerGrace keeps a project's approval_grace no shorter than the user's
// (or the default): a longer grace only makes a stray key safer.
func longerGrace(user Config, v *yaml.Node) bool {
	var g time.Duration
	if v.Decode(&g) != nil {
		return false
	}
	floor := DefaultApprovalGrace
	if user.ApprovalGrace != nil {
		floor = *user.ApprovalGrace
	}
	return g >= floor
}

// modeStrictness orders the permission modes from the strictest.
var modeStrictness = map[permission.Mode]int{
	permission.ModePlan: 0, permission.ModeDefault: 1, permission.ModeAcceptEdits: 2, permission.ModeBypass: 3,
}

// stricterMode keeps a project's permission_mode that is no looser than
// the user's own (or the default).
func stricterMode(user Config, v *yaml.Node) bool {
	var s string
	if v.Decode(&s) != nil {
		return false
	}
	p, err := permission.ParseMode(s)
	if err != nil {
		return false
	}
	u, err := permission.ParseMode(user.PermissionMode)
	if err != nil {
		return false
	}
	pr, ok1 := modeStrictness[p]
	ur, ok2 := modeStrictness[u]
	return ok1 && ok2 && pr <= ur
}

// untrustedKeys is the allow-list: the keys (dotted paths) a repository's
// .covey/config.yaml may set without the user's trust, each with the
// check its value must pass. A key that is not here needs trust; so does
// a key whose value fails its check. Add a new key here only on purpose,
// when a hostile repository setting it can do no harm: it cannot choose
// where requests go or which key they carry, cannot run a program, cannot
// make the gate, the sandbox or the user's call-backs weaker, cannot raise
// a limit.
var untrustedKeys = map[string]keyRule{
	"theme":                      always,
	"model":                      always, // a model of the user's own endpoint
	"subagent_model":             always,
	"model_aliases":              always,
	"fetch_model":                always,
	"permission_mode":            stricterMode,
	"approval_grace":             longerGrace,
	"permissions.deny":           always,
	"permissions.ask":            always,
	"sandbox":                    always, // Load refuses a project's sandbox that loosens
	"stream_limits":              always, // Load refuses a project's raise
	"stream_keepalive_timeout":   always,
	"stream_idle_timeout":        always,
	"worktree.base":              always,
	"auto_compact":               always,
	"context_window":             always,
	"max_output_tokens":          always,
	"models.*.context_window":    always, // * is any one key (a model's name)
	"models.*.max_output_tokens": always,
	"notifications.bell":         onlyTrue,
	"notifications.desktop":      onlyTrue,
	"notifications.approval":     onlyTrue,
	"notifications.background":   onlyTrue,
	"notifications.turn_end":     onlyTrue,
	"ask_user":                   always, // asking the user or not: no harm either way
	"vision":                     always, // whether images are sent: no harm either way
	"models.*.vision":            always,
	"hooks":                      ownTrust,
	"mcp_servers":                ownTrust,
}

// Setting is one thing of the project's that needs the user's trust: a
// setting of its config.yaml (its dotted key and its value on one line)
// or a command covey would run by itself (Key says what it is: "hook
// PreToolUse (Bash)", "status line", "MCP server NAME"; Value is the
// command).
type Setting struct {
	Key, Value string
	// From names the file a command was read from ("" for config.yaml's
	// settings).
	From string
	// Pin is what the answer covers beyond Key and Value, not shown: the
	// hashes of the workspace scripts a hook runs.
	Pin string
}

// String is "key: value", escaped for a terminal: one line, whole.
func (s Setting) String() string {
	return excerpt.TermSafe(s.Key + ": " + s.Value)
}

// Trust is what Load found out about the project's config.yaml.
type Trust struct {
	// Path is the project's config file.
	Path string
	// Needs are the settings that need trust, in the file's order.
	Needs []Setting
	// Commands are the commands the project brings that covey would run
	// by itself (LoadOptions.Commands): they run only when Trusted.
	Commands []Setting
	// Hash is the key the user's answer is remembered under: a hash of
	// Needs and Commands, so a change to any of them is asked about again.
	Hash string
	// Trusted says whether Needs apply and Commands run: by
	// --trust-project, the user's trusted_folders or a remembered yes.
	Trusted bool
	// Answer is the remembered answer for Hash (mcp.TrustUnknown: never
	// asked, or Needs changed since).
	Answer mcp.Trust
}

// Skipped lists the settings left out, "" when none were.
func (t Trust) Skipped() []string {
	if t.Trusted {
		return nil
	}
	out := make([]string, 0, len(t.Needs))
	for _, s := range t.Needs {
		out = append(out, s.Key)
	}
	return out
}

// Ask reports whether the user should be asked: something needs trust and
// no answer is remembered for it.
func (t Trust) Ask() bool {
	return len(t.Needs)+len(t.Commands) > 0 && !t.Trusted && t.Answer == mcp.TrustUnknown
}

// CommandsHash is the hash of Commands alone: a session runs the
// project's commands only when what it found hashes the same as what was
// trusted.
func (t Trust) CommandsHash() string { return SettingsHash(t.Commands) }

// LoadOptions say how Load decides trust.
type LoadOptions struct {
	// TrustProject trusts the project's settings for this run
	// (--trust-project).
	TrustProject bool
	// Store holds the remembered answers; nil: TrustStore().
	Store *mcp.TrustStore
	// Commands, when set, lists the commands the workspace brings that
	// covey would run by itself, given a Config holding only the user's
	// and the project's hooks and MCP servers (Hooks, MCPServers,
	// ProjectHooks, ProjectMCPServers): they join the settings in the one
	// question and its answer.
	Commands func(Config) []Setting
}

// ConfigTrustFile is the file, in covey's state folder, that remembers per
// workspace whether the user trusts its config.yaml's settings.
const ConfigTrustFile = "config-trust.json"

// StateDir is covey's state folder (XDG_STATE_HOME, default
// ~/.local/state): trust answers, MCP logs.
func StateDir() string {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "covey")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "state", "covey")
}

// TrustStore is where the answers about project settings are kept.
func TrustStore() *mcp.TrustStore {
	return mcp.NewTrustStore(filepath.Join(StateDir(), ConfigTrustFile))
}

// SetTrust remembers the user's answer about workspace's settings t.
func SetTrust(workspace string, t Trust, yes bool, store *mcp.TrustStore) error {
	if store == nil {
		store = TrustStore()
	}
	answer := mcp.TrustNo
	if yes {
		answer = mcp.TrustYes
	}
	return store.Set(workspace, t.Hash, answer)
}

// LoadTrusted reads and merges the user's and the project's config files
// as Load does, applying the project's settings that need trust only when
// they are trusted, and says which those are.
func LoadTrusted(workspace string, opts LoadOptions) (Config, Trust, error) {
	user, project := Paths(workspace)
	t := Trust{Path: project}
	u, err := readFile(user)
	if err != nil {
		return Config{}, t, err
	}
	data, err := safefile.Read(project, maxConfigSize)
	exists := !errors.Is(err, fs.ErrNotExist)
	if err != nil && exists {
		return Config{}, t, fmt.Errorf("config: %w", err) // err names the file
	}
	var (
		full Config
		root yaml.Node
	)
	if exists {
		if full, err = checkProject(user, project, u, data); err != nil {
			return Config{}, t, err
		}
		if err := yaml.Unmarshal(data, &root); err != nil {
			return Config{}, t, fmt.Errorf("config %s: %s", project, plainYAMLError(err))
		}
		if doc := root.Content; len(doc) == 1 && doc[0].Kind == yaml.MappingNode {
			t.Needs = filterUntrusted(doc[0], "", u)
		}
	}
	if opts.Commands != nil {
		t.Commands = opts.Commands(Config{Hooks: u.Hooks, MCPServers: u.MCPServers, ProjectHooks: full.Hooks, ProjectMCPServers: full.MCPServers})
	}
	t.Hash = SettingsHash(append(slices.Clip(t.Needs), t.Commands...))
	t.Trusted = len(t.Needs)+len(t.Commands) == 0 || opts.TrustProject || u.TrustsFolder(workspace)
	if !t.Trusted {
		store := opts.Store
		if store == nil {
			store = TrustStore()
		}
		t.Answer, _ = store.Get(workspace, t.Hash) // an unreadable store trusts nothing
		t.Trusted = t.Answer == mcp.TrustYes
	}
	if !exists {
		return merge(Config{}, u), t, nil
	}
	pc := full
	if !t.Trusted {
		// The settings that need trust were cut out of root above.
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		if err := enc.Encode(&root); err != nil {
			return Config{}, t, fmt.Errorf("config %s: %w", project, err)
		}
		if pc, err = parseFile(project, buf.Bytes()); err != nil {
			return Config{}, t, err
		}
	}
	// A repository's file may not start programs unasked.
	pc.ProjectMCPServers, pc.MCPServers = pc.MCPServers, nil
	pc.ProjectHooks, pc.Hooks = pc.Hooks, nil
	merged := merge(merge(Config{}, u), pc)
	// Checked now, not when the first child starts and fails.
	if p := merged.SubagentProvider; p != "" {
		if _, ok := merged.Providers[p]; !ok {
			return Config{}, t, fmt.Errorf("config %s or %s: subagent_provider %q is not a profile under providers; configured: %s", user, project, p, profileNames(merged))
		}
	}
	return merged, t, nil
}

// checkProject parses the project's config file and refuses what a
// repository may never set, trusted or not.
func checkProject(user, project string, u Config, data []byte) (Config, error) {
	full, err := parseFile(project, data)
	if err != nil {
		return Config{}, err
	}
	if loose := full.Sandbox.Loosens(); loose != "" {
		return Config{}, fmt.Errorf("config %s: %s is read from the user's config only (%s), so a repository cannot loosen its own sandbox", project, loose, user)
	}
	if raised := raisesStream(u, full); raised != "" {
		return Config{}, fmt.Errorf("config %s: %s may only be lowered by a project (raise it in %s), so a repository cannot unbound its own streams", project, raised, user)
	}
	for _, f := range []struct {
		key, why string
		set      bool
	}{
		{"allow_agent_mode_raise", "a repository cannot raise its own agents", full.AllowAgentModeRaise},
		{"trusted_folders", "a repository cannot trust itself", len(full.TrustedFolders) > 0},
		{"pass_keys_to_tools", "a repository cannot hand your keys to its commands", full.PassKeysToTools},
	} {
		if f.set {
			return Config{}, fmt.Errorf("config %s: %s is read from the user's config only (%s), so %s", project, f.key, user, f.why)
		}
	}
	return full, nil
}

// filterUntrusted removes from the mapping m (at the dotted prefix) every
// key the allow-list does not keep, and returns them.
func filterUntrusted(m *yaml.Node, prefix string, user Config) []Setting {
	var out []Setting
	kept := m.Content[:0:0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := prefix + k.Value
		if rule, ok := ruleFor(key); ok {
			if rule(user, v) {
				kept = append(kept, k, v)
			} else {
				out = append(out, Setting{Key: key, Value: nodeText(v)})
			}
			continue
		}
		if v.Kind == yaml.MappingNode && hasKeysUnder(key) {
			out = append(out, filterUntrusted(v, key+".", user)...)
			kept = append(kept, k, v)
			continue
		}
		out = append(out, Setting{Key: key, Value: nodeText(v)})
	}
	m.Content = kept
	return out
}

// ruleFor finds key's rule in the allow-list, where a * segment stands
// for any one key.
func ruleFor(key string) (keyRule, bool) {
	if r, ok := untrustedKeys[key]; ok {
		return r, true
	}
	for k, r := range untrustedKeys {
		if strings.Contains(k, "*") && segmentsMatch(strings.Split(k, "."), strings.Split(key, ".")) {
			return r, true
		}
	}
	return nil, false
}

// segmentsMatch reports whether the dotted pattern's segments match key's.
func segmentsMatch(pattern, key []string) bool {
	if len(pattern) != len(key) {
		return false
	}
	for i := range pattern {
		if pattern[i] != "*" && pattern[i] != key[i] {
			return false
		}
	}
	return true
}

// hasKeysUnder reports whether the allow-list names a key below prefix.
func hasKeysUnder(prefix string) bool {
	want := strings.Split(prefix, ".")
	for k := range untrustedKeys {
		segs := strings.Split(k, ".")
		if len(segs) > len(want) && segmentsMatch(segs[:len(want)], want) {
			return true
		}
	}
	return false
}

// nodeText is a value on one line, in YAML's flow style.
func nodeText(v *yaml.Node) string {
	c := *v
	setFlow(&c)
	b, err := yaml.Marshal(&c)
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// setFlow makes a copy of v and its children print in flow style, its
// strings quoted only where they must be.
func setFlow(v *yaml.Node) {
	if v.Kind == yaml.ScalarNode {
		v.Style = 0
	}
	if v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode {
		v.Style = yaml.FlowStyle
		kids := make([]*yaml.Node, len(v.Content))
		for i, k := range v.Content {
			c := *k
			setFlow(&c)
			kids[i] = &c
		}
		v.Content = kids
	}
}

// SettingsHash is the key of a trust answer: what was asked, in order
// ("" when nothing was).
func SettingsHash(needs []Setting) string {
	if len(needs) == 0 {
		return ""
	}
	h := sha256.New()
	for _, s := range needs {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", s.Key, s.Value, s.From, s.Pin)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TrustsFolder reports whether the user's trusted_folders holds
// workspace or a folder above it.
func (c Config) TrustsFolder(workspace string) bool {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return false
	}
	home, _ := os.UserHomeDir()
	for _, f := range c.TrustedFolders {
		if rest, ok := strings.CutPrefix(f, "~/"); ok && home != "" {
			f = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(f) {
			continue // relative to what? trusted nothing
		}
		f = filepath.Clean(f)
		if ws == f || strings.HasPrefix(ws, f+string(filepath.Separator)) || f == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// KeyEnvNames are the environment variables holding covey's API keys:
// the well-known ones and every api_key_env configured. Commands do not
// get them (see sandbox.Environ) unless pass_keys_to_tools is set.
func KeyEnvNames(c Config) []string {
	names := []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "COVEY_API_KEY"}
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	add(c.APIKeyEnv)
	for _, name := range sortedProfiles(c) {
		add(c.Providers[name].APIKeyEnv)
	}
	return names
}

// sortedProfiles are c's provider profile names in order.
func sortedProfiles(c Config) []string {
	out := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
