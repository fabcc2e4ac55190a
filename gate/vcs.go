package gate

import (
	"slices"
	"strings"
)

// gitJJ is the jj way to do what a history-, ref- or working-copy-rewriting
// git command does; in a jj repo these git commands are denied with this
// advice even when the change is declared (gate.git: allow permits them).
var gitJJ = map[string]string{
	"commit":          `jj commit -m "…" (or jj describe -m "…" to name the current change, then jj new)`,
	"checkout":        "jj new <rev> to start work on a revision, jj edit <rev> to resume a change, jj restore --from <rev> <paths> to take files from one",
	"switch":          "jj new <rev> (or jj edit <rev> to resume that change)",
	"reset":           "jj restore to discard changes, jj abandon to drop a change, jj squash to fold one into its parent",
	"restore":         "jj restore [--from <rev>] <paths>",
	"stash":           "jj new @- to set the current work aside (it stays in the change graph; return with jj edit <change>)",
	"rebase":          "jj rebase -s <source> -d <destination>",
	"merge":           "jj new <rev1> <rev2> (a merge change)",
	"cherry-pick":     "jj duplicate <rev>, then jj rebase the copy where you want it",
	"revert":          "jj revert -r <rev> (jj backout -r <rev> in older jj)",
	"pull":            "jj git fetch, then jj rebase -d <bookmark>@origin",
	"am":              "apply the patch to the files (patch -p1 < file, or git apply without --index) inside the declared change; jj records it",
	"apply":           "git apply without --index, --cached or --3way (or patch -p1): jj snapshots the working copy itself",
	"read-tree":       "jj restore --from <rev> [paths] to take files from a revision",
	"checkout-index":  "jj restore --from <rev> [paths] to take files from a revision",
	"update-index":    "edit the files; jj snapshots the working copy (jj file untrack <paths> to stop tracking)",
	"update-ref":      "jj bookmark set <name> -r <rev> (jj keeps git refs in step)",
	"symbolic-ref":    "jj bookmark set <name> -r <rev>; jj manages HEAD itself",
	"replace":         "rewrite the change with jj (jj describe, jj squash, jj rebase)",
	"filter-branch":   "rewrite history with jj (jj rebase, jj squash, jj split, jj describe); every jj rewrite can be undone",
	"filter-repo":     "rewrite history with jj (jj rebase, jj squash, jj split, jj describe); every jj rewrite can be undone",
	"fast-import":     "import history with jj git fetch / jj git import",
	"worktree":        "jj workspace add <path> / jj workspace forget <name>",
	"mv":              "mv the files: jj records the rename when it snapshots the working copy",
	"rm":              "rm the files (jj records the removal), or jj file untrack <paths> to stop tracking them",
	"clean":           "rm the untracked files you want gone, or jj restore to drop changes",
	"branch":          "jj bookmark set / jj bookmark delete / jj bookmark rename",
	"tag":             "jj tag delete <name>",
	"bisect":          "jj new <rev> to check out each revision to test (or jj bisect run in newer jj)",
	"sparse-checkout": "jj sparse set / jj sparse edit",
	"alias":           "spell the git command out (planq cannot see what a git alias or alias.* setting runs), or use jj: jj log, jj diff, jj show, jj status",
}

// gitConfigAllowed reports whether git -c KEY=VALUE changes only how git
// shows things: colors, the pager cat, diff and log display options,
// identity. Anything else (aliases, pagers, editors, fsmonitor, hooks,
// external diff and textconv drivers, filters, includes, credential and
// SSH programs, protocol.*.allow, …) may make git run a program.
func gitConfigAllowed(kv string) bool {
	key, val, _ := strings.Cut(kv, "=")
	lower := strings.ToLower(key)
	section, rest, _ := strings.Cut(lower, ".")
	bools := []string{"", "true", "false", "yes", "no", "on", "off", "0", "1", "always", "never", "auto"}
	switch section {
	case "color", "column", "advice", "i18n", "status", "blame", "pretty", "versionsort", "log", "grep", "fetch", "index", "pack", "commitgraph", "feature", "transfer", "fsck":
		return !strings.Contains(rest, "program") && !strings.Contains(rest, "command") && !strings.HasSuffix(rest, "file")
	case "pager":
		return slices.Contains(bools, strings.ToLower(val))
	case "user":
		return rest == "name" || rest == "email"
	}
	switch lower {
	case "core.pager":
		return slices.Contains(pagerValues, val)
	case "core.quotepath", "core.abbrev", "core.autocrlf", "core.safecrlf", "core.eol", "core.filemode", "core.ignorecase",
		"core.precomposeunicode", "core.commentchar", "core.commentstring", "core.whitespace", "core.preloadindex", "core.bigfilethreshold",
		"core.compression", "core.loosecompression", "core.longpaths", "core.symlinks", "core.checkstat", "core.trustctime",
		"core.untrackedcache", "core.splitindex", "core.warnambiguousrefs", "gc.auto", "gc.autodetach", "maintenance.auto",
		"init.defaultbranch", "protocol.version", "safe.directory", "diff.noprefix", "diff.mnemonicprefix", "diff.renames",
		"diff.renamelimit", "diff.algorithm", "diff.indentheuristic", "diff.colormoved", "diff.colormovedws", "diff.context",
		"diff.interhunkcontext", "diff.relative", "diff.statgraphwidth", "diff.statnamewidth", "diff.submodule", "diff.suppressblankempty",
		"diff.wserrorhighlight", "diff.ignoresubmodules", "diff.dirstat", "format.pretty", "merge.conflictstyle", "branch.sort",
		"tag.sort", "http.sslverify", "http.version", "http.postbuffer", "http.lowspeedlimit", "http.lowspeedtime":
		return true
	}
	return false
}

func gitRule() *rule {
	read := ro()
	// What git writes into the repository (its refs, index, objects,
	// configuration) or the working copy is a write into the project: git
	// runs in it (gitCheck leaves any other repository unknown).
	rewrite := func(sub, why string, r *rule) *rule {
		if r == nil {
			r = &rule{}
		}
		r.why, r.jj, r.sure = why, gitJJ[sub], true
		return r
	}
	writes := func(why string) *rule { return &rule{why: why, sure: true} }
	listOr := func(why string, modFlags, roFlags []string) *rule {
		return &rule{ro: true, posMod: 1, why: why, flagWhy: why, modFlags: modFlags, roFlags: roFlags,
			valued: []string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--color",
				"--column", "-m", "-F", "--message", "--file", "-u", "--local-user", "--cleanup", "--set-upstream-to", "--abbrev"}}
	}
	output := &rule{ro: true, modFlags: []string{"--output"}, valued: []string{"--output"}}
	sureIf := func(o outcome) outcome { // a branch, tag or configuration change writes .git
		o.sure = o.mod && !o.unknown
		return o
	}
	remote := func(r *rule) *rule { // subcommands that reach a remote: program-running options
		inner := *r
		r.check = func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
			if o := gitRemoteArgs(name, args); o.mod {
				return o
			}
			return inner.eval(c, name, args)
		}
		return r
	}
	branchDel := []string{"-d", "-D", "--delete", "-m", "-M", "--move", "-f", "--force"}
	subs := map[string]*rule{
		"status": read, "log": output, "diff": output, "show": output, "blame": read, "annotate": read, "shortlog": read,
		"describe": read, "rev-parse": read, "rev-list": read, "ls-files": read, "ls-tree": read,
		"ls-remote": remote(ro()), "fetch": remote(&rule{ro: true, check: gitFetchCheck}),
		"cat-file": read, "show-ref": read, "show-branch": read, "for-each-ref": read,
		"grep": {ro: true, modFlags: []string{"-O", "--open-files-in-pager"}, flagWhy: "opens the matches in a program",
			valued: []string{"-e", "-f", "--max-depth", "-A", "-B", "-C", "--after-context", "--before-context", "--context", "--threads", "-m", "--max-count"}},
		"name-rev": read, "merge-base": read, "whatchanged": read, "cherry": read, "count-objects": read, "fsck": read,
		"verify-commit": read, "verify-tag": read, "verify-pack": read, "check-ignore": read, "check-attr": read,
		"check-mailmap": read, "check-ref-format": read, "var": read, "help": read, "version": read, "diff-tree": read,
		"diff-files": read, "diff-index": read, "range-diff": read, "get-tar-commit-id": read, "patch-id": read,
		"request-pull": read, "column": read, "merge-tree": read, "show-index": read, "write-tree": read,
		"hash-object":        {ro: true, modFlags: []string{"-w"}, flagWhy: "writes an object into the repository", sure: true},
		"interpret-trailers": {ro: true, modFlags: []string{"--in-place"}, flagWhy: "edits files in place"},
		"branch": {ro: true, check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
			br := listOr("creates, renames or deletes a branch",
				[]string{"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-f", "--force", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-t", "--track"},
				[]string{"-l", "--list", "-a", "--all", "-r", "--remotes", "--show-current", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-v", "-vv", "--verbose"})
			o := sureIf(br.evalFlags(c, name, args))
			flags, _, _ := scan(args, br, false)
			if o.mod && hasFlag(flags, branchDel...) {
				o.git = &GitRewrite{Command: name, JJ: gitJJ["branch"]}
			}
			return o
		}},
		"tag": {ro: true, check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
			tg := listOr("creates or deletes a tag",
				[]string{"-d", "--delete", "-a", "--annotate", "-s", "--sign", "-f", "--force", "-m", "--message", "-F", "--file", "-u", "--local-user"},
				[]string{"-l", "--list", "-v", "--verify", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-n"})
			o := sureIf(tg.evalFlags(c, name, args))
			flags, _, _ := scan(args, tg, false)
			if o.mod && hasFlag(flags, "-d", "--delete", "-f", "--force") {
				o.git = &GitRewrite{Command: name, JJ: gitJJ["tag"]}
			}
			return o
		}},
		"stash":     rewrite("stash", "sets changes aside and resets the working copy", subsOf(map[string]*rule{"list": read, "show": read}, &rule{})),
		"remote":    subsOf(map[string]*rule{"show": remote(ro()), "get-url": read, "-v": read}, &rule{ro: true, anySub: writes("changes the remotes")}),
		"config":    {ro: true, check: gitConfigCheck, valued: []string{"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}},
		"worktree":  subsOf(map[string]*rule{"list": read, "add": rewrite("worktree", "checks out another working tree", nil), "remove": rewrite("worktree", "deletes a working tree", nil)}, &rule{ro: true, anySub: mod("changes worktrees")}),
		"notes":     subsOf(map[string]*rule{"list": read, "show": read}, &rule{ro: true, anySub: writes("changes notes")}),
		"submodule": subsOf(map[string]*rule{"status": read, "summary": read, "foreach": wrapper(wrap{shellArgs: true, valued: []string{"--recursive"}})}, &rule{ro: true, anySub: mod("changes submodules")}),
		"bisect":    subsOf(map[string]*rule{"log": read, "view": read, "visualize": read, "terms": read}, &rule{ro: true, anySub: rewrite("bisect", "moves the working copy", nil)}),
		"reflog":    subsOf(map[string]*rule{"show": read, "exists": read, "list": read, "expire": writes("rewrites the reflog"), "delete": writes("rewrites the reflog"), "drop": writes("rewrites the reflog")}, &rule{ro: true, anySub: read}),
		"bundle":    subsOf(map[string]*rule{"verify": read, "list-heads": read}, &rule{ro: true, anySub: mod(whyWrites)}),
		"lfs": subsOf(map[string]*rule{"ls-files": read, "status": read, "env": read, "version": read, "logs": read,
			"track": {ro: true, posMod: 1, why: "changes .gitattributes"}}, &rule{ro: true, anySub: mod("changes LFS files")}),
		"sparse-checkout": subsOf(map[string]*rule{"list": read}, &rule{ro: true, anySub: rewrite("sparse-checkout", "changes the working tree", nil)}),
		"symbolic-ref": {ro: true, valued: []string{"-m"}, check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
			flags, pos, _ := scan(args, r, false)
			if len(pos) >= 2 || hasFlag(flags, "-d", "--delete") {
				return outcome{mod: true, reason: name + " changes a ref", git: &GitRewrite{Command: name, JJ: gitJJ["symbolic-ref"]}}
			}
			return outcome{}
		}},
		"apply": {why: "applies a patch to the working tree", valued: []string{"-p", "-C", "--exclude", "--include", "--directory", "--whitespace", "--build-fake-ancestor"},
			check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
				flags, _, _ := scan(args, r, false)
				if hasFlag(flags, "--index", "--cached", "--3way", "-3", "--intent-to-add", "-N") {
					return outcome{mod: true, reason: name + " changes git's index behind jj's back", git: &GitRewrite{Command: name, JJ: gitJJ["apply"]}}
				}
				if lastOf(flags, []string{"--check", "--stat", "--numstat", "--summary"}, []string{"--no-check", "--no-stat", "--no-numstat", "--no-summary"}) && !hasFlag(flags, "--apply") {
					return outcome{}
				}
				return outcome{mod: true, sure: c.inProject(), reason: name + " " + r.why}
			}},
		"format-patch": {why: "writes patch files", valued: []string{"-o", "--output-directory", "--subject-prefix", "--to", "--cc", "--from", "--in-reply-to", "-v", "--reroll-count", "--base", "--range-diff", "--interdiff", "--signature-file", "--suffix"},
			check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
				flags, _, _ := scan(args, r, false)
				if hasFlag(flags, "--stdout") {
					return outcome{}
				}
				for _, f := range flags {
					if (f.name == "-o" || f.name == "--output-directory") && f.val.static && c.a.outsideWrite(f.val) {
						return outcome{}
					}
				}
				return outcome{mod: true, reason: name + " " + r.why}
			}},
		"archive":        {ro: true, modFlags: []string{"-o", "--output", "--exec", "--remote"}, flagWhy: "writes an archive or runs a program remotely", valued: []string{"-o", "--output", "--format", "--prefix", "--remote", "--exec", "--add-file", "--add-virtual-file"}},
		"add":            {why: "stages files", roFlags: []string{"-n", "--dry-run"}, sure: true},
		"rm":             rewrite("rm", "deletes files and changes git's index", &rule{roFlags: []string{"-n", "--dry-run"}}),
		"mv":             rewrite("mv", "moves files and changes git's index", &rule{roFlags: []string{"-n", "--dry-run"}}),
		"clean":          rewrite("clean", "deletes untracked files", &rule{roFlags: []string{"-n", "--dry-run"}, valued: []string{"-e", "--exclude"}}),
		"push":           {why: "publishes commits to a remote", roFlags: []string{"-n", "--dry-run"}, valued: []string{"-o", "--push-option", "--repo", "--receive-pack", "--exec"}, sure: true},
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
		"am":             rewrite("am", "applies patches and commits them", nil),
		"read-tree":      rewrite("read-tree", "replaces git's index (and with -u the files)", nil),
		"checkout-index": rewrite("checkout-index", "writes files from git's index", nil),
		"update-index":   rewrite("update-index", "changes git's index", nil),
		"update-ref":     rewrite("update-ref", "changes a ref", nil),
		"replace":        rewrite("replace", "replaces objects in history", &rule{roFlags: []string{"-l", "--list"}}),
		"filter-branch":  rewrite("filter-branch", "rewrites history", nil),
		"filter-repo":    rewrite("filter-repo", "rewrites history", nil),
		"fast-import":    rewrite("fast-import", "writes history", nil),
		"init":           {why: "creates a repository", inPlace: true, valued: []string{"--template", "--separate-git-dir", "-b", "--initial-branch", "--object-format", "--ref-format", "--shared"}},
		"clone":          remote(mod("creates a repository and writes its files")),
		"mergetool":      mod("opens a merge tool on files"),
		"difftool":       mod("opens a diff tool"),
		"gc":             writes("rewrites the object store"),
		"prune":          writes("deletes objects"),
		"repack":         writes("rewrites the object store"),
		"maintenance":    writes("rewrites the object store"),
		"commit-tree":    writes("writes objects"),
		"merge-file":     mod("writes the merge into a file"),
		"rerere":         writes("changes recorded resolutions"),
		"bugreport":      mod("writes a report file"),
		"mailsplit":      mod(whyWrites),
		"send-email":     mod("sends mail"),
		"unpack-objects": writes("writes objects"),
		"pack-refs":      writes("rewrites refs"),
		"credential":     mod("stores credentials"),
		"daemon":         mod("serves the repository"),
		"instaweb":       mod("starts a web server and a browser"),
		"gui":            mod("opens a program"),
		"citool":         mod("opens a program"),
		"gitk":           mod("opens a program"),
	}
	alias := &rule{check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		o := unknownOutcome(c, name+" is not a git command planq knows (an alias, or a git-* program), so it may do anything")
		o.git = &GitRewrite{Command: name, JJ: gitJJ["alias"]}
		return o
	}}
	return &rule{ro: true, cfg: true, subs: subs, anySub: alias, check: gitCheck,
		valued:  []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds", "--attr-source"},
		roFlags: []string{"--version", "--help", "-h", "--html-path", "--man-path", "--info-path"}}
}

// gitCheck judges git's own options — -c settings (only harmless keys),
// -C / --git-dir / --work-tree (only inside the project: another
// repository's configuration can run programs), --exec-path=DIR and
// --config-env (not judged) — then the subcommand.
func gitCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, _, _ := scan(args, r, true)
	for _, f := range flags {
		switch f.name {
		case "-c":
			if !f.val.static {
				return outcome{mod: true, reason: name + " -c sets configuration computed at run time"}
			}
			if !gitConfigAllowed(f.val.val) {
				key, _, _ := strings.Cut(f.val.val, "=")
				o := outcome{mod: true, reason: name + " -c " + key + " can make git run a program (planq allows only harmless settings such as color.* or core.pager=cat)"}
				if strings.HasPrefix(strings.ToLower(key), "alias.") {
					o.git = &GitRewrite{Command: name + " -c " + key, JJ: gitJJ["alias"]}
				}
				return o
			}
		case "--config-env":
			return outcome{mod: true, reason: name + " --config-env sets configuration from the environment, which planq does not judge"}
		case "--exec-path":
			if f.hasVal {
				return outcome{mod: true, reason: name + " --exec-path runs git's programs from another directory"}
			}
		case "-C", "--git-dir", "--work-tree":
			if !f.val.static || !c.a.gitDirInside(f.val) {
				return unknownOutcome(c, name+" "+f.name+" "+f.val.raw+" works in another repository, whose configuration can make git run programs")
			}
		}
	}
	for _, a := range args {
		if a.static && (strings.Contains(a.val, "ext::") || strings.Contains(a.val, "fd::")) {
			return outcome{mod: true, reason: name + " " + a.val + " names a remote helper that runs a program"}
		}
	}
	return r.evalSub(c, name, args)
}

// gitDirInside reports whether a directory given to git -C (or --git-dir,
// --work-tree) is in the project.
func (a *analyzer) gitDirInside(d arg) bool {
	if a.where.Root == "" {
		return !isAbsPath(d.val) && !strings.Contains(d.val, "..") && !d.tilde
	}
	if !isAbsPath(d.val) && (a.facts.cdAny || a.where.Cwd == "") {
		return false
	}
	if d.glob || d.tilde {
		return false
	}
	rs, ok := a.readings(d.val, a.where.Cwd)
	if !ok {
		return false
	}
	// In the project under both readings: a repository elsewhere has a
	// configuration that can make git run programs.
	return !slices.ContainsFunc(rs, func(r string) bool { return !within(a.where.Root, r) })
}

// gitRemoteArgs refuses the options of fetch, clone, pull, ls-remote and
// remote that name a program to run on the other side.
func gitRemoteArgs(name string, args []arg) outcome {
	for _, a := range args {
		if o := gitServerURL(name, a); o.mod {
			return o
		}
		if !a.static {
			continue
		}
		v, _, _ := strings.Cut(a.val, "=")
		for _, o := range []string{"--upload-pack", "--receive-pack", "--exec", "--config", "--template", "--separate-git-dir", "--server-option"} {
			if len(v) >= 4 && strings.HasPrefix(o, v) && strings.HasPrefix(v, "--") {
				return outcome{mod: true, reason: name + " " + a.val + " makes git run a program or read settings planq does not judge"}
			}
		}
		if strings.HasSuffix(name, " clone") && (v == "-u" || v == "-c" || strings.HasPrefix(v, "-u") && !strings.HasPrefix(v, "--")) {
			return outcome{mod: true, reason: name + " " + a.val + " makes git run a program"}
		}
	}
	return outcome{}
}

// gitFetchCheck: git fetch updates remote-tracking refs (what the gate
// allows by design); a refspec whose destination is another ref (fetch .
// HEAD:refs/heads/x) writes that ref.
func gitFetchCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	_, pos, _ := scan(args, &rule{valued: []string{"--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j", "--jobs", "--negotiation-tip",
		"--refmap", "-o", "--server-option", "--filter", "--recurse-submodules-default", "--upload-pack", "--refetch"}}, false)
	for i, p := range pos {
		if i == 0 {
			continue // the repository
		}
		if !p.static {
			return outcome{mod: true, reason: name + " " + p.raw + " is a refspec known only at run time, which may write any ref"}
		}
		_, dst, ok := strings.Cut(strings.TrimPrefix(p.val, "+"), ":")
		if ok && dst != "" && !strings.HasPrefix(dst, "refs/remotes/") {
			return outcome{mod: true, sure: true, reason: name + " " + p.val + " writes the ref " + dst}
		}
	}
	return outcome{}
}

// gitServerURL: a repository URL served over HTTP, git:// or FTP on this
// machine (or one planq cannot read to the end of its host) has that
// server act for git, outside any sandbox (servers.go).
func gitServerURL(name string, a arg) outcome {
	v := a.val
	if !a.static {
		v = a.prefix
	}
	scheme, _, ok := strings.Cut(v, "://")
	switch strings.ToLower(scheme) {
	case "http", "https", "git", "ftp", "ftps":
	default:
		return outcome{}
	}
	if h, known := argHost(a, true); !ok || !known || localHost(h) {
		return asks(name+" "+a.raw, "the git server on this machine")
	}
	return outcome{}
}

func gitConfigCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	o := gitConfig(c, name, args, r)
	if o.mod {
		// The repository's own configuration, unless another file is named.
		flags, _, _ := scan(args, r, false)
		o.sure = !hasFlag(flags, "--global", "--system", "-f", "--file", "--worktree")
	}
	return o
}

func gitConfig(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	writes := []string{"--edit", "--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section"}
	for _, f := range flags {
		// git takes any unambiguous prefix of a long option (--remove-s).
		if f.name == "-e" || strings.HasPrefix(f.name, "--") && len(f.name) > 3 && slices.ContainsFunc(writes, func(w string) bool { return strings.HasPrefix(w, f.name) }) {
			return outcome{mod: true, reason: name + " " + f.name + " changes git configuration"}
		}
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

// jjConfigAllowed reports whether jj --config KEY=VALUE only changes how
// jj shows things. Editors, pagers other than cat and less, diff and merge
// tools, aliases, the default command, fix tools, signing, fsmonitor and
// git's executable can all run programs.
func jjConfigAllowed(kv string) bool {
	key, val, ok := strings.Cut(kv, "=")
	if !ok {
		return false
	}
	key = strings.TrimSpace(key)
	val = strings.Trim(strings.TrimSpace(val), `"'`)
	section, _, _ := strings.Cut(key, ".")
	switch section {
	case "revset-aliases", "template-aliases", "templates", "colors", "revsets", "hints", "debug":
		return true
	case "user":
		return key == "user.name" || key == "user.email"
	}
	switch key {
	case "ui.color", "ui.paginate", "ui.graph.style", "ui.log-word-wrap", "ui.conflict-marker-style", "ui.relative-timestamps",
		"ui.bookmark-list-sort-keys", "ui.movement.edit", "ui.always-allow-large-revsets", "ui.log-synthetic-elided-nodes",
		"snapshot.max-new-file-size", "snapshot.auto-track", "git.private-commits", "git.push-bookmark-prefix", "ui.quiet":
		return true
	case "ui.pager":
		return slices.Contains(pagerValues, val)
	case "ui.diff-formatter", "ui.diff.format":
		return strings.HasPrefix(val, ":") || slices.Contains([]string{"git", "color-words", "summary", "stat", "types", "name-only"}, val)
	}
	return false
}

func jjRule() *rule {
	read := ro()
	// jj records every change in .jj (and a colocated repository's .git):
	// what changes the repository is a write into the project (jjCheck
	// leaves another repository, -R, unknown).
	rewrites := &rule{why: "rewrites changes or the working copy", sure: true}
	listOnly := func(extra ...string) *rule {
		m := map[string]*rule{"list": read, "l": read}
		for _, e := range extra {
			m[e] = read
		}
		return subsOf(m, &rule{ro: true, anySub: rewrites})
	}
	op := listOnly("log", "show", "diff")
	gitInit := &rule{ro: true, check: jjInitCheck}
	git := subsOf(map[string]*rule{
		"fetch":      read,
		"remote":     listOnly(),
		"init":       gitInit, // what mcp__planq__jj_git_init does
		"root":       read,
		"push":       {why: "pushes to a remote", roFlags: []string{"--dry-run"}, sure: true},
		"colocation": subsOf(map[string]*rule{"status": read}, &rule{ro: true, anySub: mod("changes how the repository is colocated with git")}),
		"export":     rewrites, "import": rewrites,
	}, &rule{ro: true, anySub: rewrites})
	declare := &rule{ro: true, check: jjDeclareCheck}
	jjNew := &rule{ro: true, check: jjNewCheck}
	subs := map[string]*rule{
		"log": read, "st": read, "status": read, "diff": read, "show": read, "evolog": read, "obslog": read,
		"interdiff": read, "root": read, "version": read, "help": read, "cat": read, "files": read,
		"op": op, "operation": op,
		"file":      listOnly("show", "annotate", "search"),
		"bookmark":  listOnly(),
		"b":         listOnly(),
		"branch":    listOnly(),
		"tag":       listOnly(),
		"config":    subsOf(map[string]*rule{"list": read, "l": read, "get": read, "path": read}, &rule{ro: true, anySub: &rule{check: jjConfigSet}}),
		"workspace": listOnly("root"),
		"sparse":    listOnly(),
		"util": subsOf(map[string]*rule{"completion": read, "config-schema": read, "markdown-help": read, "mangen": read,
			"exec": wrapper(wrap{})}, &rule{ro: true, anySub: rewrites}),
		"git":     git,
		"resolve": {why: "resolves conflicts in files", roFlags: []string{"-l", "--list"}, sure: true},
		// Declaring the change is what the gate asks for; it touches no file.
		"new": jjNew, "describe": declare, "desc": declare, "commit": declare, "ci": declare, "init": gitInit,
	}
	for _, s := range []string{"abandon", "absorb", "backout", "bisect", "diffedit", "duplicate", "edit", "fix", "gerrit", "metaedit",
		"next", "parallelize", "prev", "rebase", "redo", "restore", "revert", "sign", "simplify-parents", "split", "squash", "undo",
		"unsign", "unsquash", "arrange", "run"} {
		subs[s] = rewrites
	}
	return &rule{ro: true, cfg: true, subs: subs, check: jjCheck, anySub: &rule{check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		return unknownOutcome(c, name+" is not a jj command planq knows (an alias may run anything)")
	}},
		valued:  []string{"-R", "--repository", "--at-operation", "--at-op", "--color", "--config", "--config-toml", "--config-file", "-T", "--template", "-r", "--revision", "--revisions"},
		roFlags: []string{"--version", "-V", "--help", "-h"}}
}

// jjCheck: --help anywhere only prints; then it judges jj's global options — --config (only display settings),
// --config-toml and --config-file (not judged), -R (only the project) — and
// --tool, which runs an external diff program, wherever it appears.
func jjCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	for _, a := range args {
		// jj's option parser (clap) prints the help of the subcommand for
		// -h or --help wherever it stands, and runs nothing.
		if a.static && a.val == "--" {
			break
		}
		if a.static && (a.val == "--help" || a.val == "-h") {
			return outcome{}
		}
	}
	for _, a := range args {
		if a.static && (a.val == "--tool" || strings.HasPrefix(a.val, "--tool=")) {
			return outcome{mod: true, reason: name + " --tool runs an external diff or merge program"}
		}
	}
	flags, _, _ := scan(args, r, false)
	for _, f := range flags {
		switch f.name {
		case "--config":
			if !f.val.static || !jjConfigAllowed(f.val.val) {
				key, _, _ := strings.Cut(f.val.val, "=")
				return outcome{mod: true, reason: name + " --config " + key + " can make jj run a program (planq allows only display settings such as ui.color or ui.pager=cat)"}
			}
		case "--config-toml", "--config-file":
			return outcome{mod: true, reason: name + " " + f.name + " loads settings planq does not judge, which can make jj run programs"}
		case "-R", "--repository":
			if !f.val.static || !c.a.gitDirInside(f.val) {
				return unknownOutcome(c, name+" "+f.name+" "+f.val.raw+" works in another repository, whose configuration can make jj run programs")
			}
		}
	}
	return r.evalSub(c, name, args)
}

// jjConfigSet: jj config set, unset and edit change the user's
// configuration, or with --repo the repository's, in .jj.
func jjConfigSet(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	repo := false
	for _, a := range args {
		repo = repo || a.static && a.val == "--repo"
	}
	return outcome{mod: true, sure: repo, reason: name + " changes jj's configuration"}
}

// jjDeclareCheck: jj new, describe and commit declare the change; with -R
// naming another repository they change that one instead.
func jjDeclareCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for _, a := range args {
		if a.static && (a.val == "--tool" || strings.HasPrefix(a.val, "--tool=")) {
			return outcome{mod: true, reason: name + " --tool runs an external program"}
		}
	}
	if strings.HasSuffix(name, " describe") || strings.HasSuffix(name, " desc") {
		// jj describe -m on @ (no other revision) describes the working-copy change.
		flags, pos, _ := scan(args, jjDeclareFlags, false)
		revs := pos
		for _, f := range flags {
			if f.name == "-r" || f.name == "--revision" || f.name == "--revisions" {
				revs = append(revs, f.val)
			}
		}
		for _, rev := range revs {
			if !rev.static || rev.val != "@" {
				// Describing another change rewrites it (and every change
				// after it): it is not the declaration.
				return outcome{mod: true, sure: rev.static, reason: name + " " + rev.raw + " rewrites the description of a change other than the working-copy change @ (jj describe -m \"…\" on @ declares)"}
			}
		}
		if hasFlag(flags, "-m", "--message") {
			c.a.declares = true
		}
		return outcome{}
	}
	if strings.HasSuffix(name, " commit") || strings.HasSuffix(name, " ci") {
		if flags, _, _ := scan(args, jjDeclareFlags, false); hasFlag(flags, "-m", "--message") {
			c.a.declares = true // jj commit -m describes @ and starts a new change
		}
	}
	return outcome{}
}

// jjDeclareFlags are the valued options of jj new, describe and commit.
var jjDeclareFlags = &rule{valued: []string{"-m", "--message", "-r", "--revision", "--revisions", "-A", "--insert-after", "--after", "-B", "--insert-before", "--before", "-o", "--onto", "-d", "--destination", "-R", "--repository", "--config", "--config-file", "--config-toml", "--at-op", "--at-operation", "--color", "--author"}}

// jjNewCheck: jj new declares a change on top of @; on top of another
// revision, or inserted before one (-B @ too), it checks out a change
// without the working copy's files, which rewrites them (jj new 'root()'
// empties it), unless --no-edit.
func jjNewCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	if o := jjDeclareCheck(c, name, args, nil); o.mod {
		return o
	}
	flags, pos, _ := scan(args, jjDeclareFlags, false)
	if hasFlag(flags, "--no-edit") {
		return outcome{}
	}
	for _, f := range flags {
		if f.name == "-B" || f.name == "--insert-before" || f.name == "--before" {
			// Inserted before a change (@ too), the new change lacks its
			// files, and it is checked out: they leave the working copy.
			return outcome{mod: true, sure: f.val.static, reason: name + " " + f.name + " " + f.val.raw + " inserts the change before another and checks it out without that change's files (jj new -m \"…\" on top of @ declares without that)"}
		}
	}
	revs := pos
	for _, f := range flags {
		switch f.name {
		case "-r", "--revision", "--revisions", "-A", "--insert-after", "--after", "-B", "--insert-before", "--before", "-o", "--onto", "-d", "--destination":
			revs = append(revs, f.val)
		}
	}
	for _, rev := range revs {
		if !rev.static || rev.val != "@" {
			return outcome{mod: true, sure: rev.static, reason: name + " " + rev.raw + " checks out another revision, which rewrites the files of the working copy (jj new -m \"…\" on top of @ declares without that)"}
		}
	}
	if hasFlag(flags, "-m", "--message") {
		c.a.declares = true // a new described change on top of @
	}
	return outcome{}
}

// jjInitCheck: jj git init declares the repository (what jj_git_init
// does) in the project itself; given another directory it creates a
// repository there.
func jjInitCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	r := &rule{valued: []string{"--git-repo"}}
	flags, pos, _ := scan(args, r, false)
	for _, f := range flags {
		if f.name == "--git-repo" && (!f.val.static || !c.a.gitDirInside(f.val)) {
			return outcome{mod: true, reason: name + " --git-repo names a repository outside the project"}
		}
	}
	if len(pos) == 0 {
		c.a.declares = true
		return outcome{}
	}
	d := pos[0]
	if d.static && (d.val == "." || d.val == "./") {
		c.a.declares = true
		return outcome{}
	}
	if d.static && c.a.where.Root != "" {
		if rs, ok := c.a.readings(d.val, c.a.where.Cwd); ok && !c.a.facts.cdAny &&
			!slices.ContainsFunc(rs, func(r string) bool { return foldPath(r) != foldPath(c.a.where.Root) }) {
			c.a.declares = true
			return outcome{}
		}
	}
	return outcome{mod: true, reason: name + " " + d.raw + " creates a repository in another directory"}
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
