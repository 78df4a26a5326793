package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"covey/agent"
	"covey/internal/excerpt"
	"covey/permission"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// This file holds the input's conveniences on the engine's side: files
// named with "@path" in a prompt are attached to it, and a command the
// user runs with "!cmd" goes through the bash tool (the gate, the
// sandbox) and into the model's next request.

// Bounds of what the input adds to a prompt.
const (
	// maxAttachments is how many "@path" words of one prompt are attached.
	maxAttachments = 10
	// maxAttachBytes bounds all of one prompt's attachments together
	// (each is already bounded by read_file's own caps).
	maxAttachBytes = 256 << 10
	// maxShellNote bounds one "!cmd"'s output in the next request.
	maxShellNote = 16 << 10
	// maxShellNotes is how many "!cmd"s wait for the next request; older
	// ones give way.
	maxShellNotes = 8
)

// userInput is what the user's own shell commands left for the next
// prompt.
type userInput struct {
	mu    sync.Mutex
	notes []string
	seq   atomic.Int64
}

// take removes and returns the waiting notes.
func (u *userInput) take() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := u.notes
	u.notes = nil
	return out
}

func (u *userInput) add(note string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.notes = append(u.notes, note)
	if len(u.notes) > maxShellNotes {
		u.notes = u.notes[len(u.notes)-maxShellNotes:]
	}
}

// ErrNoShell is why RunUserShell runs nothing where the main agent has no
// bash tool (plan mode).
var ErrNoShell = errors.New("the shell is not available in plan mode")

// RunUserShell runs command as the user's own "!command" (ui.ShellRunner):
// through the main agent's bash tool, so the permission gate (deny rules,
// asks) and the sandbox apply as to any bash call. Its progress shows as a
// bash call of the main agent (ToolStarted, ToolFinished); the command and
// its output, bounded, go into the model's next request.
func (s *Session) RunUserShell(ctx context.Context, command string) error {
	command = strings.TrimSpace(command)
	if command == "" {
		return errors.New("no shell command given")
	}
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return fmt.Errorf("shell command: %w", err)
	}
	src := agent.Source{AgentID: agent.MainAgentID}
	id := fmt.Sprintf("user-shell-%d", s.input.seq.Add(1))
	key := excerpt.Line(command)
	s.emit(agent.ToolStarted{Source: src, CallID: id, Name: toolname.Bash, Args: args, KeyArg: key, ByUser: true})
	t, ok := s.main.Tools().Get(toolname.Bash)
	if !ok {
		// Shown as the call's failure: nothing ran, nothing to tell the
		// model.
		res := tool.Errorf("%v: switch the permission mode to run commands", ErrNoShell)
		s.emit(agent.ToolFinished{Source: src, CallID: id, Name: toolname.Bash, KeyArg: key, Result: res})
		return nil
	}
	start := time.Now()
	// The user typed it: no approval is asked (as a hook's allow, deny
	// rules still refuse); the sandbox and the timeout hold as ever.
	res := t.Run(permission.WithUserCommand(ctx), args)
	// The command may have changed any file: listings are stale.
	s.ws.Invalidate()
	s.emit(agent.ToolFinished{Source: src, CallID: id, Name: toolname.Bash, KeyArg: key, Duration: time.Since(start), Result: res})
	s.input.add(shellNote(command, res))
	return nil
}

// shellNote is how a "!command" enters the next request.
func shellNote(command string, res tool.Result) string {
	out := res.Content
	if len(out) > maxShellNote {
		half := maxShellNote / 2
		out = out[:half] + fmt.Sprintf("\n… %d bytes cut …\n", len(out)-2*half) + out[len(out)-half:]
		out = strings.ToValidUTF8(out, "")
	}
	return shellNoteOpen + "The user ran `" + command + "` in the shell (" + res.Summary + "):\n" + out + shellNoteClose
}

// The tags around a "!command"'s note, which withInput puts before the
// prompt with a blank line after each.
const (
	shellNoteOpen  = "<user-shell-command>\n"
	shellNoteClose = "\n</user-shell-command>"
)

// typedPrompt is what the user typed of a prompt withInput sent: without
// the notes of their shell commands before it and the files attached
// after it, which it returns as the notices the live session showed
// ("attached file @greet.go"), in order. A resumed session shows these,
// as the live one did (the commands show as their bash blocks).
func typedPrompt(content string) (typed string, notes []string) {
	for strings.HasPrefix(content, shellNoteOpen) {
		end := strings.Index(content, shellNoteClose+"\n\n")
		if end < 0 {
			break
		}
		content = content[end+len(shellNoteClose)+2:]
	}
	for {
		var cut int
		what := "file"
		switch {
		case strings.HasSuffix(content, "\n</attached-file>"):
			cut = strings.LastIndex(content, "\n\n<attached-file path=")
		case strings.HasSuffix(content, "\n</attached-folder>"):
			cut, what = strings.LastIndex(content, "\n\n<attached-folder path="), "folder"
		default:
			return content, notes
		}
		if cut < 0 {
			return content, notes
		}
		path, err := strconv.QuotedPrefix(content[strings.IndexByte(content[cut:], '=')+cut+1:])
		if p, uerr := strconv.Unquote(path); err == nil && uerr == nil {
			notes = append([]string{fmt.Sprintf("attached %s @%s", what, p)}, notes...)
		}
		content = content[:cut]
	}
}

// WorkspaceFiles lists the workspace's visible files (ui.FileLister: the
// input's "@" completion): what glob sees, .gitignore respected.
func (s *Session) WorkspaceFiles(ctx context.Context) ([]string, error) {
	return s.ws.Files(ctx, ".")
}

// withInput adds to prompt what the input left for it: the notes of the
// user's shell commands before it, the files its "@path" words name after
// it.
func (s *Session) withInput(ctx context.Context, prompt string) string {
	text, _ := s.withInputImages(ctx, prompt)
	return text
}

// withInputImages is withInput and the images the prompt attaches: its
// "@image.png" words and the image paths pasted into it.
func (s *Session) withInputImages(ctx context.Context, prompt string) (string, []agent.Image) {
	if notes := s.input.take(); len(notes) > 0 {
		prompt = strings.Join(notes, "\n\n") + "\n\n" + prompt
	}
	var imgs []agent.Image
	text := s.attachments(ctx, prompt, &imgs)
	text += s.pastedImages(prompt, &imgs)
	return prompt + text, imgs
}

// atWords are the "@path" words of text (an "@" at the start of a word),
// without trailing punctuation, each once.
func atWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(text) {
		if !strings.HasPrefix(f, "@") {
			continue
		}
		w := strings.TrimRight(f[1:], ",;:!?)]}\"'`")
		w = strings.TrimSuffix(w, ".")
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// attachments reads the files and folders that prompt's "@path" words
// name, through read_file and list_dir (so their read and deny rules
// apply), and returns them as blocks to append. Each attached or refused
// path shows as a notice; a word that names nothing stays a word.
func (s *Session) attachments(ctx context.Context, prompt string, imgs *[]agent.Image) string {
	words := atWords(prompt)
	if len(words) == 0 {
		return ""
	}
	reg := s.main.Tools()
	var b strings.Builder
	n := 0
	for _, w := range words {
		fi, err := os.Stat(s.ws.Resolve(w))
		if err != nil {
			if strings.ContainsAny(w, "/.") && errors.Is(err, os.ErrNotExist) {
				s.attachNote(agent.NoticeWarning, fmt.Sprintf("@%s not attached: no such file", w))
			}
			continue
		}
		if n == maxAttachments {
			s.attachNote(agent.NoticeWarning, fmt.Sprintf("@%s not attached: at most %d attachments per message", w, maxAttachments))
			continue
		}
		name, tag := toolname.ReadFile, "attached-file"
		if fi.IsDir() {
			name, tag = toolname.ListDir, "attached-folder"
		}
		t, ok := reg.Get(name)
		if !ok {
			s.attachNote(agent.NoticeWarning, fmt.Sprintf("@%s not attached: %s is not available", w, name))
			continue
		}
		args, _ := json.Marshal(map[string]string{"path": w})
		res := t.Run(ctx, args)
		if res.IsError {
			s.attachNote(agent.NoticeWarning, fmt.Sprintf("@%s not attached: %s", w, strings.TrimPrefix(excerpt.Line(res.Content), "Error: ")))
			continue
		}
		block := fmt.Sprintf("\n\n<%s path=%q>\n%s\n</%s>", tag, w, res.Content, tag) // typedPrompt takes it off again
		if b.Len()+len(block) > maxAttachBytes {
			s.attachNote(agent.NoticeWarning, fmt.Sprintf("@%s not attached: the message's attachments would pass %d KB", w, maxAttachBytes>>10))
			continue
		}
		n++
		b.WriteString(block)
		*imgs = append(*imgs, res.Images...)
		what := "file"
		if fi.IsDir() {
			what = "folder"
		}
		if len(res.Images) > 0 {
			what = "image"
		}
		s.attachNote(agent.NoticeInfo, fmt.Sprintf("attached %s @%s (%s)", what, w, res.Summary))
	}
	return b.String()
}

// attachNote shows the user what happened to an "@path".
func (s *Session) attachNote(level, msg string) {
	s.emit(agent.Notice{Source: agent.Source{AgentID: agent.MainAgentID}, Level: level, Message: msg})
}
