package permission

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"covey/tools/toolname"
)

// Policy is a session's permission gate: it answers each write and command
// from the permission mode, the config's rules and the user's session
// grants, and asks the user (through its Asker) when none of them decide.
// One Policy serves the main agent and all its children, so a grant made
// for one holds for all. A Policy is safe for concurrent use; its mode can
// change while requests are in flight (a TUI key cycles it).
//
// The order of the checks: plan mode refuses every write and command; a
// deny rule (of the config or of a scope) refuses; bypassPermissions
// allows; an allow rule or session grant allows; acceptEdits allows file
// edits outside .covey/, .claude/ and .git/; otherwise the user is asked,
// and with nobody to ask (a nil Asker, headless runs) the request is
// refused with a note saying how to allow it. A scoped policy (Scoped)
// then turns an allow into a question when its agent's patterns do not
// cover the call. Commands are read by permission/shell and fail closed:
// what cannot be known matches every deny rule and no allow rule.
type Policy struct {
	*session
	// scopes are the restrictions of a scoped policy (see Scoped), outer
	// first; empty for the session's own policy.
	scopes []*Rules
	// agentMode is the mode of one agent (see WithMode); "" follows the
	// session's.
	agentMode Mode
	// raise lets agentMode be more permissive than the session's mode.
	raise bool
}

// session is the state a policy shares with every policy scoped from it.
type session struct {
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
	return &Policy{session: &session{rules: rules, asker: asker, askTurn: make(chan struct{}, 1), mode: mode}}
}

// Scoped returns a policy for one agent (a child, or an agent defined by
// an agent file) that can only be stricter than p. It shares p's mode,
// workspace, session grants and asker, so a mode change or a grant reaches
// both; it adds:
//
//   - deny rules, refused like the config's deny rules;
//   - allow patterns that restrict. A tool named in allow with a pattern
//     (Bash(git diff:*), Edit(docs/**), Read(src/**), web_fetch(domain:x),
//     or mcp__srv__tool) is let through without asking only for calls that
//     match one of its patterns (or a session grant). Other calls of it are
//     asked about, or refused when nobody can be asked, in every mode:
//     acceptEdits and bypassPermissions included. A matching call is then
//     decided by p as usual (it is never allowed where p would refuse or
//     ask). Edit and Write patterns restrict both file-writing tools; Read
//     patterns restrict every reading tool. A tool named bare, or not named
//     at all, is not restricted by the scope (which tools an agent has is
//     its definition's business): bare names that are not rule tools, such
//     as Grep or Glob, are accepted and ignored.
//
// Scoping a scoped policy adds to its restrictions. The error names every
// rule that does not parse.
func (p *Policy) Scoped(allow, deny []string) (*Policy, error) {
	var patterned []string
	for _, a := range allow {
		a = strings.TrimSpace(a)
		if !strings.Contains(a, "(") {
			if _, _, ok := canonicalTool(a); !ok {
				continue
			}
		}
		patterned = append(patterned, a)
	}
	rs, err := ParseRules(patterned, deny)
	if err != nil {
		return nil, fmt.Errorf("scoped rules: %w", err)
	}
	return &Policy{session: p.session, scopes: append(slices.Clip(p.scopes), rs), agentMode: p.agentMode, raise: p.raise}, nil
}

// WithMode returns p answering in mode m for one agent (an agent file's
// permissionMode) while sharing everything else with p. m holds while it
// is no more permissive than the session's current mode (plan, default,
// acceptEdits, bypassPermissions, in that order); when the session's mode
// is stricter (the user cycled to plan, say), the session's holds. With
// raise (the user's config allows agent files to raise the mode), m holds
// either way. An unknown m changes nothing.
func (p *Policy) WithMode(m Mode, raise bool) *Policy {
	if modeRank(m) < 0 {
		return p
	}
	return &Policy{session: p.session, scopes: p.scopes, agentMode: m, raise: raise}
}

// modeRank orders the modes by what they allow without asking; -1 for an
// unknown mode.
func modeRank(m Mode) int {
	switch m {
	case ModePlan:
		return 0
	case ModeDefault, "":
		return 1
	case ModeAcceptEdits:
		return 2
	case ModeBypass:
		return 3
	}
	return -1
}

// effectiveMode is the mode p answers in when the session's is session.
func (p *Policy) effectiveMode(session Mode) Mode {
	rank := modeRank(session)
	if rank < 0 {
		rank = modeRank(ModeDefault) // an unknown mode behaves as default
	}
	if p.agentMode == "" || (!p.raise && modeRank(p.agentMode) > rank) {
		return session
	}
	return p.agentMode
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
	// cmds memoises command analyses for one decision, which reads the
	// same line for deny rules, allow rules and scopes.
	cmds map[string]command
}

// analyse returns the analysis of a command line, parsed once per
// decision.
func (s snapshot) analyse(raw string) command {
	if c, ok := s.cmds[raw]; ok {
		return c
	}
	c := analyseCommand(raw)
	if s.cmds != nil {
		s.cmds[raw] = c
	}
	return c
}

func (p *Policy) snapshot() snapshot {
	p.mu.RLock()
	defer p.mu.RUnlock()
	// grants is append-only, so the slice stays valid after unlocking.
	return snapshot{mode: p.effectiveMode(p.mode), root: p.root, grants: p.grants, cmds: map[string]command{}}
}

// decide answers req from the mode, rules, grants and scopes, or says to
// ask; when it says to ask because a scope does not cover req, the string
// says why.
func (p *Policy) decide(req Request) (verdictKind, string) {
	s := p.snapshot()
	if IsUserQuestion(req.Tool) {
		// Only the user answers these, in every mode, plan included.
		return kindAsk, ""
	}
	if s.mode == ModePlan && !readTool(req.Tool) && !p.PlanOffers(req.Tool) {
		return kindRefuse, fmt.Sprintf("%s was refused: permission mode is plan, which is read-only. "+
			"Finish the plan and present it; the user leaves plan mode to carry it out.", describeRequest(req))
	}
	if req.Tool == ToolMerge {
		return p.decideMerge(req, s)
	}
	if req.Tool == ToolPickAttempt {
		// A choice, not a permission: no mode or rule makes it. Applying
		// the attempt chosen by someone else is a ToolMerge of its own.
		return kindAsk, ""
	}
	if r, note, ok := p.denied(req, s); ok {
		return kindRefuse, deniedReason(req, r, note)
	}
	k := p.baseDecision(req, s)
	if k != kindAllow {
		return k, ""
	}
	if why, ok := p.inScope(req, s); !ok {
		return kindAsk, why
	}
	return kindAllow, ""
}

// decideMerge answers a child's worktree merge as the file edits it is:
// a deny rule on any of its files refuses it; bypassPermissions,
// acceptEdits, or allow rules covering every file allow it.
func (p *Policy) decideMerge(req Request, s snapshot) (verdictKind, string) {
	allows := [][]rule{p.rules.allowList(), s.grants}
	all := len(req.Changes) > 0
	protected := false
	for _, c := range req.Changes {
		forms := pathFormsOf(c.Path, s.root)
		protected = protected || protectedPath(forms)
		for _, deny := range p.denyLists() {
			if r, ok := deniedPath(deny, toolname.EditFile, forms); ok {
				return kindRefuse, fmt.Sprintf("the merge of %s was denied: the rule %s in permissions.deny of the config covers %s", req.Path, r.src, c.Path)
			}
		}
		if !allowedPath(allows, toolname.EditFile, forms) && !allowedPath(allows, toolname.WriteFile, forms) {
			all = false
		}
	}
	// Into a parent child's own worktree (Isolated), the merge is
	// reviewed with that parent's.
	if all || req.Isolated {
		return kindAllow, ""
	}
	// covey's and Claude Code's settings (.covey/, .claude/) steer the
	// next session: the main agent's commands cannot change them (the
	// settings guard puts them back) and acceptEdits asks before its file
	// tools do. A child's worktree cannot tell a command's write from a
	// tool's, so a merge that changes them is asked about in every mode.
	if protected {
		return kindAsk, "it changes covey's or Claude Code's settings (.covey/, .claude/), which steer the next session"
	}
	if s.mode == ModeBypass || s.mode == ModeAcceptEdits {
		return kindAllow, ""
	}
	return kindAsk, ""
}

// denyLists returns the config's deny rules and those of every scope.
func (p *Policy) denyLists() [][]rule {
	lists := [][]rule{p.rules.denyList()}
	for _, sc := range p.scopes {
		lists = append(lists, sc.denyList())
	}
	return lists
}

// denied returns the first deny rule, of the config or of a scope, that
// covers req, and a note when it is taken to cover a command covey cannot
// see through.
func (p *Policy) denied(req Request, s snapshot) (rule, string, bool) {
	var c command
	if req.Tool == toolname.Bash {
		c = s.analyse(req.Command)
	}
	for _, deny := range p.denyLists() {
		switch {
		case req.Tool == toolname.Bash:
			if r, note, ok := deniedCommand(deny, c, bashDir(req, s)); ok {
				return r, note, true
			}
			if r, ok := deniedWrite(deny, c, s.root, bashDir(req, s)); ok {
				return r, "it redirects output to a file the rule covers, or to one named only when it runs", true
			}
			if r, arg, ok := deniedReadArg(deny, c, s.root, bashDir(req, s)); ok {
				return r, fmt.Sprintf("its argument %s names a file the rule keeps from being read", arg), true
			}
		case pathRuleTool(req.Tool):
			if r, ok := deniedPath(deny, req.Tool, pathFormsOf(req.Path, s.root)); ok {
				return r, "", true
			}
		default:
			if r, ok := deniedOther(deny, req); ok {
				return r, "", true
			}
		}
	}
	return rule{}, "", false
}

// bashDir is the folder a command starts in.
func bashDir(req Request, s snapshot) string {
	if req.Dir != "" {
		return req.Dir
	}
	return s.root
}

// baseDecision is what the mode, the config's allow rules and the session
// grants say about req, deny rules already checked.
func (p *Policy) baseDecision(req Request, s snapshot) verdictKind {
	allows := [][]rule{p.rules.allowList(), s.grants}
	switch {
	case s.mode == ModeBypass:
		return kindAllow
	case req.Isolated && fileTool(req.Tool):
		// A write into a child's worktree: the merge is reviewed later.
		return kindAllow
	case req.Tool == toolname.Bash:
		if allowedCommand(allows, s.analyse(req.Command), s.root, bashDir(req, s)) {
			return kindAllow
		}
	case pathRuleTool(req.Tool):
		forms := pathFormsOf(req.Path, s.root)
		if allowedPath(allows, req.Tool, forms) {
			return kindAllow
		}
		if s.mode == ModeAcceptEdits && fileTool(req.Tool) && !protectedPath(forms) {
			return kindAllow
		}
		if req.Tool == toolname.ReadFile && forms.rel != "" && !outsideRel(forms.rel) {
			return kindAllow
		}
	default:
		if allowedOther(allows, req) {
			return kindAllow
		}
	}
	return kindAsk
}

// inScope reports whether every scope of p lets req through without
// asking; when one does not, it says which patterns would.
func (p *Policy) inScope(req Request, s snapshot) (string, bool) {
	for _, sc := range p.scopes {
		var own []rule
		restricted := false
		for _, r := range sc.allowList() {
			if r.governs(req.Tool, true) || (fileReadTool(req.Tool) && r.tool == toolname.ReadFile) {
				own = append(own, r)
				restricted = restricted || r.kind != ruleAll
			}
		}
		if restricted && !scopeMatch(own, s.grants, req, s) {
			return fmt.Sprintf("this agent's definition limits %s to %s, and this call matches none of them",
				req.Tool, quoteList(ruleSources(own))), false
		}
		if req.Tool == toolname.Bash {
			if why, ok := redirectsInScope(sc, s, req); !ok {
				return why, false
			}
		}
	}
	return "", true
}

// redirectsInScope checks a command's redirections against a scope's
// file-writing patterns (Edit(docs/**)): a redirection is a write like
// any other, so an agent limited to docs/ cannot write src/ through echo.
func redirectsInScope(sc *Rules, s snapshot, req Request) (string, bool) {
	var own []rule
	restricted := false
	for _, r := range sc.allowList() {
		if fileTool(r.tool) {
			own = append(own, r)
			restricted = restricted || r.kind != ruleAll
		}
	}
	if !restricted {
		return "", true
	}
	c := s.analyse(req.Command)
	for _, w := range c.line.Writes {
		forms, ok := writeForms(c, w, s.root, bashDir(req, s))
		if w.Dynamic || !ok {
			return fmt.Sprintf("this agent's definition limits file writes to %s, and covey cannot tell where this command's redirection to %s writes",
				quoteList(ruleSources(own)), w.Target), false
		}
		if !slices.ContainsFunc(own, func(r rule) bool { return r.matchPath(forms) }) && !allowedPath([][]rule{s.grants}, toolname.WriteFile, forms) {
			return fmt.Sprintf("this agent's definition limits file writes to %s, and this command redirects to %s",
				quoteList(ruleSources(own)), w.Target), false
		}
	}
	return "", true
}

// scopeMatch reports whether one of a scope's rules for req's tool, or a
// session grant, covers req.
func scopeMatch(own, grants []rule, req Request, s snapshot) bool {
	sets := [][]rule{own, grants}
	root := s.root
	switch {
	case req.Tool == toolname.Bash:
		return allowedCommand(sets, s.analyse(req.Command), root, bashDir(req, s))
	case pathRuleTool(req.Tool) || fileReadTool(req.Tool):
		forms := pathFormsOf(req.Path, root)
		for _, r := range own {
			if r.matchPath(forms) {
				return true
			}
		}
		return allowedPath([][]rule{grants}, req.Tool, forms)
	}
	return allowedOther(sets, req)
}

// PlanOffers reports whether plan mode offers an MCP tool: only when an
// allow rule of the config names it (mcp__srv, mcp__srv__*, or the tool),
// since covey cannot tell what a server's tool changes. Deny rules still
// apply to its calls.
func (p *Policy) PlanOffers(tool string) bool {
	if !strings.HasPrefix(tool, toolname.MCPPrefix) {
		return false
	}
	return allowedOther([][]rule{p.rules.allowList()}, Request{Tool: tool})
}

// readTool reports whether tool only reads, so plan mode lets it be asked
// about and read_file rules govern it.
func readTool(tool string) bool {
	switch tool {
	case toolname.ReadFile, toolname.Grep, toolname.Glob, toolname.ListDir, toolname.WebFetch, toolname.WebSearch:
		return true
	}
	return false
}

// fileReadTool reports whether tool reads files, so read_file rules
// govern it.
func fileReadTool(tool string) bool {
	switch tool {
	case toolname.ReadFile, toolname.Grep, toolname.Glob, toolname.ListDir:
		return true
	}
	return false
}

// deniedOther returns the first deny rule covering a call of a tool that
// is neither bash nor a file tool (web_fetch, MCP tools, task, ...).
func deniedOther(deny []rule, req Request) (rule, bool) {
	for _, r := range deny {
		if r.forTool(req.Tool) && r.matchOther(req, true) {
			return r, true
		}
	}
	return rule{}, false
}

// allowedOther reports whether an allow rule or grant covers such a call.
func allowedOther(sets [][]rule, req Request) bool {
	for _, set := range sets {
		for _, r := range set {
			if r.forTool(req.Tool) && r.matchOther(req, false) {
				return true
			}
		}
	}
	return false
}

// matchOther matches a bare or domain rule against a call. A URL whose
// host cannot be read matches every deny rule and no allow rule.
func (r rule) matchOther(req Request, deny bool) bool {
	switch r.kind {
	case ruleAll:
		return true
	case ruleDomain:
		host, ok := hostOf(req.URL)
		if !ok {
			return deny
		}
		return r.matchDomain(host)
	}
	return false
}

// hostOf returns the lower-case host name of an http(s) URL, without port
// or trailing dot.
func hostOf(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	return h, h != ""
}

func deniedReason(req Request, r rule, note string) string {
	if note != "" {
		note = " (" + note + ")"
	}
	return fmt.Sprintf("%s was denied by the rule %s in permissions.deny of the config%s; "+
		"do not try to get around it, ask the user instead", describeRequest(req), r.src, note)
}

// RuleAllows reports whether an allow rule naming req's domain
// (web_fetch(domain:HOST), in the config or granted this session) covers
// req, whatever the mode: what web_fetch needs to reach a loopback,
// link-local or private address.
func (p *Policy) RuleAllows(req Request) bool {
	host, ok := hostOf(req.URL)
	if !ok {
		return false
	}
	for _, set := range [][]rule{p.rules.allowList(), p.snapshot().grants} {
		for _, r := range set {
			if r.forTool(req.Tool) && r.kind == ruleDomain && r.matchDomain(host) {
				return true
			}
		}
	}
	return false
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
	k, reason := p.decideWith(ctx, req)
	switch {
	case k == kindAllow:
		return Verdict{Allowed: true}
	case k == kindRefuse:
		return Verdict{Reason: reason}
	case p.asker == nil && reason != "":
		return Verdict{Reason: fmt.Sprintf("%s needs permission: %s, and nobody can be asked in a headless run.", describeRequest(req), reason)}
	case p.asker == nil:
		return Verdict{Reason: p.headlessReason(req)}
	case IsUserQuestion(req.Tool):
		return p.askNow(ctx, req)
	}
	if !p.takeTurn(ctx, req) {
		return cancelled()
	}
	defer func() { <-p.askTurn }()
	// While this request waited its turn, an answer to another one may
	// have granted it, or the mode may have changed.
	if k, reason = p.decideWith(ctx, req); k != kindAsk {
		return Verdict{Allowed: k == kindAllow, Reason: reason}
	}
	return p.askNow(ctx, req)
}

// takeTurn waits until no other request is being asked, telling the
// asker that req waits when it must; false when ctx ended first.
func (p *Policy) takeTurn(ctx context.Context, req Request) bool {
	select {
	case p.askTurn <- struct{}{}:
		return true
	default:
	}
	if w, ok := p.asker.(TurnWatcher); ok {
		done := w.WaitingTurn(ctx, req)
		defer done()
	}
	select {
	case p.askTurn <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// askNow puts req to the asker and waits for the answer or ctx's end.
// A question (IsUserQuestion) comes here without waiting its turn behind
// the permission requests: the asker queues it in the order asked.
func (p *Policy) askNow(ctx context.Context, req Request) Verdict {
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

// AllowRead reports whether a reading tool (read_file, grep, glob,
// list_dir) may read absPath. Symlinks are resolved first, and the real
// path is what counts: a link inside the workspace pointing outside is a
// read outside. Reads inside the workspace are allowed unless a read_file
// deny rule (of the config or a scope) covers the path as given or as
// resolved, or a scope restricts reads to patterns it does not match;
// outside it, only bypassPermissions, a read_file allow rule (such as
// read_file(~/notes/**)) or a session grant allows them. Nobody is asked:
// a read the rules do not allow is refused.
func (p *Policy) AllowRead(absPath string) bool {
	if absPath == "" || !filepath.IsAbs(absPath) {
		return false
	}
	return p.allowRead(absPath, realPath(absPath))
}

// AllowReadFound is AllowRead for a file a search found while walking,
// without following symlinked folders, a folder whose path is its real
// path: only the file itself may be a symlink, so unless it is one it need
// not be resolved (which keeps a search over many files cheap).
func (p *Policy) AllowReadFound(absPath string) bool {
	if absPath == "" || !filepath.IsAbs(absPath) {
		return false
	}
	fi, err := os.Lstat(absPath)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return p.AllowRead(absPath)
	}
	return p.allowRead(absPath, filepath.Clean(absPath))
}

// ReadDenied reports whether a read deny rule (the config's or a scope's)
// covers absPath, as given or with its symlinks resolved. Reads admitted
// besides the policy (a skill's own folder) still honour deny rules.
func (p *Policy) ReadDenied(absPath string) bool {
	if absPath == "" || !filepath.IsAbs(absPath) {
		return true
	}
	s := p.snapshot()
	return p.readDenied(pathFormsOf(absPath, s.root), pathFormsOf(realPath(absPath), s.root))
}

func (p *Policy) readDenied(given, real pathForms) bool {
	lists := [][]rule{p.rules.denyList()}
	for _, sc := range p.scopes {
		lists = append(lists, sc.denyList())
	}
	for _, deny := range lists {
		for _, f := range []pathForms{given, real} {
			if _, denied := deniedPath(deny, toolname.ReadFile, f); denied {
				return true
			}
		}
	}
	return false
}

// allowRead decides a read of absPath, whose real location is realAbs.
func (p *Policy) allowRead(absPath, realAbs string) bool {
	s := p.snapshot()
	given := pathFormsOf(absPath, s.root)
	real := pathFormsOf(realAbs, s.root)
	if p.readDenied(given, real) {
		return false
	}
	for _, f := range []pathForms{given, real} {
		if _, ok := p.inScope(Request{Tool: toolname.ReadFile, Path: f.abs}, s); !ok {
			return false
		}
	}
	if s.root != "" && !outsideRel(real.rel) {
		return true
	}
	return s.mode == ModeBypass || allowedPath([][]rule{p.rules.allowList(), s.grants}, toolname.ReadFile, real)
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
	case req.Tool == toolname.Bash:
		c := analyseCommand(req.Command)
		if why := c.unknown(); why != "" {
			how = fmt.Sprintf("covey cannot tell what this line runs (%s), so no command rule can allow it: "+
				"rerun with --permission-mode bypassPermissions, or add the bare rule bash (every command) to permissions.allow in %s, "+
				"or split the work into simpler commands", why, configFiles)
			break
		}
		missing := p.missingRules(c)
		how = fmt.Sprintf("rerun with --permission-mode bypassPermissions, or add %s to permissions.allow in %s",
			quoteList(missing), configFiles)
	case IsUserQuestion(req.Tool):
		return NoUserReason
	case req.Tool == ToolPickAttempt:
		return fmt.Sprintf("%s needs the user, and nobody can be asked in a headless run: every attempt is kept on its branch. "+
			"To let an agent pick one, set subagents.judge to an agent type in %s.", describeRequest(req), configFiles)
	case req.Tool == ToolMerge:
		how = fmt.Sprintf("rerun with --permission-mode acceptEdits or bypassPermissions, or add edit_file rules covering its files to permissions.allow in %s", configFiles)
	case fileTool(req.Tool):
		how = fmt.Sprintf("rerun with --permission-mode acceptEdits (file edits) or --permission-mode bypassPermissions (everything), "+
			"or add %s (or a glob such as %s) to permissions.allow in %s",
			ruleSources(grantRules(req))[0], exampleGlob(req), configFiles)
	default:
		how = fmt.Sprintf("rerun with --permission-mode bypassPermissions, or add %q to permissions.allow in %s",
			ruleSources(grantRules(req))[0], configFiles)
	}
	return fmt.Sprintf("%s needs permission, and nobody can be asked in a headless run (permission mode %s). To allow it, %s.",
		describeRequest(req), p.snapshot().mode, how)
}

// configFiles names where permission rules live.
const configFiles = "~/.config/covey/config.yaml (all projects) or .covey/config.yaml (this project, once you trust its settings)"

// missingRules lists the rules that would allow the commands of c that no
// rule or grant allows yet.
func (p *Policy) missingRules(c command) []string {
	allows := [][]rule{p.rules.allowList(), p.snapshot().grants}
	var out []string
	for _, sc := range c.line.Cmds {
		if sc.Wrapper || cmdAllowed(allows, sc) {
			continue
		}
		if r, ok := cmdGrant(sc); ok && !slices.Contains(out, r.src) {
			out = append(out, r.src)
		}
	}
	if len(out) == 0 {
		out = append(out, toolname.Bash)
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
	case toolname.Bash:
		return fmt.Sprintf("bash %q", req.Command)
	case toolname.WebFetch, toolname.WebSearch:
		return fmt.Sprintf("%s %s", req.Tool, req.URL)
	case ToolPickAttempt:
		return fmt.Sprintf("the choice among %d attempts", len(req.Attempts))
	case ToolMerge:
		return fmt.Sprintf("the merge of %s (%d changed %s)", req.Path, len(req.Changes), map[bool]string{true: "file", false: "files"}[len(req.Changes) == 1])
	}
	if req.Path == "" {
		return req.Tool
	}
	return fmt.Sprintf("%s %s", req.Tool, req.Path)
}

// MapReads adapts a read check (such as Policy.AllowRead) for an agent
// working in a copy of the workspace (a child's git worktree at from):
// a path whose real location lies inside from is judged as the same path
// inside the session's workspace to, so read rules and symlink checks hold
// there too; any other path is judged as it is.
func MapReads(from, to string, allow func(abs string) bool) func(abs string) bool {
	realFrom := realPath(from)
	return func(abs string) bool {
		real := realPath(abs)
		if rel, err := filepath.Rel(realFrom, real); err == nil && !outsideRel(filepath.ToSlash(rel)) {
			return allow(filepath.Join(to, rel))
		}
		return allow(abs)
	}
}

// protectedPath reports whether a workspace path holds what steers covey
// or runs code for the user later: covey's and Claude Code's project
// settings and agent files, and git's folder (hooks, config). acceptEdits
// does not let writes there through, nor does a command's redirection
// without a rule; an allow rule or bypassPermissions still does.
func protectedPath(f pathForms) bool {
	if f.rel == "" || outsideRel(f.rel) {
		return false
	}
	top, _, _ := strings.Cut(f.rel, "/")
	switch top {
	case ".covey", ".claude", ".git":
		return true
	}
	return false
}
