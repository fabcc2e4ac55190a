// Package gate decides whether an agent's tool call modifies the project,
// and whether the gate that holds such calls back until the agent has
// declared its jj change is locked. The gate is a security boundary: it
// judges a command the way bash will run it, and what it cannot read to the
// end counts as modifying.
//
// # Classification
//
// Classify judges a tool call by what the host's adapter says the tool is
// (Tool: its Kind and the input field the gate reads; the gate knows no
// host's tool names): read-only tools as reading, planq's own MCP tools as
// always allowed, other MCP tools by configurable globs over
// mcp__<server>__<tool>, editor tools by the file they write, patches
// (apply_patch) by the files they touch, and shell commands with
// AnalyzeBashAt.
// Tool inputs are decoded exactly (ExactFields): a key given twice, or one
// that differs from a key the gate reads only in case, makes the call
// ambiguous, and it is denied.
//
// AnalyzeBashAt parses the command with a real shell parser (mvdan.cc/sh)
// and judges every simple command in it — in pipelines, lists, subshells,
// groups, if/for/while/case bodies, functions, command and process
// substitutions, and the code given to bash -c, sh -c, dash -c, eval, trap,
// watch and a shell reading a here-document — plus every redirection,
// assignment and expansion on its own. What planq knows about commands is
// held in tables of rules (commands.go, builtins.go, fileops.go, vcs.go,
// toolchains.go, tests.go, servers.go): a command name maps to whether it
// reads, which flags, arguments or subcommands make it write, and, for some,
// a check that reads the program it is given (sed scripts with GNU sed's
// grammar, awk programs token by token). A command modifies when any part of it does;
// the verdict names the first part that does.
//
// # Policy, class by class
//
//   - Names: a command word that is not a literal ($CMD, $(…)) is unknown. A
//     name the script defines as a function is judged as the program of that
//     name as well — every function body is analysed where it is written, so
//     whichever of the two runs has been judged (rm(){ :; }; rm -rf x still
//     modifies). command, builtin, exec, env, /bin/X, sudo, xargs, find -exec
//     and other wrappers judge the command they run. alias NAME=…, shopt -s
//     expand_aliases, hash -p, enable -f/-n, compgen -C, complete -C, bind -x
//     and mapfile -C define or evaluate text, and modify.
//   - Assignments: VAR=x in front of a command is part of it; only harmless
//     variables (LANG, LC_*, TZ, CI, GOOS, NO_COLOR, … and PATH naming only
//     system directories) may stand there, anything else makes the command
//     unknown, and variables programs run or load code from (GIT_*, JJ_*,
//     *PAGER, *EDITOR, BASH_ENV, LD_*, PATH, NODE_OPTIONS, …) make it modify.
//     Setting or exporting such a variable on its own modifies too; exporting
//     any other non-lowercase name is unknown. Plain script variables
//     (f=x; cat "$f", for and read) are fine.
//   - Text that bash evaluates: arithmetic ((( )), $(( )), let, [[ -eq ]],
//     declare -i values, subscripts given to unset, read, printf -v and
//     test -v) whose text holds $(…) or names a variable whose value may hold
//     code (from a command, read, a loop, or a literal with a subscript) is
//     code; ${x@P} and ${!x} on such a variable are too.
//   - Options that run programs: git -c (only display keys such as color.*
//     or core.pager=cat), --config-env, --exec-path=, --upload-pack,
//     --receive-pack, ext:: and fd:: URLs, git grep -O; git -C, --git-dir,
//     --work-tree and jj -R outside the project (another repository's
//     configuration runs programs); jj --config (only display keys),
//     --config-file, --config-toml and --tool; fd -x/-X and find -exec
//     (judged; a "+" ends -exec only after "{}"; file names substituted into
//     sh -c code modify); rg --pre; tar --to-command, --checkpoint-action,
//     -I, --rsh-command, -F; sort --compress-program; make (even -n, which
//     runs $(shell …)) and --eval; man -P, bat/ag/ack --pager, less -o.
//   - Test runners (tests.go): the entry points in gate.tests count as
//     read-only investigations; their writing options (snapshot updates,
//     coverage and report files, --basetemp, go test -o and profiles)
//     modify unless they write outside the project, and a runner pointed at
//     code or configuration outside the project is unknown. npm, yarn and
//     pnpm scripts are judged by their text in package.json, with the
//     arguments passed to them; npm pack and publish run lifecycle scripts.
//   - Options: GNU long-option abbreviations are resolved against each
//     tool's options (tar --extrac, sed --i, git config --remove-s); an
//     ambiguous one is judged as the most dangerous match. Tools with Go's
//     or LLVM's option parsers take --w and -i=true (gofmt, clang-format).
//     An option's optional value is only the text after = (tee
//     --output-error FILE writes FILE); a later --no-X turns a read-only
//     --X off (git add -n --no-dry-run); - is a file named -, except where a
//     tool takes it for standard output (curl -o -, tar -f -). A word known
//     only at run time ($o, "$@") may be any option, unless the script gives
//     it only literal values that are not options; so may the words xargs
//     appends, so xargs trusts only a command that writes nothing whatever
//     it is given (grep, wc, cat).
//   - Other shells: only bash, sh, dash and rbash code is parsed; fish, zsh,
//     ksh, csh, pwsh, nu … code is another language, and unknown. zsh syntax
//     that runs code (glob qualifiers *(e:…:), *(+f), $~x) modifies; what
//     does not parse as bash (=(…), ${(e)x}) modifies.
//   - Paths: a file a command writes is resolved before any in/out decision
//     (/proc/self/cwd is the working directory, /proc/self/root is /, other
//     /proc entries are unknown, symbolic links are followed on the longest
//     existing prefix, ".." applies after them, comparisons follow the
//     platform's case rules). A write is credited as outside the project only
//     when it is outside it and not an ancestor of it, and not where programs
//     the gate allows load code or settings from: the home directory's dot
//     files (Claude Code's plan files excepted), PATH directories, system
//     directories, tool homes and caches (GOPATH, CARGO_HOME, …), and
//     configuration names in a directory above the project (go.work,
//     .git, conftest.py, package.json, …). After a cd planq cannot follow,
//     relative paths count as inside and tools that load configuration from
//     their working directory are unknown; a script that may create links
//     (ln, cp -r, tar x, …) gets no outside credit; mv and cp need every
//     path outside.
//   - Servers (servers.go): a command that asks a server running outside
//     the command to act — tmux and screen (send-keys, run-shell), docker,
//     podman and clusters (run, exec, cp), ssh to any host, systemd,
//     launchd, at and cron, editors' servers, D-Bus and the desktop
//     (xdotool, xdg-open, osascript), database servers, and a network client
//     pointed at this machine (curl, wget, nc, socat, git to localhost in
//     any spelling of its address, --resolve, a proxy or a unix socket
//     here, bash's /dev/tcp) — surely modifies: no sandbox of the command
//     holds the server. Asking a server only for information reads (tmux
//     ls, docker ps, ssh -G, systemctl status).
//   - Git behind jj's back: in a jj repository, git commands that rewrite
//     history, refs, the index or the working copy (commit, checkout, reset,
//     read-tree, checkout-index, update-ref, am, apply --index, worktree
//     add, branch -D/-f/-m, tag -d, …), git -c alias.*, and git subcommands
//     planq does not know (aliases) are denied even once the change is
//     declared, with the jj way in the message.
//
// # Bounds
//
// A command longer than MaxCommandBytes, nesting brackets deeper than
// MaxBracketDepth, with more than MaxOperators | and && operators (checked
// before parsing), more than MaxNodes syntax nodes, or more than six levels
// of nested shells and wrappers is denied with the bound named. Any input is
// judged within a few milliseconds and megabytes (FuzzAnalyzeBash asserts
// 100 ms and 64 MB); a panic in a rule denies.
//
// # Gate state
//
// State reports whether the gate is unlocked: the project's directory is a
// jj repo and its working-copy change @ has a description. It is cached in
// .jj/ keyed on jj's operation heads, so a hook process starts jj only after
// an operation. The state and the configuration are always the session's
// project's (the project directory the host names, CLAUDE_PROJECT_DIR for
// Claude Code), never those of the repository a command happens to run in.
//
// # The OS sandbox
//
// With EvalOptions.SandboxEntry set (a host that applies rewritten
// commands, on a machine with an OS sandbox: package gate/sandbox), a
// locked shell call is denied only when the verdict is Sure (a write into
// the project the analysis sees — rule.sure, rule.inPlace, writesHere —, a
// command that asks a server to act, a gate.deny entry) or git rewrites history
// in a jj repository; any other — read-only to the analysis, or unknown to
// it — is allowed to run in the sandbox, the project read-only
// (Decision.Sandbox, Decision.Command), and declarations (Verdict.Declares)
// run as they are. Without it the gate is the analysis alone, as below.
//
// # Known limits
//
// Without the sandbox: read-only commands the gate blocks (listed with
// their reasons in the table test, bash_test.go): code given to an
// interpreter (python -c, node -e), scripts run by one, commands planq does
// not know, go build ./..., and the others marked there. With it, they run
// sandboxed. Modifying commands it allows by design: the test
// entry points of gate.tests (which may write caches and build directories
// such as target/), the declaring jj commands (jj new on top of @, describe,
// commit, git init in the project), git fetch (remote-tracking refs), and
// writes outside the project.
package gate
