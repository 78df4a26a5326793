package agent

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// imageHistory is a user message with an image, a call, and a tool result
// with another image.
func imageHistory() (user, tool Image, msgs []Message) {
	user = Image{Name: "shot.png", MediaType: "image/png", Hash: strings.Repeat("a", 64), Size: 5, Data: []byte("\x89PNG1")}
	tool = Image{Name: "read.gif", MediaType: "image/gif", Hash: strings.Repeat("b", 64), Size: 5, Data: []byte("GIF89")}
	msgs = []Message{
		{Role: RoleSystem, Content: "sys"},
		{Role: RoleUser, Content: "look", Images: []Image{user}},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"read.gif"}`}}},
		{Role: RoleTool, ToolCallID: "call_1", Name: "read_file", Content: tool.Line(), Images: []Image{tool}},
	}
	return user, tool, msgs
}

// dataURL decodes a data URL of media type mt.
func dataURL(t *testing.T, url, mt string) []byte {
	t.Helper()
	b64, ok := strings.CutPrefix(url, "data:"+mt+";base64,")
	if !ok {
		t.Fatalf("%.50q is not a %s data URL", url, mt)
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWiresCarryImages: each wire puts a user's image and a tool's image
// in its own form, the decoded bytes equal to the image's.
func TestWiresCarryImages(t *testing.T) {
	user, tool, msgs := imageHistory()
	t.Run("chat", func(t *testing.T) {
		body, err := encodeRequest(Request{Model: "m", Messages: msgs}, false)
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		var roles []string
		for _, m := range req.Messages {
			var parts []struct {
				Type     string               `json:"type"`
				ImageURL struct{ URL string } `json:"image_url"`
			}
			if json.Unmarshal(m.Content, &parts) != nil {
				continue
			}
			for _, p := range parts {
				if p.Type == "image_url" {
					mt := user.MediaType
					if len(got) == 1 {
						mt = tool.MediaType
					}
					got, roles = append(got, dataURL(t, p.ImageURL.URL, mt)), append(roles, m.Role)
				}
			}
		}
		if len(got) != 2 || !bytes.Equal(got[0], user.Data) || !bytes.Equal(got[1], tool.Data) || roles[0] != RoleUser || roles[1] != RoleUser {
			t.Errorf("images %q in roles %v", got, roles)
		}
		if last := req.Messages[len(req.Messages)-1]; last.Role != RoleUser {
			t.Errorf("the tool's image is not in a user message after the results: last is %s", last.Role)
		}
	})
	t.Run("anthropic", func(t *testing.T) {
		body, err := encodeAnthropic(Request{Model: "m", Messages: msgs, MaxTokens: 100}, Reasoning{})
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Type    string          `json:"type"`
					Source  *antImageSource `json:"source"`
					Content json.RawMessage `json:"content"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		first := req.Messages[0].Content
		if len(first) != 2 || first[1].Type != "image" || first[1].Source.MediaType != "image/png" {
			t.Fatalf("the user message's blocks: %+v", first)
		}
		if b, _ := base64.StdEncoding.DecodeString(first[1].Source.Data); !bytes.Equal(b, user.Data) {
			t.Errorf("the user's image decodes to %q", b)
		}
		last := req.Messages[len(req.Messages)-1].Content[0]
		var inner []struct {
			Type   string          `json:"type"`
			Source *antImageSource `json:"source"`
		}
		if last.Type != "tool_result" || json.Unmarshal(last.Content, &inner) != nil || len(inner) != 2 || inner[1].Type != "image" {
			t.Fatalf("the tool_result holds %s", last.Content)
		}
		if b, _ := base64.StdEncoding.DecodeString(inner[1].Source.Data); !bytes.Equal(b, tool.Data) {
			t.Errorf("the tool's image decodes to %q", b)
		}
	})
	t.Run("responses", func(t *testing.T) {
		body, err := encodeResponsesRequest(Request{Model: "m", Messages: msgs}, "")
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Input []struct {
				Type    string          `json:"type"`
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"input"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		for _, it := range req.Input {
			var parts []struct {
				Type     string `json:"type"`
				ImageURL string `json:"image_url"`
			}
			if it.Type != "message" || json.Unmarshal(it.Content, &parts) != nil {
				continue
			}
			for _, p := range parts {
				if p.Type == "input_image" {
					mt := user.MediaType
					if len(got) == 1 {
						mt = tool.MediaType
					}
					got = append(got, dataURL(t, p.ImageURL, mt))
				}
			}
		}
		if len(got) != 2 || !bytes.Equal(got[0], user.Data) || !bytes.Equal(got[1], tool.Data) {
			t.Errorf("input_image parts %q", got)
		}
	})
}

// TestWiresImageWithoutBytes: an image whose bytes are gone is sent as its
// line, never as an empty image.
func TestWiresImageWithoutBytes(t *testing.T) {
	msgs := []Message{{Role: RoleUser, Content: "look", Images: []Image{{Name: "old.png", MediaType: "image/png", Size: 10}}}}
	body, err := encodeRequest(Request{Model: "m", Messages: msgs}, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "image_url") || !strings.Contains(string(body), "[image old.png 10 B] (the image itself is no longer available)") {
		t.Errorf("body %s", body)
	}
}
