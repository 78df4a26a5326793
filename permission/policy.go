package permission

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Policy is a session's permission gate: it answers each write and command
// from the permission mode, the config's rules and the user's session
// grants, and asks the user (through its Asker) when none of them decide.
// One Policy serves the main agent and all its children, so a grant made
// for one holds for all. A Policy is safe for concurrent use; its mode can
// change while requests are in flight (a TUI key cycles it).
//
// The order of the checks: plan mode refuses every write and command; a
// deny rule refuses; bypassPermissions allows; an allow rule or session
// grant allows; acceptEdits allows file edits; otherwise the user is asked,
// and with nobody to ask (a nil Asker, headless runs) the request is
// refused with a note saying how to allow it.
type Policy struct {
	rules *Rules
	asker Asker
	// askTurn holds one token while a question is open: questions are put
	// one at a time, so the answer to one (a grant) can settle the next.
	askTurn chan struct{}

	mu     sync.RWMutex
	mode   Mode
	root   string // the workspace root, symlinks resolved; "" when unknown
	grants []rule // append-only
}

// NewPolicy returns a gate answering in mode from rules (nil for none),
// asking asker when they do not decide; a nil asker refuses instead. An
// unknown mode behaves as ModeDefault.
func NewPolicy(mode Mode, rules *Rules, asker Asker) *Policy {
	return &Policy{rules: rules, asker: asker, askTurn: make(chan struct{}, 1), mode: mode}
}

// SetWorkspace tells the policy the workspace root, which reads inside are
// always allowed and against which absolute path rules (~/..., //...)
// are compared for writes.
func (p *Policy) SetWorkspace(root string) {
	real := ""
	if root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			real = realPath(abs)
		}
	}
	p.mu.Lock()
	p.root = real
	p.mu.Unlock()
}

// Mode returns the current permission mode.
func (p *Policy) Mode() Mode {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.mode
}

// SetMode changes the permission mode; requests decided later see it.
func (p *Policy) SetMode(m Mode) {
	p.mu.Lock()
	p.mode = m
	p.mu.Unlock()
}

// CycleMode moves to the mode after the current one in Modes (wrapping
// around) and returns it; done under one lock, so two quick key presses
// advance twice.
func (p *Policy) CycleMode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = p.mode.Next()
	return p.mode
}

// Rules returns the config's rules the policy was made with (maybe nil).
func (p *Policy) Rules() *Rules { return p.rules }

// Grant allows requests like req for the rest of the session and returns
// the rules it recorded, as a UI shows them: for a write, that tool on
// that exact file; for a command, a prefix rule per command it runs (see
// SessionGrantRules). A grant never overrides a deny rule. A UI offering
// "allow for this session" calls Grant, then answers its Ask with an
// allowing Verdict.
func (p *Policy) Grant(req Request) []string {
	rs := grantRules(req)
	p.mu.Lock()
	p.grants = append(p.grants, rs...)
	p.mu.Unlock()
	return ruleSources(rs)
}

// Grants returns the session grants made so far, as rule strings.
func (p *Policy) Grants() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return ruleSources(p.grants)
}

// verdictKind is what the policy decides before anyone is asked.
type verdictKind int

const (
	kindAsk verdictKind = iota
	kindAllow
	kindRefuse
)

// snapshot is the policy's mutable state at one moment.
type snapshot struct {
	mode   Mode
	root   string
	grants []rule
}

func (p *Policy) snapshot() snapshot {
	p.mu.RLock()
	defer p.mu.RUnlock()
	// grants is append-only, so the slice stays valid after unlocking.
	return snapshot{mode: p.mode, root: p.root, grants: p.grants}
}

// decide answers req from the mode, rules and grants, or says to ask.
func (p *Policy) decide(req Request) (verdictKind, string) {
	s := p.snapshot()
	if s.mode == ModePlan && req.Tool != "read_file" {
		return kindRefuse, fmt.Sprintf("%s was refused: permission mode is plan, which is read-only. "+
			"Finish the plan and present it; the user leaves plan mode to carry it out.", describeRequest(req))
	}
	allows := [][]rule{p.rules.allowList(), s.grants}
	switch {
	case req.Tool == ToolMerge:
		return p.decideMerge(req, s, allows)
	case req.Isolated && fileTool(req.Tool):
		// A write into a child's worktree: the merge is reviewed later.
		if r, ok := deniedPath(p.rules.denyList(), req.Tool, pathFormsOf(req.Path, s.root)); ok {
			return kindRefuse, deniedReason(req, r)
		}
		return kindAllow, ""
	case req.Tool == "bash":
		c := analyseCommand(req.Command)
		if r, ok := deniedCommand(p.rules.denyList(), c); ok {
			return kindRefuse, deniedReason(req, r)
		}
		if s.mode == ModeBypass || allowedCommand(allows, c) {
			return kindAllow, ""
		}
	default:
		forms := pathFormsOf(req.Path, s.root)
		if r, ok := deniedPath(p.rules.denyList(), req.Tool, forms); ok {
			return kindRefuse, deniedReason(req, r)
		}
		if s.mode == ModeBypass || allowedPath(allows, req.Tool, forms) {
			return kindAllow, ""
		}
		if s.mode == ModeAcceptEdits && fileTool(req.Tool) {
			return kindAllow, ""
		}
		if req.Tool == "read_file" && forms.rel != "" && !outsideRel(forms.rel) {
			return kindAllow, ""
		}
	}
	return kindAsk, ""
}

// decideMerge answers a child's worktree merge as the file edits it is:
// a deny rule on any of its files refuses it; bypassPermissions,
// acceptEdits, or allow rules covering every file allow it.
func (p *Policy) decideMerge(req Request, s snapshot, allows [][]rule) (verdictKind, string) {
	all := len(req.Changes) > 0
	for _, c := range req.Changes {
		forms := pathFormsOf(c.Path, s.root)
		if r, ok := deniedPath(p.rules.denyList(), "edit_file", forms); ok {
			return kindRefuse, fmt.Sprintf("the merge of %s was denied: the rule %s in permissions.deny of the config covers %s", req.Path, r.src, c.Path)
		}
		if !allowedPath(allows, "edit_file", forms) && !allowedPath(allows, "write_file", forms) {
			all = false
		}
	}
	if s.mode == ModeBypass || s.mode == ModeAcceptEdits || all {
		return kindAllow, ""
	}
	return kindAsk, ""
}

func deniedReason(req Request, r rule) string {
	return fmt.Sprintf("%s was denied by the rule %s in permissions.deny of the config; "+
		"do not try to get around it, ask the user instead", describeRequest(req), r.src)
}

// AllowedWithoutAsking reports whether Check would allow req now without
// asking anyone (a UI may mark such calls, or skip showing a prompt).
func (p *Policy) AllowedWithoutAsking(req Request) bool {
	k, _ := p.decide(req)
	return k == kindAllow
}

// Check implements Gate. It blocks while the user is asked, and gives up
// with a refusal when ctx ends first.
func (p *Policy) Check(ctx context.Context, req Request) Verdict {
	if ctx.Err() != nil {
		return cancelled()
	}
	k, reason := p.decide(req)
	switch {
	case k == kindAllow:
		return Verdict{Allowed: true}
	case k == kindRefuse:
		return Verdict{Reason: reason}
	case p.asker == nil:
		return Verdict{Reason: p.headlessReason(req)}
	}
	select {
	case p.askTurn <- struct{}{}:
	case <-ctx.Done():
		return cancelled()
	}
	defer func() { <-p.askTurn }()
	// While this request waited its turn, an answer to another one may
	// have granted it, or the mode may have changed.
	if k, reason = p.decide(req); k != kindAsk {
		return Verdict{Allowed: k == kindAllow, Reason: reason}
	}
	answer := make(chan Verdict, 1) // buffered: an Ask outliving ctx does not leak its goroutine
	go func() {
		defer func() {
			if r := recover(); r != nil {
				answer <- Verdict{Reason: fmt.Sprintf("asking the user failed: %v", r)}
			}
		}()
		answer <- p.asker.Ask(ctx, req)
	}()
	select {
	case v := <-answer:
		if ctx.Err() != nil {
			return cancelled()
		}
		if !v.Allowed && v.Reason == "" {
			v.Reason = "the user declined; ask what they would like instead"
		}
		v.ByUser = true
		return v
	case <-ctx.Done():
		return cancelled()
	}
}

func cancelled() Verdict { return Verdict{Reason: "cancelled by the user"} }

// AllowRead reports whether read_file may read absPath. Reads inside the
// workspace are always allowed, unless a read_file deny rule covers them;
// outside it, only bypassPermissions, a read_file allow rule (such as
// read_file(~/notes/**)) or a session grant allows them. Symlinks are
// resolved first, so a link cannot lead a read out of what a rule allows.
func (p *Policy) AllowRead(absPath string) bool {
	if absPath == "" || !filepath.IsAbs(absPath) {
		return false
	}
	s := p.snapshot()
	given := pathFormsOf(absPath, s.root)
	real := pathFormsOf(realPath(absPath), s.root)
	for _, f := range []pathForms{given, real} {
		if _, denied := deniedPath(p.rules.denyList(), "read_file", f); denied {
			return false
		}
	}
	if s.root != "" && !outsideRel(real.rel) {
		return true
	}
	return s.mode == ModeBypass || allowedPath([][]rule{p.rules.allowList(), s.grants}, "read_file", real)
}

// pathFormsOf puts a request's path (workspace-relative, absolute or
// starting with ~/) in the forms rules compare.
func pathFormsOf(p, root string) pathForms {
	if p == "" {
		return pathForms{}
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	var f pathForms
	if filepath.IsAbs(p) {
		f.abs = filepath.ToSlash(filepath.Clean(p))
		if root != "" {
			if rel, err := filepath.Rel(root, p); err == nil {
				f.rel = filepath.ToSlash(rel)
			}
		}
		return f
	}
	f.rel = path.Clean(filepath.ToSlash(p))
	if root != "" {
		f.abs = filepath.ToSlash(filepath.Join(root, p))
	}
	return f
}

// headlessReason explains a refusal nobody could be asked about, naming
// the flag or the rule that would allow it.
func (p *Policy) headlessReason(req Request) string {
	var how string
	switch {
	case req.Tool == "bash":
		c := analyseCommand(req.Command)
		if c.err != nil {
			how = fmt.Sprintf("covey cannot tell which commands this line runs (%v), so no command rule can allow it: "+
				"rerun with --permission-mode bypassPermissions, or add the bare rule bash (every command) to permissions.allow in %s, "+
				"or split the work into simpler commands", c.err, configFiles)
			break
		}
		missing := p.missingRules(c)
		how = fmt.Sprintf("rerun with --permission-mode bypassPermissions, or add %s to permissions.allow in %s",
			quoteList(missing), configFiles)
	case req.Tool == ToolMerge:
		how = fmt.Sprintf("rerun with --permission-mode acceptEdits or bypassPermissions, or add edit_file rules covering its files to permissions.allow in %s", configFiles)
	case fileTool(req.Tool):
		how = fmt.Sprintf("rerun with --permission-mode acceptEdits (file edits) or --permission-mode bypassPermissions (everything), "+
			"or add %s (or a glob such as %s) to permissions.allow in %s",
			ruleSources(grantRules(req))[0], exampleGlob(req), configFiles)
	default:
		how = fmt.Sprintf("rerun with --permission-mode bypassPermissions, or add a %s rule to permissions.allow in %s", req.Tool, configFiles)
	}
	return fmt.Sprintf("%s needs permission, and nobody can be asked in a headless run (permission mode %s). To allow it, %s.",
		describeRequest(req), p.Mode(), how)
}

// configFiles names where permission rules live.
const configFiles = ".covey/config.yaml (this project) or ~/.config/covey/config.yaml (all projects)"

// missingRules lists the rules that would allow the commands of c that no
// rule or grant allows yet.
func (p *Policy) missingRules(c command) []string {
	allows := [][]rule{p.rules.allowList(), p.snapshot().grants}
	var out []string
	for _, sc := range c.cmds {
		if ok, _ := partAllowed(allows, sc); ok {
			continue
		}
		for _, r := range cmdGrant(sc) {
			if !slices.Contains(out, r.src) {
				out = append(out, r.src)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, "bash")
	}
	return out
}

func quoteList(rules []string) string {
	q := make([]string, len(rules))
	for i, r := range rules {
		q[i] = fmt.Sprintf("%q", r)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// exampleGlob suggests a rule for the folder of a write's path.
func exampleGlob(req Request) string {
	dir := path.Dir(path.Clean(filepath.ToSlash(req.Path)))
	if dir == "." || dir == "/" {
		return req.Tool + "(**)"
	}
	return req.Tool + "(" + dir + "/**)"
}

// describeRequest names a request for messages.
func describeRequest(req Request) string {
	switch req.Tool {
	case "bash":
		return fmt.Sprintf("bash %q", req.Command)
	case ToolMerge:
		return fmt.Sprintf("the merge of %s (%d changed %s)", req.Path, len(req.Changes), map[bool]string{true: "file", false: "files"}[len(req.Changes) == 1])
	default:
		return fmt.Sprintf("%s %s", req.Tool, req.Path)
	}
}
