package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	sessions "covey/agent/session"
	"covey/agentdefs"
	"covey/permission"
	"covey/tools"
)

// cmdAgents implements `covey agents [--json]`.
func cmdAgents(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("covey agents", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	home, _ := os.UserHomeDir()
	set, problems := agentdefs.Load(agentdefs.LoadOptions{UserConfigDir: userConfigDir(), HomeDir: home, ProjectDir: root})
	if err := agentdefs.WriteList(stdout, set, problems, agentdefs.ListOptions{JSON: *asJSON}); err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	if agentdefs.HasErrors(problems) {
		return exitRun
	}
	return exitOK
}

// cmdTool implements `covey tool NAME 'JSON'`: one tool, run in the current
// directory, its result printed exactly as the model would see it.
func cmdTool(ctx context.Context, opts options, args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintf(stderr, "usage: covey tool NAME 'JSON'\ntools: %v\n", tools.BaseToolNames)
		return exitUsage
	}
	raw := "{}"
	if len(args) == 2 {
		raw = args[1]
	}
	if !json.Valid([]byte(raw)) {
		fmt.Fprintf(stderr, "covey: the arguments are not valid JSON: %s\n", raw)
		return exitUsage
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	mode, _ := parsePermissionMode(firstNonEmpty(opts.permissionMode, string(permission.ModeBypass)))
	// Running a tool by hand is the user's own act: writes need no review,
	// and there is no prior read to check against.
	env := &tools.Env{WS: ws, Locks: tools.NewFileLocks(), Gate: permission.HeadlessGate{Mode: mode}, Todos: tools.NewTodoList()}
	reg := tools.NewRegistry(tools.Builtins(env)...)
	t, ok := reg.Get(args[0])
	if !ok {
		fmt.Fprintf(stderr, "covey: unknown tool %q; tools: %v\n", args[0], reg.Names())
		return exitUsage
	}
	r := t.Run(ctx, json.RawMessage(raw))
	fmt.Fprintln(stdout, r.Content)
	if r.IsError {
		return exitRun
	}
	return exitOK
}

// cmdSessions implements `covey sessions`: this workspace's sessions,
// newest first, with the ID to pass to --resume.
func cmdSessions(stdout, stderr io.Writer) int {
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	dir, err := sessions.DefaultDir()
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	infos, err := sessions.Store{Dir: dir}.List(root)
	if err != nil {
		fmt.Fprintln(stderr, "covey:", err)
		return exitRun
	}
	if len(infos) == 0 {
		fmt.Fprintln(stdout, "no sessions in this workspace yet")
		return exitOK
	}
	for _, in := range infos {
		fmt.Fprintf(stdout, "%s  %s  %3d messages  %s\n", in.ID, in.Modified.Local().Format("2006-01-02 15:04"), in.Messages, in.FirstMessage)
	}
	return exitOK
}
