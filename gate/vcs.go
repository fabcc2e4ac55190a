package gate

import "strings"

// Fragments of git -c setting names that make git run a program.
var gitRunsProgram = []string{
	"alias.", "pager", "editor", "fsmonitor", "hookspath", "sshcommand", "external", "textconv",
	"filter.", "askpass", "credential", "program", "tool", "include", "command", "proxy",
}

func gitRule() *rule {
	// The jj way to do what a history- or working-copy-rewriting git command
	// does; in a jj repo these git commands are denied with this advice.
	gitJJ := map[string]string{
		"commit":      `jj commit -m "…" (or jj describe -m "…" to name the current change, then jj new)`,
		"checkout":    "jj new <rev> to start work on a revision, jj edit <rev> to resume a change, jj restore --from <rev> <paths> to take files from one",
		"switch":      "jj new <rev> (or jj edit <rev> to resume that change)",
		"reset":       "jj restore to discard changes, jj abandon to drop a change, jj squash to fold one into its parent",
		"restore":     "jj restore [--from <rev>] <paths>",
		"stash":       "jj new @- to set the current work aside (it stays in the change graph; return with jj edit <change>)",
		"rebase":      "jj rebase -s <source> -d <destination>",
		"merge":       "jj new <rev1> <rev2> (a merge change)",
		"cherry-pick": "jj duplicate <rev>, then jj rebase the copy where you want it",
		"revert":      "jj revert -r <rev> (jj backout -r <rev> in older jj)",
		"pull":        "jj git fetch, then jj rebase -d <bookmark>@origin",
	}
	read := ro()
	rewrite := func(sub, why string, r *rule) *rule {
		if r == nil {
			r = &rule{}
		}
		r.why, r.jj = why, gitJJ[sub]
		return r
	}
	listOr := func(why string, modFlags, roFlags []string) *rule {
		return &rule{ro: true, posMod: 1, why: why, flagWhy: why, modFlags: modFlags, roFlags: roFlags,
			valued: []string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--color",
				"--column", "-m", "-F", "--message", "--file", "-u", "--local-user", "--cleanup", "--set-upstream-to", "--abbrev"}}
	}
	output := &rule{ro: true, modFlags: []string{"--output"}, valued: []string{"--output"}}
	subs := map[string]*rule{
		"status": read, "log": output, "diff": output, "show": output, "blame": read, "annotate": read, "shortlog": read,
		"describe": read, "rev-parse": read, "rev-list": read, "ls-files": read, "ls-tree": read, "ls-remote": read,
		"cat-file": read, "grep": read, "fetch": read, "show-ref": read, "show-branch": read, "for-each-ref": read,
		"name-rev": read, "merge-base": read, "whatchanged": read, "cherry": read, "count-objects": read, "fsck": read,
		"verify-commit": read, "verify-tag": read, "verify-pack": read, "check-ignore": read, "check-attr": read,
		"check-mailmap": read, "check-ref-format": read, "var": read, "help": read, "version": read, "diff-tree": read,
		"diff-files": read, "diff-index": read, "range-diff": read, "get-tar-commit-id": read, "patch-id": read,
		"request-pull": read, "column": read, "merge-tree": read, "show-index": read,
		"hash-object":        {ro: true, modFlags: []string{"-w"}, flagWhy: "writes an object into the repository"},
		"interpret-trailers": {ro: true, modFlags: []string{"--in-place"}, flagWhy: "edits files in place"},
		"branch": listOr("creates, renames or deletes a branch",
			[]string{"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-f", "--force", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-t", "--track"},
			[]string{"-l", "--list", "-a", "--all", "-r", "--remotes", "--show-current", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}),
		"tag": listOr("creates or deletes a tag",
			[]string{"-d", "--delete", "-a", "--annotate", "-s", "--sign", "-f", "--force", "-m", "--message", "-F", "--file", "-u", "--local-user"},
			[]string{"-l", "--list", "-v", "--verify", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}),
		"stash":     rewrite("stash", "sets changes aside and resets the working copy", subsOf(map[string]*rule{"list": read, "show": read}, &rule{})),
		"remote":    subsOf(map[string]*rule{"show": read, "get-url": read}, &rule{ro: true, anySub: mod("changes the remotes")}),
		"config":    {ro: true, check: gitConfigCheck, valued: []string{"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}},
		"worktree":  subsOf(map[string]*rule{"list": read}, &rule{ro: true, anySub: mod("changes worktrees")}),
		"notes":     subsOf(map[string]*rule{"list": read, "show": read}, &rule{ro: true, anySub: mod("changes notes")}),
		"submodule": subsOf(map[string]*rule{"status": read, "summary": read, "foreach": wrapper(wrap{shellArgs: true})}, &rule{ro: true, anySub: mod("changes submodules")}),
		"bisect":    subsOf(map[string]*rule{"log": read, "view": read, "visualize": read, "terms": read}, &rule{ro: true, anySub: mod("moves the working copy")}),
		"reflog":    subsOf(map[string]*rule{"show": read, "exists": read}, &rule{ro: true, anySub: mod("rewrites the reflog")}),
		"bundle":    subsOf(map[string]*rule{"verify": read, "list-heads": read}, &rule{ro: true, anySub: mod(whyWrites)}),
		"lfs": subsOf(map[string]*rule{"ls-files": read, "status": read, "env": read, "version": read, "logs": read,
			"track": {ro: true, posMod: 1, why: "changes .gitattributes"}}, &rule{ro: true, anySub: mod("changes LFS files")}),
		"sparse-checkout": subsOf(map[string]*rule{"list": read}, &rule{ro: true, anySub: mod("changes the working tree")}),
		"symbolic-ref":    {ro: true, posMod: 2, why: "changes a ref", modFlags: []string{"-d", "--delete"}, flagWhy: "deletes a ref", valued: []string{"-m"}},
		"apply":           {why: "applies a patch to the working tree", roFlags: []string{"--check", "--stat", "--numstat", "--summary"}, valued: []string{"-p", "-C", "--exclude", "--include", "--directory", "--whitespace"}},
		"format-patch": {why: "writes patch files", roFlags: []string{"--stdout"},
			valued: []string{"-o", "--output-directory", "--subject-prefix", "--to", "--cc", "--from", "--in-reply-to", "-v", "--reroll-count", "--base", "--range-diff", "--interdiff", "--signature-file", "--suffix"}},
		"archive":        {ro: true, modFlags: []string{"-o", "--output"}, valued: []string{"-o", "--output", "--format", "--prefix", "--remote", "--exec", "--add-file"}},
		"add":            {why: "stages files", roFlags: []string{"-n", "--dry-run"}},
		"rm":             {why: whyDeletes, roFlags: []string{"-n", "--dry-run"}},
		"mv":             {why: "moves files", roFlags: []string{"-n", "--dry-run"}},
		"clean":          {why: "deletes untracked files", roFlags: []string{"-n", "--dry-run"}, valued: []string{"-e", "--exclude"}},
		"push":           {why: "publishes commits to a remote", roFlags: []string{"-n", "--dry-run"}, valued: []string{"-o", "--push-option", "--repo", "--receive-pack", "--exec"}},
		"commit":         rewrite("commit", "records a commit behind jj's back", &rule{roFlags: []string{"--dry-run"}, valued: []string{"-m", "--message", "-F", "--file", "-C", "--reuse-message", "-c", "--reedit-message", "--fixup", "--squash", "--author", "--date", "-t", "--template", "--cleanup", "--trailer"}}),
		"checkout":       rewrite("checkout", "moves the working copy or overwrites files", nil),
		"switch":         rewrite("switch", "moves the working copy", nil),
		"reset":          rewrite("reset", "moves HEAD or discards changes", nil),
		"restore":        rewrite("restore", "overwrites files in the working copy", nil),
		"rebase":         rewrite("rebase", "rewrites history", nil),
		"merge":          rewrite("merge", "creates a merge commit and changes files", nil),
		"cherry-pick":    rewrite("cherry-pick", "applies commits to the working copy", nil),
		"revert":         rewrite("revert", "applies an inverse commit to the working copy", nil),
		"pull":           rewrite("pull", "fetches and merges into the working copy", nil),
		"init":           mod("creates a repository"),
		"clone":          mod("creates a repository and writes its files"),
		"am":             mod("applies patches and commits"),
		"mergetool":      mod("opens a merge tool on files"),
		"difftool":       mod("opens a diff tool"),
		"gc":             mod("rewrites the object store"),
		"prune":          mod("deletes objects"),
		"repack":         mod("rewrites the object store"),
		"maintenance":    mod("rewrites the object store"),
		"update-index":   mod("changes the index"),
		"update-ref":     mod("changes a ref"),
		"read-tree":      mod("changes the index"),
		"write-tree":     mod("writes objects"),
		"commit-tree":    mod("writes objects"),
		"checkout-index": mod(whyWrites),
		"merge-file":     mod("writes the merge into a file"),
		"replace":        mod("changes refs"),
		"filter-branch":  mod("rewrites history"),
		"filter-repo":    mod("rewrites history"),
		"fast-import":    mod("writes objects"),
		"rerere":         mod("changes recorded resolutions"),
		"bugreport":      mod("writes a report file"),
		"mailsplit":      mod(whyWrites),
		"send-email":     mod("sends mail"),
		"unpack-objects": mod("writes objects"),
		"pack-refs":      mod("rewrites refs"),
		"credential":     mod("stores credentials"),
	}
	return &rule{ro: true, subs: subs, check: gitCheck,
		valued:  []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"},
		roFlags: []string{"--version", "--help", "-h", "--html-path", "--man-path", "--info-path"}}
}

// gitCheck refuses -c settings that make git run a program, then judges the
// subcommand.
func gitCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, _, _ := scan(args, r, true)
	for _, f := range flags {
		if f.name != "-c" && f.name != "--config-env" {
			continue
		}
		if !f.val.static {
			return outcome{mod: true, reason: name + " " + f.name + " sets configuration computed at run time"}
		}
		key, _, _ := strings.Cut(strings.ToLower(f.val.val), "=")
		for _, frag := range gitRunsProgram {
			if strings.Contains(key, frag) {
				return outcome{mod: true, reason: name + " -c " + key + " makes git run a program"}
			}
		}
	}
	return r.evalSub(c, name, args)
}

// gitConfigCheck: git config reads with --get/--list or one key, and writes
// with two operands or an editing flag.
func gitConfigCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if hasFlag(flags, "-e", "--edit", "--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section") {
		return outcome{mod: true, reason: name + " changes git configuration"}
	}
	if hasFlag(flags, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color", "--get-colorbool") {
		return outcome{}
	}
	if len(pos) > 0 && pos[0].static {
		switch pos[0].val {
		case "get", "list":
			return outcome{}
		case "set", "unset", "rename-section", "remove-section", "edit":
			return outcome{mod: true, reason: name + " " + pos[0].val + " changes git configuration"}
		}
	}
	if len(pos) >= 2 {
		return outcome{mod: true, reason: name + " changes git configuration"}
	}
	return outcome{}
}

func jjRule() *rule {
	read := ro()
	rewrites := mod("rewrites changes or the working copy")
	listOnly := func(extra ...string) *rule {
		m := map[string]*rule{"list": read, "l": read}
		for _, e := range extra {
			m[e] = read
		}
		return subsOf(m, &rule{ro: true, anySub: rewrites})
	}
	op := listOnly("log", "show", "diff")
	git := subsOf(map[string]*rule{
		"fetch":  read,
		"remote": listOnly(),
		"init":   declares(), // what mcp__planq__jj_git_init does
		"root":   read,
		"push":   {why: "pushes to a remote", roFlags: []string{"--dry-run"}},
	}, &rule{ro: true, anySub: mod("changes the repository")})
	return subsOf(map[string]*rule{
		"log": read, "st": read, "status": read, "diff": read, "show": read, "evolog": read, "obslog": read,
		"interdiff": read, "root": read, "version": read, "help": read, "cat": read, "files": read,
		"op": op, "operation": op,
		"file":      listOnly("show", "annotate", "search"),
		"bookmark":  listOnly(),
		"b":         listOnly(),
		"branch":    listOnly(),
		"tag":       listOnly(),
		"config":    listOnly("get", "path"),
		"workspace": listOnly("root"),
		"sparse":    listOnly(),
		"util":      listOnly("completion", "config-schema", "markdown-help", "mangen"),
		"git":       git,
		"resolve":   {why: "resolves conflicts in files", roFlags: []string{"-l", "--list"}},
		// Declaring the change is what the gate asks for; it touches no file.
		"new": declares(), "describe": declares(), "desc": declares(), "commit": declares(), "ci": declares(), "init": declares(),
	}, &rule{ro: true, anySub: rewrites,
		valued:  []string{"-R", "--repository", "--at-operation", "--at-op", "--color", "--config", "--config-toml", "--config-file"},
		roFlags: []string{"--version", "-V", "--help", "-h"}})
}

func ghRule() *rule {
	read := ro()
	state := mod("changes state on GitHub")
	viewOnly := func(names ...string) *rule {
		m := map[string]*rule{}
		for _, n := range names {
			m[n] = read
		}
		return subsOf(m, &rule{ro: true, anySub: state})
	}
	pr := viewOnly("view", "list", "diff", "status", "checks")
	pr.subs["checkout"] = mod("checks the pull request out into the working copy")
	pr.subs["co"] = pr.subs["checkout"]
	repo := viewOnly("view", "list")
	repo.subs["clone"] = mod("clones a repository")
	return subsOf(map[string]*rule{
		"pr": pr, "issue": viewOnly("view", "list", "status"), "repo": repo, "run": viewOnly("view", "list", "watch"),
		"workflow": viewOnly("view", "list"), "release": viewOnly("view", "list"), "search": read, "browse": read,
		"status": read, "auth": viewOnly("status", "token"), "label": viewOnly("list"), "gist": viewOnly("view", "list"),
		"cache": viewOnly("list"), "secret": viewOnly("list"), "variable": viewOnly("list", "get"), "ruleset": viewOnly("list", "view", "check"),
		"extension": viewOnly("list", "search", "browse"), "codespace": viewOnly("list", "view", "logs"), "config": viewOnly("get", "list"),
		"project": viewOnly("list", "view", "field-list", "item-list"), "org": viewOnly("list"), "attestation": viewOnly("verify"),
		"api": {ro: true, check: ghAPICheck, valued: []string{"-X", "--method", "-f", "--raw-field", "-F", "--field", "-H", "--header", "--input",
			"-q", "--jq", "-t", "--template", "--hostname", "--cache", "-p", "--preview"}},
		"version": read, "help": read, "completion": read,
	}, &rule{ro: true, anySub: state, valued: []string{"-R", "--repo"}})
}

// ghAPICheck: gh api reads with GET; another method, or fields (which make
// it a POST), change state on GitHub.
func ghAPICheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, _, _ := scan(args, r, false)
	get := false
	for _, f := range flags {
		if f.name == "-X" || f.name == "--method" {
			if !f.val.static || !strings.EqualFold(f.val.val, "GET") && !strings.EqualFold(f.val.val, "HEAD") {
				return outcome{mod: true, reason: name + " " + f.name + " " + f.val.raw + " changes state on GitHub"}
			}
			get = true
		}
	}
	if !get && hasFlag(flags, "-f", "--raw-field", "-F", "--field", "--input") {
		return outcome{mod: true, reason: name + " with fields sends a POST request"}
	}
	return outcome{}
}
