package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"

	"covey/tools/toolname"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"covey/agent/sessionfile"
	"covey/agentdefs"
	"covey/config"
	"covey/internal/excerpt"
	"covey/permission"
	"covey/sandbox"
	"covey/session"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/workspace"
)

// newRootCmd builds the command line: the root command, which parses into o
// and calls runRoot (the TUI, or headless with -p), and its subcommands.
// Global flags are persistent, so they work after a subcommand too;
// a session's own flags are the root's alone.
func newRootCmd(o *options, stdin io.Reader, stdout, stderr io.Writer, runRoot func(context.Context, *options) int) *cobra.Command {
	root := &cobra.Command{
		Use:   "covey [flags] [prompt]",
		Short: "a terminal coding agent with live parallel subagents",
		Long:  "covey: a terminal coding agent with live parallel subagents",
		Example: `  covey                          full-screen session (a prompt after the flags is sent at once)
  covey -p "PROMPT" [flags]      headless: answer on stdout, progress on stderr
  covey --demo                   try it without a key
  covey --continue               resume the newest session here (also with -p)
  covey --resume [ID]            resume a session (without an ID: pick one)`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			o.promptSet = cmd.Flags().Changed("prompt")
			if !o.promptSet && cmd.Flags().Changed("output-format") {
				// The full-screen session would ignore it without a word.
				return usageError{"--output-format is for headless runs: add -p PROMPT"}
			}
			return asExit(runRoot(cmd.Context(), o))
		},
	}
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return o.check() }

	// Flags of a session (headless or full-screen) belong to the root
	// alone, so a subcommand given one says so instead of ignoring it;
	// the endpoint, the gate and MCP are global.
	f := root.Flags()
	f.BoolVarP(&o.showVersion, "version", "v", false, "print the version")
	f.StringVarP(&o.prompt, "prompt", "p", "", "run headless with this `PROMPT` (- reads it from stdin) and print the answer")
	f.StringVar(&o.outputFormat, "output-format", "text", "headless output `FORMAT`: text, json or stream-json")
	f.IntVar(&o.maxTurns, "max-turns", 0, "stop after `N` model requests in one run (0: config, default 50)")
	f.StringVar(&o.theme, "theme", "", "colours (`THEME`): dark, light or auto")
	f.BoolVar(&o.demo, "demo", false, "run on a built-in scripted model: no key, no network (with or without -p)")
	f.BoolVarP(&o.cont, "continue", "c", false, "resume the newest session of this workspace")
	f.VarP(&optionalID{val: &o.resume, set: &o.resumeSet}, "resume", "r", "resume session `ID` (without an ID: pick from a list)")
	f.Lookup("resume").NoOptDefVal = pickSentinel
	f.BoolVar(&o.forkSession, "fork-session", false, "with --resume or --continue: go on in a copy with a new ID (the original is left as it was)")
	pf := root.PersistentFlags()
	pf.StringVar(&o.flags.Model, "model", "", "model `NAME` for the main agent (also COVEY_MODEL)")
	pf.StringVar(&o.flags.BaseURL, "base-url", "", "OpenAI-compatible endpoint `URL` (e.g. http://localhost:11434/v1)")
	pf.StringVar(&o.flags.Provider, "provider", "", "provider profile `NAME` from config")
	pf.StringVar(&o.flags.API, "api", "", "the wire (`API`) the endpoint speaks: chat (Chat Completions), responses (OpenAI Responses) or anthropic (Anthropic Messages); default: picked from the base URL, keys and model")
	pf.StringVar(&o.permissionMode, "permission-mode", "", "permission `MODE`: default, acceptEdits, plan or bypassPermissions")
	pf.StringVar(&o.sandboxMode, "sandbox", "", "confine bash (`MODE`): workspace-write (writes only in the workspace, temp and caches; the default on Linux) or off")
	pf.BoolVar(&o.debug, "debug", false, "write a debug log (its path is printed on exit)")
	pf.BoolVar(&o.trustProject, "trust-project", false, "trust this folder's settings, hooks and MCP servers for this run (see docs/permissions.md)")
	pf.StringArrayVar(&o.mcpConfigs, "mcp-config", nil, "MCP servers from this JSON `FILE` or JSON string ({\"mcpServers\": …}; repeatable)")

	root.AddCommand(agentsCmd(o, stdout, stderr), pluginsCmd(stdout, stderr), toolCmd(o, stdout, stderr), sessionsCmd(stdout, stderr), exportCmd(stdout, stderr), worktreesCmd(stdout, stderr),
		mcpCmd(o, stdout, stderr), reportCmd(stdout, stderr), replayCmd(stderr))
	// "covey help me fix this" is a prompt, not a request for help on a
	// command called "me": -h and --help show help.
	root.SetHelpCommand(&cobra.Command{Use: "no-help", Hidden: true})
	root.CompletionOptions.DisableDefaultCmd = true
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{fmt.Sprintf("%v (run %s --help)", err, cmd.CommandPath())}
	})
	cobra.AddTemplateFunc("flagList", flagList)
	root.SetUsageTemplate(usageTemplate)
	return root
}

// usageTemplate is cobra's usage in the shape GNU tools use: the
// description, commands, then every flag as "-p, --prompt PROMPT".
const usageTemplate = `Usage:
{{- if .Runnable}}
  {{.UseLine}}{{end}}
{{- if .HasExample}}

Examples:
{{.Example}}{{end}}
{{- if .HasAvailableSubCommands}}

Commands:
{{- range .Commands}}{{if .IsAvailableCommand}}
  {{rpad .Name .NamePadding}}  {{.Short}}{{end}}{{end}}{{end}}
{{- if .HasAvailableLocalFlags}}

Flags:
{{flagList .LocalFlags}}{{end}}
{{- if .HasAvailableInheritedFlags}}

Global flags:
{{flagList .InheritedFlags}}{{end}}
{{- if .HasAvailableSubCommands}}

Run "{{.CommandPath}} COMMAND --help" for more about a command.{{end}}
`

// flagList lists flags as "  -p, --prompt PROMPT   text", aligned.
func flagList(fs *pflag.FlagSet) string {
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		name, usage := pflag.UnquoteUsage(f)
		left := "    "
		if f.Shorthand != "" {
			left = "-" + f.Shorthand + ", "
		}
		left += "--" + f.Name
		switch {
		case f.NoOptDefVal != "" && name != "":
			left += " [" + name + "]"
		case name != "" && f.Value.Type() != "bool":
			left += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" && f.NoOptDefVal == "" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  %-*s  %s", width, r.left, r.usage)
	}
	return b.String()
}

// pickSentinel is --resume's value when no ID follows it: pick from a list.
const pickSentinel = "\x00pick"

// optionalID is a flag whose value may be left out (--resume, --resume ID).
type optionalID struct {
	val *string
	set *bool
}

func (v *optionalID) String() string { return "" }

// Type names the value in help.
func (v *optionalID) Type() string { return "ID" }

// Set records the ID; the sentinel means "given without a value".
func (v *optionalID) Set(s string) error {
	*v.set = true
	if s == pickSentinel {
		s = ""
	}
	*v.val = s
	return nil
}

// sessionIDLike matches a session ID or a prefix of one (20260102T150405Z-a1b2c3).
var sessionIDLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]{4}([0-9]{0,4}(T[0-9]{0,6}Z?(-[0-9a-f]{0,6})?)?)?$`)
})

// normalizeArgs lets "--resume ID" mean "--resume=ID" when ID looks like a
// session ID, so the flag keeps its optional value and a prompt after a
// bare --resume stays a prompt.
func normalizeArgs(argv []string) []string {
	out := make([]string, 0, len(argv))
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			return append(out, argv[i:]...)
		}
		if (a == "--resume" || a == "-r") && i+1 < len(argv) && sessionIDLike().MatchString(argv[i+1]) {
			out = append(out, "--resume="+argv[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// asExit turns an exit code into cobra's error return.
func asExit(code int) error {
	if code == exitOK {
		return nil
	}
	return exitCode(code)
}

// agentsCmd is `covey agents [--json]`.
func agentsCmd(o *options, stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "agents",
		Short: "list agent definitions and their problems",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			root, err := workDir()
			if err != nil {
				return runErr(stderr, err)
			}
			cfg, err := config.Load(root)
			if err != nil {
				return runErr(stderr, err)
			}
			// The parent's model, which inherit and unmapped Claude names
			// resolve to; unknown without an endpoint, and then shown so.
			parent := config.FirstNonEmpty(o.flags.Model, os.Getenv("COVEY_MODEL"), cfg.Model)
			if ep, err := config.ResolveEndpoint(cfg, o.flags.Provider, o.flags, os.Getenv); err == nil {
				parent = ep.Model
			}
			home, _ := os.UserHomeDir()
			set, problems := agentdefs.Load(agentdefs.LoadOptions{UserConfigDir: config.UserDir(), HomeDir: home, ProjectDir: root,
				Plugins: session.PluginFolders(home, root, "agents")})
			problems = agentdefs.Loud(append(problems, agentdefs.ModelProblems(set, cfg.ModelAliases)...))
			opts := agentdefs.ListOptions{JSON: asJSON, ParentModel: parent, Aliases: cfg.ModelAliases, InheritModel: cfg.SubagentModel}
			if err := agentdefs.WriteList(stdout, set, problems, opts); err != nil {
				return runErr(stderr, err)
			}
			if agentdefs.HasErrors(problems) {
				return exitCode(exitRun)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON for scripts")
	return c
}

// toolCmd is `covey tool NAME ['JSON']`: one tool, run in the current
// directory, its result printed exactly as the model would see it.
func toolCmd(o *options, stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "tool NAME ['JSON']",
		Short: "run one tool here, print what the model would see",
		Long:  "Run one tool in the current directory and print its result as the model would see it.\nTools: " + strings.Join(handTools(), ", "),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageError{"usage: covey tool NAME 'JSON' (tools: " + strings.Join(handTools(), ", ") + ")"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return asExit(runTool(cmd.Context(), o, args, stdout, stderr))
		},
	}
}

// workDir is the current folder, the workspace of every command, with an
// error a user can act on when it has gone (Go says "getwd: no such file or
// directory").
func workDir() (string, error) {
	dir, err := os.Getwd()
	if errors.Is(err, fs.ErrNotExist) {
		return "", errors.New("the current folder no longer exists (removed or moved): cd into a folder and run covey again")
	}
	if err != nil {
		return "", fmt.Errorf("find the current folder: %w", err)
	}
	return dir, nil
}

// handTools are the tools covey tool runs: the built-ins and web_fetch.
func handTools() []string { return append(toolname.Base(), toolname.WebFetch) }

func runTool(ctx context.Context, o *options, args []string, stdout, stderr io.Writer) int {
	raw := "{}"
	if len(args) == 2 {
		raw = args[1]
	}
	if !json.Valid([]byte(raw)) {
		fmt.Fprintf(stderr, "covey: the arguments are not valid JSON: %s\n", raw)
		return exitUsage
	}
	root, err := workDir()
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	ws, err := workspace.NewWorkspace(root)
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	mode, _ := permission.ParseMode(config.FirstNonEmpty(o.permissionMode, string(permission.ModeBypass)))
	// Running a tool by hand is the user's own act: writes need no review,
	// and there is no prior read to check against.
	cfg, err := config.Load(ws.Root)
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitUsage
	}
	sbCfg := cfg.Sandbox
	if o.sandboxMode != "" {
		sbCfg.Mode = o.sandboxMode
	}
	box, err := sandbox.New(sbCfg, sandbox.Options{})
	if err != nil {
		fmt.Fprintln(stderr, "covey: sandbox:", err)
		return exitUsage
	}
	if w := box.Warning(); w != "" {
		fmt.Fprintln(stderr, "covey:", w)
	}
	env := &tools.Env{WS: ws, Locks: workspace.NewFileLocks(), Gate: permission.HeadlessGate{Mode: mode}, Todos: tools.NewTodoList(), Sandbox: box}
	reg := tool.NewRegistry(tools.Builtins(env)...)
	// The URL is the user's own here, not a model's: any address goes.
	reg.Add(tools.NewWebFetch(tools.WebFetchConfig{Gate: env.Gate, AllowPrivate: func(string) bool { return true }}))
	t, ok := reg.Get(args[0])
	if !ok {
		fmt.Fprintf(stderr, "covey: unknown tool %q; tools: %s\n", args[0], strings.Join(handTools(), ", "))
		return exitUsage
	}
	r := t.Run(ctx, json.RawMessage(raw))
	fmt.Fprintln(stdout, r.Content)
	if r.IsError {
		return exitRun
	}
	return exitOK
}

// sessionsCmd is `covey sessions`: this workspace's sessions, newest first,
// with the ID to pass to --resume.
func sessionsCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "sessions",
		Short: "list this workspace's sessions (IDs for --resume)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			root, err := workDir()
			if err != nil {
				return runErr(stderr, err)
			}
			dir, err := sessionfile.DefaultDir()
			if err != nil {
				return runErr(stderr, err)
			}
			infos, err := sessionfile.Store{Dir: dir}.List(root)
			if err != nil {
				return runErr(stderr, err)
			}
			if len(infos) == 0 {
				fmt.Fprintln(stdout, "no sessions in this workspace yet")
				return nil
			}
			for _, in := range infos {
				if in.Problem != "" {
					fmt.Fprintf(stdout, "%s  %s  unreadable: %s (%s)\n", in.ID, in.Modified.Local().Format("2006-01-02 15:04"), excerpt.TermSafe(in.Problem), in.Path)
					continue
				}
				fmt.Fprintf(stdout, "%s  %s  %3d messages  %s\n", in.ID, in.Modified.Local().Format("2006-01-02 15:04"), in.Messages, excerpt.TermSafe(in.FirstMessage))
			}
			return nil
		},
	}
}

// runErr prints err and makes the command exit 1.
func runErr(stderr io.Writer, err error) error {
	fmt.Fprintln(stderr, "covey:", err)
	return exitCode(exitRun)
}
