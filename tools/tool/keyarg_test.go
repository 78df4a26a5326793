package tool

import (
	"encoding/json"
	"testing"

	"covey/tools/toolname"
)

func TestKeyArg(t *testing.T) {
	tests := map[string]struct {
		name, args, want string
	}{
		"a path":                       {toolname.ReadFile, `{"path": "a.go"}`, "a.go"},
		"a command's first line":       {toolname.Bash, `{"command": "go test ./...\necho done"}`, "go test ./..."},
		"a batch of tasks":             {toolname.Task, `{"tasks": [{}, {}]}`, "2 tasks"},
		"send_message names its child": {toolname.SendMessage, `{"to": "scout", "message": "also check the docs"}`, "scout"},
		"stop_agent names its child":   {toolname.StopAgent, `{"to": "explore-2"}`, "explore-2"},
		"stop_agent without a target":  {toolname.StopAgent, `{}`, ""},
		"malformed JSON":               {toolname.StopAgent, `{"to": `, ""},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := KeyArg(tt.name, json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("KeyArg(%s, %s) = %q, want %q", tt.name, tt.args, got, tt.want)
			}
		})
	}
}
