// Package demo holds the conversations of covey --demo: the whole TUI on a
// scripted model served on loopback, with no key and no network.
package demo

import (
	"fmt"
	"strings"
	"time"

	"covey/internal/plural"
	"covey/tools/toolname"

	"covey/internal/scripted"
)

// The demo runs the whole TUI on a scripted model served on loopback by
// covey's own test server: no key, no network. Whatever the user asks, the
// model sends three Explore children that make real read-only tool calls on
// the current directory, summarises their findings, and proposes one new
// file through the normal edit path, so the user sees the diff and chooses.

const (
	// Model is the model name the demo server answers as.
	Model        = "covey-demo"
	demoFileName = "COVEY_DEMO.md"
	// The opening words of the children's briefs, so each is matched to its
	// script: plain words the user reads in the pane, no internal marker.
	demoLayoutTask  = "List the top level of the workspace"
	demoEntryTask   = "Find the program's entry points"
	demoDocsTask    = "Count TODO and FIXME markers per file"
	demoTurnDelay   = 350 * time.Millisecond
	demoChunkDelay  = 18 * time.Millisecond
	demoMaxUserAsks = 200
)

// Conversations returns the scripts of the main agent and its children.
func Conversations() []scripted.Conversation {
	main := scripted.Conversation{
		Name:  "demo-main",
		Match: scripted.Match{SystemContains: "You are covey"},
		Turns: repeatTurn(paced(scripted.Turn{Func: demoMainTurn}), demoMaxUserAsks*4),
	}
	return append([]scripted.Conversation{
		main,
		childScript("demo-layout", demoLayoutTask, []scripted.Turn{
			paced(scripted.Turn{
				Text: "Looking at the top level first.",
				ToolCalls: []scripted.Call{
					{Name: toolname.ListDir, Args: map[string]any{"path": "."}},
					{Name: toolname.Glob, Args: map[string]any{"pattern": "**/*.{go,py,js,ts,rs,java,c,h,md}"}},
				},
			}),
			paced(scripted.Turn{Func: demoLayoutReport}),
		}),
		childScript("demo-entry", demoEntryTask, []scripted.Turn{
			paced(scripted.Turn{
				Text: "Searching for entry points.",
				ToolCalls: []scripted.Call{{Name: toolname.Grep, Args: map[string]any{
					"pattern":     `func main\(|if __name__ == .__main__.|"main":|fn main\(`,
					"output_mode": "files_with_matches",
				}}},
			}),
			paced(scripted.Turn{Func: demoEntryRead}),
			paced(scripted.Turn{Func: demoEntryReport}),
		}),
		childScript("demo-docs", demoDocsTask, []scripted.Turn{
			paced(scripted.Turn{
				Text: "Counting TODOs and finding docs.",
				ToolCalls: []scripted.Call{
					{Name: toolname.Grep, Args: map[string]any{"pattern": `TODO|FIXME`, "output_mode": "count"}},
					{Name: toolname.Glob, Args: map[string]any{"pattern": "**/*.md"}},
				},
			}),
			paced(scripted.Turn{Func: demoDocsReport}),
		}),
	}, longConversations()...)
}

func childScript(name, marker string, turns []scripted.Turn) scripted.Conversation {
	return scripted.Conversation{Name: name, Match: scripted.Match{FirstUser: marker}, Turns: turns}
}

func repeatTurn(t scripted.Turn, n int) []scripted.Turn {
	out := make([]scripted.Turn, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// paced slows a turn down so a person can watch the panes work.
func paced(t scripted.Turn) scripted.Turn {
	t.Delay, t.ChunkDelay, t.ChunkSize = demoTurnDelay, demoChunkDelay, 6
	if f := t.Func; f != nil {
		t.Func = func(r scripted.Request) scripted.Turn { return paced(f(r)) }
	}
	return t
}

// demoMainTurn answers the main agent from what happened since the user's
// last message: spawn the explorers (the long ones when asked for), then
// summarise and propose a file, then close. A background child's report
// is answered on its own.
func demoMainTurn(r scripted.Request) scripted.Turn {
	prompt, tail := sinceLastUser(r.Messages)
	last := scripted.Message{}
	if len(tail) > 0 {
		last = tail[len(tail)-1]
	}
	switch {
	case last.Role == "user" && strings.HasPrefix(last.Content, "[background agent"):
		return scripted.Turn{Text: "A background explorer reported:\n\n" + noticeDigest(last.Content)}
	case len(tail) == 0 && isLongPrompt(prompt):
		return longTasks()
	case len(tail) == 0:
		return (scripted.Turn{
			Text: "I'll look around this workspace with three explorers working in parallel.",
			ToolCalls: []scripted.Call{{Name: toolname.Task, Args: map[string]any{"tasks": []map[string]string{
				{"description": "map the project layout", "subagent_type": "Explore",
					"prompt": demoLayoutTask + " and count its source files by kind. Report what you find."},
				{"description": "find entry points", "subagent_type": "Explore",
					"prompt": demoEntryTask + " (main functions) and read the first one. Report paths and line numbers."},
				{"description": "survey docs and TODOs", "subagent_type": "Explore",
					"prompt": demoDocsTask + " and list the markdown docs. Report the numbers."},
			}}}},
		})
	case last.Role == "tool" && last.Name == toolname.Task && isLongPrompt(prompt):
		text := "Here is what the explorers found:\n\n" + demoDigest(last.Content)
		if stillWorking(last.Content) {
			text += "\n\nThe ones in the background go on working; their reports will show here when they finish. Ask me anything meanwhile."
		}
		return scripted.Turn{Text: text + "\n\nAsk for " + LongPrompt + " again, or anything else for the quick tour."}
	case last.Role == "tool" && last.Name == toolname.Task:
		return (scripted.Turn{
			Text: "Here is what the explorers found:\n\n" + demoDigest(last.Content) +
				"\n\nI'd like to save this overview as `" + demoFileName + "`. You'll see the diff first and can allow or deny it.",
			ToolCalls: []scripted.Call{{Name: toolname.WriteFile, Args: map[string]any{
				"path":    demoFileName,
				"content": "# Workspace overview (covey demo)\n\nWritten by `covey --demo` after three Explore subagents looked around.\n\n" + demoDigest(last.Content) + "\n",
			}}},
		})
	case last.Role == "tool" && last.Name == toolname.WriteFile:
		if strings.HasPrefix(last.Content, "Error") {
			return (scripted.Turn{Text: "Understood: I left your files untouched. Ask me anything else to see the explorers again."})
		}
		return (scripted.Turn{Text: "Saved `" + demoFileName + "`. Delete it whenever you like. Ask anything else to run the explorers again, or ask for " + LongPrompt + " to try the crew controls."})
	}
	return (scripted.Turn{Text: "That's the end of the demo script. Ask anything to run the explorers again."})
}

// noticeDigest shortens covey's message announcing background reports to
// one bullet per report.
func noticeDigest(msg string) string {
	var b strings.Builder
	for _, part := range strings.Split(msg, "[background agent ")[1:] {
		head, body, _ := strings.Cut(part, "\n")
		name, _, _ := strings.Cut(strings.Trim(head, "\""), "\"")
		body, _, _ = strings.Cut(body, "\n\n[This message comes from covey")
		fmt.Fprintf(&b, "- **%s**: %s\n", name, excerpt(sentences(body), 300))
	}
	return strings.TrimRight(b.String(), "\n")
}

// sentences ends each paragraph of s that has no closing punctuation
// with a period, so paragraphs joined on one line stay apart ("cancelled
// by the user. What it found before it stopped: …").
func sentences(s string) string {
	paras := strings.Split(strings.TrimSpace(s), "\n\n")
	for i, p := range paras {
		p = strings.TrimSpace(p)
		if p != "" && strings.TrimRight(p, ".:!?…)") == p {
			p += "."
		}
		paras[i] = p
	}
	return strings.Join(paras, "\n\n")
}

// demoDigest turns the task tool's result into a short markdown list: one
// bullet per child with its first lines.
func demoDigest(result string) string {
	var b strings.Builder
	for _, section := range strings.Split(result, "## ")[1:] {
		head, body, _ := strings.Cut(section, "\n")
		body = strings.TrimSpace(body)
		if bg, ended := backgroundNote(body); bg && ended != "" {
			body = "moved to the background, then " + ended + "; its report follows"
		} else if bg {
			body = "still working, in the background"
		}
		lines := strings.Split(body, "\n")
		if len(lines) > 4 {
			lines = append(lines[:4], "…")
		}
		fmt.Fprintf(&b, "- **%s**: %s\n", strings.TrimSpace(head), strings.Join(lines, " "))
	}
	if b.Len() == 0 {
		return "(the explorers reported nothing)"
	}
	return strings.TrimRight(b.String(), "\n")
}

// backgroundNote reads a task result's section on a child in the
// background: whether it is one, and how it ended if it has ended since
// ("cancelled"), "" while it still works.
func backgroundNote(body string) (bg bool, ended string) {
	if !strings.HasPrefix(body, "[") || !strings.Contains(body, "to the background") {
		return false, ""
	}
	const since = "has ended since ("
	if _, rest, ok := strings.Cut(body, since); ok {
		ended, _, _ = strings.Cut(rest, ")")
	}
	return true, ended
}

// stillWorking reports whether a task result names a child still working
// in the background.
func stillWorking(result string) bool {
	for _, section := range strings.Split(result, "## ")[1:] {
		_, body, _ := strings.Cut(section, "\n")
		if bg, ended := backgroundNote(strings.TrimSpace(body)); bg && ended == "" {
			return true
		}
	}
	return false
}

// sinceLastUser returns the user's last prompt and the messages after it.
// covey's messages delivering background reports are not prompts: they
// stay in the tail, and the prompt is the one before them.
func sinceLastUser(msgs []scripted.Message) (string, []scripted.Message) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && !strings.HasPrefix(msgs[i].Content, "[background agent") {
			return msgs[i].Content, msgs[i+1:]
		}
	}
	return "", msgs
}

// toolResults returns the contents of the tool messages of the last turn,
// by tool name (the last one wins when a name repeats).
func toolResults(r scripted.Request) map[string]string {
	out := map[string]string{}
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == "tool"; i-- {
		if _, seen := out[r.Messages[i].Name]; !seen {
			out[r.Messages[i].Name] = r.Messages[i].Content
		}
	}
	return out
}

func demoLayoutReport(r scripted.Request) scripted.Turn {
	res := toolResults(r)
	entries := nonEmptyLines(res[toolname.ListDir])
	if len(entries) > 0 && strings.Contains(entries[0], "director") {
		entries = entries[1:] // list_dir's ".: 2 directories, 5 files" header
	}
	files := nonEmptyLines(res[toolname.Glob])
	kinds := map[string]int{}
	for _, f := range files {
		if i := strings.LastIndexByte(f, '.'); i >= 0 && !strings.Contains(f[i:], " ") {
			kinds[f[i:]]++
		}
	}
	var parts []string
	for _, ext := range []string{".go", ".md", ".py", ".js", ".ts", ".rs", ".java", ".c", ".h"} {
		if kinds[ext] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", kinds[ext], ext))
		}
	}
	kindText := "no source files matched"
	if len(parts) > 0 {
		kindText = strings.Join(parts, ", ")
	}
	n := fmt.Sprintf("%d entries", len(entries))
	if len(entries) == 1 {
		n = "1 entry"
	}
	return scripted.Turn{Text: fmt.Sprintf("The top level lists %s. Source files by kind: %s.", n, kindText)}
}

func demoEntryRead(r scripted.Request) scripted.Turn {
	paths := nonEmptyLines(toolResults(r)[toolname.Grep])
	if len(paths) == 0 || strings.HasPrefix(paths[0], "No ") || strings.HasPrefix(paths[0], "Error") {
		return scripted.Turn{Text: "No main function or script entry point turned up in this workspace."}
	}
	return scripted.Turn{
		Text:      candidates(len(paths)),
		ToolCalls: []scripted.Call{{Name: toolname.ReadFile, Args: map[string]any{"path": paths[0], "limit": 30}}},
	}
}

func demoEntryReport(r scripted.Request) scripted.Turn {
	res := toolResults(r)
	content, ok := res[toolname.ReadFile]
	if !ok {
		return scripted.Turn{Text: "No entry point to report."}
	}
	path := ""
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, c := range r.Messages[i].ToolCalls {
			if c.Name == toolname.ReadFile {
				if s, ok := c.Args.(string); ok {
					path = s
				}
			}
		}
		if path != "" {
			break
		}
	}
	for _, line := range strings.Split(content, "\n") {
		if _, text, numbered := strings.Cut(line, "\t"); numbered {
			line = text // read_file numbers its lines
		}
		if strings.Contains(line, "func main(") || strings.Contains(line, "__main__") || strings.Contains(line, "fn main(") {
			return scripted.Turn{Text: fmt.Sprintf("Entry point found: %s — `%s`.", argPath(path), strings.TrimSpace(line))}
		}
	}
	return scripted.Turn{Text: fmt.Sprintf("Read the first candidate %s; its main function lies beyond the first 30 lines.", argPath(path))}
}

// argPath pulls "path" out of a call's JSON arguments.
func argPath(args string) string {
	if _, rest, ok := strings.Cut(args, `"path":"`); ok {
		if p, _, ok := strings.Cut(rest, `"`); ok {
			return p
		}
	}
	return "the file"
}

func demoDocsReport(r scripted.Request) scripted.Turn {
	res := toolResults(r)
	counts := nonEmptyLines(res[toolname.Grep])
	docs := nonEmptyLines(res[toolname.Glob])
	total, files := 0, 0
	for _, l := range counts {
		var n int
		if i := strings.LastIndexByte(l, ':'); i >= 0 {
			if _, err := fmt.Sscan(l[i+1:], &n); err == nil {
				total += n
				files++
			}
		}
	}
	docList := "none"
	if len(docs) > 0 && !strings.HasPrefix(docs[0], "No ") {
		if len(docs) > 5 {
			docs = append(docs[:5], "…")
		}
		docList = strings.Join(docs, ", ")
	} else {
		docs = nil
	}
	return scripted.Turn{Text: fmt.Sprintf("%d TODO/FIXME %s across %d %s. Markdown docs: %s.",
		total, plural.Noun(total, "marker"), files, plural.Noun(files, "file"), docList)}
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "[") {
			out = append(out, l)
		}
	}
	return out
}

// Start serves the demo conversations on loopback and returns the server's
// base URL and a function that stops it.
func Start() (url string, stop func(), err error) {
	srv := scripted.New()
	for _, c := range Conversations() {
		srv.Add(c)
	}
	srv.AllowUnmatched()
	if err := srv.Start(); err != nil {
		return "", nil, fmt.Errorf("start the demo model: %w", err)
	}
	return srv.URL(), srv.Close, nil
}

// candidates is the demo's word on how many files it found.
func candidates(n int) string {
	if n == 1 {
		return "1 candidate file; reading it."
	}
	return fmt.Sprintf("%d candidate files; reading the first.", n)
}
