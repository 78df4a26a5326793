package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"covey/agent/sessionfile"
	"covey/config"
	"covey/report"
)

// reportCmd is `covey report [SESSION_ID]`: the crew report of a session
// (this workspace's latest by default) as markdown, JSON or one
// self-contained HTML page, on stdout or into a file.
func reportCmd(stdout, stderr io.Writer) *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "report [SESSION_ID]",
		Short: "the crew report of a session: each agent's work, cost and changes, and a timeline (md, json or html)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			r, err := buildReport(args)
			if err != nil {
				return runErr(stderr, err)
			}
			if out == "" {
				if err := report.Write(stdout, r, format); err != nil {
					return runErr(stderr, err)
				}
				return nil
			}
			if err := report.WriteFile(out, r, format); err != nil {
				return runErr(stderr, err)
			}
			fmt.Fprintf(stderr, "covey: report written to %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", report.FormatMarkdown, "md, json or html")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to `FILE` instead of stdout")
	return cmd
}

// buildReport loads the session named by args (or this workspace's latest)
// and builds its report, priced with the user's price table.
func buildReport(args []string) (*report.Report, error) {
	root, err := workDir()
	if err != nil {
		return nil, err
	}
	dir, err := sessionfile.DefaultDir()
	if err != nil {
		return nil, err
	}
	store := sessionfile.Store{Dir: dir}
	var id string
	if len(args) == 1 {
		id, err = store.Resolve(args[0])
	} else {
		id, err = store.Latest(root)
	}
	if err != nil {
		return nil, err
	}
	l, err := store.Load(id)
	if err != nil {
		return nil, err
	}
	o := report.Options{Path: store.Path(id)}
	// Prices are display only: the repository's config may set them. The
	// catalog's prices apply at the base URL the session recorded.
	if cfg, err := config.Load(root); err == nil {
		if book := cfg.PriceBook(config.Endpoint{BaseURL: l.Wire.BaseURL}); !book.Empty() {
			o.Cost = book.Cost
		}
	}
	return report.Build(l, o), nil
}
