package gate

import (
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// classCase is one command of a hardening class. Unless only says why not,
// the test also runs it in a sandbox (sandbox_test.go) and checks that a
// modifying command really changes the project and a read-only one does
// not.
type classCase struct {
	cmd   string   // {T} stands for the sandbox's directory (the project is {T}/repo, the cwd)
	want  bool     // modifies or readOnly
	git   bool     // also reported as a git command behind jj's back
	needs []string // programs it needs to run; without them it is judged only
	only  string   // judged by analysis alone, and why
}

// The classes of the gate-hardening issue: what got through, and what was
// wrongly denied. Each has at least ten cases.
var hardeningClasses = []struct {
	name  string
	cases []classCase
}{
	{"1 functions aliases hash", []classCase{
		{cmd: "rm -rf build; rm(){ :; }", want: modifies},
		{cmd: "if false; then rm(){ :; }; fi; rm -rf build", want: modifies},
		{cmd: "rm(){ :; }; command rm -rf build", want: modifies},
		{cmd: "rm(){ :; }; /bin/rm -rf build", want: modifies},
		{cmd: "rm(){ :; }; env rm -rf build", want: modifies},
		{cmd: "rm(){ :; }; find build -name out.txt -exec rm {} \\;", want: modifies},
		{cmd: "git reset --hard HEAD; git(){ :; }", want: modifies, git: true},
		{cmd: "shopt -s expand_aliases\nalias cat='rm -f'\ncat f", want: modifies},
		{cmd: "hash -p /bin/rm cat; cat f", want: modifies},
		{cmd: "BASH_CMDS[cat]=/bin/rm; cat f", want: modifies},
		{cmd: "shopt -s expand_aliases; BASH_ALIASES[cat]='rm -f'\ncat f", want: modifies},
		{cmd: "f(){ rm -f f; }; f", want: modifies},
		{cmd: "x(){ touch made.txt; }; x", want: modifies},
		{cmd: "compgen -C 'touch made.txt' x", want: modifies},
		{cmd: "enable -n echo; echo hi", want: modifies, only: "disabling a builtin changes what a name runs; proving it needs a planted echo"},
		{cmd: "bind -x '\"\\C-x\": touch made.txt'", want: modifies, only: "runs only when the key is pressed in an interactive shell"},
		{cmd: "ls(){ command ls -la \"$@\"; }; ls src", want: readOnly},
		{cmd: "greet(){ echo hi; }; type greet", want: readOnly},
		{cmd: "alias", want: readOnly},
		{cmd: "hash", want: readOnly},
		{cmd: "declare -f", want: readOnly},
		{cmd: "command -v git", want: readOnly},
		{cmd: "builtin echo hi", want: readOnly},
		{cmd: "unalias ll 2>/dev/null; ls", want: readOnly},
		{cmd: "f(){ :; }", want: readOnly},
		{cmd: "complete -p 2>/dev/null; true", want: readOnly},
	}},
	{"2 environment and assignments", []classCase{
		{cmd: "GIT_EXTERNAL_DIFF='touch made.txt;:' git diff", want: modifies},
		{cmd: "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!touch made.txt' git x", want: modifies},
		{cmd: "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor=touch made.txt; false'\" git status", want: modifies},
		{cmd: "GIT_PAGER='touch made.txt; cat' git -p log -1", want: modifies, only: "git starts a pager only on a terminal"},
		{cmd: "JJ_EDITOR='touch made.txt' jj describe", want: modifies},
		{cmd: "BASH_ENV=<(echo 'touch made.txt') bash -c true", want: modifies},
		{cmd: "printf '#!/bin/sh\\ntouch made.txt\\n' > ../tmp/ls && chmod +x ../tmp/ls && PATH=../tmp:$PATH ls", want: modifies},
		{cmd: "export GIT_EXTERNAL_DIFF='touch made.txt;:'; git diff", want: modifies},
		{cmd: "declare -x GIT_EXTERNAL_DIFF='touch made.txt;:'; git diff", want: modifies},
		{cmd: "set -a; GIT_EXTERNAL_DIFF='touch made.txt;:'; git diff", want: modifies},
		{cmd: "env GIT_EXTERNAL_DIFF='touch made.txt;:' git diff", want: modifies},
		{cmd: "GIT_SSH_COMMAND='touch made.txt' git fetch origin", want: modifies, only: "needs a remote reached over ssh"},
		{cmd: "LD_PRELOAD=../tmp/evil.so ls", want: modifies, only: "needs a planted shared library"},
		{cmd: "f=x; cat \"$f\" 2>/dev/null; true", want: readOnly},
		{cmd: "LANG=C sort f", want: readOnly},
		{cmd: "TZ=UTC date", want: readOnly},
		{cmd: "CGO_ENABLED=0 go vet ./...", want: readOnly},
		{cmd: "for f in *.txt; do wc -l \"$f\"; done", want: readOnly},
		{cmd: "while read -r l; do echo \"$l\"; done < f", want: readOnly},
		{cmd: "export CI=true; echo $CI", want: readOnly},
		{cmd: "NO_COLOR=1 git log -1 --oneline", want: readOnly},
		{cmd: "PATH=/usr/bin:/bin ls", want: readOnly},
		{cmd: "readonly n=1; local_var=2; echo $n $local_var", want: readOnly},
	}},
	{"3 options that run programs", []classCase{
		{cmd: "jj --config ui.editor='touch made.txt' describe", want: modifies},
		{cmd: "jj log -r @ --config 'ui.diff-formatter=[\"touch\",\"made.txt\"]' -p", want: modifies, only: "jj runs the formatter in a directory of its own"},
		{cmd: "jj log --config-file ../tmp/x.toml", want: modifies, only: "needs a planted config file"},
		{cmd: "git -c alias.x='!touch made.txt' x", want: modifies, git: true},
		{cmd: "git -c core.fsmonitor='touch made.txt; false' status", want: modifies},
		{cmd: "git -c core.pager='touch made.txt; cat' -p log -1", want: modifies, only: "git starts a pager only on a terminal"},
		{cmd: "git grep -O'touch made.txt' hello", want: modifies},
		{cmd: "find . -maxdepth 1 -name f -exec env -u + rm -rf f \\;", want: modifies},
		{cmd: "tar --checkpoint=1 --checkpoint-action=exec='touch made.txt' -cf /dev/null README.md", want: modifies},
		{cmd: "make -n --eval='x := $(shell touch made.txt)'", want: modifies},
		{cmd: "mapfile -C 'touch made.txt #' -c 1 arr < f", want: modifies},
		{cmd: "x='a[$(touch made.txt)]'; (( x ))", want: modifies},
		{cmd: "printf 'a[$(touch made.txt)]' > ../tmp/v; echo $(( $(cat ../tmp/v) ))", want: modifies},
		{cmd: "printf 'a[$(touch made.txt)]' > ../tmp/v; read -r v < ../tmp/v; (( v > 0 ))", want: modifies},
		{cmd: "n=$(wc -l < f); (( n > 1 )) && echo long", want: readOnly},
		{cmd: "let 'a[$(touch made.txt)]'", want: modifies},
		{cmd: "[[ 'a[$(touch made.txt)]' -eq 0 ]]", want: modifies},
		{cmd: "x='$(touch made.txt)'; echo ${x@P}", want: modifies},
		{cmd: "declare -i n; n='a[$(touch made.txt)]'", want: modifies},
		{cmd: "a=(1 2); unset 'a[$(touch made.txt)]'", want: modifies},
		{cmd: "test -v 'a[$(touch made.txt)]'", want: modifies},
		{cmd: "printf -v 'a[$(touch made.txt)]' x", want: modifies},
		{cmd: "read 'a[$(touch made.txt)]' <<< x", want: modifies},
		{cmd: "fd -x rm", want: modifies, needs: []string{"fd"}},
		{cmd: "rg --pre ./scripts/hello.sh hello", want: modifies, needs: []string{"rg"}},
		{cmd: "git -c alias.st=status st", want: modifies, git: true, only: "an alias may do anything; this one happens to read"},
		{cmd: "git -c color.ui=always log -1", want: readOnly},
		{cmd: "jj --config ui.color=never log -r @", want: readOnly},
		{cmd: "jj log --config ui.pager=cat -r @", want: readOnly},
		{cmd: "git grep -n hello", want: readOnly},
		{cmd: "find . -name '*.txt' -exec grep -l hello {} +", want: readOnly},
		{cmd: "tar tf a.tar", want: readOnly},
		{cmd: "make --version", want: readOnly},
		{cmd: "echo $(( 1 + 2 )); [[ 3 -eq 3 ]]", want: readOnly},
		{cmd: "mapfile -t lines < f; echo ${#lines[@]}", want: readOnly},
		{cmd: "read -r first < f; printf -v x '%s' \"$first\"; echo \"$x\"", want: readOnly},
	}},
	{"4 test runners", []classCase{
		{cmd: "npm test -- -u", want: modifies, needs: []string{"npm"}},
		{cmd: "npm test -- --updateSnapshot", want: modifies, needs: []string{"npm"}},
		{cmd: "npm run build", want: modifies, needs: []string{"npm"}},
		{cmd: "npm run test:update", want: modifies, needs: []string{"npm"}},
		{cmd: "npm pack --dry-run", want: modifies, needs: []string{"npm"}},
		{cmd: "make compile", want: modifies},
		{cmd: "go test -coverprofile=c.out ./...", want: modifies},
		{cmd: "go test -c -o fixture.test .", want: modifies},
		{cmd: "jest -u", want: modifies, needs: []string{"jest"}},
		{cmd: "vitest run -u", want: modifies, needs: []string{"vitest"}},
		{cmd: "pytest --basetemp=build", want: modifies, needs: []string{"pytest"}},
		{cmd: "pytest --junitxml=report.xml", want: modifies, needs: []string{"pytest"}},
		{cmd: "go test ../tmp/evil_test.go", want: modifies, only: "runs test code from outside the project, which would have to be planted"},
		{cmd: "npm test", want: readOnly, needs: []string{"npm"}},
		{cmd: "go test ./...", want: readOnly},
		{cmd: "make test", want: readOnly},
		{cmd: "make check", want: readOnly},
		{cmd: "go test -run TestAdd -count=1 ./...", want: readOnly},
		{cmd: "go test -coverprofile=../tmp/c.out ./...", want: readOnly},
		{cmd: "go vet ./...", want: readOnly},
		{cmd: "npm run lint", want: readOnly, needs: []string{"npm"}},
		{cmd: "source .venv/bin/activate && echo \"$VIRTUAL_ENV\"", want: readOnly},
		{cmd: "go test -json ./... > ../tmp/test.json", want: readOnly},
		{cmd: "cargo test", want: readOnly, only: "writes target/, a build directory, which gate.tests accepts"},
	}},
	{"5 option parsing", []classCase{
		{cmd: "tar --extrac -f a.tar", want: modifies},
		{cmd: "tar --cre -f new.tar README.md", want: modifies},
		{cmd: "sed --i 's/hello/bye/' notes.txt", want: modifies},
		{cmd: "sed --in-pl 's/hello/bye/' notes.txt", want: modifies},
		{cmd: "sed --exp='w out.txt' f", want: modifies},
		{cmd: "sed -n ':a;N;$!ba;w out.txt' f", want: modifies},
		{cmd: "sed 's\\a\\b\\w out.txt' f", want: modifies},
		{cmd: "sed -n -e '/a/{w out.txt' -e '}' f", want: modifies},
		{cmd: "sed 's/[/]/x/w out.txt' f", want: modifies},
		{cmd: "sed -e 'a\\' -e 'hi' -e 'w out.txt' f", want: modifies},
		{cmd: "sed 's/.*/touch made.txt/e' f", want: modifies},
		{cmd: "awk '{ print > \"out.txt\" }' f", want: modifies},
		{cmd: "awk 'BEGIN { system(\"touch made.txt\") }'", want: modifies},
		{cmd: "awk 'BEGIN { x = 1; y = x++ /2; system(\"touch made.txt\") / 1 }'", want: modifies, needs: []string{"gawk"}},
		{cmd: "awk 'BEGIN { if (1) /\"/; system(\"touch made.txt\") }'", want: modifies, only: "awks disagree on this program; planq sees the system() call"},
		{cmd: "awk 'BEGIN { \"date\" | getline d; print d }'", want: modifies, only: "runs date, which only reads; a pipe can run anything"},
		{cmd: "awk 'BEGIN { print \"x\" | \"cat > made.txt\" }'", want: modifies},
		{cmd: "sort --out=sorted.txt f", want: modifies},
		{cmd: "date --s='2020-01-01'", want: modifies, only: "would set the system clock"},
		{cmd: "sed -n 's/a/b/p' f", want: readOnly},
		{cmd: "sed --quiet -e 's/a/b/p' f", want: readOnly},
		{cmd: "sed -n '/a/,/c/p' f", want: readOnly},
		{cmd: "sed 's|/usr|/opt|' f", want: readOnly},
		{cmd: "awk '{ print $1 }' f", want: readOnly},
		{cmd: "awk -F: '{ print NF / 2 }' f", want: readOnly},
		{cmd: "awk '/a|b/' f", want: readOnly},
		{cmd: "tar --list -f a.tar", want: readOnly},
		{cmd: "sort --reverse f", want: readOnly},
		{cmd: "awk 'BEGIN { print \"x\" > \"/dev/stderr\" }'", want: readOnly},
		{cmd: "sed --posix -n p f", want: readOnly},
	}},
	{"6 other shells", []classCase{
		{cmd: "fish -c \"rm -rf build\"", want: modifies, needs: []string{"fish"}},
		{cmd: "zsh -c 'rm -rf build'", want: modifies, needs: []string{"zsh"}},
		{cmd: "ksh -c 'rm -rf build'", want: modifies, needs: []string{"ksh"}},
		{cmd: "csh -c 'rm -rf build'", want: modifies, needs: []string{"csh"}},
		{cmd: "pwsh -Command 'Remove-Item -Recurse build'", want: modifies, needs: []string{"pwsh"}},
		{cmd: "nu -c 'rm -r build'", want: modifies, needs: []string{"nu"}},
		{cmd: "fish -c 'echo hi'", want: modifies, only: "fish quotes differently from bash; planq does not read fish"},
		{cmd: "ls *(e:'touch made.txt':)", want: modifies, only: "zsh runs the qualifier; bash refuses the syntax"},
		{cmd: "x='*(e:touch made.txt:)'; ls $~x", want: modifies, only: "zsh's $~ expands a glob from a variable; bash prints it"},
		{cmd: "cat =(touch made.txt)", want: modifies, only: "zsh's =(…) runs the command; bash refuses the syntax"},
		{cmd: "sh -c 'rm -rf build'", want: modifies},
		{cmd: "dash -c 'touch made.txt'", want: modifies},
		{cmd: "bash -c 'touch made.txt'", want: modifies},
		{cmd: "sh -c 'ls | wc -l'", want: readOnly},
		{cmd: "bash -c 'echo hi'", want: readOnly},
		{cmd: "dash -c 'cat f'", want: readOnly},
		{cmd: "bash -n scripts/hello.sh", want: readOnly},
		{cmd: "sh -c 'git status --short'", want: readOnly},
		{cmd: "bash <<'EOF'\nls\nEOF", want: readOnly},
		{cmd: "sh <<< 'cat f'", want: readOnly},
		{cmd: "bash -c 'bash -c \"echo nested\"'", want: readOnly},
		{cmd: "ls *.txt", want: readOnly},
	}},
	{"7 paths and whose repository", []classCase{
		{cmd: "echo x > /proc/self/cwd/main.go", want: modifies},
		{cmd: "echo x > /proc/thread-self/cwd/notes.txt", want: modifies},
		{cmd: "echo x > /proc/self/root{T}/repo/notes.txt", want: modifies},
		{cmd: "ln -s \"$PWD\" ../tmp/link; echo x > ../tmp/link/made.txt", want: modifies},
		{cmd: "cd build && rm -f out.txt", want: modifies},
		{cmd: "cd ../tmp && cd ../repo && touch made.txt", want: modifies},
		{cmd: "echo x > {T}/repo/made.txt", want: modifies},
		{cmd: "touch ../repo/made.txt", want: modifies},
		{cmd: "mkdir -p ../tmp/x && cd ../tmp/x && echo x > ../../repo/made.txt", want: modifies},
		{cmd: "jj git init sub; jj -R sub describe -m x; cd sub", want: modifies},
		{cmd: "jj new 'root()' -m x", want: modifies},
		{cmd: "jj new -m x", want: readOnly, only: "declaring moves git's HEAD to the snapshot in a colocated repo; no file changes"},
		{cmd: "jj new --no-edit 'root()'", want: readOnly},
		{cmd: "pushd src && touch made.txt", want: modifies},
		{cmd: "echo x > {T}/../go.work", want: modifies, only: "writes a go.work above the project, which go finds by walking up; judged only: outside the sandbox"},
		{cmd: "echo x > ../.gitconfig", want: modifies, only: "a dot file above the project: git and others read such files; running it would not change the project"},
		{cmd: "exec 3<notes.txt; echo pwned > /proc/self/fd/3", want: modifies},
		{cmd: "exec 3<notes.txt; echo pwned > /dev/fd/3", want: modifies},
		{cmd: "{ echo pwned > /dev/stdout; } 1<notes.txt", want: modifies},
		{cmd: "exec {fd}<notes.txt; echo pwned > /dev/fd/$fd", want: modifies},
		{cmd: "cat < f > /dev/stdout", want: readOnly},
		{cmd: "echo x > ../tmp/out.txt", want: readOnly},
		{cmd: "mkdir -p ../tmp/d && rm -rf ../tmp/d", want: readOnly},
		{cmd: "echo x > {T}/tmp/abs.txt", want: readOnly},
		{cmd: "cat /proc/self/cwd/notes.txt", want: readOnly},
		{cmd: "ls /proc/self/root{T}/repo", want: readOnly},
		{cmd: "cd src && ls", want: readOnly},
		{cmd: "cd src && git status && cd ..", want: readOnly},
		{cmd: "(cd ../tmp && ls); git status", want: readOnly},
		{cmd: "cd ../tmp && git status", want: modifies, only: "git would read the configuration of whatever repository it finds there"},
		{cmd: "cd src || cd ..; git log -1", want: modifies, only: "if cd src failed, git runs above the project"},
		{cmd: "for d in a b; do cd ..; done; git log -1", want: modifies, only: "the loop leaves the project"},
		{cmd: "env -C ../tmp git status", want: modifies, only: "git would run in another directory"},
		{cmd: "touch ../tmp/t && cat ../tmp/t", want: readOnly},
		{cmd: "go build -o ../tmp/fixture .", want: readOnly},
		{cmd: "git diff > ../tmp/x.patch", want: readOnly},
		{cmd: "mktemp -d", want: readOnly},
	}},
	{"9 git behind jj's back", []classCase{
		{cmd: "git -c alias.c=commit c -m x --allow-empty", want: modifies, git: true},
		{cmd: "git read-tree -u --reset HEAD", want: modifies, git: true},
		{cmd: "git checkout-index -f -a", want: modifies, git: true},
		{cmd: "git update-ref refs/heads/x HEAD", want: modifies, git: true},
		{cmd: "git symbolic-ref HEAD refs/heads/other", want: modifies, git: true},
		{cmd: "git tag -d v1.0", want: modifies, git: true},
		{cmd: "git stash push notes.txt", want: modifies, git: true, only: "git refuses with the index jj leaves in a colocated repo"},
		{cmd: "git checkout -- notes.txt", want: modifies, git: true},
		{cmd: "git rm --cached f", want: modifies, git: true},
		{cmd: "git mv f g", want: modifies, git: true},
		{cmd: "git clean -fX", want: modifies, git: true},
		{cmd: "git update-index --force-remove f", want: modifies, git: true},
		{cmd: "git branch -f x HEAD", want: modifies, git: true},
		{cmd: "git sparse-checkout set src", want: modifies, git: true, only: "git leaves the files jj changed in place"},
		{cmd: "git reset --hard HEAD", want: modifies, git: true},
		{cmd: "git restore notes.txt", want: modifies, git: true},
		{cmd: "git worktree add ../tmp/wt", want: modifies, git: true},
		{cmd: "git revert --no-edit HEAD", want: modifies, git: true, only: "git refuses while the working copy has changes"},
		{cmd: "git apply --index ../tmp/none.patch", want: modifies, git: true, only: "needs a patch"},
		{cmd: "git filter-branch -f --msg-filter cat HEAD", want: modifies, git: true, only: "rewrites history; jj's detached HEAD makes it refuse"},
		{cmd: "git am ../tmp/x.mbox", want: modifies, git: true, only: "needs a mailbox"},
		{cmd: "git my-alias", want: modifies, git: true, only: "an alias may do anything"},
		{cmd: "git status", want: readOnly},
		{cmd: "git log --oneline -1", want: readOnly},
		{cmd: "git reflog HEAD", want: readOnly},
		{cmd: "git tag -n v1.0", want: readOnly},
		{cmd: "git show v1.0 --stat", want: readOnly},
		{cmd: "git diff --stat", want: readOnly},
		{cmd: "git branch --list", want: readOnly},
		{cmd: "git stash list", want: readOnly},
		{cmd: "git worktree list", want: readOnly},
		{cmd: "git ls-files", want: readOnly},
	}},
	{"wrongly denied", []classCase{
		{cmd: "go build -o {T}/tmp/planq .", want: readOnly},
		{cmd: "go test ./... | tee {T}/tmp/t.log", want: readOnly},
		{cmd: "echo hi > {T}/tmp/x", want: readOnly},
		{cmd: "mktemp -d", want: readOnly},
		{cmd: "git diff > {T}/tmp/x.patch", want: readOnly},
		{cmd: "rm --help", want: readOnly},
		{cmd: "git commit --help", want: readOnly},
		{cmd: "jj squash --help", want: readOnly},
		{cmd: "jj squash -h", want: readOnly},
		{cmd: "git reflog HEAD", want: readOnly},
		{cmd: "git tag -n v1.0", want: readOnly},
		{cmd: "git -c core.pager=cat log -1", want: readOnly},
		{cmd: "cargo fmt -- --check", want: readOnly, needs: []string{"cargo"}},
		{cmd: "unzip -c a.zip", want: readOnly},
		{cmd: "jj git colocation status", want: readOnly},
		{cmd: "source .venv/bin/activate && pytest", want: readOnly, needs: []string{"pytest"}, only: "DISPUTED, issue #21: a real pytest writes .pytest_cache/ and __pycache__/ into the project, which the gate calls read-only"},
		{cmd: "make test", want: readOnly},
		{cmd: "make check", want: readOnly},
		{cmd: "gotestsum", want: readOnly, needs: []string{"gotestsum"}},
		{cmd: "npx playwright test", want: readOnly, only: "needs the network to fetch playwright"},
		{cmd: "mkdir -p ../tmp/build && go build -o ../tmp/build/app .", want: readOnly},
		{cmd: "jj log -r @ --no-graph", want: readOnly},
	}},
}

func TestHardeningClasses(t *testing.T) {
	t.Parallel()
	for _, cl := range hardeningClasses {
		t.Run(cl.name, func(t *testing.T) {
			t.Parallel()
			if len(cl.cases) < 10 {
				t.Fatalf("%d cases; each class has at least 10", len(cl.cases))
			}
			for _, c := range cl.cases {
				t.Run(caseName(c.cmd), func(t *testing.T) {
					t.Parallel()
					s := newSandbox(t)
					cmd := s.expand(c.cmd)
					v := AnalyzeBashAt(cmd, DefaultPolicy(), s.where())
					switch {
					case v.Modifies != c.want:
						t.Fatalf("%q: modifies=%v (%q: %s), want %v", cmd, v.Modifies, v.Part, v.Reason, c.want)
					case v.Reason == "":
						t.Fatalf("%q: no reason", cmd)
					case c.git && v.Git == nil:
						t.Fatalf("%q: not reported as a git command behind jj's back", cmd)
					case c.git && (v.Git.JJ == "" || v.Git.Command == ""):
						t.Fatalf("%q: git rewrite without a jj equivalent: %+v", cmd, *v.Git)
					}
					if c.only != "" {
						t.Logf("judged only (%s): %s", c.only, v.Reason)
						return
					}
					if testenv.Short() {
						return // running it is the full suite's
					}
					s.needTools(t, c.needs)
					changed, out := s.run(t, cmd)
					checkRan(t, c.needs, out)
					switch {
					case c.want == modifies && len(changed) == 0:
						t.Errorf("%q is in the table as modifying, but running it changed nothing in the project; output:\n%s", cmd, out)
					case c.want == readOnly && len(changed) > 0:
						t.Errorf("%q is in the table as read-only, but running it changed %v; output:\n%s", cmd, changed, out)
					}
				})
			}
		})
	}
}

func caseName(cmd string) string {
	cmd = strings.NewReplacer("\n", " ", "/", "∕", "{T}", "T").Replace(cmd)
	if len(cmd) > 60 {
		cmd = cmd[:60]
	}
	return cmd
}
