package ui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"covey/ui/transcript"
)

// This file holds ctrl+v: an image on the clipboard is saved to a file
// and its path put in the input, where the session attaches it when the
// message is sent (a pasted image path attaches); text on the clipboard
// is pasted as text. Where no clipboard tool is found, it says so.

// clipboardTimeout bounds one clipboard tool's run.
const clipboardTimeout = 3 * time.Second

// clipboardMaxBytes bounds what is read from the clipboard (images are
// limited to 5 MB further on; larger ones are refused there, said so).
const clipboardMaxBytes = 16 << 20

// clipboardMsg is what ctrl+v found: an image saved at path, text, or why
// nothing was pasted.
type clipboardMsg struct {
	path, text string
	err        error
}

// clipboardTool is one way to read the clipboard: the command listing
// its types, and the commands reading an image or text.
type clipboardTool struct {
	name        string
	types       []string
	image, text func(mediaType string) []string
}

// clipboardTools are the tools of this platform, in the order tried.
func clipboardTools() []clipboardTool {
	var out []clipboardTool
	if runtime.GOOS == "darwin" {
		out = append(out, clipboardTool{name: "pngpaste", image: func(string) []string { return []string{"pngpaste", "-"} },
			text: func(string) []string { return []string{"pbpaste"} }})
		return out
	}
	if os.Getenv("WAYLAND_DISPLAY") != "" {
		out = append(out, clipboardTool{name: "wl-paste", types: []string{"wl-paste", "--list-types"},
			image: func(t string) []string { return []string{"wl-paste", "--no-newline", "--type", t} },
			text:  func(string) []string { return []string{"wl-paste", "--no-newline"} }})
	}
	if os.Getenv("DISPLAY") != "" {
		out = append(out, clipboardTool{name: "xclip", types: []string{"xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"},
			image: func(t string) []string { return []string{"xclip", "-selection", "clipboard", "-t", t, "-o"} },
			text:  func(string) []string { return []string{"xclip", "-selection", "clipboard", "-o"} }})
	}
	return out
}

// clipboardImageTypes are the image types asked for, best first.
var clipboardImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// pasteClipboard reads the clipboard in a command: an image first, else
// text.
func pasteClipboard() tea.Cmd {
	return func() tea.Msg {
		tools := clipboardTools()
		var found *clipboardTool
		for i := range tools {
			if _, err := exec.LookPath(tools[i].image("")[0]); err == nil {
				found = &tools[i]
				break
			}
		}
		if found == nil {
			return clipboardMsg{err: errors.New(noClipboardTool())}
		}
		if data, ok := clipboardImage(found); ok {
			path, err := saveClipboardImage(data)
			return clipboardMsg{path: path, err: err}
		}
		text, err := runClipboard(found.text(""))
		if err != nil || len(text) == 0 {
			return clipboardMsg{err: fmt.Errorf("the clipboard holds no image or text (%s)", found.name)}
		}
		return clipboardMsg{text: string(text)}
	}
}

// noClipboardTool says what to install to paste images here.
func noClipboardTool() string {
	switch {
	case runtime.GOOS == "darwin":
		return "pasting an image needs pngpaste (brew install pngpaste); or type the image's path, or @file"
	case os.Getenv("WAYLAND_DISPLAY") == "" && os.Getenv("DISPLAY") == "":
		return "no clipboard here (no Wayland or X display): type the image's path, or @file"
	}
	return "pasting an image needs wl-paste (wl-clipboard) or xclip; or type the image's path, or @file"
}

// clipboardImage reads an image off the clipboard, if it holds one.
func clipboardImage(t *clipboardTool) ([]byte, bool) {
	types := clipboardImageTypes
	if t.types != nil {
		listed, err := runClipboard(t.types)
		if err != nil {
			return nil, false
		}
		types = nil
		for _, mt := range clipboardImageTypes {
			if bytes.Contains(listed, []byte(mt)) {
				types = append(types, mt)
			}
		}
	}
	for _, mt := range types {
		if data, err := runClipboard(t.image(mt)); err == nil && len(data) > 0 {
			return data, true
		}
	}
	return nil, false
}

// runClipboard runs one clipboard command, bounded in time and size.
func runClipboard(argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), clipboardTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &out, n: clipboardMaxBytes}
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// limitedWriter keeps the first n bytes written and drops the rest.
type limitedWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// saveClipboardImage writes a pasted image to a file of its own (named by
// its hash, so pasting it twice makes one file) and returns its path.
func saveClipboardImage(data []byte) (string, error) {
	ext := ".png"
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		ext = ".jpg"
	case bytes.HasPrefix(data, []byte("GIF8")):
		ext = ".gif"
	case len(data) > 12 && string(data[8:12]) == "WEBP":
		ext = ".webp"
	}
	dir := filepath.Join(os.TempDir(), "covey-pasted")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("save the pasted image: %w", err)
	}
	sum := sha256.Sum256(data)
	path := filepath.Join(dir, "pasted-"+hex.EncodeToString(sum[:6])+ext)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("save the pasted image: %w", err)
	}
	return path, nil
}

// handleClipboard puts what ctrl+v found into the input.
func (m *Model) handleClipboard(msg clipboardMsg) {
	switch {
	case msg.err != nil:
		m.say(msg.err.Error())
	case msg.path != "":
		v := m.input.Value()
		if v != "" && !strings.HasSuffix(v, " ") {
			v += " "
		}
		m.input.SetValue(v + msg.path + " ")
		m.notice(transcript.NoticeInfo, "pasted an image: it is attached when you send the message")
	case msg.text != "":
		m.input.SetValue(m.input.Value() + msg.text)
	}
}
