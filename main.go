// Command covey is a full-screen terminal coding agent whose subagents work
// in parallel, live, in collapsible panes. See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes: 0 success, 1 a run error, 2 a usage error.
const (
	exitOK    = 0
	exitRun   = 1
	exitUsage = 2
)

// flagOverrides are the command-line values that override config.
type flagOverrides struct {
	model, baseURL, provider string
}

// options are the parsed command line.
type options struct {
	prompt         string
	promptSet      bool
	outputFormat   string
	maxTurns       int
	permissionMode string
	theme          string
	demo           bool
	showVersion    bool
	cont           bool
	resume         string
	resumeSet      bool
	debug          bool
	log            *debugLog
	flags          flagOverrides
	args           []string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usageError marks errors in how covey was called (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	opts, err := parseArgs(argv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitUsage
	}
	if opts.showVersion {
		fmt.Fprintln(stdout, "covey", version)
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opts.debug {
		if opts.log, err = openDebugLog(); err != nil {
			fmt.Fprintln(stderr, "covey:", err)
			return exitUsage
		}
		defer opts.log.close(stderr)
	}
	// The last line of defence: the TUI restores the terminal itself; this
	// makes sure a crash anywhere else still ends with a message, not a
	// stack dump over a broken screen.
	defer func() {
		if p := recover(); p != nil {
			opts.log.errorf("panic: %v\n%s", p, debug.Stack())
			fmt.Fprintf(stderr, "covey crashed: %v\n%s", p, debug.Stack())
			if opts.log == nil {
				fmt.Fprintln(stderr, "covey: rerun with --debug to keep a log")
			}
			code = exitRun
		}
	}()

	if len(opts.args) > 0 {
		switch opts.args[0] {
		case "agents":
			return cmdAgents(opts.args[1:], stdout, stderr)
		case "tool":
			return cmdTool(ctx, opts, opts.args[1:], stdout, stderr)
		case "sessions":
			return cmdSessions(stdout, stderr)
		case "worktrees":
			return cmdWorktrees(ctx, opts.args[1:], stdout, stderr)
		}
	}
	if opts.promptSet {
		prompt := opts.prompt
		if prompt == "-" {
			data, err := io.ReadAll(stdin)
			if err != nil {
				fmt.Fprintln(stderr, "covey: read prompt from stdin:", err)
				return exitUsage
			}
			prompt = string(data)
		}
		if strings.TrimSpace(prompt) == "" {
			fmt.Fprintln(stderr, "covey: -p needs a prompt (or - to read it from stdin)")
			return exitUsage
		}
		return runHeadless(ctx, opts, prompt, stdout, stderr)
	}
	return runTUI(ctx, opts, stderr)
}

func parseArgs(argv []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("covey", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Func("p", "run headless with this `prompt` (- reads it from stdin) and print the answer", func(s string) error {
		o.prompt, o.promptSet = s, true
		return nil
	})
	fs.StringVar(&o.outputFormat, "output-format", "text", "headless output: text, json or stream-json")
	fs.StringVar(&o.flags.model, "model", "", "model `name` for the main agent")
	fs.StringVar(&o.flags.baseURL, "base-url", "", "OpenAI-compatible endpoint `URL` (e.g. http://localhost:11434/v1)")
	fs.StringVar(&o.flags.provider, "provider", "", "provider profile `name` from config")
	fs.IntVar(&o.maxTurns, "max-turns", 0, "stop after this many model requests in one run (0: config, default 50)")
	fs.StringVar(&o.permissionMode, "permission-mode", "", "default, acceptEdits, plan or bypassPermissions")
	fs.StringVar(&o.theme, "theme", "", "colours: dark, light or auto")
	fs.BoolVar(&o.demo, "demo", false, "run the TUI on a built-in scripted model: no key, no network")
	fs.BoolVar(&o.showVersion, "version", false, "print the version")
	fs.BoolVar(&o.cont, "continue", false, "resume the newest session of this workspace")
	fs.Func("resume", "resume session `ID` (without an ID: pick from a list)", func(s string) error {
		o.resume, o.resumeSet = s, true
		return nil
	})
	fs.BoolVar(&o.debug, "debug", false, "write a debug log (its path is printed on exit)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `covey: a terminal coding agent with live parallel subagents

Usage:
  covey [flags] [prompt]        full-screen session
  covey -p PROMPT [flags]       headless: answer on stdout, progress on stderr
  covey --demo                  try it without a key
  covey agents [--json]         list agent definitions and their problems
  covey tool NAME 'JSON'        run one tool here, print what the model would see
  covey sessions                list this workspace's sessions (IDs for --resume)
  covey worktrees [prune]       list isolated subagents' worktrees; prune those left behind
  covey --continue              resume the newest session here (also with -p)

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		return o, err
	}
	o.args = fs.Args()
	switch o.outputFormat {
	case "text", "json", "stream-json":
	default:
		return o, usageError{fmt.Sprintf("unknown --output-format %q: use text, json or stream-json", o.outputFormat)}
	}
	if o.permissionMode != "" {
		if _, err := parsePermissionMode(o.permissionMode); err != nil {
			return o, usageError{err.Error()}
		}
	}
	if o.maxTurns < 0 {
		return o, usageError{"--max-turns must be 0 or more"}
	}
	return o, nil
}
