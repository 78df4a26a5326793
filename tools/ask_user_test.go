package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"covey/permission"
)

// TestAskUserArgs: bad questions get a clear error; good ones reach the
// gate as asked, and the verdict becomes the model's result.
func TestAskUserArgs(t *testing.T) {
	tests := map[string]struct {
		args    string
		verdict permission.Verdict
		want    string
		isErr   bool
	}{
		"no question":     {args: `{"question":" ","options":[{"label":"a"}]}`, want: "question is required", isErr: true},
		"no options":      {args: `{"question":"q","options":[]}`, want: "give 1 to 4 options", isErr: true},
		"five options":    {args: `{"question":"q","options":[{"label":"a"},{"label":"b"},{"label":"c"},{"label":"d"},{"label":"e"}]}`, want: "give 1 to 4 options", isErr: true},
		"empty label":     {args: `{"question":"q","options":[{"label":" "}]}`, want: "option 1 has no label", isErr: true},
		"not json":        {args: `{`, want: "invalid arguments", isErr: true},
		"answered":        {args: `{"question":"q","options":[{"label":"a"}]}`, verdict: permission.Verdict{Allowed: true, Answer: "a"}, want: "The user answered: a"},
		"declined":        {args: `{"question":"q","options":[{"label":"a"}]}`, verdict: permission.Verdict{Reason: permission.DeclinedAnswer, ByUser: true}, want: "declined"},
		"nobody to ask":   {args: `{"question":"q","options":[{"label":"a"}]}`, verdict: permission.Verdict{Reason: permission.NoUserReason}, want: "no user is available"},
		"answer verbatim": {args: `{"question":"q","options":[{"label":"a"},{"label":"b"}],"multi_select":true}`, verdict: permission.Verdict{Allowed: true, Answer: "a\nb"}, want: "The user answered: a\nb"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var asked *permission.Question
			gate := permission.GateFunc(func(_ context.Context, r permission.Request) permission.Verdict {
				asked = r.Question
				return tc.verdict
			})
			r := NewAskUser(gate, false).Run(context.Background(), json.RawMessage(tc.args))
			if r.IsError != tc.isErr || !strings.Contains(r.Content, tc.want) {
				t.Errorf("result %+v, want %q (error %v)", r, tc.want, tc.isErr)
			}
			if !tc.isErr && (asked == nil || asked.Question != "q") {
				t.Errorf("the gate was asked %+v", asked)
			}
		})
	}
	if r := NewAskUser(nil, true).Run(context.Background(), json.RawMessage(`{"question":"q","options":[{"label":"a"}]}`)); !r.IsError || !strings.Contains(r.Content, "ask_user: deny") {
		t.Errorf("with deny: %+v", r)
	}
}

// TestNewImage: types by bytes, dimensions, the size limit.
func TestNewImage(t *testing.T) {
	var b bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 30, 20))
	img.Set(1, 1, color.White)
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	// A minimal VP8X WebP header: 30x20 (stored less one, little-endian).
	webp := append([]byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00"), 29, 0, 0, 19, 0, 0)
	tests := map[string]struct {
		data      []byte
		mediaType string
		w, h      int
		err       string
	}{
		"png":        {data: b.Bytes(), mediaType: "image/png", w: 30, h: 20},
		"webp":       {data: webp, mediaType: "image/webp", w: 30, h: 20},
		"not image":  {data: []byte("hello"), err: "not a PNG, JPEG, GIF or WebP"},
		"over limit": {data: append([]byte("GIF89a"), make([]byte, MaxImageBytes)...), err: "images are limited to 5.0 MB"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := NewImage("dir/x.img", tc.data)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got.MediaType != tc.mediaType || got.Width != tc.w || got.Height != tc.h || got.Name != "x.img" || len(got.Hash) != 64 {
				t.Errorf("image %+v, %v", got, err)
			}
			if line := got.Line(); !strings.HasPrefix(line, "[image x.img 30x20 ") {
				t.Errorf("line %q", line)
			}
		})
	}
}
