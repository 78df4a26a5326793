package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/hooks"
	"covey/theme"
	"covey/ui/approval"
	"covey/ui/cells"
	"covey/ui/input"
	"covey/ui/keys"
	"covey/ui/markdown"
	"covey/ui/notify"
	"covey/ui/painter"
	"covey/ui/screens"
	"covey/ui/status"
	"covey/ui/transcript"
)

// Timing of the UI's own clocks.
const (
	tickInterval    = 100 * time.Millisecond // spinner and elapsed times
	quitWindow      = 2 * time.Second        // a second ctrl+c within it quits
	prewarmPerFrame = 64                     // blocks measured per prewarm message
)

// Options is everything the TUI needs from its caller.
type Options struct {
	// Engine runs turns; the UI calls it from commands, never in Update.
	Engine Engine
	// StatusLine runs the statusLine of Claude Code's settings; nil: none.
	StatusLine StatusLiner
	// ApprovalGrace is how long a new request ignores keys until the
	// keyboard has been quiet (DefaultApprovalGrace; config
	// approval_grace); 0 takes none.
	ApprovalGrace time.Duration
	// Events carries everything the engine and its children emit.
	Events <-chan agent.Event
	// Theme provides every style; nil means the dark theme.
	Theme *theme.Theme
	// Workspace is shown in the status bar, with the home directory as ~.
	Workspace string
	// PermissionMode is shown in the status bar.
	PermissionMode string
	// Agents lists the agent definitions for /agents.
	Agents []AgentInfo
	// AgentProblems are the problems found in agent files, by file: a
	// one-line notice at start counts them, and /agents lists them.
	AgentProblems []AgentFileProblems
	// MarkdownStyle is "dark", "light" or "ascii"; "" picks from the theme.
	MarkdownStyle string
	// InitialPrompt, when set, is sent as soon as the UI starts.
	InitialPrompt string
	// AfterFirstFrame, when set, is called once the first frame is on the
	// screen (in a command, off the UI goroutine): background work such as
	// starting MCP servers waits for it, so it never delays that frame.
	AfterFirstFrame func()
	// OnBackground, when set, has the terminal asked for its background
	// colour after the first frame (--theme auto); it is called, on the
	// input's goroutine, with the answer whenever it comes.
	OnBackground func(dark bool)
	// relay takes the background's answer to the program (Run sets it).
	relay *msgRelay
	// Approver brings the permission policy's questions to the screen;
	// nil means nobody is asked (the policy decides alone).
	Approver *Approver
	// Permissions is the session's policy: its mode is shown and cycled,
	// and "allow for this session" grants through it. Nil hides both.
	Permissions Permissions
	// Replay is a previous session's events, drawn before the program
	// starts (everything finished, nothing animated), so a resumed
	// session shows its conversation.
	Replay []agent.Event
	// Warnings are shown as warning notices when the UI starts (covey's
	// sandbox cannot run here, ...).
	Warnings []string
	// ResumeNote, when set, is shown as a notice after the replay
	// ("resumed session <id> (N messages)").
	ResumeNote string
	// Load, when set, reads a resumed session after the first frame (in
	// place of Replay and ResumeNote): a "loading session…" line shows
	// until it returns, and what the user sends meanwhile waits for it.
	Load LoadFunc
	// Cost prices tokens for /cost, the crew overview and the panes; nil
	// when no price table is configured.
	Cost CostFunc
	// Welcome, when set, opens a new session's transcript with a short
	// card about it and three key hints; nil shows none.
	Welcome *transcript.Welcome
	// Commands are the user's slash commands (files): in completion and
	// /help after the built-ins, sent to the engine as messages.
	Commands []CustomCommand
	// Skills are listed by /skills.
	Skills []SkillInfo
	// Memory, when set, lists the memory files in the main agent's
	// context for /memory (it changes as folders' files join).
	Memory func() []MemoryInfo
	// Worktrees lists and prunes the git worktrees of isolated children;
	// nil outside a git repository. At start the UI checks it for
	// worktrees left behind and says so.
	Worktrees Worktrees
	// Hooks lists the hooks in force for /hooks; nil when hooks are off.
	Hooks HooksSource
	// Notify calls the user back (bell, desktop notification) when an
	// approval waits, a background child finishes or a turn ends
	// unwatched; nil calls nobody.
	Notify *notify.Notifier
	// Playback, when set, plays a recorded session back (covey replay):
	// read-only, with the player's bar in place of the input. Leave
	// Engine, Events and Approver unset.
	Playback *Playback
}

// Model is the root Bubble Tea model: it owns the transcript, the input,
// the status bar and the help line, and routes messages to them.
type Model struct {
	engine Engine
	agents []AgentInfo
	// agentProblems are the agent files' problems, for /agents.
	agentProblems []AgentFileProblems
	styles        *theme.Styles
	// autoTheme is set with --theme auto: the terminal's background
	// answer may change the palette (dark is the one drawn with).
	autoTheme, dark bool
	keys            *keys.KeyMap // shared with the screens, which match and list its bindings
	help            help.Model
	cmds            []command
	skills          []SkillInfo
	memory          func() []MemoryInfo

	tr     *transcript.Transcript
	rt     *router
	input  input.Model
	comp   input.Completion
	status status.Bar
	// sl is the user's statusLine command's line under the status bar.
	sl statusLine

	width, height int
	focus         keys.Focus // where the keys go
	fullHelp      bool

	turn    *turn
	turnSeq int

	ticking bool
	tickID  int
	// frameAt is when the spinner frame last moved (by a tick or by
	// advanceFrame).
	frameAt time.Time
	// eventsAt is when the last batch of events arrived.
	eventsAt time.Time
	// idleTick is set by a tick that arrives while events stream (a
	// batch in the last two batch intervals): it moves nothing, and the
	// painter's program paints no frame for it, since the next batch is
	// a batch interval away and moves the spinners itself (advanceFrame).
	// A tick's frame painted just before a batch's made the batch's frame
	// wait out an interval on the painter's goroutine, and every frame
	// after it, a wake-up each, until the phases drifted apart.
	idleTick bool
	// prewarming is set while a prewarmMsg is on its way.
	prewarming bool
	// painter paints the frames when the program runs on a terminal (nil
	// in tests and when Bubble Tea's renderer draws).
	painter *painter.Painter
	// spin delivers the spinner ticks in a program (nil in tests, where
	// tea.Tick does).
	spin  *spinTimer
	frame int

	keyState keys.State  // what the keys were last enabled for
	memo     *chromeMemo // last renderings of the input, status and help

	perms      Permissions
	appr       approvals
	lastFailed bool // the last turn ended in an error: ctrl+r retries it
	// lateErr is the error a finished turn showed before its ErrorEvent
	// came (the pump delivers a turn's end after its events, so only a
	// model without a pump sees this): that event is not shown again.
	lateErr string

	// The screen shown in place of the conversation (nil: none; a child's
	// view is made when shown, see shownChild), and the screens kept: the
	// crew overview and /mcp.
	scr screens.Screen
	ov  *screens.CrewOverview
	mp  *screens.MCPPanel
	// Crew: the child the input is addressed to, and whether a
	// background result started the main agent's current turn.
	addr *address
	cost CostFunc
	// worktrees manages isolated children's worktrees; nil outside git.
	worktrees Worktrees
	bgTurn    bool
	// hooks lists the hooks for /hooks (nil: hooks are off); notifier
	// calls the user back; unfocused: the terminal reported losing focus.
	hooks     HooksSource
	notifier  *notify.Notifier
	unfocused bool

	pump          *eventPump
	ctx           context.Context
	compacting    bool // a /compact runs
	cancel        context.CancelFunc
	clock         func() time.Time
	initialPrompt string
	// afterFirstFrame is Options.AfterFirstFrame.
	afterFirstFrame func()
	// quitArmed is set by a ctrl+c on an empty input: a second one within
	// quitWindow quits. quitID tags the tick that disarms it.
	quitArmed bool
	// rewindArmed is set by esc on an empty input while nothing runs: a
	// second esc opens /rewind.
	rewindArmed bool
	// rewinding is set while a rewind runs: another waits for it.
	rewinding bool
	quitID    int
	// load is set while Options.Load reads the resumed session.
	load *sessionLoad
	// clearing is set while /clear resets the engine.
	clearing bool
	// welcome is the card the conversation opened with, shown again after
	// /clear; nil when it had none.
	welcome   *transcript.Welcome
	quitAfter time.Duration // quitWindow; tests shorten it
	// kx is the state of the key flow: the help page, an armed cancel, a
	// passing hint, an approval's grace (keyflow.go).
	kx keyFlow
	// play is the playback of a recorded session (nil: a live one).
	play *player
}

// firstFrameDelay is how long after Init the first frame is surely drawn
// (Bubble Tea renders at 60 frames a second).
const firstFrameDelay = 20 * time.Millisecond

// turn is the user turn being run by the engine.
type turn struct {
	id       int
	cancel   context.CancelFunc
	errShown bool // an ErrorEvent already told the user what went wrong
	// cancelling is set once the user asked to stop it: a second ctrl+c
	// then goes on to clear and quit.
	cancelling bool
	// interrupted is set when the transcript already marks its answer
	// cut: "turn cancelled" would say it twice.
	interrupted bool
}

// turnDoneMsg reports that Engine.Run returned for turn id.
type turnDoneMsg struct {
	id  int
	err error
}

// tickMsg advances spinners; ticks of an older id are stale and dropped.
type tickMsg struct{ id int }

// prewarmMsg asks for more block heights to be measured after a resize.
type prewarmMsg struct{}

// submitMsg sends text as if typed (the initial prompt).
type submitMsg struct{ text string }

// quitExpiredMsg ends the window in which a second ctrl+c quits; a tick of
// an older window (an older id) is stale.
type quitExpiredMsg struct{ id int }

// childCancelledMsg reports the outcome of cancelling one child.
type childCancelledMsg struct {
	agentID string
	ok      bool
}

// New builds the root model. It starts nothing: Init starts the event pump.
func New(opts Options) Model {
	return newModel(context.Background(), opts)
}

func newModel(ctx context.Context, opts Options) Model {
	th := opts.Theme
	if th == nil {
		th = theme.New(theme.ModeDark, true, false)
	}
	styles := &th.Styles
	mdStyle := opts.MarkdownStyle
	if mdStyle == "" {
		mdStyle = "dark"
		if th.NoColor {
			mdStyle = "notty"
		}
	}
	km := keys.Default()
	ctx, cancel := context.WithCancel(ctx)
	hintKeys := km // the help text blocks show; never enabled or disabled
	liveKeys := km // the bindings enabled for the state (layout)
	tr := transcript.New(transcript.RenderContext{Styles: styles, Markdown: markdown.NewRenderer(mdStyle, styles), Keys: &transcript.Keys{Toggle: hintKeys.Toggle, Bottom: hintKeys.Bottom}})
	m := Model{
		engine:          opts.Engine,
		agents:          opts.Agents,
		agentProblems:   opts.AgentProblems,
		styles:          styles,
		keys:            &liveKeys,
		help:            newHelp(styles),
		cmds:            withCustom(defaultCommands(km), opts.Commands),
		skills:          opts.Skills,
		memory:          opts.Memory,
		tr:              tr,
		rt:              newRouter(tr),
		input:           input.New(styles, input.KeysOf(km)),
		status:          status.New(styles, opts.Workspace, opts.PermissionMode),
		ctx:             ctx,
		cancel:          cancel,
		clock:           time.Now,
		initialPrompt:   opts.InitialPrompt,
		afterFirstFrame: opts.AfterFirstFrame,
		memo:            &chromeMemo{},
		quitAfter:       quitWindow,
		kx:              keyFlow{graceFor: opts.ApprovalGrace},
	}
	m.autoTheme, m.dark = opts.OnBackground != nil, th.Dark
	m.comp = newCompletion(m.cmds, km, styles)
	m.comp.SetAgents(agentEntries(opts.Agents))
	m.ov = screens.NewCrewOverview(styles, m.keys)
	m.mp = screens.NewMCPPanel(styles, m.keys)
	m.cost = opts.Cost
	m.worktrees = opts.Worktrees
	m.hooks, m.notifier = opts.Hooks, opts.Notify
	m.sl = newStatusLine(opts.StatusLine, m.clock())
	m.rt.cost = opts.Cost
	m.rt.keepLog = true
	m.rt.retryHint = km.Retry.Help().Key + " retries"
	m.status.SetInterrupt(km.Cancel.Help().Key + " interrupt")
	if opts.Engine != nil {
		m.status.SetModel(opts.Engine.Model())
		m.rt.mainModel = opts.Engine.Model()
	}
	if opts.Permissions != nil {
		m.perms = opts.Permissions
		m.status.SetMode(string(opts.Permissions.Mode()))
	}
	if opts.Events != nil || opts.Approver != nil {
		m.pump = newEventPump(opts.Events, batchInterval)
		if opts.Approver != nil {
			m.pump.asks = opts.Approver.asks
		}
	}
	if opts.Welcome != nil {
		m.welcome = opts.Welcome
		m.tr.Append(newWelcomeBlock(*opts.Welcome, km))
	}
	if opts.Playback != nil {
		m.play = newPlayer(opts.Playback, time.Now)
		m.clock = m.play.now
		m.status.SetModel(opts.Playback.Model)
		m.rt.mainModel = opts.Playback.Model
		m.status.SetInterrupt("")
		m.input.Blur()
		if opts.Playback.Note != "" {
			m.notice(transcript.NoticeInfo, opts.Playback.Note)
		}
	}
	m.replay(opts.Replay, opts.ResumeNote)
	if opts.Load != nil {
		m.startLoading(opts.Load)
	}
	if note := agentProblemsNote(opts.AgentProblems); note != "" {
		m.notice(transcript.NoticeWarning, note)
	}
	for _, w := range opts.Warnings {
		m.notice(transcript.NoticeWarning, w)
	}
	m.width, m.height = 80, 24
	m.layout()
	return m
}

func newHelp(styles *theme.Styles) help.Model {
	h := help.New()
	h.Styles.ShortKey = styles.Help.Key
	h.Styles.ShortDesc = styles.Help.Desc
	h.Styles.ShortSeparator = styles.Help.Sep
	h.Styles.FullKey = styles.Help.Key
	h.Styles.FullDesc = styles.Help.Desc
	h.Styles.FullSeparator = styles.Help.Sep
	h.Styles.Ellipsis = styles.Help.Sep
	return h
}

// Init starts the event pump and sends the initial prompt, if any.
func (m Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if m.pump != nil {
		cmds = append(cmds, startPump(m.ctx, m.pump))
		if m.pump.send == nil {
			cmds = append(cmds, waitForEvents(m.pump.out))
		}
	}
	if m.initialPrompt != "" {
		text := m.initialPrompt
		cmds = append(cmds, func() tea.Msg { return submitMsg{text: text} })
	}
	if m.worktrees != nil {
		cmds = append(cmds, checkOrphans(m.ctx, m.worktrees))
	}
	if m.load != nil {
		cmds = append(cmds, m.loadCmd())
	}
	if m.play != nil {
		cmds = append(cmds, m.play.schedule())
	}
	if f := m.afterFirstFrame; f != nil {
		// Bubble Tea draws the first frame right after Init; a frame's
		// time later it is on the screen.
		cmds = append(cmds, tea.Tick(firstFrameDelay, func(time.Time) tea.Msg { f(); return nil }))
	}
	return tea.Batch(cmds...)
}

// Update routes one message, then lays the screen out again.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.step(msg)
	return m, cmd
}

// step is Update in place. The program runs the model through a pointer
// (see painterModel): the Model is tens of kilobytes, and Bubble Tea's
// value-typed Update copied it twice and allocated it once per message.
func (m *Model) step(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(tickMsg); !ok {
		m.advanceFrame()
	}
	m.idleTick = false
	cmd := m.update(msg)
	m.layout()
	return tea.Batch(cmd, m.ensureTick(), m.ensurePrewarm(), m.takeGraceCmd(), m.statusLineCmd())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		// A new width makes heights estimates; Update's ensurePrewarm
		// draws the ones near the view in the background.
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 {
			// Several characters in one read are text (typed faster than
			// covey read them, or pasted without bracketed paste), never
			// a key: "up" typed quickly must not recall history. Marked
			// as pasted, they match no binding and the input takes them.
			msg.Paste = true
		}
		return m.handleKey(msg)
	case tea.MouseMsg:
		m.handleMouse(msg)
	case statusLineMsg:
		return m.statusLineDone(msg)
	case backgroundMsg:
		m.handleBackground(msg)
	case eventsMsg:
		m.eventsAt = m.clock()
		m.spin.putOff(tickInterval)
		cmd := m.handleEvents(msg.events)
		if m.pump != nil && m.pump.send == nil {
			return tea.Batch(cmd, waitForEvents(m.pump.out))
		}
		return cmd
	case eventsClosedMsg:
		// The engine is gone; nothing more will arrive.
	case tea.FocusMsg:
		m.unfocused = false
	case tea.BlurMsg:
		m.unfocused = true
	case turnDoneMsg:
		return m.handleTurnDone(msg)
	case playTickMsg:
		return m.playTick(msg)
	case tickMsg:
		if msg.id != m.tickID || !m.ticking {
			return nil
		}
		// While events stream, their frames move the spinners (see
		// advanceFrame and idleTick); otherwise a frame drawn in the last
		// interval has moved them already.
		switch {
		case m.clock().Sub(m.eventsAt) < 2*batchInterval:
			m.idleTick = true
		case m.clock().Sub(m.frameAt) >= tickInterval:
			m.frame++
			m.frameAt = m.clock()
		}
		if m.needsTick() {
			return m.tick()
		}
		m.ticking = false
	case prewarmMsg:
		m.prewarming = false
		if m.tr.PrewarmNear(prewarmPerFrame) {
			m.prewarming = true
			return func() tea.Msg { return prewarmMsg{} }
		}
	case submitMsg:
		return m.submit(msg.text)
	case sessionLoadedMsg:
		return m.handleLoaded(msg)
	case clearedMsg:
		return m.handleCleared()
	case modelSetMsg:
		m.status.SetModel(msg.model)
		m.notice(transcript.NoticeInfo, "model set to "+msg.model+msg.wire+" for the next turns")
	case graceMsg:
		m.endGrace(msg)
	case quitExpiredMsg:
		if msg.id == m.quitID {
			m.disarmQuit()
		}
	case childCancelledMsg:
		if !msg.ok {
			m.notice(transcript.NoticeWarning, "subagent "+msg.agentID+" was not running")
		}
	case reportDoneMsg:
		m.handleReportDone(msg)
	case compactDoneMsg:
		m.handleCompactDone(msg)
	case undoDoneMsg:
		m.handleUndoDone(msg)
	case worktreesMsg:
		m.notice(msg.level, msg.text)
	default:
		if cmd, ok := m.updateCrew(msg); ok {
			return cmd
		}
		if cmd, ok := m.updateRewind(msg); ok {
			return cmd
		}
		if cmd, ok := m.updateInputExtras(msg); ok {
			return cmd
		}
		return tea.Batch(m.updateApproval(msg), m.updateScreen(msg))
	}
	return nil
}

// handleEvents routes one batch of agent events to their blocks, and the
// approval requests among them to the approval queue.
func (m *Model) handleEvents(events []agent.Event) tea.Cmd {
	var cmds []tea.Cmd
	m.rt.now = m.clock()
	m.rt.mainModel = m.status.Model()
	for _, ev := range events {
		if a, ok := ev.(approvalEvent); ok {
			cmds = append(cmds, m.enqueueApproval(a.p))
			if !a.p.turn { // a request waiting its turn asks nothing yet
				m.notifier.Notify(notify.MomentApproval, notify.ApprovalMessage(a.p.req))
			}
			continue
		}
		if e, ok := ev.(agent.ErrorEvent); ok && m.turn == nil && m.lateErr != "" && !e.From().IsChild() && e.Message == m.lateErr {
			m.lateErr = ""
			continue
		}
		if d, ok := ev.(turnDoneEvent); ok {
			// Every event the turn emitted came before it in the stream.
			cmds = append(cmds, m.handleTurnDone(d.msg))
			continue
		}
		eff := m.rt.route(ev)
		m.routeToView(ev)
		if cmd := m.refreshShellView(ev); cmd != nil {
			cmds = append(cmds, cmd)
		}
		if _, ok := ev.(agent.MCPStatus); ok {
			m.refreshMCP()
		}
		if _, ok := ev.(agent.ToolFinished); ok {
			m.refreshDiagnostics()
		}
		if eff.background && m.turn == nil {
			// The engine calls the main agent with the child's result:
			// a turn the UI did not start, shown running until its Done.
			m.bgTurn = true
			m.status.SetRunning(m.clock())
		}
		if eff.retrying {
			m.status.SetRetry(eff.retryReason, m.clock().Add(eff.retryWait))
		} else if !ev.From().IsChild() {
			// Any other word from the main agent means the retry went out.
			m.status.SetRetry("", time.Time{})
		}
		if eff.interrupted && m.turn != nil {
			m.turn.interrupted = true
		}
		if eff.done {
			m.status.SetIdle(m.bgTurn && m.turn == nil)
			m.bgTurn = false
			if m.unfocused {
				m.notifier.Notify(notify.MomentTurnEnd, "the turn ended")
			}
		}
		if f, ok := ev.(agent.ChildFinished); ok {
			if b := m.rt.children[f.AgentID]; b != nil && b.Background() {
				m.notifier.Notify(notify.MomentBackground, "background agent "+firstNonEmpty(f.Name, f.Description)+" "+agent.EndVerb(f.Reason))
			}
		}
		if _, ok := ev.(agent.ErrorEvent); ok && !ev.From().IsChild() && m.turn != nil {
			m.turn.errShown = true
		}
	}
	return tea.Batch(cmds...)
}

// handleTurnDone ends the turn and sends the next queued message.
func (m *Model) handleTurnDone(msg turnDoneMsg) tea.Cmd {
	if m.turn == nil || msg.id != m.turn.id {
		return nil
	}
	t := m.turn
	t.cancel()
	m.turn = nil
	m.status.SetIdle(true)
	m.status.SetRetry("", time.Time{})
	// The answer block is finished by the turn's own Done event, which the
	// event pump may still hold for a frame: finishing it here would split
	// a late chunk into a second block.
	nothingSent := errors.Is(msg.err, hooks.ErrPromptBlocked) || errors.Is(msg.err, agent.ErrNothingToRetry)
	m.lastFailed = t.errShown || (msg.err != nil && !errors.Is(msg.err, context.Canceled) && !nothingSent)
	switch {
	case errors.Is(msg.err, context.Canceled):
		if !t.interrupted {
			m.notice(transcript.NoticeInfo, "turn cancelled")
		}
	case errors.Is(msg.err, agent.ErrNothingToRetry):
		m.notice(transcript.NoticeInfo, msg.err.Error())
	case errors.Is(msg.err, hooks.ErrPromptBlocked):
		// Nothing was sent: there is nothing to retry.
		m.notice(transcript.NoticeWarning, msg.err.Error())
	case msg.err != nil && !t.errShown:
		m.lateErr = msg.err.Error()
		m.notice(transcript.NoticeError, m.rt.withRetryHint(m.lateErr))
	}
	if next, ok := m.input.Dequeue(); ok {
		return m.startQueued(next)
	}
	return nil
}

// submit sends text: a slash command runs, a message starts a turn or waits
// in the queue while one runs.
func (m *Model) submit(text string) tea.Cmd {
	if m.holdWhileLoading(text) {
		return nil
	}
	if name, arg, ok := parseCommand(text); ok {
		return m.runCommand(name, arg)
	}
	if cmd, ok := m.startByName(text); ok {
		return cmd
	}
	if command, ok := shellCommand(text); ok {
		return m.runShell(command)
	}
	if m.turn != nil || m.clearing {
		m.input.Enqueue(text)
		return nil
	}
	return m.startTurn(text)
}

// startTurn shows the user's message and runs the engine in a command.
func (m *Model) startTurn(text string) tea.Cmd {
	m.tr.Append(transcript.NewUserBlock(m.input.TakeShown(text)))
	m.tr.Bottom()
	return m.runTurn(func(ctx context.Context, e Engine) error { return e.Run(ctx, text) })
}

// runTurn runs one turn of the engine (a new message or a retry) in a
// command; the turn ends with its turnDoneMsg.
func (m *Model) runTurn(run func(context.Context, Engine) error) tea.Cmd {
	if m.engine == nil {
		m.notice(transcript.NoticeError, "no engine configured")
		return nil
	}
	m.lastFailed = false
	m.lateErr = ""
	m.turnSeq++
	ctx, cancel := context.WithCancel(m.ctx)
	id := m.turnSeq
	m.turn = &turn{id: id, cancel: cancel}
	m.status.SetRunning(m.clock())
	engine := m.engine
	pump := m.pump
	return func() tea.Msg {
		done := turnDoneMsg{id: id, err: run(ctx, engine)}
		// Through the pump, the turn ends after the last of its events
		// (its answer, its error), never before them.
		if pump != nil && pump.endTurn(done) {
			return nil
		}
		return done
	}
}

// cancelTurn cancels the running turn and, with it, every child.
func (m *Model) cancelTurn() {
	if m.turn != nil {
		m.turn.cancel()
		m.turn.cancelling = true
		m.status.SetNote("cancelling…")
	}
}

// quit cancels any running turn and the pump, then ends the program.
func (m *Model) quit() tea.Cmd {
	m.cancelTurn()
	m.cancel()
	return tea.Quit
}

// notice appends a notice block.
func (m *Model) notice(level transcript.NoticeLevel, text string) {
	m.tr.Append(transcript.NewNoticeBlock(level, text))
}

func (m *Model) needsTick() bool {
	cv := m.shownChild()
	return m.status.Running() || m.tr.AnyLive() || (cv != nil && cv.AnyLive())
}

// ensurePrewarm asks for a prewarm message when blocks near the view are
// estimates (after a scroll into a region not drawn at this width) and
// none is on its way.
func (m *Model) ensurePrewarm() tea.Cmd {
	if m.prewarming || !m.tr.NeedsPrewarm() {
		return nil
	}
	m.prewarming = true
	return func() tea.Msg { return prewarmMsg{} }
}

// ensureTick starts the spinner tick when something became live.
func (m *Model) ensureTick() tea.Cmd {
	if m.ticking || !m.needsTick() {
		return nil
	}
	m.ticking = true
	m.frameAt = m.clock()
	m.tickID++
	return m.tick()
}

// advanceFrame moves the spinners on when a frame is drawn for another
// reason (events stream in at 20 batches a second) and the last move is a
// tick interval old, so the tick itself finds nothing to move and its
// frame paints nothing: while output streams, spinners cost no frames of
// their own.
func (m *Model) advanceFrame() {
	if m.ticking && m.clock().Sub(m.frameAt) >= tickInterval {
		m.frame++
		m.frameAt = m.clock()
	}
}

// tick asks for the next spinner tick, a tick interval from now.
func (m *Model) tick() tea.Cmd {
	if m.spin != nil && m.spin.send != nil {
		m.spin.arm(m.tickID, tickInterval)
		return nil
	}
	id := m.tickID
	return tea.Tick(tickInterval, func(time.Time) tea.Msg { return tickMsg{id: id} })
}

// spinTimer delivers the spinner's ticks when the model runs in a program:
// one timer, which every batch of events pushes back. While output streams
// a batch comes every 50 ms and moves the spinners itself (advanceFrame),
// so the tick never fires. A fired tick woke the whole program for an
// update that, while events stream, moves and paints nothing: ten a second
// cost some 7% of the TUI's CPU over a streamed answer (docs/performance.md,
// "Issue 22, fourth pass"). Used from the program's goroutine only; the
// timer's function uses nothing but what it captured.
type spinTimer struct {
	send  func(tea.Msg) // the program's Send; nil until the program exists
	id    int           // the tick id the timer delivers
	timer *time.Timer
}

// arm makes the timer deliver tickMsg{id} after d.
func (s *spinTimer) arm(id int, d time.Duration) {
	if s.timer != nil && s.id == id {
		s.timer.Reset(d)
		return
	}
	s.stop()
	s.id = id
	send := s.send
	s.timer = time.AfterFunc(d, func() { send(tickMsg{id: id}) })
}

// putOff moves a tick still to come to d from now; a tick already on its
// way is left alone (its handling arms the next one).
func (s *spinTimer) putOff(d time.Duration) {
	if s != nil && s.timer != nil && s.timer.Stop() {
		s.timer.Reset(d)
	}
}

// stop drops a tick still to come.
func (s *spinTimer) stop() {
	if s != nil && s.timer != nil {
		s.timer.Stop()
	}
}

// layout gives every component its size and the frame's clock, and sets
// which keys apply.
func (m *Model) layout() {
	now := m.clock()
	ab := m.appr.block
	m.keyState = keys.State{
		Focus:         m.focus,
		InputEmpty:    m.input.Value() == "",
		Completing:    m.popupOpen(),
		CompletingAt:  m.popupOpen() && m.comp.CompletesAt(),
		Running:       m.turn != nil || m.bgTurn,
		HistoryAtEdge: m.input.HasHistory(),
		Pasted:        m.input.HasPastes(),
		Shell:         m.input.Shell(),
		Approval:      ab.KeyState(),
		CanGrant:      m.perms != nil,
		CanCycle:      m.perms != nil,
		CanRetry:      m.lastFailed && m.engine != nil,
		Addressing:    m.addr != nil,
		Screen:        m.screenKeyState(),
		Child:         m.childKeyState(),
		BackTo:        m.backTo(),
		Replay:        m.play != nil,
	}
	m.keys.Apply(m.keyState)
	m.keys.Help.SetHelp(keys.Name(m.keys.Help), m.helpKeyDesc())
	m.help.Width = m.width
	m.input.SetSize(m.width)
	m.comp.SetSize(m.width)
	m.status.SetSize(m.width)
	m.status.SetFrame(now, m.frame, m.rt.usage)
	m.markPausedWaits()
	m.status.SetContext(m.rt.fill.Tokens, m.rt.fill.Window)
	m.help.ShowAll = m.fullHelp

	fixed := m.inputHeight() + 1 + m.sl.height() + m.helpHeight()
	if m.popupOpen() {
		fixed += m.comp.Height()
	}
	trHeight := max(1, m.height-fixed)
	if ab != nil {
		ab.SetRows(trHeight - approval.Chrome) // a change re-measures it (changes)
	}
	m.tr.SetClock(now, m.frame)
	m.tr.SetSize(m.width, trHeight)
	if m.scr == nil {
		return
	}
	if cv := m.shownChild(); cv != nil {
		cv.SetClock(now, m.frame)
		cv.ShowApproval(m.viewApproval())
	}
	m.scr.SetSize(m.width, trHeight)
	if m.scr == screens.Screen(m.ov) {
		// The overview draws from the panes themselves.
		m.ov.SetRows(m.rt.tree(), now, m.cost != nil)
	}
}

// popupOpen reports whether the command popup shows: it belongs to the
// input, so only while the input has the focus.
func (m *Model) popupOpen() bool {
	return m.comp.Open() && m.focus != keys.FocusTranscript && m.focus != keys.FocusApproval
}

func (m *Model) helpHeight() int {
	if !m.fullHelp {
		return 1
	}
	return len(m.helpLines())
}

// escNote says what esc leaves running; the full help ends with it while
// esc cancels a turn, and /help says it too. The keys come from k.
func escNote(k keys.KeyMap) string {
	return keys.Name(k.Cancel) + " cancels the turn and its foreground subagents; background subagents keep running (" +
		keys.Name(k.CancelChild) + " cancels one)"
}

// helpLines are the lines of the help: the one-line hint, or the page of
// the full help shown, with escNote under it while esc cancels a turn.
func (m *Model) helpLines() []string {
	if !m.fullHelp {
		var skip []key.Binding
		if m.viewBarShown() {
			skip = keys.Enabled(m.scr.ShortHelp())
		}
		return []string{m.keys.ShortHelpLine(m.styles, m.width, skip)}
	}
	pages := m.helpPages()
	return pages[min(m.kx.helpPage, len(pages)-1)]
}

// helpKeyDesc says what ? does next: with the full help open it turns
// its page or hides it, so the full help does not offer "more keys". The
// three words have one width: the pages do not change with them.
func (m *Model) helpKeyDesc() string {
	if !m.fullHelp {
		return "more keys"
	}
	if m.kx.helpPage < len(m.helpPages())-1 {
		return "next page"
	}
	return "hide keys"
}

// minTranscriptRows is what the full help leaves of the transcript at
// least; taller help is paged.
const minTranscriptRows = 3

// helpPages is the full help cut into pages that leave the transcript a
// few rows.
func (m *Model) helpPages() [][]string {
	var lead [][]key.Binding
	if m.focus == keys.FocusScreen {
		lead = m.scr.FullHelp()
	}
	lines := m.keys.FullHelpLines(m.styles, m.width, lead)
	if m.keys.Cancel.Enabled() {
		for _, l := range cells.Wrap(escNote(*m.keys), m.width) {
			lines = append(lines, m.styles.Help.Desc.Render(l))
		}
	}
	rows := m.height - m.inputHeight() - 1 - minTranscriptRows
	return m.keys.HelpPages(m.styles, lines, rows)
}

// helpView is the help line (or the full help), every line cut to the
// width: bubbles' help lets the short line run past its width when the
// items before the cut leave no room for its ellipsis.
func (m *Model) helpView() string {
	lines := m.helpLines()
	for i, l := range lines {
		lines[i] = cells.Fit(l, m.width)
	}
	return strings.Join(lines, "\n")
}

// View draws the transcript, the command popup, the input, the status bar
// and the help line.
func (m Model) View() string { return m.render() }

// render is View without copying the Model. The memoised parts are drawn
// by closures, not method values, which would copy their receiver (the
// input, the whole Model for the help) on every frame, memo hit or not.
func (m *Model) render() string {
	var b strings.Builder
	if m.scr != nil {
		b.WriteString(m.scr.View())
	} else {
		b.WriteString(m.tr.View())
	}
	if m.popupOpen() {
		b.WriteByte('\n')
		b.WriteString(m.comp.View())
	}
	b.WriteByte('\n')
	if m.play != nil {
		b.WriteString(m.replayBar())
	} else if m.viewBarShown() {
		b.WriteString(m.styles.Input.Border.Render(strings.Repeat("─", max(m.width, 0))))
		b.WriteByte('\n')
		b.WriteString(m.keys.ViewBar(m.styles, m.scr.Title(), m.scr.ShortHelp(), m.width))
	} else {
		b.WriteString(m.memo.input.get(m.input.Key(), func() string { return m.input.View() }))
	}
	b.WriteByte('\n')
	b.WriteString(m.memo.status.get(m.status.Key(), func() string { return m.status.View() }))
	b.WriteByte('\n')
	if m.sl.active() {
		b.WriteString(m.sl.view(m.width))
		b.WriteByte('\n')
	}
	b.WriteString(m.memo.help.get(helpKey{width: m.width, height: m.height, full: m.fullHelp, page: m.kx.helpPage, keys: m.keyState},
		func() string { return m.helpView() }))
	return b.String()
}
