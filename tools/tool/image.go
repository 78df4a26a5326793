package tool

import "fmt"

// Image is an image given to a model: attached to a user's message (an
// "@shot.png", a pasted screenshot) or returned by read_file. It is kept
// wire-neutral: each provider's wire puts MediaType and Data in its own
// form when it builds a request. Data is never written into a session
// file (json "-"): the session keeps each image once, by Hash, beside the
// file, and loads it back on resume.
type Image struct {
	Name      string `json:"name"`       // the file's name, for the transcript
	MediaType string `json:"media_type"` // image/png, image/jpeg, image/gif or image/webp
	Hash      string `json:"hash"`       // sha256 of Data, hex
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	Size      int    `json:"size"` // bytes
	Data      []byte `json:"-"`
}

// Line is the one line the transcript shows for the image, never its
// bytes: "[image shot.png 1280x720 212 KB]".
func (i Image) Line() string {
	dims := ""
	if i.Width > 0 && i.Height > 0 {
		dims = fmt.Sprintf(" %dx%d", i.Width, i.Height)
	}
	return fmt.Sprintf("[image %s%s %s]", i.Name, dims, sizeText(i.Size))
}

// sizeText is a byte count as people read it: 812 B, 212 KB, 3.4 MB.
func sizeText(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
