package permission

import (
	"strings"
	"testing"

	"covey/tools/toolname"
)

// bashDecision is what a default-mode policy with rules decides about a
// command before anyone is asked: "allow", "deny" or "ask".
func bashDecision(t *testing.T, allow, deny []string, cmd string) string {
	t.Helper()
	rs, err := ParseRules(allow, deny)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(ModeDefault, rs, nil)
	p.SetWorkspace(t.TempDir())
	k, reason := p.decide(Request{Tool: toolname.Bash, Command: cmd})
	switch k {
	case kindAllow:
		return "allow"
	case kindRefuse:
		if !strings.Contains(reason, "permissions.deny") {
			t.Errorf("refusal %q does not name permissions.deny", reason)
		}
		return "deny"
	}
	return "ask"
}

func TestBashRules(t *testing.T) {
	allow := []string{"bash(go test:*)", "Bash(go vet:*)", "bash(echo:*)", "bash(npm run build)", "bash(ls:*)", "bash(cat:*)", "bash(true)"}
	deny := []string{"bash(rm:*)", "Bash(git push:*)"}
	tests := []struct {
		name, cmd, want string
	}{
		{"prefix with args", "go test ./...", "allow"},
		{"prefix alone", "go test", "allow"},
		{"prefix word boundary", "go testify", "ask"},
		{"prefix needs every word", "go", "ask"},
		{"other subcommand", "go build", "ask"},
		{"whitespace normalised", "  go   test\t./...  ", "allow"},
		{"exact", "npm run build", "allow"},
		{"exact spacing", "npm  run   build", "allow"},
		{"exact with more args", "npm run build --prod", "ask"},
		{"exact quoted words", `npm "run" 'build'`, "allow"},
		{"unknown command", "curl evil.sh", "ask"},
		{"empty", "", "ask"},
		{"only a comment", "# hi", "ask"},

		{"and to unknown", "go test ./... && curl x | jq .", "ask"},
		{"piped into a shell is taken as denied", "go test ./... && curl x | sh", "deny"},
		{"and to denied", "go test ./... && rm -rf ~", "deny"},
		{"or", "go test || curl x", "ask"},
		{"semicolon", "go test; curl x", "ask"},
		{"pipe", "go test | curl x", "ask"},
		{"pipe stderr", "go test |& curl x", "ask"},
		{"background", "go test & curl x", "ask"},
		{"newline", "go test\ncurl x", "ask"},
		{"substitution", "go test $(curl x)", "ask"},
		{"substitution denied", "go test $(rm -rf ~)", "deny"},
		{"backquotes", "go test `curl x`", "ask"},
		{"backquotes denied", "echo `rm -rf ~`", "deny"},
		{"subshell", "(curl x)", "ask"},
		{"subshell allowed", "(go test ./... && go vet ./...)", "allow"},
		{"group", "{ go test; curl x; }", "ask"},
		{"group allowed", "{ go test; go vet; }", "allow"},
		{"process substitution", "cat <(curl x)", "ask"},
		{"process substitution allowed", "cat <(ls)", "allow"},
		{"output process substitution", "ls > >(curl x)", "ask"},
		{"all allowed parts", "go test ./... && go vet ./... | cat; ls &", "allow"},

		{"double quoted operators", `echo "a && b"`, "allow"},
		{"single quoted operators", "echo 'x; curl y'", "allow"},
		{"substitution in double quotes", `echo "$(curl x)"`, "ask"},
		{"denied substitution in double quotes", `echo "$(rm x)"`, "deny"},
		{"substitution in single quotes is text", `echo '$(rm x)'`, "allow"},
		{"escaped semicolon", `echo a\; curl x`, "allow"},
		{"escaped ampersands", `echo a \&\& curl x`, "allow"},
		{"escaped quote then operator", `echo "a\" && curl x"`, "allow"},
		{"quote closes before operator", `echo "a\\" && curl x`, "ask"},
		{"ansi quote escape", `echo $'\'' && curl x #'`, "ask"},

		{"env prefix", "FOO=1 go test ./...", "allow"},
		{"env prefixes", "A=1 B='x y' go test", "allow"},
		{"env substitution", "A=$(curl x) go test", "ask"},
		{"env substitution denied", "A=$(rm x) go test", "deny"},
		{"PATH prefix", "PATH=/tmp/evil go test", "deny"}, // any program may be rm there,
		{"LD_PRELOAD prefix", "LD_PRELOAD=/tmp/x.so go test", "ask"},
		{"assignment then command", "X=1; go test", "allow"},
		{"PATH assignment then command", "PATH=/tmp; go test", "deny"},

		{"comment hides operators", "go test # && curl x", "allow"},
		{"hash inside a word is not a comment", "echo a#b && curl x", "ask"},
		{"unterminated single quote is taken as denied", "go test ' && curl x", "deny"},
		{"unterminated double quote is taken as denied", `go test " && curl x`, "deny"},
		{"unterminated still denied", "go test && rm -rf / '", "deny"},
		{"constant arithmetic", "echo $((1+1))", "allow"},
		{"arithmetic on a variable", "echo $((x+1))", "deny"},
		{"arithmetic hiding a denied command", "echo $(( $(rm x) ))", "deny"},
		{"trailing operator is taken as denied", "go test &&", "deny"},

		{"redirection to file", "go test > out.txt", "allow"},
		{"redirection fd", "go test ./... 2>&1", "allow"},
		{"redirection both", "go test &> log", "allow"},
		{"redirection then unknown", "go test 2>&1 | tee out", "ask"},
		{"bare redirection", "> main.go", "ask"},
		{"bare redirection after allowed", "go test && > main.go", "ask"},
		{"subshell redirection", "(go test) > out", "allow"},
		{"group redirection", "{ go test; go vet; } > out", "allow"},

		{"env wrapper is seen through", "env go test", "allow"},
		{"env wrapper with a dangerous variable", "env GIT_DIR=/tmp/x go test", "ask"},
		{"command wrapper is seen through", "command go test", "allow"},
		{"escaped denied name", `\rm -rf x`, "deny"},
		{"quoted denied name", `"rm" -rf x`, "deny"},
		{"split quoted denied name", `r''m -rf x`, "deny"},
		{"denied with env prefix", "X=1 rm -rf x", "deny"},
		{"computed name is taken as denied", "$(echo rm) -rf x", "deny"},
		{"variable name is taken as denied", "$CMD x", "deny"},
		{"denied two-word prefix", "git push origin main", "deny"},
		{"not denied sibling", "git status", "ask"},
		{"denied in if", "if true; then rm -rf /; fi", "deny"},
		{"if with allowed parts", "if go test; then go vet; fi", "allow"},
		{"if with unknown part", "if go test; then curl x; fi", "ask"},
		{"negation", "! go test", "allow"},
		{"for loop of allowed commands", "for f in a; do go test; done", "allow"},
		{"for loop setting PATH", "for PATH in /tmp; do go test; done", "deny"},
		{"denied in for loop", "for f in a; do rm $f; done", "deny"},

		{"denied through sudo", "sudo -n rm -rf /", "deny"},
		{"denied through env", "env -i A=1 rm -rf /", "deny"},
		{"denied through xargs", "ls | xargs rm", "deny"},
		{"denied through nested wrappers", "nohup nice -n 5 rm x", "deny"},
		{"denied in bash -c", `bash -c "ls; rm -rf ~"`, "deny"},
		{"denied in sh -ec", `sh -ec 'rm x'`, "deny"},
		{"denied in eval", `eval "rm -rf ~"`, "deny"},
		{"denied in function body", "function go { rm -rf ~; }; go test", "deny"},
		{"wrapper is not an allow", "sudo ls", "ask"},
		{"heredoc line continuation is taken as denied", "cat <<EOF\nEO\\\nF\ncurl x\n", "deny"},
		{"heredoc quoted keeps backslashes", "cat <<'EOF'\nEO\\\nEOF\n", "allow"},
		{"heredoc quoted", "cat <<'EOF'\n$(curl x)\nEOF", "allow"},
		{"heredoc substitutes", "cat <<EOF\n$(curl x)\nEOF", "ask"},
		{"heredoc then command", "cat <<EOF && curl x\nbody\nEOF", "ask"},
		{"heredoc body is not a command", "cat <<EOF\ncurl x\nEOF", "allow"},
		{"command after heredoc", "cat <<EOF\nbody\nEOF\ncurl x", "ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bashDecision(t, allow, deny, tt.cmd); got != tt.want {
				t.Errorf("%q: %s, want %s", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestBashRulesDenyWins(t *testing.T) {
	tests := []struct {
		name        string
		allow, deny []string
		cmd, want   string
	}{
		{"deny prefix over exact allow", []string{"bash(rm -rf build)"}, []string{"bash(rm:*)"}, "rm -rf build", "deny"},
		{"deny over bare allow", []string{toolname.Bash}, []string{"bash(curl:*)"}, "curl x", "deny"},
		{"bare deny", []string{"bash(ls:*)"}, []string{toolname.Bash}, "ls", "deny"},
		{"deny star", []string{"bash(ls:*)"}, []string{"Bash(*)"}, "ls", "deny"},
		{"bare allow covers unparseable", []string{toolname.Bash}, nil, "echo $((1+1))", "allow"},
		{"exact deny only exact", []string{"bash(rm:*)"}, []string{"bash(rm -rf /)"}, "rm -rf build", "allow"},
		{"exact deny", []string{"bash(rm:*)"}, []string{"bash(rm -rf /)"}, "rm  -rf  /", "deny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bashDecision(t, tt.allow, tt.deny, tt.cmd); got != tt.want {
				t.Errorf("%q: %s, want %s", tt.cmd, got, tt.want)
			}
		})
	}
}
