package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"covey/plugins"
)

// pluginsCmd is `covey plugins`: Claude Code's installed plugins, each
// with its state (enabled, enabled by the project, disabled, broken and
// why) and what it brings.
func pluginsCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "plugins",
		Short: "list Claude Code's installed plugins, their state and what they bring",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			root, err := workDir()
			if err != nil {
				return runErr(stderr, err)
			}
			home, _ := os.UserHomeDir()
			all, err := plugins.Discover(home, root)
			if err != nil {
				return runErr(stderr, err)
			}
			return writePlugins(stdout, all)
		},
	}
}

// writePlugins lists the plugins, one block each.
func writePlugins(w io.Writer, all []plugins.Plugin) error {
	if len(all) == 0 {
		_, err := fmt.Fprintln(w, "no plugins installed (~/.claude/plugins/installed_plugins.json)")
		return err
	}
	var b strings.Builder
	for _, p := range all {
		fmt.Fprintf(&b, "%s", p.ID)
		if p.Version != "" {
			fmt.Fprintf(&b, " %s", p.Version)
		}
		fmt.Fprintf(&b, "  %s", p.State())
		if p.EnabledBy != "" {
			fmt.Fprintf(&b, " (%s)", p.EnabledBy)
		}
		b.WriteByte('\n')
		if p.Description != "" {
			fmt.Fprintf(&b, "  %s\n", p.Description)
		}
		fmt.Fprintf(&b, "  folder: %s\n", p.Root)
		if p.Err != nil {
			fmt.Fprintf(&b, "  error: %v\n", p.Err)
			continue
		}
		if !p.Enabled {
			continue
		}
		var parts []string
		for _, c := range []struct {
			what string
			n    int
		}{{"command folders", len(p.Commands)}, {"agent folders", len(p.Agents)}, {"skill folders", len(p.Skills)},
			{"hook events", len(p.Hooks)}, {"MCP servers", len(p.MCPServers)}, {"language servers (kept, not run)", len(p.LSPServers)}} {
			if c.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
			}
		}
		if len(parts) == 0 {
			parts = []string{"nothing covey loads"}
		}
		fmt.Fprintf(&b, "  brings: %s\n", strings.Join(parts, ", "))
		if len(p.MCPServers) > 0 {
			names := make([]string, 0, len(p.MCPServers))
			for n := range p.MCPServers {
				names = append(names, "plugin_"+p.Name+"_"+n)
			}
			sort.Strings(names)
			fmt.Fprintf(&b, "  MCP: %s\n", strings.Join(names, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
