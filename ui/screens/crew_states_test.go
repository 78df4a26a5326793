package screens

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"covey/agent"
	"covey/theme"
	"covey/ui/cells"
	"covey/ui/transcript"
)

// paneIn returns a running pane of a child, after the events given.
func paneIn(t *testing.T, name string, background bool, evs ...agent.Event) *transcript.SubagentBlock {
	t.Helper()
	src := agent.Source{AgentID: name, Name: name, AgentType: "Explore", Description: "do " + name, Depth: 1}
	b := transcript.NewSubagentBlock(agent.ChildStarted{Source: src, Background: background})
	b.Observe(fixedNow)
	for _, ev := range evs {
		b.Apply(ev)
	}
	return b
}

// shellIn is a background shell's pane, as paneIn makes a child's.
func shellIn(t *testing.T, name string) *transcript.SubagentBlock {
	t.Helper()
	src := agent.Source{AgentID: name, Name: name, AgentType: agent.ShellType, Description: "do " + name, Depth: 1}
	b := transcript.NewSubagentBlock(agent.ChildStarted{Source: src, Background: true})
	b.Observe(fixedNow)
	return b
}

// crewCounts is the counts of the overview's title for rows, unpriced.
func crewCounts(rows []*transcript.SubagentBlock) string {
	o := NewCrewOverview(&theme.New(theme.ModeDark, true, false).Styles, defaultKeys())
	o.SetSize(200, 5)
	o.SetRows(rows, fixedNow, false)
	title, _, _ := strings.Cut(ansi.Strip(o.View()), "\n")
	return strings.TrimSpace(strings.TrimPrefix(title, "Crew · "))
}

func TestCountCrew(t *testing.T) {
	state := func(s string) agent.Event { return agent.ChildState{State: s, Paused: s == agent.StatePaused} }
	bgState := func(s string) agent.Event {
		return agent.ChildState{State: s, Background: true, Paused: s == agent.StatePaused}
	}
	finished := agent.ChildFinished{Reason: agent.StopOK, Elapsed: time.Second}
	tests := map[string]struct {
		rows func(t *testing.T) []*transcript.SubagentBlock
		want string
	}{
		"the only child paused is not running": {
			rows: func(t *testing.T) []*transcript.SubagentBlock {
				return []*transcript.SubagentBlock{paneIn(t, "a", false, state(agent.StatePaused))}
			},
			want: "1 subagent · 0 running · 1 paused",
		},
		"paused in the background counts both": {
			rows: func(t *testing.T) []*transcript.SubagentBlock {
				return []*transcript.SubagentBlock{paneIn(t, "a", true, bgState(agent.StatePaused)), paneIn(t, "b", true)}
			},
			want: "2 subagents · 1 running · 1 paused · 2 in background",
		},
		"queued, approval and finished": {
			rows: func(t *testing.T) []*transcript.SubagentBlock {
				w := paneIn(t, "w", false)
				w.SetWaiting(true)
				return []*transcript.SubagentBlock{paneIn(t, "q", false, state(agent.StateQueued)), w, paneIn(t, "f", false, finished), paneIn(t, "r", false)}
			},
			want: "4 subagents · 1 running · 1 queued · 1 awaiting approval",
		},
		"shells apart": {
			rows: func(t *testing.T) []*transcript.SubagentBlock {
				sh := shellIn(t, "sh")
				return []*transcript.SubagentBlock{sh, paneIn(t, "a", false)}
			},
			want: "1 subagent, 1 shell · 2 running",
		},
		"only shells": {
			rows: func(t *testing.T) []*transcript.SubagentBlock {
				sh := shellIn(t, "sh")
				return []*transcript.SubagentBlock{sh}
			},
			want: "1 shell · 1 running",
		},
		"none": {
			rows: func(t *testing.T) []*transcript.SubagentBlock { return nil },
			want: "0 subagents · 0 running",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := crewCounts(tc.rows(t)); got != tc.want {
				t.Errorf("counts %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOverviewSelectedRowKeepsStateColour(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(lipgloss.ColorProfile())
	o := newTestOverview(testCrew(), 120, 12)
	st := &theme.New(theme.ModeDark, true, false).Styles
	done := cells.NewStyle(st.Subagent.Done.Reverse(true)).Render("done")
	if o.Selected().Name() != "scout" {
		t.Fatalf("selected %q, want scout", o.Selected().Name())
	}
	line := strings.Split(o.View(), "\n")[2]
	if !strings.Contains(line, done) {
		t.Errorf("the selected row's state lost its colour: %q", line)
	}
}

func TestOverviewSelectedPausedRowIsNotTheSelection(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(lipgloss.ColorProfile())
	st := &theme.New(theme.ModeDark, true, false).Styles
	rows := []*transcript.SubagentBlock{paneIn(t, "a", false, agent.ChildState{State: agent.StatePaused, Paused: true})}
	o := NewCrewOverview(st, defaultKeys())
	o.SetSize(100, 5)
	o.SetRows(rows, fixedNow, false)
	line := strings.Split(o.View(), "\n")[2]
	sel := cells.NewStyle(st.Crew.Selected).Render("paused")
	paused := cells.NewStyle(st.Blocks.Waiting.Reverse(true)).Render("paused")
	if strings.Contains(line, sel) || !strings.Contains(line, paused) {
		t.Errorf("the selected paused row's state is drawn like the selection: %q", line)
	}
}
