package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"covey/agent"
	"covey/agent/sessionfile"
	"covey/internal/safefile"
	"covey/tools"
)

// A session file names its images by hash; their bytes are kept once
// each, beside it, in a folder of the session's name with ".images"
// (SESSION.images/HASH), so the file stays small however often an image
// is sent again, and a resumed session sends the images back.

// imagesDir is the folder of the session's images.
func (r *recording) imagesDir() string {
	return strings.TrimSuffix(r.path, sessionfile.Ext) + ".images"
}

// keepImages writes the bytes of the images not kept yet. A failure is
// told once: the conversation goes on, the image is only lost on resume.
func (r *recording) keepImages(imgs []agent.Image) {
	if len(imgs) == 0 || r.path == "" {
		return
	}
	dir := r.imagesDir()
	for _, img := range imgs {
		if len(img.Data) == 0 || !validHash(img.Hash) {
			continue
		}
		p := filepath.Join(dir, img.Hash)
		if _, err := os.Stat(p); err == nil {
			continue
		}
		err := os.MkdirAll(dir, 0o700)
		if err == nil {
			tmp := p + ".tmp"
			if err = os.WriteFile(tmp, img.Data, 0o600); err == nil {
				err = os.Rename(tmp, p)
			}
		}
		if err != nil {
			r.tell(agent.NoticeWarning, fmt.Sprintf("the image %s is not kept with the session (%v): a resumed session will lack it", img.Name, err))
			return
		}
	}
}

// loadImages puts the bytes of the images of msgs back from the images
// folder; an image whose bytes are missing keeps none (the wire then sends
// its line instead).
func (r *recording) loadImages(msgs []agent.Message) {
	dir := r.imagesDir()
	for i := range msgs {
		for j := range msgs[i].Images {
			img := &msgs[i].Images[j]
			if !validHash(img.Hash) {
				continue
			}
			data, err := safefile.Read(filepath.Join(dir, img.Hash), tools.MaxImageBytes)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					r.tell(agent.NoticeWarning, fmt.Sprintf("the image %s of the session cannot be read: %v", img.Name, err))
				}
				continue
			}
			img.Data = data
		}
	}
}

// validHash reports whether h is a sha256 in hex, so a hash read from a
// session file never names a path outside the images folder.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
