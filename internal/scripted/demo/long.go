package demo

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"covey/internal/plural"
	"covey/tools/toolname"

	"covey/internal/scripted"
)

// The long exploration is the demo's second exchange, for trying the crew
// controls: asked for "a long exploration", the main agent sends three
// Explore children that each walk the workspace step by step for some
// forty seconds, one real read-only tool call every few seconds, with their
// narration streaming slowly. That leaves time to focus a pane, send it to
// the background (ctrl+b), message it (m), pause it (p), open it (o) and
// see the crew (ctrl+g). A child answers a message at its next request: it
// says what it was asked, searches the workspace for the message's words,
// and its report ends with what it found about them.

const (
	// LongPrompt is what the welcome card suggests typing to start the long
	// exploration; any prompt with "long" in it starts it.
	LongPrompt = "a long exploration"
	// The opening words of the long children's briefs.
	longWalkTask = "Walk the workspace one folder at a time"
	longDocsTask = "Read the workspace's documentation file by file"
	longCodeTask = "Survey the code's declarations and markers"
	// longSteps is the number of tool calls each long child makes before
	// its report; with the pacing below a child works for about forty
	// seconds.
	longSteps      = 8
	longTurnDelay  = 2500 * time.Millisecond
	longChunkDelay = 90 * time.Millisecond
	longChunkSize  = 4
	// longMaxTurns bounds a child's turns: its steps, the answers to the
	// messages it is sent and its reports after resumes.
	longMaxTurns = 80
)

// longConversations are the scripts of the three long children.
func longConversations() []scripted.Conversation {
	return []scripted.Conversation{
		longChild("demo-long-walk", longWalkTask, walkStep),
		longChild("demo-long-docs", longDocsTask, docsStep),
		longChild("demo-long-code", longCodeTask, codeStep),
	}
}

// longTasks is the main agent's task call that starts them.
func longTasks() scripted.Turn {
	return scripted.Turn{
		Text: "A long exploration, then: three explorers that take their time, so you can try the crew controls " +
			"(tab to a pane, then ctrl+b background, m message, p pause, o open; ctrl+g shows them all).",
		ToolCalls: []scripted.Call{{Name: toolname.Task, Args: map[string]any{"tasks": []map[string]string{
			{"description": "walk the folders", "subagent_type": "Explore",
				"prompt": longWalkTask + ", listing each and counting files by kind. Report the layout."},
			{"description": "read the docs", "subagent_type": "Explore",
				"prompt": longDocsTask + " and note what each one covers. Report the topics."},
			{"description": "survey the code", "subagent_type": "Explore",
				"prompt": longCodeTask + " (functions, classes, TODOs, imports). Report the busiest files."},
		}}}},
	}
}

// isLongPrompt reports whether the user asked for the long exploration.
func isLongPrompt(s string) bool {
	return strings.Contains(strings.ToLower(s), "long")
}

// longStep is one child's plan: the narration and call of step i (0-based)
// given the results of its earlier steps, in order.
type longStep func(i int, results []string) (string, scripted.Call)

func longChild(name, marker string, step longStep) scripted.Conversation {
	t := scripted.Turn{Func: func(r scripted.Request) scripted.Turn { return longTurn(r, step) }}
	return childScript(name, marker, repeatTurn(t, longMaxTurns))
}

// longTurn answers one request of a long child: the next step of its plan,
// an answer to a message it was just sent, or its report.
func longTurn(r scripted.Request, step longStep) scripted.Turn {
	h := readLongHistory(r.Messages)
	var text strings.Builder
	if h.newMessage != "" {
		// A message from the user (m): say so, and search for its words
		// before going on.
		fmt.Fprintf(&text, "Got your message: “%s”. ", excerpt(h.newMessage, 80))
		if pat := messagePattern(h.newMessage); pat != "" {
			fmt.Fprintf(&text, "Searching the workspace for %s first.", strings.Join(messageWords(h.newMessage), ", "))
			return paceLong(scripted.Turn{Text: text.String(), ToolCalls: []scripted.Call{{Name: toolname.Grep, Args: map[string]any{
				"pattern": pat, "ignore_case": true, "output_mode": "files_with_matches",
			}}}})
		}
		text.WriteString("It has no word I can search for, so I carry on. ")
	}
	if h.lastSteerResult != "" {
		fmt.Fprintf(&text, "%s ", steerFinding(h.lastSteer, h.lastSteerResult))
	}
	if len(h.results) < longSteps {
		say, call := step(len(h.results), h.results)
		fmt.Fprintf(&text, "Step %d of %d: %s", len(h.results)+1, longSteps, say)
		return paceLong(scripted.Turn{Text: text.String(), ToolCalls: []scripted.Call{call}})
	}
	text.Reset() // the report restates what the messages asked
	text.WriteString(longReport(h))
	return paceLong(scripted.Turn{Text: text.String()})
}

// longHistory is what a long child has done so far, read from its request.
type longHistory struct {
	results []string // the results of its plan's steps, in order
	// messages are the user's messages after the brief, each with what the
	// search for its words found ("" when it had none to search).
	messages []steered
	// newMessage is a message that arrived since the child's last answer.
	newMessage string
	// lastSteer and lastSteerResult are the message and search result the
	// child has not commented on yet.
	lastSteer, lastSteerResult string
}

type steered struct{ text, found string }

func readLongHistory(msgs []scripted.Message) longHistory {
	var h longHistory
	firstUser := true
	steerCall := false // the last assistant message was a message's search
	for i, m := range msgs {
		switch m.Role {
		case "user":
			if firstUser {
				firstUser = false
				continue
			}
			h.messages = append(h.messages, steered{text: m.Content})
			if i == len(msgs)-1 {
				h.newMessage = m.Content
			}
		case "assistant":
			steerCall = len(m.ToolCalls) > 0 && i > 0 && msgs[i-1].Role == "user" && !firstUser && len(h.messages) > 0 &&
				msgs[i-1].Content == h.messages[len(h.messages)-1].text
		case "tool":
			if steerCall {
				h.messages[len(h.messages)-1].found = m.Content
				if i == len(msgs)-1 {
					h.lastSteer, h.lastSteerResult = h.messages[len(h.messages)-1].text, m.Content
				}
				continue
			}
			h.results = append(h.results, m.Content)
		}
	}
	return h
}

// paceLong slows a long child's turn so a person can follow it.
func paceLong(t scripted.Turn) scripted.Turn {
	t.Delay, t.ChunkDelay, t.ChunkSize = longTurnDelay, longChunkDelay, longChunkSize
	return t
}

// wordRe finds a message's words; compiled on first use, since a
// package-level regexp with Unicode classes costs every covey start
// (--version included) some 0.8 M instructions.
var wordRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\p{L}\p{N}_.-]{4,}`) })

// stopWords are left out of a message's search: they would match anything.
var stopWords = map[string]bool{
	"about": true, "also": true, "please": true, "that": true, "this": true, "with": true, "what": true,
	"where": true, "which": true, "from": true, "look": true, "only": true, "focus": true, "there": true,
	"them": true, "then": true, "they": true, "into": true, "have": true, "your": true, "just": true,
	"instead": true, "more": true, "files": true, "file": true, "find": true, "show": true, "tell": true,
}

// messageWords are the words of a user's message worth searching for: at
// most three, of four letters or more, no stop words.
func messageWords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range wordRe().FindAllString(s, -1) {
		w = strings.Trim(w, ".-")
		lw := strings.ToLower(w)
		if len(lw) < 4 || stopWords[lw] || seen[lw] {
			continue
		}
		seen[lw] = true
		out = append(out, w)
		if len(out) == 3 {
			break
		}
	}
	return out
}

// messagePattern is the grep pattern that finds any of the message's words.
func messagePattern(s string) string {
	words := messageWords(s)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(words, "|")
}

// steerFinding says what the search for a message's words found.
func steerFinding(msg, result string) string {
	words := strings.Join(messageWords(msg), ", ")
	files := nonEmptyLines(result)
	if len(files) == 0 || strings.HasPrefix(files[0], "No ") || strings.HasPrefix(files[0], "Error") {
		return fmt.Sprintf("About your message: %s appears in no file here.", words)
	}
	n := len(files)
	if len(files) > 3 {
		files = append(files[:3], "…")
	}
	return fmt.Sprintf("About your message: %s appears in %d %s (%s).", words, n, plural.Noun(n, "file"), strings.Join(files, ", "))
}

// longReport is a long child's closing answer: what its steps found, and
// what each message asked and what the search for it found.
func longReport(h longHistory) string {
	var b strings.Builder
	b.WriteString("Done after ")
	fmt.Fprintf(&b, "%d steps. ", len(h.results))
	files := 0
	for _, r := range h.results {
		files += len(nonEmptyLines(r))
	}
	fmt.Fprintf(&b, "My tools returned %d lines about this workspace in all.", files)
	for _, m := range h.messages {
		if len(messageWords(m.text)) == 0 {
			fmt.Fprintf(&b, " You wrote “%s”; it had no word to search for.", excerpt(m.text, 80))
			continue
		}
		fmt.Fprintf(&b, " You asked: “%s”. %s", excerpt(m.text, 80), steerFinding(m.text, m.found))
	}
	return b.String()
}

// walkStep lists the top level, then up to four of its folders (or globs
// of common kinds when there are fewer), then every file.
func walkStep(i int, results []string) (string, scripted.Call) {
	list := func(path string) scripted.Call {
		return scripted.Call{Name: toolname.ListDir, Args: map[string]any{"path": path}}
	}
	glob := func(p string) scripted.Call {
		return scripted.Call{Name: toolname.Glob, Args: map[string]any{"pattern": p}}
	}
	switch i {
	case 0:
		return "listing the top level.", list(".")
	case longSteps - 1:
		return "globbing every file to count them.", glob("**/*")
	}
	var dirs []string
	for _, l := range nonEmptyLines(results[0]) {
		if strings.HasSuffix(l, "/") {
			dirs = append(dirs, l)
		}
	}
	if i-1 < len(dirs) {
		return "listing " + dirs[i-1] + ".", list(strings.TrimSuffix(dirs[i-1], "/"))
	}
	kinds := []string{"**/*.go", "**/*.md", "**/*.{js,ts,py,rs}", "**/*_test.*", "**/*.{json,yaml,yml,toml}"}
	p := kinds[(i-1-len(dirs))%len(kinds)]
	return "looking for " + p + ".", glob(p)
}

// docsStep globs the markdown files, reads up to four of them (or the
// workspace's other top-level files), and counts their headings.
func docsStep(i int, results []string) (string, scripted.Call) {
	switch i {
	case 0:
		return "finding the markdown docs.", scripted.Call{Name: toolname.Glob, Args: map[string]any{"pattern": "**/*.md"}}
	case longSteps - 1:
		return "counting the headings of every doc.", scripted.Call{Name: toolname.Grep, Args: map[string]any{
			"pattern": "^#{1,3} ", "glob": "*.md", "output_mode": "count"}}
	case longSteps - 2:
		return "looking for licence and contribution notes.", scripted.Call{Name: toolname.Grep, Args: map[string]any{
			"pattern": "licen[cs]e|contribut", "ignore_case": true, "output_mode": "files_with_matches"}}
	}
	docs := nonEmptyLines(results[0])
	if len(docs) > 0 && strings.HasPrefix(docs[0], "No ") {
		docs = nil
	}
	if i-1 < len(docs) {
		return "reading " + docs[i-1] + ".", scripted.Call{Name: toolname.ReadFile, Args: map[string]any{"path": docs[i-1], "limit": 25}}
	}
	return "no more docs; listing the top level for other notes.", scripted.Call{Name: toolname.ListDir, Args: map[string]any{"path": "."}}
}

// codeStep counts declarations per file, reads the three busiest files,
// then lists the TODO markers and counts imports.
func codeStep(i int, results []string) (string, scripted.Call) {
	grep := func(pattern, mode string) scripted.Call {
		return scripted.Call{Name: toolname.Grep, Args: map[string]any{"pattern": pattern, "output_mode": mode}}
	}
	switch i {
	case 0:
		return "counting functions and classes per file.", grep(`^\s*(func|def|fn|class|pub fn) `, "count")
	case longSteps - 3:
		return "listing TODO and FIXME markers.", grep(`TODO|FIXME|XXX`, "content")
	case longSteps - 2:
		return "counting imports per file.", grep(`^import|^from \S+ import|^use |^#include`, "count")
	case longSteps - 1:
		return "finding the tests.", scripted.Call{Name: toolname.Glob, Args: map[string]any{"pattern": "**/*test*"}}
	}
	busiest := busiestFiles(results[0])
	if i-1 < len(busiest) {
		return "reading " + busiest[i-1] + ", one of the busiest files.", scripted.Call{Name: toolname.ReadFile, Args: map[string]any{"path": busiest[i-1], "limit": 30}}
	}
	return "globbing the source files instead.", scripted.Call{Name: toolname.Glob, Args: map[string]any{"pattern": "**/*.{go,py,js,ts,rs,c,java}"}}
}

// busiestFiles orders grep's "path:count" lines by count, most first.
func busiestFiles(counts string) []string {
	type fc struct {
		path string
		n    int
	}
	var fs []fc
	for _, l := range nonEmptyLines(counts) {
		i := strings.LastIndexByte(l, ':')
		if i < 0 {
			continue
		}
		var n int
		if _, err := fmt.Sscan(l[i+1:], &n); err == nil {
			fs = append(fs, fc{l[:i], n})
		}
	}
	sort.SliceStable(fs, func(a, b int) bool { return fs[a].n > fs[b].n })
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.path
	}
	return out
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
