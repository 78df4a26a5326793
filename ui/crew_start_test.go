package ui

import (
	"strings"
	"testing"

	"covey/ui/keys"
	"covey/ui/transcript"
)

func TestMention(t *testing.T) {
	types := []AgentInfo{{Name: "Explore"}, {Name: "general-purpose"}}
	tests := map[string]struct {
		text, typ, brief string
		ok               bool
	}{
		"a type and a brief":     {"@Explore find the retry logic", "Explore", "find the retry logic", true},
		"any case":               {"@explore  find it ", "Explore", "find it", true},
		"a brief on a new line":  {"@general-purpose\nwrite the notes", "general-purpose", "write the notes", true},
		"no brief":               {"@Explore", "Explore", "", true},
		"no such type (a path?)": {"@docs/guide.md what is in it", "", "", false},
		"not at the start":       {"ask @Explore", "", "", false},
		"plain text":             {"hello", "", "", false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			typ, brief, ok := mention(tt.text, types)
			if typ != tt.typ || brief != tt.brief || ok != tt.ok {
				t.Errorf("mention(%q) = %q, %q, %v; want %q, %q, %v", tt.text, typ, brief, ok, tt.typ, tt.brief, tt.ok)
			}
		})
	}
}

func TestCompletionAgents(t *testing.T) {
	keys := keys.Default()
	c := newCompletion(defaultCommands(keys), keys, nil)
	c.SetAgents(agentEntries([]AgentInfo{{Name: "Explore", Description: "Reads"}, {Name: "general-purpose"}, {Name: "Plan"}}))
	tests := map[string][]string{
		"@":         {"Explore", "general-purpose", "Plan"},
		"@ex":       {"Explore"},
		"@PL":       {"Plan"},
		"@docs/":    nil, // no type: room for paths
		"@Explore ": nil,
		"/cl":       {"clear"},
	}
	for value, want := range tests {
		c.Filter(value)
		var got []string
		for _, m := range c.Matches() {
			got = append(got, m.Name)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("Filter(%q) = %v, want %v", value, got, want)
		}
		if len(want) > 0 && c.CompletesAt() != (value[0] == '@') {
			t.Errorf("Filter(%q): completes an @ word %v", value, c.CompletesAt())
		}
	}
}

func TestByteText(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 4096: "4.1 KB", 104_857_600: "104.9 MB", 3e9: "3.0 GB"} {
		if got := transcript.ByteText(n); got != want {
			t.Errorf("byteText(%d) = %q, want %q", n, got, want)
		}
	}
}
