package theme

import "github.com/charmbracelet/lipgloss"

// Styles holds every style the UI draws with, grouped by where it is used.
// UI code takes styles from here and never builds its own colours.
type Styles struct {
	App struct {
		Text, Muted, Accent, Error, Success, Warning lipgloss.Style
		Bold, Italic, Faint                          lipgloss.Style
	}
	// Focus marks the focused block (a gutter glyph and colour).
	Focus struct {
		Gutter, Unfocused lipgloss.Style
	}
	User struct {
		Prompt, Text lipgloss.Style
	}
	Assistant struct {
		Text, Reasoning lipgloss.Style
	}
	Tool struct {
		Icon, Name, Arg, Running, OK, Error, Duration, Output lipgloss.Style
	}
	Diff struct {
		Header, Hunk, Added, Removed, Context, LineNumber lipgloss.Style
	}
	Subagent struct {
		Border, Type, Description, Stats, Body, Running, Done, Failed, Cancelled, TimedOut lipgloss.Style
		// TypeByColor is Type in the colour an agent file names (Claude
		// Code's red, blue, green, yellow, purple, orange, pink, cyan),
		// each mapped onto the palette's nearest semantic colour.
		TypeByColor map[string]lipgloss.Style
	}
	Todo struct {
		Pending, InProgress, Completed lipgloss.Style
	}
	Status struct {
		Bar, Key, Value, Mode, Spinner lipgloss.Style
		// Warning is a warning on the bar (bypassPermissions, a full
		// context window), on the bar's background.
		Warning lipgloss.Style
	}
	Input struct {
		Prompt, Text, Placeholder, Border lipgloss.Style
	}
	Help struct {
		Key, Desc, Sep lipgloss.Style
	}
	Completion struct {
		Item, Selected, Desc lipgloss.Style
	}
	Notice struct {
		Info, Warning, Error lipgloss.Style
	}
	// Approval is the inline review of a write or command waiting for the
	// user's answer, and the one-line record it leaves behind.
	Approval struct {
		// Bar is the left edge that marks a pending approval; Title its
		// question, Label the asking child, Target the path or command.
		Bar, Title, Label, Target lipgloss.Style
		// Key and Hint draw the answer keys; Scroll the position note.
		Key, Hint, Scroll lipgloss.Style
		// Allowed, Denied and Edited colour the records of answers.
		Allowed, Denied, Edited lipgloss.Style
		// Separator divides the two halves of a side-by-side diff.
		Separator lipgloss.Style
	}
	// Markdown draws the assistant's answers: Heading and its Mark (the
	// leading #), inline Code, fenced CodeBlock lines, Link text and its
	// URL, the Quote bar, list Markers, the Rule of a thematic break and
	// table Borders.
	Markdown struct {
		Text, Heading, Mark, Code, CodeBlock, Link, URL, Quote, Marker, Rule, Border lipgloss.Style
		// CodeKeyword, CodeString, CodeComment and CodeNumber colour the
		// code of a fence that names its language (a diff's lines take
		// the Diff styles).
		CodeKeyword, CodeString, CodeComment, CodeNumber lipgloss.Style
	}
	// Picker is the session picker shown before the TUI starts.
	Picker struct {
		Title, Item, Selected, Detail, Hint lipgloss.Style
	}

	// Blocks holds the transcript blocks' additions (owned by the blocks
	// code in ui/; keep this section last).
	Blocks struct {
		// Focused is the title of the focused block (a tool's name, a
		// child's description), on top of the core's focus gutter.
		Focused lipgloss.Style
		// MaxTurns marks a child stopped at its turn limit; Waiting one
		// waiting for the user's approval.
		MaxTurns, Waiting lipgloss.Style
		// Summary is a finished child's final line.
		Summary lipgloss.Style
		// Note is a child's retry and stop notes.
		Note lipgloss.Style
	}

	// Crew is the crew overview (ctrl+g) and a child's full-screen view.
	Crew struct {
		// Title is the view's first line, Header the columns' names.
		Title, Header lipgloss.Style
		// Row is an unselected row, Selected the selected one.
		Row, Selected lipgloss.Style
		// Tree draws the branches of nested children, Stalled a child
		// that did nothing for a while, Number the counts and costs.
		Tree, Stalled, Number lipgloss.Style
	}
}

func fg(c lipgloss.TerminalColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }

func newStyles(p Palette) Styles {
	var s Styles
	s.App.Text = fg(p.Text)
	s.App.Muted = fg(p.Muted)
	s.App.Accent = fg(p.Accent)
	s.App.Error = fg(p.Error)
	s.App.Success = fg(p.Success)
	s.App.Warning = fg(p.Warning)
	s.App.Bold = lipgloss.NewStyle().Bold(true)
	s.App.Italic = lipgloss.NewStyle().Italic(true)
	s.App.Faint = lipgloss.NewStyle().Faint(true)

	s.Focus.Gutter = fg(p.Accent).Bold(true)
	s.Focus.Unfocused = fg(p.Border)

	s.User.Prompt = fg(p.Primary).Bold(true)
	s.User.Text = fg(p.Text)

	s.Assistant.Text = fg(p.Text)
	s.Assistant.Reasoning = fg(p.Muted).Italic(true)

	s.Tool.Icon = fg(p.Accent)
	s.Tool.Name = fg(p.Text).Bold(true)
	s.Tool.Arg = fg(p.Muted)
	s.Tool.Running = fg(p.Warning)
	s.Tool.OK = fg(p.Success)
	s.Tool.Error = fg(p.Error)
	s.Tool.Duration = fg(p.Muted)
	s.Tool.Output = fg(p.Muted)

	s.Diff.Header = fg(p.Text).Bold(true)
	s.Diff.Hunk = fg(p.Accent)
	s.Diff.Added = fg(p.DiffAddFg).Background(p.DiffAddBg)
	s.Diff.Removed = fg(p.DiffDelFg).Background(p.DiffDelBg)
	s.Diff.Context = fg(p.Text)
	s.Diff.LineNumber = fg(p.LineNumber)

	s.Subagent.Border = fg(p.Border)
	s.Subagent.Type = fg(p.Accent).Bold(true)
	s.Subagent.Description = fg(p.Text)
	s.Subagent.Stats = fg(p.Muted)
	s.Subagent.Body = fg(p.Muted)
	s.Subagent.Running = fg(p.Warning)
	s.Subagent.Done = fg(p.Success)
	s.Subagent.Failed = fg(p.Error)
	s.Subagent.Cancelled = fg(p.Muted)
	s.Subagent.TimedOut = fg(p.Warning)
	s.Subagent.TypeByColor = map[string]lipgloss.Style{
		"red": fg(p.Error).Bold(true), "orange": fg(p.Warning).Bold(true), "yellow": fg(p.Warning).Bold(true),
		"green": fg(p.Success).Bold(true), "blue": fg(p.Primary).Bold(true), "cyan": fg(p.Primary).Bold(true),
		"purple": fg(p.Accent).Bold(true), "pink": fg(p.Accent).Bold(true),
	}

	s.Todo.Pending = fg(p.Text)
	s.Todo.InProgress = fg(p.Warning).Bold(true)
	s.Todo.Completed = fg(p.Muted).Strikethrough(true)

	s.Status.Bar = fg(p.Muted).Background(p.Subtle)
	s.Status.Key = fg(p.Muted).Background(p.Subtle)
	s.Status.Value = fg(p.Text).Background(p.Subtle)
	s.Status.Mode = fg(p.Accent).Background(p.Subtle).Bold(true)
	s.Status.Spinner = fg(p.Warning).Background(p.Subtle)
	s.Status.Warning = fg(p.Warning).Background(p.Subtle).Bold(true)

	s.Input.Prompt = fg(p.Primary).Bold(true)
	s.Input.Text = fg(p.Text)
	s.Input.Placeholder = fg(p.Muted)
	s.Input.Border = fg(p.Border)

	s.Help.Key = fg(p.Accent)
	s.Help.Desc = fg(p.Muted)
	s.Help.Sep = fg(p.Border)

	s.Completion.Item = fg(p.Text)
	s.Completion.Selected = fg(p.Accent).Bold(true)
	s.Completion.Desc = fg(p.Muted)

	s.Notice.Info = fg(p.Muted)
	s.Notice.Warning = fg(p.Warning)
	s.Notice.Error = fg(p.Error)

	s.Approval.Bar = fg(p.Warning).Bold(true)
	s.Approval.Title = fg(p.Warning).Bold(true)
	s.Approval.Label = fg(p.Accent).Bold(true)
	s.Approval.Target = fg(p.Text).Bold(true)
	s.Approval.Key = fg(p.Accent).Bold(true)
	s.Approval.Hint = fg(p.Muted)
	s.Approval.Scroll = fg(p.Muted)
	s.Approval.Allowed = fg(p.Success)
	s.Approval.Denied = fg(p.Error)
	s.Approval.Edited = fg(p.Accent)
	s.Approval.Separator = fg(p.Border)

	s.Markdown.Text = fg(p.Text)
	s.Markdown.Heading = fg(p.Primary).Bold(true)
	s.Markdown.Mark = fg(p.Primary)
	s.Markdown.Code = fg(p.Accent)
	s.Markdown.CodeBlock = fg(p.Text)
	s.Markdown.CodeKeyword = fg(p.Accent)
	s.Markdown.CodeString = fg(p.Success)
	s.Markdown.CodeComment = fg(p.Muted).Italic(true)
	s.Markdown.CodeNumber = fg(p.Warning)
	s.Markdown.Link = fg(p.Accent).Underline(true)
	s.Markdown.URL = fg(p.Muted)
	s.Markdown.Quote = fg(p.Muted)
	s.Markdown.Marker = fg(p.Primary)
	s.Markdown.Rule = fg(p.Border)
	s.Markdown.Border = fg(p.Border)

	s.Picker.Title = fg(p.Primary).Bold(true)
	s.Picker.Item = fg(p.Text)
	s.Picker.Selected = fg(p.Accent).Bold(true)
	s.Picker.Detail = fg(p.Muted)
	s.Picker.Hint = fg(p.Muted)

	// Blocks additions.
	s.Blocks.Focused = fg(p.Primary).Bold(true)
	s.Blocks.MaxTurns = fg(p.Warning)
	s.Blocks.Waiting = fg(p.Accent).Bold(true)
	s.Blocks.Summary = fg(p.Text)
	s.Blocks.Note = fg(p.Warning)

	s.Crew.Title = fg(p.Primary).Bold(true)
	s.Crew.Header = fg(p.Muted).Bold(true)
	s.Crew.Row = fg(p.Text)
	s.Crew.Selected = fg(p.Accent).Bold(true)
	s.Crew.Tree = fg(p.Border)
	s.Crew.Stalled = fg(p.Warning).Bold(true)
	s.Crew.Number = fg(p.Muted)
	return s
}
