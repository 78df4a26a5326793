package session

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/internal/excerpt"
	"covey/tools"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// shellEvent turns a background shell's news into crew events: a shell is
// a member of the crew (agent.ShellType) with a pane and an overview row.
func (s *Session) shellEvent(e tools.ShellEvent) {
	src := shellSource(e.Info)
	switch e.Kind {
	case tools.ShellStarted:
		s.emit(agent.ChildStarted{Source: src, Background: true, Prompt: e.Info.Command})
		s.emit(agent.ChildState{Source: src, State: agent.StateRunning, Background: true})
	case tools.ShellOutput:
		s.emit(agent.ShellOutput{Source: src, Lines: e.Tail, Bytes: e.Info.Bytes})
	case tools.ShellExited:
		s.emit(agent.ShellOutput{Source: src, Lines: e.Tail, Bytes: e.Info.Bytes})
		state, reason, errText := agent.StateDone, agent.StopOK, ""
		switch {
		case e.Info.Killed:
			state, reason = agent.StateCancelled, agent.StopCancelled
		case e.Info.Signal != 0 || e.Info.ExitCode != 0:
			state, reason, errText = agent.StateFailed, agent.StopError, e.Info.Status()
		}
		s.emit(agent.ChildState{Source: src, State: state, Background: true, Detail: e.Info.Status(), Elapsed: e.Info.Elapsed})
		s.emit(agent.ChildFinished{Source: src, Reason: reason, Error: errText, Elapsed: e.Info.Elapsed, Summary: e.Info.Status()})
	}
}

// shellSource is the Source of a background shell's events.
func shellSource(i tools.ShellInfo) agent.Source {
	return agent.Source{
		AgentID: i.ID, Name: i.ID, AgentType: agent.ShellType,
		Description:  excerpt.Cut(excerpt.Line(i.Command), 60),
		ParentID:     i.Owner,
		ParentCallID: i.CallID,
		Depth:        i.OwnerDepth + 1,
	}
}

// KillShell stops a background shell by id (the crew's cancel key on its
// pane); it reports whether it was running.
func (s *Session) KillShell(id string) bool { return s.shells.Kill(id) }

// ShellOutput is all a background shell's kept output, and how many bytes
// before it were cut (the crew's open key on its pane).
func (s *Session) ShellOutput(id string) (out string, cut int64, ok bool) {
	return s.shells.Output(id)
}

// shellScoped keeps bash_output and kill_shell out of a slash command's
// turn whose allowed-tools leave out bash: they come with bash.
type shellScoped struct{ tool.Tool }

// Concurrent keeps the wrapped tool's own answer.
func (t shellScoped) Concurrent() bool { return tool.RunsConcurrently(t.Tool) }

// Run refuses the call in a command's turn that does not allow bash.
func (t shellScoped) Run(ctx context.Context, args json.RawMessage) tool.Result {
	if sc := scopeOf(ctx); sc != nil && !sc.allows(toolname.Bash) {
		return tool.Errorf("%s comes with bash, which is not among the allowed-tools of /%s, the command this turn runs", t.Name(), sc.command)
	}
	return t.Tool.Run(ctx, args)
}

// StartChild starts a subagent of type agentType with brief, as a
// background child of the main agent, at the user's word (the TUI's
// "@Explore find the retry logic"): no model turn decides it, and its
// report comes back to the main agent like a background child's.
func (s *Session) StartChild(agentType, brief string) (name string, err error) {
	if err := s.Load(); err != nil {
		return "", err
	}
	name, _, err = s.manager.StartByUser(agentType, brief)
	return name, err
}

// lastShell is the number of the last background shell a session file
// names (shell-3: 3), so a resumed session's new shells get new ids.
func lastShell(cs []sessionfile.Child) int {
	n := 0
	for _, c := range cs {
		if c.Source.AgentType != agent.ShellType {
			continue
		}
		if v, err := strconv.Atoi(strings.TrimPrefix(c.Source.AgentID, "shell-")); err == nil {
			n = max(n, v)
		}
	}
	return n
}
