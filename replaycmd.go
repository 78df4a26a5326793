package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"covey/session"
	"covey/ui"
)

// replayCmd is `covey replay SESSION_ID [--speed N]`: the session played
// back in the TUI from its session file, every pane in step as it was
// live. It reads the file only: no model, network or tool is reached.
func replayCmd(stderr io.Writer) *cobra.Command {
	var (
		speed     float64
		themeName string
	)
	cmd := &cobra.Command{
		Use:   "replay SESSION_ID",
		Short: "play a session back in the TUI from its session file, read-only (space pauses, . steps, +/- speed, e/x/a jump)",
		Long: "Plays a recorded session back in the full-screen UI: the conversation, every subagent's pane, pauses, messages, " +
			"approvals and questions, at the pace they happened (times --speed; idle gaps are cut to " + ui.IdleCapText() + "). " +
			"Nothing is sent to a model and no tool runs. SESSION_ID is an ID or a unique prefix of one (covey sessions lists them), or a session file's path.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if speed <= 0 || speed > 1000 {
				return usageError{fmt.Sprintf("--speed %s: give a number above 0 and at most 1000", strconv.FormatFloat(speed, 'g', -1, 64))}
			}
			rec, err := session.OpenRecorded(args[0])
			if err != nil {
				fmt.Fprintln(stderr, "covey:", err)
				return exitCode(exitUsage)
			}
			if msg := terminalProblem(term.IsTerminal(os.Stdin.Fd()), term.IsTerminal(os.Stdout.Fd())); msg != "" {
				fmt.Fprintln(stderr, "covey:", msg)
				return exitCode(exitUsage)
			}
			th, mdStyle, err := chooseTheme(themeName)
			if err != nil {
				return usageError{err.Error()}
			}
			pb := &ui.Playback{Speed: speed, Model: rec.Model}
			var warnings []string
			for _, w := range rec.Warnings {
				warnings = append(warnings, "the session file: "+w)
			}
			for _, e := range rec.Events {
				pb.Events = append(pb.Events, ui.ReplayEvent{Event: e.Event, At: e.At})
			}
			pb.Note = fmt.Sprintf("replay of session %s (%s, %d events): read-only, nothing is sent anywhere", rec.ID, rec.Created.Local().Format("2006-01-02 15:04"), len(pb.Events))
			err = ui.Run(cmd.Context(), ui.Options{
				Playback:      pb,
				Theme:         th,
				MarkdownStyle: mdStyle,
				Workspace:     rec.Workspace,
				Warnings:      warnings,
			})
			if err != nil {
				return runErr(stderr, err)
			}
			return nil
		},
	}
	cmd.Flags().Float64Var(&speed, "speed", 1, "play `N` times as fast as it happened (0.5 is half as fast)")
	cmd.Flags().StringVar(&themeName, "theme", "", "colours (`THEME`): dark, light or auto")
	return cmd
}
