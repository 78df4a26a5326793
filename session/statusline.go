package session

import (
	"context"
	"errors"
	"fmt"

	"covey/hooks"
	"covey/statusline"
)

// statusLineEvent names a status line among the project's hooks in the
// trust question ("statusLine: sh .claude/statusline.sh").
const statusLineEvent = "statusLine"

// statusLineHooks are the project's status lines as hooks for the trust
// question: commands covey would run by itself, trusted as the project's
// hooks are (the answer covers both).
func statusLineHooks(status statusline.Settings) []hooks.Hook {
	var out []hooks.Hook
	for _, st := range []*statusline.Setting{status.Main, status.Subagent} {
		if st != nil && st.Project {
			out = append(out, hooks.Hook{Event: statusLineEvent, Command: st.Command, Source: st.Source, Scope: hooks.ScopeProject})
		}
	}
	return out
}

// StatusLines are the status line and the subagent status line to show
// (nil for none).
func (s *Session) StatusLines() (main, subagent *statusline.Setting) {
	return s.status.Main, s.status.Subagent
}

// ErrStatusLineUntrusted is RunStatusLine's error for a project's status
// line the user has not trusted (yet): nothing ran.
var ErrStatusLineUntrusted = errors.New("the project's status line runs once you trust the project (answer y at start, or /hooks trust)")

// RunStatusLine runs st with in, whose session fields (session id,
// transcript, workspace, version) it fills, and returns its first line.
// A project's status line runs only once the project's hooks are trusted.
func (s *Session) RunStatusLine(ctx context.Context, st statusline.Setting, in statusline.Input) (string, error) {
	if st.Project && !s.projectHooksTrusted() {
		return "", ErrStatusLineUntrusted
	}
	if st.Project {
		for _, h := range s.hooks.project {
			if h.Event == statusLineEvent && h.Command == st.Command {
				if changed := hooks.ChangedScript(h, s.ws.Root); changed != "" {
					return "", fmt.Errorf("%s changed since the project's hooks were trusted; the status line does not run (restart covey to be asked again)", changed)
				}
			}
		}
	}
	base := s.hookBase()
	in.SessionID, in.TranscriptPath, in.Cwd = base.SessionID, base.TranscriptPath, s.ws.Root
	in.Workspace = statusline.Workspace{CurrentDir: s.ws.Root, ProjectDir: s.ws.Root}
	in.Version = s.version
	in.OutputStyle.Name = "default"
	return statusline.Run(ctx, st, in, s.ws.Root, s.scrub)
}
