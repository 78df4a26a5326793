package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"covey/agent/sessionfile"
)

// exportCmd is `covey export SESSION_ID --format md|json`: a session's
// conversation on stdout, bounded (a child's brief and report, never its
// whole transcript).
func exportCmd(stdout, stderr io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "export SESSION_ID",
		Short: "print a session's conversation as markdown or JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if format != "md" && format != "json" {
				return usageError{fmt.Sprintf("unknown --format %q: use md or json", format)}
			}
			dir, err := sessionfile.DefaultDir()
			if err != nil {
				return runErr(stderr, err)
			}
			st := sessionfile.Store{Dir: dir}
			id, err := st.Resolve(args[0])
			if err != nil {
				return runErr(stderr, err)
			}
			l, err := st.Load(id)
			if err != nil {
				return runErr(stderr, err)
			}
			if format == "json" {
				err = sessionfile.JSON(stdout, l, st.Path(id))
			} else {
				err = sessionfile.Markdown(stdout, l, st.Path(id))
			}
			if err != nil {
				return runErr(stderr, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "output `FORMAT`: md or json")
	return cmd
}
