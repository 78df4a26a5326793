package shell

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// argsOf renders the commands of a parse as "word word | word" for compact
// expectations: commands are joined by " | ", words by single spaces, and a
// command with no words (a subshell wrapper, a closing keyword, a bare
// assignment) shows as "-".
func argsOf(cmds []Cmd) string {
	var parts []string
	for _, c := range cmds {
		if len(c.Args) == 0 {
			parts = append(parts, "-")
			continue
		}
		parts = append(parts, strings.Join(c.Args, " "))
	}
	return strings.Join(parts, " | ")
}

func TestParseShellCommands(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"simple", "go test ./...", "go test ./..."},
		{"extra spaces", "  go   test\t./...  ", "go test ./..."},
		{"and", "go test && rm -rf ~", "go test | rm -rf ~"},
		{"or", "go test || rm x", "go test | rm x"},
		{"semicolon", "go test; rm x", "go test | rm x"},
		{"pipe", "go test | tee out", "go test | tee out"},
		{"pipe stderr", "go test |& tee out", "go test | tee out"},
		{"background", "go test & rm x", "go test | rm x"},
		{"trailing semicolon", "ls;", "ls"},
		{"trailing background", "ls &", "ls"},
		{"newline", "go test\nrm x", "go test | rm x"},
		{"blank lines", "\n\nls\n\n", "ls"},
		{"newline after operator", "go test &&\n  go vet", "go test | go vet"},
		{"line continuation", "ls \\\n  -la", "ls -la"},
		{"command substitution", "go test $(rm x)", "go test $(rm x) | rm x"},
		{"nested substitution", "echo $(a $(b))", "echo $(a $(b)) | a $(b) | b"},
		{"backquotes", "echo `rm -rf ~`", "echo `rm -rf ~` | rm -rf ~"},
		{"nested backquotes", "echo `a \\`b\\``", "echo `a \\`b\\`` | a `b` | b"},
		{"subshell", "(cd x && rm y)", "- | cd x | rm y"},
		{"group", "{ go test; rm x; }", "go test | rm x | -"},
		{"process substitution in", "diff <(ls a) <(ls b)", "diff <(ls a) <(ls b) | ls a | ls b"},
		{"process substitution out", "tee >(rm x)", "tee >(rm x) | rm x"},
		{"double quotes keep operators", `echo "a && b"`, "echo a && b"},
		{"single quotes keep operators", "echo 'x; y'", "echo x; y"},
		{"substitution inside double quotes", `echo "$(rm x)"`, "echo $(rm x) | rm x"},
		{"no substitution inside single quotes", `echo '$(rm x)'`, "echo $(rm x)"},
		{"escaped semicolon", `echo a\; rm`, "echo a; rm"},
		{"escaped ampersands", `echo a \&\& rm`, "echo a && rm"},
		{"escaped quote in double quotes", `echo "a\" && rm"`, `echo a" && rm`},
		{"backslash kept in double quotes", `echo "a\b"`, `echo a\b`},
		{"quotes removed", `"go" 't'est`, "go test"},
		{"escaped command name", `\rm -rf x`, "rm -rf x"},
		{"ansi quotes", `echo $'a\tb' && ls`, `echo a\tb | ls`},
		{"locale quotes", `echo $"a; b"`, "echo a; b"},
		{"env prefix", "FOO=1 BAR+=2 go test", "go test"},
		{"env prefix with substitution", "A=$(rm x) go test", "go test | rm x"},
		{"assignment only", "x=1", "-"},
		{"assignment after name is an argument", "go test X=1", "go test X=1"},
		{"comment", "go test # && rm", "go test"},
		{"comment line", "# rm\nls", "ls"},
		{"hash inside word", "echo a#b && rm", "echo a#b | rm"},
		{"redirection out", "go test > out.txt", "go test"},
		{"redirection fd", "go test 2>&1", "go test"},
		{"redirection both", "go test &> out && ls", "go test | ls"},
		{"redirection first", "> out go test", "go test"},
		{"redirection append", "go test >>log 2>>err", "go test"},
		{"redirection in", "wc -l < file", "wc -l"},
		{"here string", "cat <<< $(rm x)", "cat | rm x"},
		{"digit argument", "echo 2 > x", "echo 2"},
		{"heredoc quoted", "cat <<'EOF'\n$(rm x)\nEOF\nls", "cat | ls"},
		{"heredoc plain", "cat <<EOF\nhello $HOME\nEOF\nls", "cat | ls"},
		{"heredoc tabs", "cat <<-EOF\n\thello\n\tEOF\nls", "cat | ls"},
		{"heredoc then command", "cat <<EOF && rm x\nbody\nEOF", "cat | rm x"},
		{"heredoc unterminated", "cat <<EOF\nbody", "cat"},
		{"if", "if go test; then rm x; fi", "go test | rm x | -"},
		{"while", "while true; do rm x; done", "true | rm x | -"},
		{"negation", "! go test", "go test"},
		{"keyword as argument", "echo if then", "echo if then"},
		{"quoted keyword is a command", "'if' x", "if x"},
		{"parameter", "echo ${HOME} $x ${y:-z}", "echo ${HOME} $x ${y:-z}"},
		{"lone dollar", "echo $ a", "echo $ a"},
		{"brace expansion", "echo {a,b}", "echo {a,b}"},
		{"empty", "", ""},
		{"only spaces", "   ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.src, err)
			}
			if got := argsOf(cmds); got != tt.want {
				t.Errorf("Parse(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestParseShellDetails(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(c []Cmd) bool
	}{
		{"assignments recorded", "A=1 B=2 go test", func(c []Cmd) bool { return slices.Equal(c[0].Assigns, []string{"A", "B"}) }},
		{"redirections counted", "go test >a 2>&1 <b", func(c []Cmd) bool { return c[0].Redirs == 3 }},
		{"dynamic name", "$CMD -rf x", func(c []Cmd) bool { return c[0].DynamicName }},
		{"dynamic substituted name", "$(echo rm) -rf x", func(c []Cmd) bool { return c[0].DynamicName }},
		{"quoted dynamic name", `"$X" y`, func(c []Cmd) bool { return c[0].DynamicName }},
		{"literal name", "rm $X", func(c []Cmd) bool { return !c[0].DynamicName }},
		{"for is opaque", "for x in a; do ls; done", func(c []Cmd) bool { return c[0].Opaque && !c[1].Opaque }},
		{"keywords recorded", "if ! go test; then ls; fi", func(c []Cmd) bool { return slices.Equal(c[0].Keywords, []string{"if", "!"}) }},
		{"subshell marked", "(ls) > out", func(c []Cmd) bool { return c[0].Subshell && c[0].Redirs == 1 }},
		{"heredoc quoted by backslash", "cat <<\\EOF\n`rm x`\nEOF", func(c []Cmd) bool { return len(c) == 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.src, err)
			}
			if !tt.check(cmds) {
				t.Errorf("Parse(%q) = %+v", tt.src, cmds)
			}
		})
	}
}

func TestParseShellErrors(t *testing.T) {
	tests := map[string]string{
		"unterminated single quote":    "echo 'a && rm x",
		"unterminated double quote":    `echo "a && rm x`,
		"unterminated escape in quote": `echo "a\`,
		"unterminated backquote":       "echo `rm x",
		"unterminated substitution":    "echo $(rm x",
		"unterminated subshell":        "(ls",
		"unterminated parameter":       "echo ${x",
		"stray close paren":            "ls )",
		"operator first":               "&& ls",
		"double semicolon":             "ls;; rm",
		"ends after and":               "ls &&",
		"ends after pipe":              "ls |",
		"empty between operators":      "ls && && rm",
		"function definition":          "f() { rm x; }; f",
		"arithmetic expansion":         "echo $((1+2))",
		"arithmetic command":           "((x++))",
		"substitution in parameter":    "echo ${x:-$(rm y)}",
		"quote in parameter":           `echo ${x:-'a}'}`,
		"heredoc with substitution":    "cat <<EOF\n$(rm x)\nEOF",
		"heredoc with backquote":       "cat <<EOF\n`rm x`\nEOF",
		"escaped quote in ansi quotes": `echo $'a\'' && rm x #'`,
		"redirection without target":   "ls >",
		"redirection into operator":    "ls > && rm",
		"word after subshell":          "(ls) rm",
		"array assignment":             "a=(1 2)",
		"case":                         "case x in a) rm;; esac",
		"unterminated in backquotes":   "echo `echo 'a`",
		"too deep":                     strings.Repeat("$(", maxShellDepth+1) + strings.Repeat(")", maxShellDepth+1),
		"parameters too deep":          "echo " + strings.Repeat("${", maxShellDepth+1) + strings.Repeat("}", maxShellDepth+1),
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			cmds, err := Parse(src)
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want an error", src, argsOf(cmds))
			}
			if !errors.Is(err, errUnparseable) {
				t.Errorf("Parse(%q) error %v does not wrap errUnparseable", src, err)
			}
		})
	}
}
