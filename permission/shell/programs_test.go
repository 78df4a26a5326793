package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestProgramPrecedence holds the dispatch table to the precedence of the
// families: a name two tables hold goes to the first (pwsh is a shell
// covey cannot parse, not an interpreter with -c code), and env and
// command have handlers of their own before the generic wrapper's.
func TestProgramPrecedence(t *testing.T) {
	tests := map[string]struct {
		src         string
		cmds        []string
		wrapper     []bool // per command: seen through (nil: none is)
		unknown     string // a substring of an Unknown reason, "" for none
		opaqueWhat  string // the What of an Opaque entry, "" for none
		writeTarget string // a Writes target, "" for none
	}{
		"pwsh is a foreign shell":      {src: "pwsh -c 'rm x'", cmds: []string{"pwsh"}, unknown: "syntax covey does not parse"},
		"command runs its command":     {src: "command rm x", cmds: []string{"command", "rm"}, wrapper: []bool{true, false}},
		"command -v only looks up":     {src: "command -v rm", cmds: []string{"command"}},
		"env runs its command":         {src: "env A=1 rm x", cmds: []string{"env", "rm"}, wrapper: []bool{true, false}},
		"sudo is privileged":           {src: "sudo rm x", cmds: []string{"sudo", "rm"}},
		"a versioned python":           {src: "python3.12 -c 'import os'", cmds: []string{"python3.12"}, opaqueWhat: "python3.12 -c"},
		"mapfile sets and runs -C":     {src: "mapfile -C 'rm x' arr", cmds: []string{"mapfile"}, opaqueWhat: "mapfile -C"},
		"make reads --eval":            {src: "make --eval 'x: ; rm y'", cmds: []string{"make"}, opaqueWhat: "make --eval"},
		"a function wins over a table": {src: "env() { :; }; env rm x", cmds: []string{":", "env"}, wrapper: []bool{false, true}},
		"sort writes -o":               {src: "sort -o out.txt in.txt", cmds: []string{"sort"}, writeTarget: "out.txt"},
		"a plain program":              {src: "ls -la", cmds: []string{"ls"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			l := Analyse(tt.src)
			if l.Err != nil {
				t.Fatal(l.Err)
			}
			var names []string
			for _, c := range l.Cmds {
				names = append(names, c.Name)
			}
			if !slices.Equal(names, tt.cmds) {
				t.Errorf("commands %q, want %q", names, tt.cmds)
			}
			for i, c := range l.Cmds {
				if want := tt.wrapper != nil && i < len(tt.wrapper) && tt.wrapper[i]; c.Wrapper != want {
					t.Errorf("%s: wrapper %v, want %v", c.Name, c.Wrapper, want)
				}
			}
			if got := strings.Join(l.Unknown, "; "); tt.unknown == "" && got != "" || !strings.Contains(got, tt.unknown) {
				t.Errorf("unknown %q, want %q", got, tt.unknown)
			}
			if tt.opaqueWhat != "" && !slices.ContainsFunc(l.Opaque, func(c Code) bool { return c.What == tt.opaqueWhat }) {
				t.Errorf("opaque %+v, want one of %q", l.Opaque, tt.opaqueWhat)
			}
			if tt.writeTarget != "" && !slices.ContainsFunc(l.Writes, func(w Write) bool { return w.Target == tt.writeTarget }) {
				t.Errorf("writes %+v, want %q", l.Writes, tt.writeTarget)
			}
		})
	}
}
