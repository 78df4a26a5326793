package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"covey/config"
	"covey/mcp"
	"covey/session"
)

// mcpCmd is `covey mcp`: list, add and remove MCP servers.
func mcpCmd(o *options, stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "list, add and remove MCP servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError{"usage: covey mcp list|add|remove (run covey mcp --help)"}
		},
	}
	c.AddCommand(mcpListCmd(o, stdout, stderr), mcpAddCmd(stdout, stderr), mcpRemoveCmd(stdout, stderr))
	return c
}

// mcpListCmd is `covey mcp list [--json]`: every server connected or
// failed with the reason, and its tools; exit 1 when one failed.
func mcpListCmd(o *options, stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "connect to every MCP server and list its state and tools",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return asExit(runMCPList(cmd.Context(), o, asJSON, stdout, stderr))
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON for scripts")
	return c
}

func runMCPList(ctx context.Context, o *options, asJSON bool, stdout, stderr io.Writer) int {
	w, err := loadWorkspace(o)
	if err != nil {
		return printErr(stderr, err, exitUsage)
	}
	root, cfg := w.root, w.cfg
	loaded, err := session.LoadMCP(root, cfg, o.mcpConfigs)
	if err != nil {
		return printErr(stderr, err, exitUsage)
	}
	var scrub []string
	if !cfg.PassKeysToTools {
		scrub = config.KeyEnvNames(cfg)
	}
	m := mcp.NewManager(loaded.Servers, mcp.Options{
		Version: version, Dir: root, LogDir: session.MCPLogDir(), TrustProject: w.trust.Trusted, Scrub: scrub,
	})
	defer m.Close()
	m.Start(ctx)
	if err := m.Wait(ctx); err != nil {
		return printErr(stderr, err, exitRun)
	}
	ss := m.Statuses()
	if err := mcp.WriteList(stdout, ss, asJSON); err != nil {
		return printErr(stderr, err, exitRun)
	}
	for _, p := range loaded.Problems {
		fmt.Fprintf(stderr, "covey: %s\n", p)
	}
	if len(loaded.Problems) > 0 || slices.ContainsFunc(ss, func(s mcp.Status) bool { return s.State == mcp.StateFailed }) {
		return exitRun
	}
	return exitOK
}

// mcpAddCmd is `covey mcp add NAME [--env K=V] -- COMMAND ARGS…` and
// `covey mcp add --transport http NAME URL`: it writes the user config.
func mcpAddCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		transport string
		envs      []string
		headers   []string
		replace   bool
	)
	c := &cobra.Command{
		Use:   "add NAME [--env K=V] -- COMMAND [ARGS…] | add --transport http|sse NAME URL",
		Short: "add an MCP server to your user config",
		Long: `Add an MCP server to your user config (trusted in every workspace).

  covey mcp add everything -- npx -y @modelcontextprotocol/server-everything
  covey mcp add github --env GITHUB_TOKEN='${GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github
  covey mcp add --transport http docs https://mcp.example.com/mcp --header 'Authorization: Bearer ${TOKEN}'

${VAR} and ${VAR:-default} are expanded when the server starts.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, rest := args[0], args[1:]
			env, err := mcp.ParseEnvFlags(envs)
			if err != nil {
				return usageError{err.Error()}
			}
			hdr, err := mcp.ParseHeaderFlags(headers)
			if err != nil {
				return usageError{err.Error()}
			}
			var sc mcp.ServerConfig
			switch strings.ToLower(transport) {
			case "", mcp.TypeStdio:
				if len(hdr) > 0 {
					return usageError{"--header is for --transport http or sse"}
				}
				sc = mcp.ServerConfig{Command: rest[0], Args: rest[1:], Env: env}
			case mcp.TypeHTTP, mcp.TypeSSE:
				if len(rest) != 1 {
					return usageError{"usage: covey mcp add --transport " + transport + " NAME URL"}
				}
				sc = mcp.ServerConfig{Type: strings.ToLower(transport), URL: rest[0], Headers: hdr, Env: env}
			default:
				return usageError{fmt.Sprintf("unknown --transport %q: use stdio, http or sse", transport)}
			}
			path, _ := config.Paths("")
			err = config.Edit(path, func(data []byte) ([]byte, error) { return mcp.AddToConfig(data, name, sc, replace) })
			if err != nil {
				return runErr(stderr, err)
			}
			fmt.Fprintf(stdout, "Added MCP server %s to %s\n", name, path)
			return nil
		},
	}
	f := c.Flags()
	f.StringVarP(&transport, "transport", "t", "stdio", "`TRANSPORT`: stdio, http or sse")
	f.StringArrayVarP(&envs, "env", "e", nil, "environment variable for the server, `KEY=VALUE` (repeatable)")
	f.StringArrayVarP(&headers, "header", "H", nil, "HTTP header, `\"NAME: VALUE\"` (repeatable)")
	f.BoolVar(&replace, "replace", false, "replace a server of the same name")
	return c
}

// mcpRemoveCmd is `covey mcp remove NAME`.
func mcpRemoveCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "remove an MCP server from your user config",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			name := args[0]
			path, _ := config.Paths("")
			found := false
			err := config.Edit(path, func(data []byte) ([]byte, error) {
				out, ok, err := mcp.RemoveFromConfig(data, name)
				found = ok
				return out, err
			})
			if err != nil {
				return runErr(stderr, err)
			}
			if !found {
				hint := ""
				if root, err := workDir(); err == nil {
					if l, err := mcp.Load(mcp.Sources{Workspace: root}); err == nil {
						for _, s := range l.Servers {
							if s.Name == name {
								hint = fmt.Sprintf("; it is configured in %s, edit that file to remove it", s.Source)
							}
						}
					}
				}
				return runErr(stderr, fmt.Errorf("no MCP server named %q in %s%s", name, path, hint))
			}
			fmt.Fprintf(stdout, "Removed MCP server %s from %s\n", name, path)
			return nil
		},
	}
}

func printErr(stderr io.Writer, err error, code int) int {
	fmt.Fprintln(stderr, "covey:", err)
	return code
}
