package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// testPNG is a small PNG of w×h with varied pixels (so its bytes are not
// trivially compressible), as a screenshot would be.
func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 13), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// requestImages decodes every image_url data URL of a request body, in
// order, with the role of the message that carried it.
func requestImages(t *testing.T, body []byte) (imgs [][]byte, roles []string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	for _, m := range req.Messages {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue // a string
		}
		for _, p := range parts {
			if p.Type != "image_url" {
				continue
			}
			data, ok := strings.CutPrefix(p.ImageURL.URL, "data:image/png;base64,")
			if !ok {
				t.Fatalf("image_url %.60q is not a PNG data URL", p.ImageURL.URL)
			}
			raw, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				t.Fatalf("image_url data: %v", err)
			}
			imgs, roles = append(imgs, raw), append(roles, m.Role)
		}
	}
	return imgs, roles
}

// TestHeadlessImages: an image attached with @ and one read with read_file
// reach the server as image_url data URLs whose decoded bytes are the
// file's; the session file keeps them by hash only, the bytes once beside
// it.
func TestHeadlessImages(t *testing.T) {
	t.Parallel()
	shot := testPNG(t, 64, 40)
	tests := map[string]struct {
		prompt string
		turns  []scripted.Turn
		role   string
	}{
		"through @": {prompt: "what is wrong in @shot.png", role: "user",
			turns: []scripted.Turn{{Text: "the button is cut off"}}},
		"through read_file": {prompt: "look at the screenshot", role: "user",
			turns: []scripted.Turn{
				{ToolCalls: []scripted.Call{{ID: "call_read", Name: "read_file", Args: map[string]any{"path": "shot.png"}}}},
				{Text: "the button is cut off"},
			}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHeadlessRun(t)
			if err := os.WriteFile(filepath.Join(h.ws, "shot.png"), shot, 0o644); err != nil {
				t.Fatal(err)
			}
			h.srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: tc.turns})
			r := h.run(t, "", "-p", tc.prompt)
			if r.code != 0 || !strings.Contains(r.stdout, "the button is cut off") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			last := lastRequest(t, h.srv, "main")
			imgs, roles := requestImages(t, last.Body)
			if len(imgs) != 1 || !bytes.Equal(imgs[0], shot) || roles[0] != tc.role {
				t.Fatalf("the last request carries %d images (roles %v); want the file's %d bytes once, in a %s message", len(imgs), roles, len(shot), tc.role)
			}
			if tc.turns[0].ToolCalls != nil {
				if got := toolResult(t, h.srv, "call_read"); !strings.Contains(got, "[image shot.png 64x40") {
					t.Errorf("read_file's text result is %q, want the image's line", got)
				}
			}
			files, _ := filepath.Glob(filepath.Join(h.box.home, ".local/share/covey/sessions/*.jsonl"))
			if len(files) != 1 {
				t.Fatalf("session files %v, want one", files)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(base64.StdEncoding.EncodeToString(shot)[:64])) || len(data) > len(shot)*2+20000 {
				t.Errorf("the session file (%d bytes) holds the image's bytes inline", len(data))
			}
			kept, _ := filepath.Glob(strings.TrimSuffix(files[0], ".jsonl") + ".images/*")
			if len(kept) != 1 {
				t.Fatalf("images kept beside the session: %v, want one", kept)
			}
			if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, shot) {
				t.Errorf("the kept image differs from the file")
			}
		})
	}
}

// TestHeadlessImageNoVision: with vision: false an attached image is
// refused with a clear message before any request is sent.
func TestHeadlessImageNoVision(t *testing.T) {
	t.Parallel()
	h := newHeadlessRun(t)
	if err := os.WriteFile(filepath.Join(h.ws, "shot.png"), testPNG(t, 8, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.ws, ".covey"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, ".covey", "config.yaml"), []byte("vision: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.run(t, "", "-p", "what is wrong in @shot.png")
	if r.code == 0 || !strings.Contains(r.stderr, "takes no images") {
		t.Errorf("exit %d, stderr %q; want a failure saying the model takes no images", r.code, r.stderr)
	}
	if n := len(h.srv.Journal()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}

// TestTUIPasteClipboardImage: ctrl+v with an image on the clipboard (a
// stand-in xclip on PATH) puts a path in the input, and sending the
// message attaches the image: the server receives the clipboard's bytes.
func TestTUIPasteClipboardImage(t *testing.T) {
	t.Parallel()
	shot := testPNG(t, 32, 20)
	bin := t.TempDir()
	clip := filepath.Join(bin, "clip.png")
	if err := os.WriteFile(clip, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase \"$*\" in\n*TARGETS*) printf 'TARGETS\\nimage/png\\n' ;;\n*image/png*) cat " + clip + " ;;\n*) printf 'text' ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	const prompt = "what is wrong here"
	srv := scriptedtest.New(t)
	srv.Add(scripted.Conversation{Name: "main", Match: scripted.Match{SystemContains: mainPrompt}, Turns: []scripted.Turn{{Text: "PASTED SEEN."}}})
	env := newSandbox(t).env("OPENAI_BASE_URL="+srv.URL(), "DISPLAY=:99")
	for i, e := range env {
		if strings.HasPrefix(e, "PATH=") {
			env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(e, "PATH=")
		}
	}
	tm := startTUI(t, workspace(t, sampleFiles()), env, "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.typeText(prompt + " ")
	tm.press("C-v")
	tm.waitText("pasted an image", "covey-pasted/pasted-")
	tm.press("Enter")
	tm.waitText("PASTED SEEN.")
	imgs, _ := requestImages(t, lastRequest(t, srv, "main").Body)
	if len(imgs) != 1 || !bytes.Equal(imgs[0], shot) {
		t.Errorf("the request carries %d images; want the clipboard's %d bytes", len(imgs), len(shot))
	}
}

// TestTUIPasteNoClipboard: without a display, ctrl+v says why nothing was
// pasted, and the input is left as it was.
func TestTUIPasteNoClipboard(t *testing.T) {
	t.Parallel()
	srv := scriptedtest.New(t)
	tm := startTUI(t, workspace(t, sampleFiles()), newSandbox(t).env("OPENAI_BASE_URL="+srv.URL()), "--model", "e2e-model")
	tm.waitText(helpLine)
	tm.typeText("draft")
	tm.press("C-v")
	s := tm.waitText("no clipboard here")
	if !strings.Contains(s, "› draft") {
		t.Errorf("the draft changed:\n%s", frame(s))
	}
}
