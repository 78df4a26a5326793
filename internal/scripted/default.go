package scripted

import (
	"strings"
	"time"

	"covey/tools/toolname"
)

// defaultTurns bounds how long a person can chat with the default
// conversation; every turn makes the same decision, so the number only has
// to outlast a session.
const defaultTurns = 256

// DefaultConversation is what the standalone server answers when it has no
// script, so a person can point covey at it: it matches anything, answers
// "Hello from the scripted server.", and when the latest user message asks
// to "list files" it first calls the glob tool with {"pattern":"*"}, then
// reports the tool's result.
func DefaultConversation() Conversation {
	turns := make([]Turn, defaultTurns)
	for i := range turns {
		turns[i] = Turn{Func: defaultTurn}
	}
	return Conversation{Name: "default", Turns: turns}
}

func defaultTurn(r Request) Turn {
	// A little pacing makes the stream visible to a person watching.
	const pace = 15 * time.Millisecond
	if last := r.LastMessage(); last.Role == "tool" {
		return Turn{Text: "The " + last.Name + " tool answered:\n\n" + last.Content, ChunkDelay: pace}
	}
	if strings.Contains(strings.ToLower(r.LastUser()), "list files") {
		return Turn{ToolCalls: []Call{{Name: toolname.Glob, Args: map[string]any{"pattern": "*"}}}, ChunkDelay: pace}
	}
	return Turn{Text: "Hello from the scripted server.", ChunkDelay: pace}
}
