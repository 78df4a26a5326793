package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"covey/agent"
	"covey/ui/cells"
	"covey/ui/transcript"
)

// HookInfo is one configured hook, for /hooks.
type HookInfo struct {
	Event, Matcher, Command, Source, Timeout string
	// Project: it came with the repository; Trusted: it runs.
	Project bool
	Trusted bool
}

// HooksSource lists the hooks in force and trusts the project's (the
// session's hooks side); nil when hooks are off (the demo).
type HooksSource interface {
	Hooks() []HookInfo
	TrustProjectHooks() error
}

// cmdHooks lists the hooks in force with their source (/hooks), or trusts
// the project's (/hooks trust).
func (m *Model) cmdHooks(arg string) tea.Cmd {
	if m.hooks == nil {
		m.notice(transcript.NoticeInfo, "hooks are off in this session")
		return nil
	}
	if strings.EqualFold(strings.TrimSpace(arg), "trust") {
		if err := m.hooks.TrustProjectHooks(); err != nil {
			m.notice(transcript.NoticeError, err.Error())
			return nil
		}
		m.notice(transcript.NoticeInfo, "the project's hooks and status lines run for the rest of this session (to trust them for good: --trust-project or trusted_folders)")
		return nil
	}
	if arg != "" {
		m.notice(transcript.NoticeError, "/hooks takes no argument but trust")
		return nil
	}
	m.notice(transcript.NoticeInfo, hooksListing(m.hooks.Hooks()))
	return nil
}

// hooksListing is /hooks' text: the hooks by event, each with its matcher,
// command, timeout and source, and whether it runs.
func hooksListing(hs []HookInfo) string {
	if len(hs) == 0 {
		return "no hooks configured (~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json, hooks: in covey's config, or an agent file's hooks:)"
	}
	var b strings.Builder
	b.WriteString("Hooks")
	untrusted := false
	event := ""
	for _, h := range hs {
		if h.Event != event {
			event = h.Event
			fmt.Fprintf(&b, "\n  %s", event)
		}
		m := h.Matcher
		if m == "" {
			m = "*"
		}
		fmt.Fprintf(&b, "\n    %s  %s  (%s, %s", m, cells.OneLine(h.Command), h.Source, h.Timeout)
		if h.Project && !h.Trusted {
			b.WriteString(", not trusted: does not run")
			untrusted = true
		}
		b.WriteString(")")
	}
	if untrusted {
		b.WriteString("\n\n/hooks trust lets the project's hooks run.")
	}
	return b.String()
}

// hookNotice is the transcript's notice for what a hook did.
func hookNotice(e agent.HookRan) *transcript.NoticeBlock {
	who := ""
	if e.IsChild() {
		who = "[" + firstNonEmpty(e.Name, e.AgentType) + "] "
	}
	subject := ""
	if e.Subject != "" {
		subject = " " + e.Subject
	}
	switch {
	case e.Blocked:
		return transcript.NewNoticeBlock(transcript.NoticeWarning, fmt.Sprintf("%s%s hook blocked%s: %s", who, e.Event, subject, e.Message))
	case e.Halted:
		return transcript.NewNoticeBlock(transcript.NoticeWarning, fmt.Sprintf("%s%s hook stopped the agent: %s", who, e.Event, e.Message))
	case e.Error:
		return transcript.NewNoticeBlock(transcript.NoticeError, fmt.Sprintf("%s%s hook failed: %s", who, e.Event, e.Message))
	}
	return transcript.NewNoticeBlock(transcript.NoticeInfo, fmt.Sprintf("%s%s hook: %s", who, e.Event, e.Message))
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
