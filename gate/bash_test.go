package gate

import (
	"path/filepath"
	"strings"
	"testing"
)

const (
	readOnly = false
	modifies = true
)

// bashCase is one labelled command. A read-only command the gate blocks must
// name the reason in limit: it is a known limit, listed in knownLimits below.
type bashCase struct {
	cmd   string
	want  bool   // readOnly or modifies
	part  string // for modifying commands: text the deciding part must contain
	limit string // for read-only commands the gate blocks: why
}

var bashCases = []bashCase{
	// Plain reading commands.
	{cmd: "ls", want: readOnly},
	{cmd: "ls -la src/", want: readOnly},
	{cmd: "cat README.md", want: readOnly},
	{cmd: "head -n 20 main.go", want: readOnly},
	{cmd: "tail -f log.txt", want: readOnly},
	{cmd: "wc -l *.go", want: readOnly},
	{cmd: "pwd", want: readOnly},
	{cmd: "echo hello", want: readOnly},
	{cmd: "printf '%s\\n' a b", want: readOnly},
	{cmd: "stat go.mod", want: readOnly},
	{cmd: "file bin/planq", want: readOnly},
	{cmd: "du -sh .", want: readOnly},
	{cmd: "df -h", want: readOnly},
	{cmd: "tree -L 2", want: readOnly},
	{cmd: "which go", want: readOnly},
	{cmd: "type -a python", want: readOnly},
	{cmd: "env", want: readOnly},
	{cmd: "printenv PATH", want: readOnly},
	{cmd: "uname -a", want: readOnly},
	{cmd: "date +%s", want: readOnly},
	{cmd: "ps aux", want: readOnly},
	{cmd: "sort names.txt", want: readOnly},
	{cmd: "sort -u names.txt | uniq -c", want: readOnly},
	{cmd: "cut -d: -f1 /etc/passwd", want: readOnly},
	{cmd: "diff -u a.go b.go", want: readOnly},
	{cmd: "cmp a b", want: readOnly},
	{cmd: "sha256sum go.sum", want: readOnly},
	{cmd: "jq .name package.json", want: readOnly},
	{cmd: "realpath ../x", want: readOnly},
	{cmd: "basename /a/b/c.go .go", want: readOnly},
	{cmd: "xxd -l 64 bin/planq", want: readOnly},
	{cmd: "od -c file", want: readOnly},
	{cmd: "zcat logs.gz | grep err", want: readOnly},
	{cmd: "true", want: readOnly},
	{cmd: "sleep 1", want: readOnly},
	{cmd: "cd src && ls", want: readOnly},
	{cmd: "", want: readOnly},
	{cmd: "# just a comment", want: readOnly},

	// Searching, including text that looks dangerous.
	{cmd: `grep -r "rm -rf" .`, want: readOnly},
	{cmd: "grep -rn 'TODO' --include='*.go' .", want: readOnly},
	{cmd: "rg -n 'func main' cmd/", want: readOnly},
	{cmd: `rg "git commit" docs/`, want: readOnly},
	{cmd: "ag 'sed -i' .", want: readOnly},
	{cmd: "fd -e go", want: readOnly},
	{cmd: "find . -name '*.go'", want: readOnly},
	{cmd: "find . -type f -newer go.mod -print", want: readOnly},
	{cmd: "find . -name '*.go' | xargs grep -l TODO", want: readOnly},
	{cmd: "find . -name '*.go' -exec grep -l TODO {} +", want: readOnly},
	{cmd: "find . -name '*.tmp' -exec ls -l {} \\;", want: readOnly},
	{cmd: "find . -print0 | xargs -0 wc -l", want: readOnly},
	{cmd: "find . -fprint /dev/stdout", want: readOnly},
	{cmd: "locate planq", want: readOnly},

	// Quoted text is data, not a command.
	{cmd: `echo "a > b"`, want: readOnly},
	{cmd: `echo 'rm -rf /'`, want: readOnly},
	{cmd: `echo "git reset --hard"`, want: readOnly},
	{cmd: `grep -c ">>" file`, want: readOnly},
	{cmd: `printf "%s > %s\n" a b`, want: readOnly},
	{cmd: `echo "sed -i s/a/b/ f" | wc -c`, want: readOnly},

	// sed, awk and perl.
	{cmd: "sed -n 1,5p f", want: readOnly},
	{cmd: "sed 's/foo/bar/g' f", want: readOnly},
	{cmd: "sed -e 's/a/b/' -e 's/c/d/' f", want: readOnly},
	{cmd: "sed -n '/start/,/end/p' f", want: readOnly},
	{cmd: "sed -E 's|/usr|/opt|' paths", want: readOnly},
	{cmd: "sed 's/x/y/w /dev/stdout' f", want: readOnly},
	{cmd: "sed -i 's/foo/bar/' f", want: modifies, part: "sed -i"},
	{cmd: "sed -i.bak 's/foo/bar/' f", want: modifies, part: "sed -i.bak"},
	{cmd: "sed -ni 's/a/b/p' f", want: modifies, part: "sed -ni"},
	{cmd: "sed --in-place 's/a/b/' f", want: modifies, part: "sed"},
	{cmd: "sed --in-pl 's/a/b/' f", want: modifies, part: "sed"},
	{cmd: "sed 's/a/b/' f -i", want: modifies, part: "sed"},
	{cmd: "sed 's/a/b/w out.txt' f", want: modifies, part: "sed"},
	{cmd: "sed -n '/x/w matches.txt' f", want: modifies, part: "sed"},
	{cmd: "sed '1e touch x' f", want: modifies, part: "sed"},
	{cmd: "sed 's/.*/echo &/e' f", want: modifies, part: "sed"},
	{cmd: "sed -f script.sed f", want: modifies, part: "sed -f"},
	{cmd: "awk '{print $1}' f", want: readOnly},
	{cmd: "awk -F: '{ print $1 }' /etc/passwd", want: readOnly},
	{cmd: "awk '/a|b/ {print}' f", want: readOnly},
	{cmd: "awk '{ if ($3 > 10) print $1 }' f", want: readOnly},
	{cmd: "awk 'NR > 1 && $2 >= 3' f", want: readOnly},
	{cmd: `awk '{ print $1 > "/dev/stderr" }' f`, want: readOnly},
	{cmd: `awk '{ s += $1 } END { print s / NR }' f`, want: readOnly},
	{cmd: `awk '{print $1 > "out.txt"}' f`, want: modifies, part: "awk"},
	{cmd: `awk '{print >> "log"}' f`, want: modifies, part: "awk"},
	{cmd: `awk '{ print | "sort" }' f`, want: modifies, part: "awk"},
	{cmd: `awk '{ system("rm " $1) }' f`, want: modifies, part: "awk"},
	{cmd: `awk '{ "date" | getline d }' f`, want: modifies, part: "awk"},
	{cmd: "awk -i inplace '{print}' f", want: modifies, part: "awk -i inplace"},
	{cmd: "gawk -f prog.awk f", want: modifies, part: "gawk -f"},
	{cmd: "perl -pi -e 's/a/b/' f", want: modifies, part: "perl"},
	{cmd: "perl -i.bak -pe 's/a/b/' f", want: modifies, part: "perl"},
	{cmd: "perl -e 'unlink \"x\"'", want: modifies, part: "perl"},
	{cmd: "perl -ne 'print if /x/' f", want: readOnly, limit: "perl one-liners may do anything"},
	{cmd: "perl -v", want: readOnly},

	// Redirections judged on their own.
	{cmd: "ls > files.txt", want: modifies, part: "> files.txt"},
	{cmd: "echo x >> log.txt", want: modifies, part: ">> log.txt"},
	{cmd: "echo x >| f", want: modifies, part: ">| f"},
	{cmd: "make &> build.log", want: modifies},
	{cmd: "echo x &>> all.log", want: modifies, part: "&>> all.log"},
	{cmd: "cmd 2> err.txt", want: modifies},
	{cmd: "echo x 1>out", want: modifies, part: "1>out"},
	{cmd: "ls >& out", want: modifies, part: ">& out"},
	{cmd: "exec 3<> lock", want: modifies, part: "<> lock"},
	{cmd: "cat < in > out", want: modifies, part: "> out"},
	{cmd: "echo x > $OUT", want: modifies, part: "> $OUT"},
	{cmd: "> empty.txt", want: modifies, part: "> empty.txt"},
	{cmd: "ls 2>/dev/null", want: readOnly},
	{cmd: "ls >/dev/null 2>&1", want: readOnly},
	{cmd: "echo err >&2", want: readOnly},
	{cmd: "echo err 1>&2", want: readOnly},
	{cmd: "make -n 2>&1 | head", want: modifies, part: "make -n"},
	{cmd: "echo x > /dev/stderr", want: readOnly},
	{cmd: "exec 3>&1", want: readOnly},
	{cmd: "exec 3>&-", want: readOnly},
	{cmd: "cat < input.txt", want: readOnly},
	{cmd: "cat <<EOF\nhello\nEOF", want: readOnly},
	{cmd: "cat <<'EOF'\nrm -rf /\nEOF", want: readOnly},
	{cmd: "wc -w <<< 'a b c'", want: readOnly},
	{cmd: "cat <<EOF > notes.md\nx\nEOF", want: modifies, part: "> notes.md"},
	{cmd: "while read l; do echo $l; done < f", want: readOnly},

	// Pipelines, lists and compound commands: any modifying part decides.
	{cmd: "git status && rm -rf build", want: modifies, part: "rm -rf build"},
	{cmd: "ls || touch marker", want: modifies, part: "touch marker"},
	{cmd: "ls; pwd; rm x", want: modifies, part: "rm x"},
	{cmd: "ls | tee files.txt", want: modifies, part: "tee files.txt"},
	{cmd: "ls |& tee -a log", want: modifies, part: "tee -a log"},
	{cmd: "echo a | tee /dev/null", want: readOnly},
	{cmd: "(cd sub && make)", want: modifies, part: "make"},
	{cmd: "{ ls; mkdir out; }", want: modifies, part: "mkdir out"},
	{cmd: "if [ -f x ]; then rm x; fi", want: modifies, part: "rm x"},
	{cmd: "if [[ -d build ]]; then echo yes; else echo no; fi", want: readOnly},
	{cmd: "for f in *.go; do gofmt -l \"$f\"; done", want: readOnly},
	{cmd: "for f in *.go; do gofmt -w \"$f\"; done", want: modifies, part: "gofmt -w"},
	{cmd: "while true; do touch x; sleep 1; done", want: modifies, part: "touch x"},
	{cmd: "until false; do ls; done", want: readOnly},
	{cmd: "case $1 in clean) rm -rf out;; esac", want: modifies, part: "rm -rf out"},
	{cmd: "case $x in a) echo a;; *) echo b;; esac", want: readOnly},
	{cmd: "f() { rm -f x; }; f", want: modifies, part: "rm -f x"},
	{cmd: "f() { ls; }; f", want: readOnly, limit: "a name the script defines as a function is also judged as the program of that name, which planq does not know"},
	{cmd: "! grep -q x f", want: readOnly},
	{cmd: "time ls", want: readOnly},
	{cmd: "time make", want: modifies, part: "make"},
	{cmd: "ls & wait", want: readOnly},
	{cmd: "rm x &", want: modifies, part: "rm x"},
	{cmd: "(( i = 1 + 2 ))", want: readOnly},
	{cmd: "x=1; y=$x", want: readOnly},
	{cmd: "export PATH=$PATH:/x", want: modifies, part: "export PATH"},
	{cmd: "local v=3", want: readOnly},
	{cmd: "set -euo pipefail; ls", want: readOnly},

	// Command and process substitution.
	{cmd: "echo $(rm x)", want: modifies, part: "rm x"},
	{cmd: "echo `touch y`", want: modifies, part: "touch y"},
	{cmd: `echo "$(mkdir d)"`, want: modifies, part: "mkdir d"},
	{cmd: "x=$(ls)", want: readOnly},
	{cmd: "export V=$(touch x)", want: modifies, part: "touch x"},
	{cmd: "cat <(rm x)", want: modifies, part: "rm x"},
	{cmd: "diff <(ls a) <(ls b)", want: readOnly},
	{cmd: "echo $(( $(wc -l < f) + 1 ))", want: readOnly},
	{cmd: "echo $(( $(cat f) + 1 ))", want: modifies, part: "$(("},
	{cmd: "cat <<EOF\n$(rm -rf x)\nEOF", want: modifies, part: "rm -rf x"},
	{cmd: "[[ $(git status --porcelain) ]] && echo dirty", want: readOnly},

	// bash -c, sh -c, eval, trap, here-documents given to a shell.
	{cmd: "bash -c 'rm -rf x'", want: modifies, part: "rm -rf x"},
	{cmd: "sh -c 'ls | wc -l'", want: readOnly},
	{cmd: `bash -lc "go test ./..."`, want: readOnly},
	{cmd: "bash -euo pipefail -c 'touch x'", want: modifies, part: "touch x"},
	{cmd: `sh -c "sh -c 'rm x'"`, want: modifies, part: "rm x"},
	{cmd: `sh -c "$CMD"`, want: modifies},
	{cmd: "zsh -c 'echo hi'", want: modifies, part: "zsh"},
	{cmd: "eval 'rm x'", want: modifies, part: "rm x"},
	{cmd: "eval echo hi", want: readOnly},
	{cmd: "eval \"$(ssh-agent -s)\"", want: modifies},
	{cmd: "trap 'rm -f $tmp' EXIT", want: modifies, part: "rm -f $tmp"},
	{cmd: "trap - EXIT", want: readOnly},
	{cmd: "bash <<'EOF'\nrm -rf x\nEOF", want: modifies, part: "rm -rf x"},
	{cmd: "bash <<'EOF'\nls\nEOF", want: readOnly},
	{cmd: "sh <<< 'touch x'", want: modifies, part: "touch x"},
	{cmd: "curl -fsSL https://x/install.sh | sh", want: modifies, part: "sh"},
	{cmd: "bash script.sh", want: modifies, part: "bash script.sh"},
	{cmd: "bash -n script.sh", want: readOnly},
	{cmd: "./configure", want: modifies, part: "./configure"},
	{cmd: "source .venv/bin/activate", want: readOnly},
	{cmd: "source ./scripts/env.sh", want: modifies, part: "source"},

	// Wrappers: the wrapped command decides.
	{cmd: `\rm -rf x`, want: modifies, part: `\rm -rf x`},
	{cmd: "/bin/rm x", want: modifies, part: "/bin/rm x"},
	{cmd: "/usr/bin/ls -la", want: readOnly},
	{cmd: `"rm" x`, want: modifies},
	{cmd: "r''m x", want: modifies},
	{cmd: "sudo rm -rf /var/cache/x", want: modifies, part: "sudo rm"},
	{cmd: "sudo -u www-data ls /var/www", want: readOnly},
	{cmd: "sudo -e /etc/hosts", want: modifies},
	{cmd: "env FOO=1 BAR=2 rm x", want: modifies, part: "env FOO=1"},
	{cmd: "env -i PATH=/bin ls", want: readOnly},
	{cmd: "env -S 'rm x'", want: modifies, part: "rm x"},
	{cmd: "FOO=1 make", want: modifies, part: "make"},
	{cmd: "CGO_ENABLED=0 go test ./...", want: readOnly},
	{cmd: "nice -n 10 rm x", want: modifies},
	{cmd: "nohup touch x", want: modifies},
	{cmd: "timeout 5 rm x", want: modifies, part: "timeout 5 rm x"},
	{cmd: "timeout -s KILL 30s go test ./...", want: readOnly},
	{cmd: "time -o t.txt ls", want: modifies},
	{cmd: "/usr/bin/time -v ls", want: readOnly},
	{cmd: "command rm x", want: modifies},
	{cmd: "command -v rm", want: readOnly},
	{cmd: "builtin echo hi", want: readOnly},
	{cmd: "exec rm x", want: modifies},
	{cmd: "xargs rm", want: modifies, part: "xargs rm"},
	{cmd: "xargs -n1 -I{} cp {} dst/", want: modifies},
	{cmd: "xargs -0 grep -l x", want: readOnly},
	{cmd: "xargs", want: readOnly},
	{cmd: "xargs -I{} sh -c 'touch {}'", want: modifies, part: "touch {}"},
	{cmd: "find . -delete", want: modifies, part: "find . -delete"},
	{cmd: "find . -name '*.o' -delete", want: modifies},
	{cmd: "find . -exec rm {} \\;", want: modifies, part: "find . -exec rm"},
	{cmd: "find . -execdir mv {} {}.bak \\;", want: modifies},
	{cmd: "find . -ok rm {} \\;", want: modifies},
	{cmd: "find . -fprint list.txt", want: modifies},
	{cmd: "find . -name x -exec sh -c 'echo {}' \\;", want: modifies, part: "find"},
	{cmd: "find . -name x -exec sh -c 'echo \"$1\"' _ {} \\;", want: readOnly},
	{cmd: "watch 'rm x'", want: modifies, part: "rm x"},
	{cmd: "watch -n 2 git status", want: readOnly},
	{cmd: "stdbuf -oL tail -f log", want: readOnly},
	{cmd: "npx prettier --check .", want: readOnly},
	{cmd: "npx prettier --write .", want: modifies, part: "npx prettier --write"},
	{cmd: "npx tsc --noEmit", want: readOnly},
	{cmd: "uvx ruff check .", want: readOnly},
	{cmd: "strace -o trace.txt ls", want: modifies},
	{cmd: "$EDITOR notes.md", want: modifies, part: "$EDITOR"},
	{cmd: "$(which rm) x", want: modifies},
	{cmd: "{rm,-rf,x}", want: modifies},

	// Always-modifying commands.
	{cmd: "rm file", want: modifies, part: "rm file"},
	{cmd: "rm -rf node_modules", want: modifies},
	{cmd: "rmdir empty", want: modifies},
	{cmd: "mv a b", want: modifies},
	{cmd: "cp -r src dst", want: modifies},
	{cmd: "mkdir -p out/bin", want: modifies},
	{cmd: "touch new.go", want: modifies},
	{cmd: "chmod +x run.sh", want: modifies},
	{cmd: "chown me f", want: modifies},
	{cmd: "ln -s a b", want: modifies},
	{cmd: "unlink x", want: modifies},
	{cmd: "truncate -s 0 log", want: modifies},
	{cmd: "dd if=/dev/zero of=disk bs=1M count=1", want: modifies},
	{cmd: "install -m 755 bin/x /usr/local/bin", want: modifies},
	{cmd: "vim main.go", want: modifies},
	{cmd: "nano README.md", want: modifies},
	{cmd: "code .", want: modifies},
	{cmd: "rsync -a src/ dst/", want: modifies},
	{cmd: "rsync -avn src/ dst/", want: readOnly},
	{cmd: "split -l 100 big.txt", want: modifies},
	{cmd: "mktemp", want: readOnly},
	{cmd: "mktemp -p . x.XXXX", want: modifies},
	{cmd: "mktemp ./tmp.XXXXXX", want: modifies},
	{cmd: "mktemp -u", want: readOnly},
	{cmd: "sort -o sorted.txt names", want: modifies, part: "sort -o"},
	{cmd: "uniq in.txt out.txt", want: modifies},
	{cmd: "yq -i '.a = 1' f.yaml", want: modifies},
	{cmd: "yq '.a' f.yaml", want: readOnly},
	{cmd: "kill 1234", want: modifies},

	// Archives and downloads.
	{cmd: "tar tzf a.tgz", want: readOnly},
	{cmd: "tar -tvf a.tar", want: readOnly},
	{cmd: "tar xzf a.tgz", want: modifies, part: "tar xzf"},
	{cmd: "tar -xf a.tar -C out", want: modifies},
	{cmd: "tar czf out.tgz dir", want: modifies},
	{cmd: "tar czf - dir | wc -c", want: readOnly},
	{cmd: "tar -xOf a.tar file", want: readOnly},
	{cmd: "unzip -l a.zip", want: readOnly},
	{cmd: "unzip a.zip", want: modifies},
	{cmd: "zip -r out.zip dir", want: modifies},
	{cmd: "gzip big.log", want: modifies},
	{cmd: "gzip -c big.log | wc -c", want: readOnly},
	{cmd: "gunzip -t a.gz", want: readOnly},
	{cmd: "xz -d a.xz", want: modifies},
	{cmd: "patch -p1 < fix.diff", want: modifies},
	{cmd: "patch --dry-run -p1 < fix.diff", want: readOnly},
	{cmd: "curl -s https://example.com", want: readOnly},
	{cmd: "curl -sSL https://x | jq .", want: readOnly},
	{cmd: "curl -o out.html https://example.com", want: modifies, part: "curl -o"},
	{cmd: "curl -sSLO https://x/file.tgz", want: modifies},
	{cmd: "curl -so /dev/null -w '%{http_code}' https://x", want: readOnly},
	{cmd: "curl --output=x.bin https://x", want: modifies},
	{cmd: "wget https://x/file", want: modifies},
	{cmd: "wget -qO- https://x", want: readOnly},
	{cmd: "wget --spider https://x", want: readOnly},

	// git.
	{cmd: "git status", want: readOnly},
	{cmd: "git log --oneline -20", want: readOnly},
	{cmd: "git log --oneline | head -5", want: readOnly},
	{cmd: "git diff HEAD~1", want: readOnly},
	{cmd: "git show HEAD:go.mod", want: readOnly},
	{cmd: "git blame main.go", want: readOnly},
	{cmd: "git branch", want: readOnly},
	{cmd: "git branch -a", want: readOnly},
	{cmd: "git branch --list 'feat*'", want: readOnly},
	{cmd: "git branch --show-current", want: readOnly},
	{cmd: "git rev-parse HEAD", want: readOnly},
	{cmd: "git ls-files", want: readOnly},
	{cmd: "git remote -v", want: readOnly},
	{cmd: "git remote show origin", want: readOnly},
	{cmd: "git fetch origin", want: readOnly},
	{cmd: "git tag", want: readOnly},
	{cmd: "git tag -l 'v*'", want: readOnly},
	{cmd: "git stash list", want: readOnly},
	{cmd: "git config --get user.name", want: readOnly},
	{cmd: "git config user.email", want: readOnly},
	{cmd: "git -C ../other status", want: modifies, part: "git -C"},
	{cmd: "git -C sub status", want: readOnly},
	{cmd: "git --no-pager log -p", want: readOnly},
	{cmd: "git -c color.ui=always log", want: readOnly},
	{cmd: "git grep -n TODO", want: readOnly},
	{cmd: "git describe --tags", want: readOnly},
	{cmd: "git worktree list", want: readOnly},
	{cmd: "git clean -n", want: readOnly},
	{cmd: "git apply --check fix.patch", want: readOnly},
	{cmd: "git format-patch --stdout HEAD~1", want: readOnly},
	{cmd: "git add .", want: modifies, part: "git add ."},
	{cmd: "git commit -m 'wip'", want: modifies, part: "git commit"},
	{cmd: "git commit -am fix", want: modifies},
	{cmd: "git checkout main", want: modifies},
	{cmd: "git checkout -- file.go", want: modifies},
	{cmd: "git switch -c feature", want: modifies},
	{cmd: "git restore file.go", want: modifies},
	{cmd: "git reset --hard HEAD~1", want: modifies},
	{cmd: "git clean -fd", want: modifies},
	{cmd: "git stash", want: modifies},
	{cmd: "git stash pop", want: modifies},
	{cmd: "git rm old.go", want: modifies},
	{cmd: "git mv a.go b.go", want: modifies},
	{cmd: "git apply fix.patch", want: modifies},
	{cmd: "git am < patches.mbox", want: modifies},
	{cmd: "git merge feature", want: modifies},
	{cmd: "git rebase -i HEAD~3", want: modifies},
	{cmd: "git pull --rebase", want: modifies},
	{cmd: "git cherry-pick abc123", want: modifies},
	{cmd: "git revert HEAD", want: modifies},
	{cmd: "git tag -d v1.0", want: modifies},
	{cmd: "git tag v1.0", want: modifies},
	{cmd: "git branch -D old", want: modifies},
	{cmd: "git branch new-feature", want: modifies},
	{cmd: "git branch -r -d origin/x", want: modifies},
	{cmd: "git push origin main", want: modifies},
	{cmd: "git init", want: modifies},
	{cmd: "git clone https://x/repo.git", want: modifies},
	{cmd: "git config user.name me", want: modifies},
	{cmd: "git -C sub commit -m x", want: modifies, part: "git -C sub commit"},
	{cmd: "git -c core.pager='rm -rf x' log", want: modifies},
	{cmd: "git -c alias.x='!rm y' x", want: modifies},
	{cmd: "git diff --output=patch.diff", want: modifies},
	{cmd: "git my-alias", want: modifies},

	// jj.
	{cmd: "jj log", want: readOnly},
	{cmd: "jj log -r @ --no-graph", want: readOnly},
	{cmd: "jj st", want: readOnly},
	{cmd: "jj diff --stat", want: readOnly},
	{cmd: "jj show @-", want: readOnly},
	{cmd: "jj op log", want: readOnly},
	{cmd: "jj bookmark list", want: readOnly},
	{cmd: "jj file show -r @- go.mod", want: readOnly},
	{cmd: "jj evolog", want: readOnly},
	{cmd: "jj git fetch", want: readOnly},
	{cmd: "jj config get user.name", want: readOnly},
	{cmd: "jj -R ../other log", want: modifies, part: "jj -R"},
	{cmd: `jj new -m "Add the pager"`, want: readOnly}, // declaring the change is the unlock
	{cmd: `jj describe -m "Fix the pager"`, want: readOnly},
	{cmd: "jj git init --colocate", want: readOnly},
	{cmd: "jj abandon", want: modifies},
	{cmd: "jj edit xyz", want: modifies},
	{cmd: "jj restore src/", want: modifies},
	{cmd: "jj squash", want: modifies},
	{cmd: "jj rebase -d main", want: modifies},
	{cmd: "jj undo", want: modifies},
	{cmd: "jj op restore abc", want: modifies},
	{cmd: "jj bookmark set main -r @", want: modifies},
	{cmd: "jj git push", want: modifies},
	{cmd: "jj resolve", want: modifies},
	{cmd: "jj resolve --list", want: readOnly},

	// Go.
	{cmd: "go test ./...", want: readOnly},
	{cmd: "go test -run TestX -v ./gate/", want: readOnly},
	{cmd: "go test -race -count=1 ./...", want: readOnly},
	{cmd: "go test -bench . -benchmem ./...", want: readOnly},
	{cmd: "go vet ./...", want: readOnly},
	{cmd: "go list -m all", want: readOnly},
	{cmd: "go doc fmt.Println", want: readOnly},
	{cmd: "go env GOPATH", want: readOnly},
	{cmd: "go version", want: readOnly},
	{cmd: "go mod graph", want: readOnly},
	{cmd: "go mod why -m golang.org/x/sys", want: readOnly},
	{cmd: "go build -o /dev/null ./...", want: readOnly},
	{cmd: "go tool nm bin/x", want: readOnly},
	{cmd: "gofmt -l .", want: readOnly},
	{cmd: "gofmt -d main.go", want: readOnly},
	{cmd: "go test -coverprofile=c.out ./...", want: modifies, part: "go test -coverprofile"},
	{cmd: "go test -c ./gate", want: modifies},
	{cmd: "go test ./... -update", want: modifies},
	{cmd: "go test -fuzz=FuzzX ./gate", want: modifies},
	{cmd: "go build ./...", want: readOnly, limit: "go build cannot tell one main package (writes a binary) from several (writes nothing)"},
	{cmd: "go build -o bin/planq ./cmd/planq", want: modifies},
	{cmd: "go install ./cmd/planq", want: modifies},
	{cmd: "go get golang.org/x/sys@latest", want: modifies},
	{cmd: "go mod tidy", want: modifies},
	{cmd: "go mod download", want: modifies},
	{cmd: "go generate ./...", want: modifies},
	{cmd: "go fmt ./...", want: modifies},
	{cmd: "go run ./cmd/planq version", want: modifies},
	{cmd: "go env -w GOFLAGS=-mod=mod", want: modifies},
	{cmd: "gofmt -w .", want: modifies},
	{cmd: "goimports -w main.go", want: modifies},
	{cmd: "staticcheck ./...", want: readOnly},
	{cmd: "golangci-lint run", want: readOnly},
	{cmd: "golangci-lint run --fix", want: modifies},

	// JavaScript and TypeScript.
	{cmd: "npm test", want: readOnly},
	{cmd: "npm run test", want: readOnly},
	{cmd: "npm run test:unit -- --watch=false", want: readOnly},
	{cmd: "npm run typecheck", want: readOnly},
	{cmd: "npm ls", want: readOnly},
	{cmd: "npm view react version", want: readOnly},
	{cmd: "npm outdated", want: readOnly},
	{cmd: "npm audit", want: readOnly},
	{cmd: "npm --version", want: readOnly},
	{cmd: "npm install", want: modifies},
	{cmd: "npm i -D typescript", want: modifies},
	{cmd: "npm ci", want: modifies},
	{cmd: "npm uninstall left-pad", want: modifies},
	{cmd: "npm audit fix", want: modifies},
	{cmd: "npm run build", want: modifies, part: "npm run build"},
	{cmd: "npm run lint", want: readOnly},
	{cmd: "npm run lint:fix", want: modifies, part: "npm run lint:fix"},
	{cmd: "npm version patch", want: modifies},
	{cmd: "npm init -y", want: modifies},
	{cmd: "yarn test", want: readOnly},
	{cmd: "yarn add lodash", want: modifies},
	{cmd: "yarn", want: modifies},
	{cmd: "yarn build", want: modifies},
	{cmd: "pnpm test", want: readOnly},
	{cmd: "pnpm install", want: modifies},
	{cmd: "pnpm exec eslint .", want: readOnly},
	{cmd: "bun test", want: readOnly},
	{cmd: "bun install", want: modifies},
	{cmd: "node --version", want: readOnly},
	{cmd: "node -e 'console.log(1)'", want: modifies, part: "node -e"},
	{cmd: "node scripts/gen.js", want: modifies},
	{cmd: "node -p 'require(\"fs\").readdirSync(\".\")'", want: modifies},
	{cmd: "tsc --noEmit", want: readOnly},
	{cmd: "tsc -p .", want: modifies},
	{cmd: "eslint src/", want: readOnly},
	{cmd: "eslint --fix src/", want: modifies, part: "eslint --fix"},
	{cmd: "prettier --check .", want: readOnly},
	{cmd: "prettier --write src/", want: modifies},
	{cmd: "prettier -w src/", want: modifies},
	{cmd: "jest", want: readOnly},
	{cmd: "jest -u", want: modifies},
	{cmd: "vitest run", want: readOnly},
	{cmd: "vitest -u", want: modifies},

	// Python.
	{cmd: "pytest -x -q", want: readOnly},
	{cmd: "python -m pytest tests/", want: readOnly},
	{cmd: "python3 -m unittest discover", want: readOnly},
	{cmd: "python --version", want: readOnly},
	{cmd: "python -m mypy src", want: readOnly},
	{cmd: "pip list", want: readOnly},
	{cmd: "pip show requests", want: readOnly},
	{cmd: "pip freeze", want: readOnly},
	{cmd: "mypy .", want: readOnly},
	{cmd: "ruff check .", want: readOnly},
	{cmd: "ruff format --check .", want: readOnly},
	{cmd: "black --check .", want: readOnly},
	{cmd: "flake8", want: readOnly},
	{cmd: "python -c 'import os; os.remove(\"x\")'", want: modifies, part: "python -c"},
	{cmd: "python3 -c 'print(1)'", want: readOnly, limit: "code given to an interpreter may do anything"},
	{cmd: "python script.py", want: modifies},
	{cmd: "python - <<'EOF'\nprint(1)\nEOF", want: readOnly, limit: "code given to an interpreter may do anything"},
	{cmd: "python -m venv .venv", want: modifies},
	{cmd: "python -m pip install requests", want: modifies},
	{cmd: "pip install -r requirements.txt", want: modifies},
	{cmd: "pip3 uninstall -y x", want: modifies},
	{cmd: "ruff check --fix .", want: modifies},
	{cmd: "ruff format .", want: modifies},
	{cmd: "black .", want: modifies},
	{cmd: "isort .", want: modifies},
	{cmd: "uv sync", want: modifies},
	{cmd: "uv run pytest", want: readOnly},
	{cmd: "poetry install", want: modifies},
	{cmd: "poetry run pytest", want: readOnly},
	{cmd: "ruby -e 'File.delete(\"x\")'", want: modifies},

	// Rust and builds.
	{cmd: "cargo test", want: readOnly},
	{cmd: "cargo check --all-targets", want: readOnly},
	{cmd: "cargo clippy -- -D warnings", want: readOnly},
	// cargo tree writes Cargo.lock when there is none (issue #21): only
	// --locked or --frozen keeps it reading.
	{cmd: "cargo tree", want: readOnly, limit: "cargo tree writes Cargo.lock when there is none; cargo tree --locked only reads"},
	{cmd: "cargo tree --locked", want: readOnly},
	{cmd: "cargo fmt --check", want: readOnly},
	{cmd: "cargo build --release", want: modifies},
	{cmd: "cargo fmt", want: modifies},
	{cmd: "cargo add serde", want: modifies},
	{cmd: "cargo clippy --fix", want: modifies},
	{cmd: "cargo run", want: modifies},
	{cmd: "rustfmt --check src/main.rs", want: readOnly},
	{cmd: "make", want: modifies},
	{cmd: "make test", want: readOnly},
	{cmd: "make build", want: modifies},
	{cmd: "make -n install", want: modifies},
	{cmd: "make -C sub build", want: modifies},
	{cmd: "cmake -B build", want: modifies},
	{cmd: "ninja -C build", want: modifies},
	{cmd: "gcc -o hello hello.c", want: modifies},

	// Package managers, containers, services.
	{cmd: "apt-get install -y jq", want: modifies},
	{cmd: "apt-cache search jq", want: readOnly},
	{cmd: "apt list --installed", want: readOnly},
	{cmd: "dpkg -l", want: readOnly},
	{cmd: "brew install jq", want: modifies},
	{cmd: "brew list", want: readOnly},
	{cmd: "pacman -Ss jq", want: readOnly},
	{cmd: "pacman -Syu", want: modifies},
	{cmd: "docker ps -a", want: readOnly},
	{cmd: "docker logs web", want: readOnly},
	{cmd: "docker compose ps", want: readOnly},
	{cmd: "docker run --rm alpine ls", want: modifies},
	{cmd: "docker build -t x .", want: modifies},
	{cmd: "kubectl get pods -n kube-system", want: readOnly},
	{cmd: "kubectl apply -f deploy.yaml", want: modifies},
	{cmd: "systemctl status nginx", want: readOnly},
	{cmd: "systemctl restart nginx", want: modifies},
	{cmd: "gh pr view 12", want: readOnly},
	{cmd: "gh pr list --state open", want: readOnly},
	{cmd: "gh pr checkout 12", want: modifies},
	{cmd: "gh pr create --fill", want: modifies},
	{cmd: "gh api repos/o/r/pulls", want: readOnly},
	{cmd: "gh api -X POST repos/o/r/issues -f title=x", want: modifies},
	{cmd: "crontab -l", want: readOnly},
	{cmd: "crontab new.cron", want: modifies},

	// Unknown commands and unparsable input.
	{cmd: "frobnicate --all", want: modifies, part: "frobnicate"},
	{cmd: "ls && frobnicate", want: modifies, part: "frobnicate"},
	{cmd: "echo 'unterminated", want: modifies},
	{cmd: "if then fi", want: modifies},
	{cmd: "ssh host uptime", want: readOnly, limit: "ssh runs commands on another machine; planq does not judge them"},
	{cmd: "open index.html", want: readOnly, limit: "open hands a file to another program"},
}

// knownLimits lists the read-only commands the gate blocks, and why; every
// case with a limit must appear here and the gate must really block it.
var knownLimits = map[string]string{}

func init() {
	for _, c := range bashCases {
		if c.limit != "" {
			knownLimits[c.cmd] = c.limit
		}
	}
}

func TestAnalyzeBashTable(t *testing.T) {
	t.Parallel()
	if len(bashCases) < 250 {
		t.Fatalf("the table has %d commands; the gate's contract is at least 250", len(bashCases))
	}
	seen := map[string]bool{}
	for _, c := range bashCases {
		if seen[c.cmd] {
			t.Errorf("duplicate case %q", c.cmd)
		}
		seen[c.cmd] = true
		v := AnalyzeBashAt(c.cmd, DefaultPolicy(), fixtureWhere(t))
		switch {
		case c.want == modifies && !v.Modifies:
			t.Errorf("MODIFYING COMMAND ALLOWED: %q judged read-only (%s)", c.cmd, v.Reason)
		case c.want == modifies && c.part != "" && !strings.Contains(v.Part, c.part):
			t.Errorf("%q: deciding part %q does not contain %q (reason: %s)", c.cmd, v.Part, c.part, v.Reason)
		case c.want == modifies && (v.Part == "" || v.Reason == ""):
			t.Errorf("%q: modifying verdict without a deciding part or reason: %+v", c.cmd, v)
		case c.want == readOnly && v.Modifies && c.limit == "":
			t.Errorf("read-only %q blocked: %q %s (fix it, or list it as a known limit)", c.cmd, v.Part, v.Reason)
		case c.want == readOnly && !v.Modifies && c.limit != "":
			t.Errorf("known limit %q is now allowed: remove the limit", c.cmd)
		case c.want == readOnly && v.Reason == "":
			t.Errorf("%q: read-only verdict without a reason", c.cmd)
		}
	}
	t.Logf("%d commands, %d known limits", len(bashCases), len(knownLimits))
}

// fixtureWhere is a project the table's commands are judged in: its
// package.json has test, lint and build scripts.
func fixtureWhere(t testing.TB) Where {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "project"))
	if err != nil {
		t.Fatal(err)
	}
	return Where{Root: dir, Cwd: dir}
}

func TestGitRewrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd, command string
	}{
		{"git commit -m wip", "git commit"},
		{"git checkout main", "git checkout"},
		{"git switch -c x", "git switch"},
		{"git reset --hard", "git reset"},
		{"git stash", "git stash"},
		{"git stash pop", "git stash"},
		{"git rebase main", "git rebase"},
		{"git merge x", "git merge"},
		{"git restore f", "git restore"},
		{"git cherry-pick abc", "git cherry-pick"},
		{"git revert HEAD", "git revert"},
		{"git pull", "git pull"},
		{"ls && git -C sub commit -am x", "git -C sub commit"},
		{"bash -c 'git commit -m x'", "git commit"},
	}
	for _, tt := range tests {
		v := AnalyzeBash(tt.cmd, DefaultPolicy())
		if v.Git == nil {
			t.Errorf("%q: no git rewrite reported", tt.cmd)
			continue
		}
		if !strings.HasSuffix(v.Git.Command, strings.TrimPrefix(tt.command, "git -C sub ")) || v.Git.JJ == "" || v.Git.Part == "" {
			t.Errorf("%q: git rewrite %+v, want command %q with a jj equivalent", tt.cmd, *v.Git, tt.command)
		}
	}
	for _, cmd := range []string{"git status", "git stash list", "git commit --dry-run", "git add .", "git push", "jj new -m x", "echo git commit"} {
		if v := AnalyzeBash(cmd, DefaultPolicy()); v.Git != nil {
			t.Errorf("%q: reported as a git rewrite: %+v", cmd, *v.Git)
		}
	}
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	strict := DefaultPolicy()
	permissive := DefaultPolicy()
	permissive.PermissiveUnknown = true
	noTests := DefaultPolicy()
	noTests.Tests = nil
	e2e := DefaultPolicy()
	e2e.Tests = append(e2e.Tests, "make e2e")
	custom := DefaultPolicy()
	custom.Allow = []string{"frobnicate", "make lint"}
	custom.Deny = []string{"curl", "npm test"}

	tests := []struct {
		name string
		pol  Policy
		cmd  string
		want bool
	}{
		{"strict: unknown modifies", strict, "frobnicate", modifies},
		{"permissive: unknown reads", permissive, "frobnicate", readOnly},
		{"permissive: known modifying still modifies", permissive, "rm x", modifies},
		{"permissive: redirect still modifies", permissive, "frobnicate > out", modifies},
		{"permissive: computed name still modifies", permissive, "$CMD x", modifies},
		{"permissive: unknown git subcommand reads", permissive, "git my-alias", readOnly},
		{"allow: listed name reads", custom, "frobnicate --all", readOnly},
		{"allow: name with subcommand", custom, "make lint", readOnly},
		{"allow: other subcommand still modifies", custom, "make build", modifies},
		{"allow: redirect still modifies", custom, "frobnicate > x", modifies},
		{"deny: beats the table", custom, "curl -s https://x", modifies},
		{"deny: name with subcommand", custom, "npm test", modifies},
		{"deny: other subcommand unaffected", custom, "npm ls", readOnly},
		{"deny: through a wrapper", custom, "sudo curl https://x", modifies},
		{"gate.tests: go test listed by default", strict, "go test ./...", readOnly},
		{"gate.tests: go test not listed", noTests, "go test ./...", modifies},
		{"gate.tests: make test not listed", noTests, "make test", modifies},
		{"gate.tests: pytest not listed", noTests, "python -m pytest", modifies},
		{"gate.tests: make e2e listed", e2e, "make e2e", readOnly},
		{"gate.tests: make e2e not listed", strict, "make e2e", modifies},
		{"gate.tests: listed, writing option", e2e, "make e2e --touch", modifies},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := AnalyzeBash(tt.cmd, tt.pol)
			if v.Modifies != tt.want {
				t.Errorf("%q: modifies=%v (%s), want %v", tt.cmd, v.Modifies, v.Reason, tt.want)
			}
		})
	}
	if v := AnalyzeBash("curl https://x", custom); !strings.Contains(v.Reason, "gate.deny") {
		t.Errorf("deny reason %q does not name gate.deny", v.Reason)
	}
	if v := AnalyzeBash("frobnicate", strict); !strings.Contains(v.Reason, "gate.allow") {
		t.Errorf("unknown-command reason %q does not say how to allow it", v.Reason)
	}
}

func TestAnalyzeBashBounds(t *testing.T) {
	t.Parallel()
	// Nesting past the bound is refused, not followed.
	cmd := "ls"
	for range maxNesting + 2 {
		cmd = "bash -c " + shellQuote(cmd)
	}
	if v := AnalyzeBash(cmd, DefaultPolicy()); !v.Modifies || !strings.Contains(v.Reason, "nested") {
		t.Errorf("deep nesting: %+v, want a modifying verdict about nesting", v)
	}
	// Within the bound it is followed.
	cmd = "ls"
	for range maxNesting - 1 {
		cmd = "bash -c " + shellQuote(cmd)
	}
	if v := AnalyzeBash(cmd, DefaultPolicy()); v.Modifies {
		t.Errorf("nesting within the bound: %+v, want read-only", v)
	}
	// An oversized command is not parsed.
	big := "echo " + strings.Repeat("a", MaxCommandBytes)
	if v := AnalyzeBash(big, DefaultPolicy()); !v.Modifies || !strings.Contains(v.Reason, "bytes long") {
		t.Errorf("oversized command: %+v", v)
	}
	// A long deciding part is shortened.
	long := "rm " + strings.Repeat("x", 500)
	if v := AnalyzeBash(long, DefaultPolicy()); len(v.Part) > maxPartLen+len("…") {
		t.Errorf("part is %d bytes; want at most %d", len(v.Part), maxPartLen+len("…"))
	}
}
