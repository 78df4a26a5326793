package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"covey/agent"
	"covey/internal/safefile"
	"covey/tools"
)

// This file holds images on the session's side: the image paths pasted
// into a prompt (a screenshot dragged onto the terminal, a path ctrl+v
// left), and whether the model takes images at all.

// maxPastedImages bounds the pasted image paths one prompt attaches.
const maxPastedImages = 5

// pastedImages attaches the images whose paths were pasted into prompt
// (words that are not "@path", name an image file by its extension and
// exist), and returns the blocks that tell the model of them. The user
// pasted the path, so the file is read where it is, inside the workspace
// or not.
func (s *Session) pastedImages(prompt string, imgs *[]agent.Image) string {
	var b strings.Builder
	n := 0
	for _, w := range pastedPaths(prompt) {
		if n == maxPastedImages {
			s.attachNote(agent.NoticeWarning, fmt.Sprintf("%s not attached: at most %d pasted images per message", w, maxPastedImages))
			break
		}
		path := w
		if strings.HasPrefix(path, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				path = filepath.Join(home, path[2:])
			}
		}
		if !filepath.IsAbs(path) {
			path = s.ws.Resolve(path)
		}
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		img, err := s.loadImage(path)
		if err != nil {
			s.attachNote(agent.NoticeWarning, fmt.Sprintf("%s not attached: %v", w, err))
			continue
		}
		n++
		*imgs = append(*imgs, img)
		fmt.Fprintf(&b, "\n\n<attached-image path=%q>%s</attached-image>", w, img.Line())
		s.attachNote(agent.NoticeInfo, "attached "+img.Line())
	}
	return b.String()
}

// loadImage reads an image file for the model, refused when the model
// takes none.
func (s *Session) loadImage(path string) (agent.Image, error) {
	if !s.TakesImages() {
		return agent.Image{}, fmt.Errorf("%s takes no images (vision: false)", s.main.Model())
	}
	data, err := safefile.Read(path, tools.MaxImageBytes+1)
	if err != nil {
		return agent.Image{}, err
	}
	return tools.NewImage(path, data)
}

// pastedPaths are the words of text that look like image files' paths:
// not "@path" words, ending in an image extension, quotes around them
// dropped (a terminal quotes a dragged path with spaces).
func pastedPaths(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(text) {
		w := strings.Trim(f, `'"`)
		if strings.HasPrefix(w, "@") || !tools.IsImageName(w) || seen[w] {
			continue
		}
		if !strings.ContainsRune(w, '/') && !strings.HasPrefix(w, "~") {
			continue // a bare name is a word about a file, not a pasted path
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// TakesImages reports whether the main model takes images: false when the
// config says vision: false.
func (s *Session) TakesImages() bool {
	v := s.cfg.Vision
	return v == nil || *v
}

// imageWord is the first word of prompt that would attach an image (an
// "@image.png" or a pasted image path naming a file), "" for none.
func (s *Session) imageWord(prompt string) string {
	for _, w := range atWords(prompt) {
		if tools.IsImageName(w) {
			if _, err := os.Stat(s.ws.Resolve(w)); err == nil {
				return "@" + w
			}
		}
	}
	for _, w := range pastedPaths(prompt) {
		if _, err := os.Stat(w); err == nil {
			return w
		}
	}
	return ""
}
