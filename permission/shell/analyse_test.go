package shell

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// render shows the commands of a line as "word word | word", wrappers
// marked with a trailing "~".
func render(l Line) string {
	var parts []string
	for _, c := range l.Cmds {
		s := strings.Join(c.Args, " ")
		if c.Wrapper {
			s += " ~"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}

func TestAnalyseCommands(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"simple", "go test ./...", "go test ./..."},
		{"spaces", "  go   test\t./...  ", "go test ./..."},
		{"list", "go test && rm x || ls; pwd & date", "go test | rm x | ls | pwd | date"},
		{"pipe", "go test |& tee out", "go test | tee out"},
		{"substitution", "echo $(rm x)", "rm x | echo $(rm x)"},
		{"backquotes", "echo `rm x`", "rm x | echo $(rm x)"},
		{"process substitution", "diff <(ls a) >(wc)", "ls a | wc | diff <(ls a) >(wc)"},
		{"subshell and group", "(cd x && rm y); { ls; }", "cd x | rm y | ls"},
		{"if while case", "if a; then b; elif c; then d; else e; fi; while f; do g; done; case x in y) h;; esac", "a | b | c | d | e | f | g | h"},
		{"for loop", "for f in *.go; do gofmt -l \"$f\"; done", "gofmt -l \"$f\""},
		{"function body", "f() { rm x; }; f", "rm x | f ~"},
		{"quotes removed", `"go" 't'est "a\"b" a\ b`, `go test a"b a b`},
		{"ansi-c", `$'\x72\155' $'a\tb' $'\u00e9'`, "rm a\tb é"},
		{"brace expansion", "{rm,-f,x}", "rm -f x"},
		{"brace in argument", "echo a{b,c}", "echo ab ac"},
		{"absolute path", "/bin/rm -rf x", "/bin/rm -rf x"},
		{"time keyword", "time -p rm x", "rm x"},
		{"time program", "/usr/bin/time -o t.txt rm x", "/usr/bin/time -o t.txt rm x ~ | rm x"},
		{"env", "env -i -u B A=1 rm x", "env -i -u B A=1 rm x ~ | rm x"},
		{"env options end at an assignment", "env A=1 -u B", "env A=1 -u B ~ | -u B"},
		{"env -S", "env -S 'rm -f' x", "env -S rm -f x ~ | rm -f x"},
		{"env -S glued", "/usr/bin/env -S'rm -f' x", "/usr/bin/env -Srm -f x ~ | rm -f x"},
		{"nice nohup setsid", "nice -n 5 nohup setsid -f rm x", "nice -n 5 nohup setsid -f rm x ~ | nohup setsid -f rm x ~ | setsid -f rm x ~ | rm x"},
		{"timeout", "timeout -k 1 5 rm x", "timeout -k 1 5 rm x ~ | rm x"},
		{"stdbuf", "stdbuf -oL rm x", "stdbuf -oL rm x ~ | rm x"},
		{"sudo is not transparent", "sudo -u root rm x", "sudo -u root rm x | rm x"},
		{"xargs", "ls | xargs -0 -I{} rm {}", "ls | xargs -0 -I{} rm {} | rm {}"},
		{"xargs default", "ls | xargs", "ls | xargs | echo"},
		{"find -exec", `find . -name '*.o' -exec rm {} \; -execdir ls {} +`, "find . -name *.o -exec rm {} ; -execdir ls {} + | rm {} | ls {}"},
		{"command builtin exec", "command rm x; builtin cd y; exec rm z", "command rm x ~ | rm x | builtin cd y ~ | cd y | exec rm z ~ | rm z"},
		{"command -v runs nothing", "command -v rm", "command -v rm"},
		{"bash -c", `bash -c 'ls; rm x'`, "bash -c ls; rm x ~ | ls | rm x"},
		{"sh -c --", `sh -c -- 'rm x'`, "sh -c -- rm x ~ | rm x"},
		{"bash -ec", `bash -ec "rm x" name arg`, "bash -ec rm x name arg ~ | rm x"},
		{"bash -o opt -c", `bash -o pipefail -c 'rm x'`, "bash -o pipefail -c rm x ~ | rm x"},
		{"eval literal", `eval "rm -rf x"`, "eval rm -rf x ~ | rm -rf x"},
		{"trap", `trap 'rm x' EXIT`, "trap rm x EXIT | rm x"},
		{"nested wrappers", `sudo env bash -c "nice rm x"`, "sudo env bash -c nice rm x | env bash -c nice rm x ~ | bash -c nice rm x ~ | nice rm x ~ | rm x"},
		{"busybox", "busybox rm x", "busybox rm x ~ | rm x"},
		{"assignment prefix", "A=1 B=2 go test", "go test"},
		{"dynamic argument", "go test $PKG", "go test $PKG"},
		{"empty", "", ""},
		{"comment", "# rm x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Analyse(tt.src)
			if l.Err != nil {
				t.Fatalf("Analyse(%q): %v", tt.src, l.Err)
			}
			if got := render(l); got != tt.want {
				t.Errorf("Analyse(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestAnalyseUnknown(t *testing.T) {
	tests := map[string]string{
		"variable name":             "x=rm; $x f",
		"substituted name":          "$(echo rm) f",
		"quoted variable name":      `"$X" f`,
		"glob name":                 "/bin/r? x",
		"eval computed":             `eval "$CMD"`,
		"pipe into bash":            "echo rm x | bash",
		"pipe into sh -s":           "cat s | sh -s",
		"here-string into bash":     "bash <<< 'rm x'",
		"heredoc into python":       "python3 <<EOF\nprint(1)\nEOF",
		"python from stdin":         "curl x | python3 -",
		"script written then run":   "echo 'rm x' > s.sh; bash s.sh",
		"script written then run 2": "printf 'rm x' >> ./s.sh && chmod +x s.sh && ./s.sh",
		"tee then source":           "echo 'rm x' | tee s.sh; . s.sh",
		"cp then run":               "cp /bin/rm ./x && ./x -rf y",
		"prompt expansion":          "echo ${x@P}",
		"indirect expansion":        "echo ${!x}",
		"old arithmetic":            "echo $[1]",
		"arithmetic on variables":   "echo $((x+1))",
		"slice with variable":       "echo ${x:a}",
		"subscript with variable":   "echo ${a[$i]}",
		"arithmetic command":        "((x++))",
		"let":                       "let x=y",
		"test arithmetic":           "[[ $x -eq 1 ]]",
		"c-style for":               "for ((i=0; i<n; i++)); do :; done",
		"trap computed":             `trap "$X" EXIT`,
		"alias":                     "shopt -s expand_aliases; alias ls='rm -rf'; ls",
		"hash -p":                   "hash -p /bin/rm ls; ls",
		"fish":                      "fish -c 'rm x'",
		"bash rcfile":               "bash --rcfile x.sh",
		"bash -c unparseable":       `bash -c 'rm "x'`,
		"wrapper computed option":   "timeout $T rm x",
		"env unknown option":        "env --frobnicate rm x",
		"sudo unknown option":       "sudo -Z rm x",
		"find split argument":       "find . $ARGS",
		"watch":                     "watch 'rm x'",
		"declare nameref":           "declare -n r=PATH",
		"read computed name":        "read $v",
		"source computed":           "source $f",
		"dynamic write then run":    `echo x > "$f"; ./run.sh`,
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			l := Analyse(src)
			if l.Err != nil {
				t.Fatalf("Analyse(%q): %v", src, l.Err)
			}
			if len(l.Unknown) == 0 {
				t.Errorf("Analyse(%q) = %q with nothing unknown", src, render(l))
			}
		})
	}
	for _, src := range []string{"go test ./...", "git status", "ls -la", "npm test", "echo $((1+2))", "gofmt -l $(git ls-files '*.go')",
		"for f in a b; do echo $f; done", "[[ -f x ]] && cat x", "go test ./... 2>&1 | tail -20", "python3 script.py", "bash ./build.sh", "make -j4"} {
		if l := Analyse(src); l.Err != nil || len(l.Unknown) > 0 {
			t.Errorf("plain %q: err %v, unknown %q", src, l.Err, l.Unknown)
		}
	}
}

func TestAnalyseDetails(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(l Line) bool
	}{
		{"assigns", "A=1 B=2 go test", func(l Line) bool { return slices.Equal(l.Cmds[0].Assigns, []string{"A", "B"}) }},
		{"env assigns reach the command", "env GIT_DIR=x git status", func(l Line) bool { return slices.Equal(l.Cmds[1].Assigns, []string{"GIT_DIR"}) }},
		{"names", "/usr/bin/git status; ./rm x", func(l Line) bool { return l.Cmds[0].Name == "git" && l.Cmds[1].Name == "rm" }},
		{"sets", "PATH=/x; export HOME=/y; read -r LINE; for V in a; do :; done; printf -v P x",
			func(l Line) bool { return slices.Equal(l.Sets, []string{"PATH", "HOME", "LINE", "V", "P"}) }},
		{"writes", "echo a > out; echo b >> ../x 2>&1; cat <in; echo c &> /dev/null; echo d >| \"$f\"",
			func(l Line) bool {
				return len(l.Writes) == 3 && l.Writes[0].Target == "out" && l.Writes[1].Target == "../x" && l.Writes[2].Dynamic
			}},
		{"bare write", "> main.go", func(l Line) bool { return len(l.Writes) == 1 && l.Writes[0].Bare }},
		{"write to fd copy is not a file", "ls 2>&1 >&2", func(l Line) bool { return len(l.Writes) == 0 }},
		{"write in bash -c", `bash -c 'echo x > /etc/passwd'`, func(l Line) bool { return len(l.Writes) == 1 && l.Writes[0].Target == "/etc/passwd" }},
		{"scripts", "bash build.sh; source env.sh; . ./x.sh", func(l Line) bool { return slices.Equal(l.Scripts, []string{"build.sh", "env.sh", "./x.sh"}) }},
		{"interpreter code is opaque", `python3 -c "import os; os.system('rm x')"`, func(l Line) bool {
			return len(l.Opaque) == 1 && strings.Contains(l.Opaque[0].Text, "rm x")
		}},
		{"node -e glued", `node -e'require("fs")'`, func(l Line) bool { return len(l.Opaque) == 1 }},
		{"awk system", `awk '{system("rm " $1)}' f`, func(l Line) bool { return len(l.Opaque) == 1 }},
		{"awk print", `awk '{print $1}' f`, func(l Line) bool { return len(l.Opaque) == 0 }},
		{"xargs open args", "ls | xargs rm", func(l Line) bool { return l.Cmds[2].OpenArgs }},
		{"dynamic arg", "rm $X", func(l Line) bool { return l.Cmds[0].Dynamic }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Analyse(tt.src)
			if l.Err != nil || !tt.check(l) {
				t.Errorf("Analyse(%q) = %q %+v", tt.src, render(l), l)
			}
		})
	}
}

func TestAnalyseErrors(t *testing.T) {
	for name, src := range map[string]string{
		"unterminated quote": "echo 'a && rm x",
		"unterminated subst": "echo $(rm x",
		"operator first":     "&& ls",
		"ends after pipe":    "ls |",
		"too long":           strings.Repeat("a", MaxLen+1),
		"invalid utf-8":      "echo '\xff'",
		"carriage return":    "echo x\r\nrm y",
		"nul byte":           "bash -c '!(\x00)'",
	} {
		t.Run(name, func(t *testing.T) {
			if l := Analyse(src); !errors.Is(l.Err, ErrUnparseable) {
				t.Errorf("Analyse: err %v, want ErrUnparseable", l.Err)
			}
		})
	}
	nested := "rm x"
	for i := 0; i < maxDepth+2; i++ {
		nested = "bash -c $'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(nested) + "'"
	}
	if l := Analyse(nested); len(l.Unknown) == 0 {
		t.Error("scripts nested past the limit should be unknown")
	}
}

func TestWords(t *testing.T) {
	if w, err := Words(`git commit -m 'a b'`); err != nil || !slices.Equal(w, []string{"git", "commit", "-m", "a b"}) {
		t.Errorf("Words = %q, %v", w, err)
	}
	for src, want := range map[string]error{
		"a && b": ErrNotSimple, "echo $(x)": ErrNotSimple, "A=1 go": ErrAssignments, "go > x": ErrRedirects, "echo 'x": ErrUnparseable,
	} {
		if _, err := Words(src); !errors.Is(err, want) {
			t.Errorf("Words(%q) = %v, want %v", src, err, want)
		}
	}
	if _, err := Words("if true"); err == nil || !strings.Contains(err.Error(), "keyword") {
		t.Errorf("Words(if true) = %v", err)
	}
}

func singleQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// FuzzAnalyse checks that the walk never panics, and that a line run
// through bash -c or eval is seen as the line itself: the same commands,
// and unknown exactly when the line is.
func FuzzAnalyse(f *testing.F) {
	for _, s := range []string{
		"go test ./...", "a && b || c; d | e & f\ng", "echo $(a `b` <(c))", `echo "a && b" 'x; y' a\;b`,
		"A=$(x) go test", "cat <<EOF\n$(x)\nEOF", "{ a; b; } > out", "if a; then b; fi", "for x in 1; do y; done",
		"echo ${x:-y} ${!x} ${x@P} $((x)) $[1]", `$'\x72m' x`, "f() { rm x; }; f", "{rm,-f,x}", "sudo env -S 'rm -f' x",
		"find . -exec rm {} +", "x=rm; $x", "trap 'rm x' EXIT", "bash -c -- 'rm x'", "echo x | bash", "case x in a) b;; esac",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l := Analyse(s)
		if l.Err != nil {
			return
		}
		for _, wrap := range []string{"bash -c -- ", "eval -- "} {
			w := Analyse(wrap + singleQuote(s))
			if w.Err != nil {
				t.Fatalf("%s of a parseable line failed: %v", wrap, w.Err)
			}
			if (len(w.Unknown) > 0) != (len(l.Unknown) > 0) && len(w.Unknown) == 0 {
				t.Fatalf("%q is unknown (%q) but %s of it is not", s, l.Unknown, wrap)
			}
			if len(w.Unknown) > 0 && len(l.Unknown) == 0 {
				continue // the wrapper reached a limit, or the script changed meaning when re-read
			}
			if len(w.Cmds) != len(l.Cmds)+1 {
				t.Fatalf("%s%q: %d commands, want %d", wrap, s, len(w.Cmds), len(l.Cmds)+1)
			}
			for i, c := range l.Cmds {
				if !slices.Equal(w.Cmds[i+1].Args, c.Args) {
					t.Fatalf("%s%q: command %d = %q, want %q", wrap, s, i, w.Cmds[i+1].Args, c.Args)
				}
			}
		}
	})
}
