// Command covey is a full-screen terminal coding agent whose subagents work
// in parallel, live, in collapsible panes. See README.md.
//
// This package is the command line and the wiring: it parses flags, builds a
// session (package session) and hands it to the TUI (package ui) or the
// headless consumer (package headless), and turns the outcome into an exit
// code.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"covey/config"
	"covey/headless"
	"covey/internal/debuglog"
	"covey/internal/proctree"
	"covey/permission"
	"covey/sandbox"
	"covey/session"
	"covey/ui"
	"covey/ui/trustq"

	"github.com/charmbracelet/x/term"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes: 0 success, 1 a run error, 2 a usage or configuration error.
const (
	exitOK    = 0
	exitRun   = 1
	exitUsage = 2
)

// options are the parsed command line.
type options struct {
	prompt         string
	promptSet      bool
	outputFormat   string
	maxTurns       int
	permissionMode string
	sandboxMode    string
	theme          string
	demo           bool
	showVersion    bool
	cont           bool
	resume         string
	// forkSession (with --resume or --continue) goes on in a copy.
	forkSession  bool
	resumeSet    bool
	debug        bool
	log          *debuglog.Log
	flags        config.Overrides
	mcpConfigs   []string
	trustProject bool
	args         []string
}

func main() {
	// The sandbox helper entry is checked here, first, before any CLI
	// parsing: covey re-executes itself as the helper that confines a
	// command and then runs it.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		sandbox.RunHelper(os.Args[2:]) // never returns
	}
	restore := saveTerminal(os.Stdin, os.Stdout)
	stop := watchStop(os.Stderr, shutdownGrace, func(code int) {
		restore() // the TUI did not get to
		os.Exit(code)
	})
	stopProfile := startProfile()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	stop()
	os.Exit(code)
}

// shutdownGrace is how long covey may take to end by itself after SIGTERM,
// SIGINT or SIGHUP before it is stopped outright.
const shutdownGrace = 5 * time.Second

// saveTerminal notes the terminal's mode before the TUI changes it and
// returns what puts it back, for an exit that leaves the TUI no chance to:
// the saved mode, the main screen, the cursor, and no mouse or bracketed
// paste reports. Without a terminal it does nothing.
func saveTerminal(in, out *os.File) (restore func()) {
	if !term.IsTerminal(in.Fd()) {
		return func() {}
	}
	st, err := term.GetState(in.Fd())
	if err != nil {
		return func() {}
	}
	return func() {
		_ = term.Restore(in.Fd(), st)
		if term.IsTerminal(out.Fd()) {
			_, _ = out.WriteString("\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1049l\x1b[?25h\r\n")
		}
	}
}

// watchStop makes sure a signal ends every phase of covey: the context
// that run cancels stops what honours it (turns, tools, MCP, the TUI); a
// phase that does not (a read stuck on a file or a pipe) is ended by exit
// once grace has passed, or at once on a second signal. The processes
// covey's commands started (marked, see proctree) are killed first. The
// returned func stops watching.
func watchStop(stderr io.Writer, grace time.Duration, exit func(int)) (stop func()) {
	return watchStopOn(stderr, grace, exit, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

// watchStopOn is watchStop for the given signals (tests use their own).
func watchStopOn(stderr io.Writer, grace time.Duration, exit func(int), signals ...os.Signal) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, signals...)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		var timeout <-chan time.Time
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				if first == nil {
					first, timeout = sig, time.After(grace)
					continue
				}
			case <-timeout:
			}
			fmt.Fprintf(stderr, "\ncovey: %v: stopping now (it did not end by itself)\n", first)
			proctree.Kill(proctree.OwnerPrefix(os.Getpid()))
			code := 128 + 15
			if s, ok := first.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			exit(code)
			return
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// usageError marks errors in how covey was called (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitCode carries a command's exit code out of cobra; its message, if any,
// has been printed already.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit %d", int(c)) }

// run is main without the process around it: it parses argv, runs what it
// asks for and returns the exit code.
func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// SIGHUP too: a closed terminal must stop covey's commands, not orphan them.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	var o options
	root := newRootCmd(&o, stdin, stdout, stderr, func(ctx context.Context, o *options) int {
		return runMain(ctx, o, stdin, stdout, stderr)
	})
	root.SetArgs(normalizeArgs(argv))
	cmd, err := root.ExecuteContextC(ctx)
	o.log.Close(stderr)
	var code exitCode
	var usage usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, "covey:", usage.msg)
		return exitUsage
	default:
		// cobra's own complaints (missing arguments, unknown
		// subcommands) get the hint an unknown flag gets.
		fmt.Fprintf(stderr, "covey: %v (run %s --help)\n", err, cmd.CommandPath())
		return exitUsage
	}
}

// runMain is the root command: headless with -p, else the TUI.
func runMain(ctx context.Context, o *options, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	if o.showVersion {
		fmt.Fprintln(stdout, "covey", version)
		return exitOK
	}
	// The last line of defence: the TUI restores the terminal itself; this
	// makes sure a crash anywhere else still ends with a message, not a
	// stack dump over a broken screen.
	defer func() {
		if p := recover(); p != nil {
			o.log.Errorf("panic: %v\n%s", p, debug.Stack())
			fmt.Fprintf(stderr, "covey crashed: %v\n%s", p, debug.Stack())
			if o.log == nil {
				fmt.Fprintln(stderr, "covey: rerun with --debug to keep a log")
			}
			code = exitRun
		}
	}()
	if !o.promptSet {
		return runTUI(ctx, o, stderr)
	}
	prompt, err := headlessPrompt(o, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitUsage
	}
	if o.resumeSet && o.resume == "" {
		fmt.Fprintln(stderr, "covey: --resume needs a session ID with -p; list them with: covey sessions")
		return exitUsage
	}
	if name := tuiOnlyCommand(prompt); name != "" {
		fmt.Fprintf(stderr, "covey: /%s is a command of the full-screen session; -p runs the prompt, /init and the slash commands of your command files\n", name)
		return exitUsage
	}
	var (
		s *session.Session
		w folder
	)
	if o.demo {
		var stop func()
		s, stop, err = openDemoSession(o, nil)
		if stop != nil {
			defer stop()
		}
	} else {
		if w, err = loadWorkspace(o); err == nil {
			s, err = openSession(o, w, nil, false, false)
			if skipped := w.trust.Skipped(); len(skipped) > 0 {
				fmt.Fprintln(stderr, "covey:", skippedSettings(w.trust))
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitUsage
	}
	defer s.Close(stderr)
	if from, id := s.Forked(); from != "" {
		fmt.Fprintf(stderr, "covey: forked session %s as %s (the original is left as it was)\n", from, id)
	}
	if skipped := s.SkippedMCP(); len(skipped) > 0 {
		fmt.Fprintf(stderr, "covey: skipped the project's MCP servers %s: not trusted yet; %s, or pass the file with --mcp-config\n",
			strings.Join(skipped, ", "), howToTrust(w.trust))
	}
	if skipped := s.SkippedHooks(); len(skipped) > 0 {
		for i, h := range skipped {
			skipped[i] = trustq.Escape(h) // one line each, padding shown
		}
		fmt.Fprintf(stderr, "covey: skipped the project's hooks and status lines, not trusted yet: %s; %s\n",
			strings.Join(skipped, "; "), howToTrust(w.trust))
	}
	return headless.Run(ctx, s, prompt, o.outputFormat, stdout, stderr)
}

// tuiOnlyCommand names the built-in TUI command prompt is ("/cost"), ""
// when it is none: sent to the model as text, it would only confuse it.
// /init runs headless too.
func tuiOnlyCommand(prompt string) string {
	p := strings.TrimSpace(prompt)
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	name, _, _ := strings.Cut(p[1:], " ")
	name = strings.ToLower(name)
	if name != "init" && slices.Contains(ui.BuiltinCommandNames(), name) {
		return name
	}
	return ""
}

// maxStdinPrompt bounds a prompt read from stdin (/dev/zero is a stdin too).
const maxStdinPrompt = 16 << 20

// headlessPrompt is the prompt of a -p run: the flag's value, then any words
// after it (covey -p fix the bug is "fix the bug", not "fix"), or stdin for -.
func headlessPrompt(o *options, stdin io.Reader) (string, error) {
	prompt := strings.Join(append([]string{o.prompt}, o.args...), " ")
	if o.prompt == "-" {
		if len(o.args) > 0 {
			return "", fmt.Errorf("-p - reads the prompt from stdin, so %q has nowhere to go", strings.Join(o.args, " "))
		}
		data, err := io.ReadAll(io.LimitReader(stdin, maxStdinPrompt+1))
		if err != nil {
			return "", fmt.Errorf("read prompt from stdin: %w", err)
		}
		if len(data) > maxStdinPrompt {
			return "", fmt.Errorf("the prompt on stdin is longer than %d MB; pass a file's path in the prompt instead", maxStdinPrompt>>20)
		}
		prompt = string(data)
	}
	if strings.TrimSpace(prompt) == "" {
		return "", errors.New("-p needs a prompt (or - to read it from stdin)")
	}
	return prompt, nil
}

// check validates the parsed flags and opens the debug log.
func (o *options) check() error {
	if err := headless.CheckFormat(o.outputFormat); err != nil {
		return usageError{err.Error()}
	}
	if o.permissionMode != "" {
		if _, err := permission.ParseMode(o.permissionMode); err != nil {
			return usageError{err.Error()}
		}
	}
	if o.sandboxMode != "" {
		if _, err := sandbox.ParseMode(o.sandboxMode); err != nil {
			return usageError{err.Error()}
		}
	}
	if o.maxTurns < 0 {
		return usageError{"--max-turns must be 0 or more"}
	}
	if o.forkSession && !o.cont && !o.resumeSet {
		return usageError{"--fork-session goes with --resume ID or --continue: it copies that session"}
	}
	if o.debug && o.log == nil {
		var err error
		if o.log, err = debuglog.Open(); err != nil {
			return usageError{err.Error()}
		}
	}
	return nil
}
