package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"image"
	_ "image/gif"  // DecodeConfig of GIF images
	_ "image/jpeg" // DecodeConfig of JPEG images
	_ "image/png"  // DecodeConfig of PNG images
	"path/filepath"

	"covey/tools/tool"
)

// MaxImageBytes bounds one image (Anthropic's limit per image; OpenAI's
// is larger): a larger one is refused with a message saying so, not sent
// for the provider to refuse.
const MaxImageBytes = 5 << 20

// ImageType returns the media type of data when it is a PNG, JPEG, GIF or
// WebP image, judged by its first bytes (not its name), else "".
func ImageType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// IsImageName reports whether a file name says it is an image covey can
// give a model (png, jpg/jpeg, gif, webp).
func IsImageName(name string) bool {
	switch filepath.Ext(name) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".PNG", ".JPG", ".JPEG", ".GIF", ".WEBP":
		return true
	}
	return false
}

// NewImage makes the Image of data named name: its type from its bytes,
// its size and dimensions, its hash. It fails on data that is no image
// covey takes, or is larger than MaxImageBytes.
func NewImage(name string, data []byte) (tool.Image, error) {
	mt := ImageType(data)
	if mt == "" {
		return tool.Image{}, fmt.Errorf("%s is not a PNG, JPEG, GIF or WebP image", name)
	}
	if len(data) > MaxImageBytes {
		return tool.Image{}, fmt.Errorf("%s is %s; images are limited to %s (make it smaller, or crop it)",
			name, humanSize(int64(len(data))), humanSize(MaxImageBytes))
	}
	sum := sha256.Sum256(data)
	img := tool.Image{Name: filepath.Base(name), MediaType: mt, Hash: hex.EncodeToString(sum[:]), Size: len(data), Data: data}
	if mt == "image/webp" {
		img.Width, img.Height = webpSize(data)
	} else if c, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		img.Width, img.Height = c.Width, c.Height
	}
	return img, nil
}

// webpSize reads a WebP image's dimensions from its first chunk (VP8X,
// VP8 or VP8L); 0, 0 when it cannot tell.
func webpSize(d []byte) (w, h int) {
	if len(d) < 30 {
		return 0, 0
	}
	switch string(d[12:16]) {
	case "VP8X":
		w = 1 + (int(d[24]) | int(d[25])<<8 | int(d[26])<<16)
		h = 1 + (int(d[27]) | int(d[28])<<8 | int(d[29])<<16)
		return w, h
	case "VP8 ":
		return int(binary.LittleEndian.Uint16(d[26:28]) & 0x3fff), int(binary.LittleEndian.Uint16(d[28:30]) & 0x3fff)
	case "VP8L":
		b := binary.LittleEndian.Uint32(d[21:25])
		return int(b&0x3fff) + 1, int((b>>14)&0x3fff) + 1
	}
	return 0, 0
}
