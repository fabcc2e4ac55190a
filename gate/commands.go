package gate

import (
	"slices"
	"strings"
	"sync"
)

//go:generate go test -run ^TestCommandIndex$ -update-index .

// The command table maps a command's name to its rule. It is built in
// shards, each on first use: a hook process judges one command line, which
// names a few commands, and building the whole table (about 800 names, 200
// KB of rules) was a tenth of a locked pre-tool-use call's time (make
// bench). commandIndex (commands_index.go, generated from the shards by
// TestCommandIndex) says which shard defines a name, so that a lookup
// builds only that shard, and a name no shard defines builds none.
type table map[string]*rule

// set gives each of names the rule r.
func (t table) set(r *rule, names ...string) {
	for _, n := range names {
		t[n] = r
	}
}

// shard is one part of the command table; each name is defined in one
// shard only (TestCommandIndex).
type shard uint8

const (
	shardReaders shard = iota
	shardBuiltins
	shardFileOps
	shardPatch
	shardModifiers
	shardFormatters
	shardCheckers
	shardInterpreters
	shardWrappers
	shardToolchains
	shardSystem
	shardServers
	numShards
)

// buildShard defines shard s's names in t. (A switch, not a table of
// functions: the builders' checks call lookup, and a package-level table
// of them would be an initialization cycle.)
func buildShard(s shard, t table) {
	switch s {
	case shardReaders:
		readerRules(t)
	case shardBuiltins:
		builtinRules(t)
	case shardFileOps:
		fileOpRules(t)
	case shardPatch:
		patchRules(t)
	case shardModifiers:
		modifierRules(t)
	case shardFormatters:
		formatterRules(t)
	case shardCheckers:
		checkerRules(t)
	case shardInterpreters:
		interpreterRules(t)
	case shardWrappers:
		wrapperRules(t)
	case shardToolchains:
		toolchainRules(t)
	case shardSystem:
		systemRules(t)
	case shardServers:
		serverRules(t)
	}
}

// shards holds each shard's table once built; a built table is not changed.
var shards [numShards]struct {
	once sync.Once
	t    table
}

// shardTable returns shard s's table, building it on first use.
func shardTable(s shard) table {
	sh := &shards[s]
	sh.once.Do(func() {
		sh.t = table{}
		buildShard(s, sh.t)
	})
	return sh.t
}

// indexEntry says which shard defines a command name.
type indexEntry struct {
	name  string
	shard shard
}

// shardOf returns the shard that defines name, from commandIndex.
func shardOf(name string) (shard, bool) {
	i, ok := slices.BinarySearchFunc(commandIndex[:], name, func(e indexEntry, n string) int { return strings.Compare(e.name, n) })
	if !ok {
		return 0, false
	}
	return commandIndex[i].shard, true
}

// lookup returns the rule for a command name, building its shard, and a
// lazily built rule (the large tables of git, jj, the package managers…),
// on first use.
func lookup(name string) (*rule, bool) {
	s, ok := shardOf(name)
	if !ok {
		return nil, false
	}
	r, ok := shardTable(s)[name]
	if !ok {
		return nil, false
	}
	if r.lazy != nil {
		r.lazy.once.Do(func() { r.lazy.rule = r.lazy.build() })
		return r.lazy.rule, true
	}
	return r, true
}

// lazyRule is a table entry built on first use.
type lazyRule struct {
	once  sync.Once
	build func() *rule
	rule  *rule
}

func lazily(build func() *rule) *rule { return &rule{lazy: &lazyRule{build: build}} }

// Small constructors keep the tables readable.
func ro() *rule            { return &rule{ro: true} }
func mod(why string) *rule { return &rule{why: why} }

// subsOf gives base the subcommand table m.
func subsOf(m map[string]*rule, base *rule) *rule {
	base.subs = m
	return base
}

// Phrases used by many rules.
const (
	whyWrites   = "writes files"
	whyDeletes  = "deletes files"
	whyInstalls = "installs or removes packages"
	whyBuilds   = "builds and writes output files"
	whyEditor   = "opens an editor on files"
	whyScript   = "runs a program planq cannot see into"
)

// readerRules defines commands that only read or print, linters that load
// the project's plugins, and readers with options that write.
func readerRules(t table) {
	// Commands that only read files or print, and shell built-ins that change
	// nothing but the shell's own state.
	t.set(ro(),
		"ls", "dir", "vdir", "cat", "head", "tail", "most",
		"grep", "egrep", "fgrep", "locate", "which", "whereis",
		"type", "pwd", "wc", "du", "df", "stat", "printenv", "uname", "whoami", "id", "groups",
		"echo", "true", "false", ":", "uptime", "who", "w", "ps", "pgrep", "top", "htop",
		"free", "vmstat", "iostat", "lsof", "netstat", "ss", "nproc", "lscpu", "arch", "locale", "tty",
		"logname", "users", "last", "cut", "tr", "paste", "join", "comm", "diff", "cmp", "colordiff",
		"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "shasum", "cksum", "sum", "b2sum",
		"base32", "od", "hexdump", "strings", "nl", "fold", "fmt", "column", "expand", "unexpand",
		"rev", "tac", "seq", "yes", "basename", "dirname", "realpath", "readlink", "pathchk",
		"jq", "gojq", "jless", "exa", "eza", "lsd", "help", "whatis", "apropos",
		"jobs", "sleep", "wait", "dirs", "unalias", "shift", "return", "exit", "break", "continue",
		"umask", "ulimit", "times", "caller", "bg", "fg", "disown", "logout",
		"zcat", "bzcat", "xzcat", "zstdcat", "lz4cat", "zless", "zmore", "zgrep", "zegrep", "zfgrep", "zdiff",
		"nm", "objdump", "readelf", "size", "otool", "getconf", "lsblk", "blkid", "findmnt", "mountpoint",
		"lsmod", "lspci", "lsusb", "cal", "ncal", "factor", "expr", "bc", "numfmt",
		"look", "tsort", "fc-list", "tput", "clear", "ping", "traceroute", "dig", "nslookup",
		"host", "whois", "delta", "difft", "tig", "tokei",
	)
	// Linters that load plugins named in the project's configuration: the
	// project's own code, trusted like its tests, but only in the project.
	t.set(&rule{ro: true, cfg: true},
		"mypy", "pyright", "pyre", "flake8", "pylint", "pycodestyle", "pydocstyle", "bandit", "vulture",
		"shellcheck", "hadolint", "yamllint", "actionlint", "staticcheck", "errcheck", "revive", "govulncheck",
		"gocyclo", "ineffassign", "tflint", "checkov", "gitleaks")

	// Readers with options that write files or run programs.
	t["less"] = &rule{ro: true, check: lessCheck, modFlags: []string{"-o", "-O", "--log-file", "--LOG-FILE"}, valued: []string{"-o", "-O", "--log-file", "--LOG-FILE", "-k", "--lesskey-file", "-p", "--pattern", "-t", "--tag", "-T", "--tag-file", "-x", "--tabs", "-y", "-z", "-b", "-h", "-j", "-P"}}
	t["more"] = ro()
	t["bat"] = &rule{ro: true, modFlags: []string{"--pager"}, flagWhy: "runs a pager program", valued: []string{"--pager", "-l", "--language", "-H", "--highlight-line", "--file-name", "--diff-context", "--tabs", "--wrap", "--terminal-width", "--color", "--italic-text", "--decorations", "--paging", "-m", "--map-syntax", "--theme", "--style", "-r", "--line-range"}}
	t["batcat"] = t["bat"]
	t["man"] = &rule{ro: true, modFlags: []string{"-P", "--pager", "-H", "--html", "-X", "--gxditview", "-T", "--troff-device", "-t", "--troff"}, flagWhy: "runs another program",
		valued: []string{"-P", "--pager", "-C", "--config-file", "-M", "--manpath", "-S", "-s", "--sections", "-m", "--systems", "-L", "--locale", "-E", "--encoding", "-R", "--recode", "-p", "--preprocessor", "-e", "--extension"}}
	t["info"] = &rule{ro: true, modFlags: []string{"-o", "--output", "--dribble"}, valued: []string{"-o", "--output", "--dribble", "--restore", "-d", "--directory", "-f", "--file", "-n", "--node"}}
	t["tree"] = &rule{ro: true, modFlags: []string{"-o", "-R"}, valued: []string{"-o", "-L", "-P", "-I", "-H", "-T", "--charset", "--filelimit", "--timefmt", "--sort", "--fromfile"}}
	t["file"] = &rule{ro: true, modFlags: []string{"-C", "--compile"}, flagWhy: "compiles a magic file", valued: []string{"-m", "--magic-file", "-f", "--files-from", "-F", "--separator", "-P", "--parameter", "-e", "--exclude"}}
	t["dmesg"] = &rule{ro: true, modFlags: []string{"-c", "--read-clear", "-C", "--clear", "-D", "--console-off", "-E", "--console-on", "-n", "--console-level"}, flagWhy: "changes the kernel log"}
	t["journalctl"] = &rule{ro: true, modFlags: []string{"--vacuum-size", "--vacuum-time", "--vacuum-files", "--rotate", "--flush", "--sync", "--relinquish-var", "--smart-relinquish-var", "--setup-keys", "--update-catalog"}, flagWhy: "changes the journal",
		valued: []string{"-u", "--unit", "-n", "--lines", "-p", "--priority", "-o", "--output", "-S", "--since", "-U", "--until", "-b", "--boot", "-t", "--identifier", "-g", "--grep", "-D", "--directory", "--file", "-M", "--machine", "--vacuum-size", "--vacuum-time", "--vacuum-files"}}
	t["ldd"] = &rule{ro: true, check: lddCheck}
	t["base64"] = &rule{ro: true, modFlags: []string{"-o", "--output"}, valued: []string{"-o", "--output", "-i", "--input", "-w", "--wrap", "-b", "--break"}}
	t["iconv"] = &rule{ro: true, modFlags: []string{"-o", "--output"}, valued: []string{"-o", "--output", "-f", "--from-code", "-t", "--to-code"}}
	t["sdiff"] = &rule{ro: true, modFlags: []string{"-o", "--output"}, valued: []string{"-o", "--output", "-w", "--width", "--diff-program", "-I", "--ignore-matching-lines"}}
	t["shuf"] = &rule{ro: true, modFlags: []string{"-o", "--output"}, valued: []string{"-o", "--output", "-n", "--head-count", "-i", "--input-range", "--random-source"}}
	t["cloc"] = &rule{ro: true, modFlags: []string{"--out", "--report-file", "--sql", "--write-lang-def", "--write-lang-def-incl-dup"}, valued: []string{"--out", "--report-file", "--sql", "--exclude-dir", "--exclude-ext", "--include-ext", "--include-lang", "--exclude-lang", "--force-lang", "--read-lang-def", "--list-file"}}
	t["scc"] = &rule{ro: true, modFlags: []string{"-o", "--output"}, valued: []string{"-o", "--output", "-f", "--format", "-s", "--sort", "-i", "--include-ext", "-x", "--exclude-ext", "--exclude-dir", "-w", "--width"}}
	fd := &rule{ro: true, check: fdCheck, valued: []string{"-e", "--extension", "-E", "--exclude", "-t", "--type", "-d", "--max-depth", "--min-depth", "--exact-depth", "-S", "--size", "--changed-within", "--changed-before", "-o", "--owner", "--search-path", "--base-directory", "-j", "--threads", "-c", "--color", "--max-results", "--path-separator", "--ignore-file", "--format"}}
	t["fd"], t["fdfind"] = fd, fd
	t["rg"] = &rule{ro: true, modFlags: []string{"--pre", "--hostname-bin"}, flagWhy: "runs a program on every file",
		valued: []string{"-e", "--regexp", "-f", "--file", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "--type-add", "--type-clear", "-m", "--max-count",
			"-A", "--after-context", "-B", "--before-context", "-C", "--context", "-M", "--max-columns", "-r", "--replace", "-j", "--threads", "--pre", "--pre-glob",
			"--hostname-bin", "--color", "--colors", "--sort", "--sortr", "--max-depth", "--max-filesize", "--encoding", "-E", "--ignore-file", "--path-separator",
			"--context-separator", "--field-context-separator", "--field-match-separator", "--dfa-size-limit", "--regex-size-limit", "--engine", "--hyperlink-format", "-d"}}
	t["ag"] = &rule{ro: true, modFlags: []string{"--pager"}, flagWhy: "runs a pager program", valued: []string{"--pager", "-G", "--file-search-regex", "--ignore", "--ignore-dir", "-A", "-B", "-C", "-m", "--depth", "-p", "--path-to-ignore"}}
	t["ack"] = &rule{ro: true, cfg: true, modFlags: []string{"--pager"}, flagWhy: "runs a pager program", valued: []string{"--pager", "--type-set", "--type-add", "--ignore-dir", "--ignore-file", "-A", "-B", "-C", "-m", "--output", "--ackrc"}}
}

// modifierRules defines commands that always modify, and those that read
// unless a flag or an argument says they write.
func modifierRules(t table) {
	// Commands that always modify.
	t.set(mod("moves or renames files"), "rename", "prename", "mmv")
	t.set(mod("copies files"), "ditto")
	t.set(mod("creates files"), "mknod")
	t.set(mod("changes file attributes"), "chattr", "setfacl", "chcon")
	t.set(writesHere("writes the pieces into files"), "split", "csplit")
	t["fallocate"] = &rule{why: "allocates space in files", inPlace: true, valued: []string{"-l", "--length", "-o", "--offset"}}
	t.set(&rule{why: "converts files in place", inPlace: true}, "dos2unix", "unix2dos", "mac2unix")
	t.set(mod("creates an archive"), "zip", "rar", "jar", "ar", "cpio")
	t.set(mod("changes the system"), "mount", "umount", "swapon", "swapoff", "sysctl", "modprobe",
		"insmod", "rmmod", "useradd", "userdel", "usermod", "groupadd", "groupdel", "passwd", "chpasswd",
		"chsh", "reboot", "shutdown", "halt", "poweroff", "update-alternatives", "ldconfig", "mkfs", "mkswap",
		"fdisk", "parted", "losetup", "iptables", "ufw")
	t.set(mod("signals processes"), "pkill", "killall")
	t.set(mod(whyBuilds), "ninja", "cmake", "meson", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc",
		"javac", "kotlinc", "scalac", "ghc", "swiftc", "zig", "nasm", "as", "ld", "webpack", "rollup",
		"esbuild", "parcel", "vite", "next", "nuxt", "gradle", "gradlew", "mvn", "ant", "sbt", "bazel",
		"buck", "pants", "protoc", "sqlc", "wire", "stringer", "mockgen", "autoreconf",
		"autoconf", "automake", "configure", "bison", "flex", "yacc", "lex", "swig", "doxygen", "sphinx-build",
		"mkdocs", "hugo", "jekyll")
	t.set(mod(whyInstalls), "snap", "flatpak", "gem", "composer", "nvm", "rustup", "asdf", "mise", "sdk", "easy_install")
	t["dc"] = interpreter([]string{"-e", "--expression"}, "", []string{"-V", "--version", "-h", "--help"}, []string{"-f", "--file"})

	// Commands that read unless a flag or an argument says they write.
	t["sed"] = &rule{ro: true, valued: []string{"-e", "-f", "-l", "--expression", "--file", "--line-length"},
		modFlags: []string{"-i", "--in-place"}, flagWhy: "edits files in place", check: sedCheck,
		long: []string{"--expression", "--file", "--in-place", "--line-length", "--null-data", "--zero-terminated", "--quiet", "--silent",
			"--regexp-extended", "--separate", "--sandbox", "--unbuffered", "--posix", "--debug", "--follow-symlinks", "--binary", "--help", "--version"}}
	t["perl"] = interpreter([]string{"-e", "-E"}, "", []string{"-v", "--version", "-h"}, []string{"-I", "-M", "-m", "-x", "-0", "-l"})
	awk := &rule{ro: true, check: awkCheck, valued: []string{"-f", "-v", "-F", "-i", "-e", "-W", "--file", "--assign", "--field-separator", "--include", "-l", "--load", "-E", "--exec", "--source"},
		long: []string{"--assign", "--field-separator", "--file", "--include", "--load", "--exec", "--source", "--sandbox", "--pretty-print", "--profile",
			"--dump-variables", "--debug", "--characters-as-bytes", "--traditional", "--copyright", "--gen-pot", "--help", "--lint", "--bignum",
			"--use-lc-numeric", "--non-decimal-data", "--optimize", "--no-optimize", "--posix", "--re-interval", "--version", "--csv", "--persist"}}
	t.set(awk, "awk", "gawk", "mawk", "nawk")
	t["find"] = &rule{ro: true, check: findCheck}
	t["sort"] = &rule{ro: true, valued: []string{"-o", "--output", "-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "-T", "--temporary-directory", "--parallel", "--batch-size", "--files0-from", "--compress-program", "--random-source"},
		modFlags: []string{"-o", "--output", "--compress-program"}, flagWhy: "writes a file or runs a program"}
	t["uniq"] = &rule{ro: true, valued: []string{"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars", "--group", "--all-repeated"},
		posMod: 2, why: "writes its second file argument"}
	t["xxd"] = &rule{ro: true, valued: []string{"-c", "-g", "-l", "-o", "-s", "-n", "-C", "-cols", "-len", "-seek", "-name"},
		posMod: 2, why: "writes its second file argument"}
	t["date"] = &rule{ro: true, valued: []string{"-d", "--date", "-f", "--file", "-r", "--reference", "--rfc-3339", "-s", "--set"},
		modFlags: []string{"-s", "--set"}, flagWhy: "sets the system clock",
		long: []string{"--date", "--debug", "--file", "--iso-8601", "--resolution", "--rfc-email", "--rfc-3339", "--reference", "--set", "--universal", "--utc", "--help", "--version"}}
	t["hostname"] = &rule{ro: true, posMod: 1, why: "sets the host name", valued: []string{"-F", "--file"}, modFlags: []string{"-F", "--file"}, flagWhy: "sets the host name"}
	t["curl"] = &rule{ro: true, exact: true, dashStdout: true,
		valued: []string{"-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode",
			"-H", "--header", "-X", "--request", "-u", "--user", "-A", "--user-agent", "-e", "--referer", "-b", "--cookie", "-T", "--upload-file",
			"-F", "--form", "-m", "--max-time", "-w", "--write-out", "-x", "--proxy", "-r", "--range", "-K", "--config", "-E", "--cert",
			"--output-dir", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc", "-Y", "-y", "-z", "-C",
			"--connect-timeout", "--retry", "--resolve", "--cacert", "--key", "--url", "-U", "--proxy-user", "--json",
			"--connect-to", "--unix-socket", "--abstract-unix-socket", "--preproxy", "--socks4", "--socks4a", "--socks5", "--socks5-hostname",
			"--dns-servers", "--interface", "--local-port", "--proxy-header", "--variable", "--expand-url", "--max-redirs", "--limit-rate",
			"--max-filesize", "--retry-delay", "--retry-max-time", "--keepalive-time", "--speed-limit", "--speed-time", "--expect100-timeout",
			"--happy-eyeballs-timeout-ms", "--tls-max", "--ciphers", "--cert-type", "--key-type", "--pass", "--noproxy", "--oauth2-bearer",
			"--aws-sigv4", "--parallel-max", "--mail-from", "--mail-rcpt", "--netrc-file", "--capath", "--crlfile", "--pinnedpubkey",
			"--request-target", "--url-query", "--form-string", "-Q", "--quote", "--proxy-cacert", "--proxy-cert", "--proxy-key",
			"--data-ascii", "--continue-at", "--time-cond", "--connect-timeout", "--ip-tos", "--vlan-priority", "--sasl-authzid", "--service-name"},
		modFlags: []string{"-o", "--output", "-O", "--remote-name", "--remote-name-all", "-D", "--dump-header", "-c", "--cookie-jar",
			"--output-dir", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc", "-J", "--remote-header-name",
			"-K", "--config"},
		flagWhy: "saves to a file (or reads options from a file that may)", check: curlCheck}
	t["wget"] = &rule{why: "downloads files", valued: []string{"-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P", "--directory-prefix", "-U", "--user-agent", "--header", "-e", "--execute", "-t", "--tries", "-T", "--timeout", "-i", "--input-file"},
		roFlags: []string{"--spider", "--version", "-V", "--help", "-h"}, check: wgetCheck}
	t["tar"] = &rule{check: tarCheck}
	t["bsdtar"] = t["tar"]
	t["unzip"] = &rule{why: "extracts files", check: unzipCheck, roFlags: []string{"-l", "-t", "-v", "-Z", "-p", "-z", "-c", "-h", "-hh", "--help"}, valued: []string{"-d", "-x", "-P", "-I", "-O"}}
	gz := &rule{why: "compresses or decompresses files in place", inPlace: true, roFlags: []string{"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test", "-h", "--help", "-V", "--version"},
		valued: []string{"-S", "--suffix", "-T", "--threads", "-b", "-C", "--memlimit", "-M", "-F", "--format", "-o"}, modFlags: []string{"-o"}}
	t.set(gz, "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "unlz4", "brotli", "pigz", "pbzip2", "compress", "uncompress")
	t["7z"] = subsOf(map[string]*rule{"l": ro(), "t": ro(), "i": ro(), "h": ro()}, &rule{ro: true, anySub: mod("writes or extracts an archive")})
	t["7za"], t["7zz"] = t["7z"], t["7z"]
	t["patch"] = &rule{why: "applies a patch to files", check: patchCheck, valued: []string{"-p", "-i", "--input", "-o", "--output", "-d", "--directory", "-F", "--fuzz", "-B", "-r", "--reject-file", "-D", "-V", "-z", "--suffix"},
		long: []string{"--dry-run", "--check", "--input", "--output", "--directory", "--fuzz", "--reject-file", "--suffix", "--strip", "--forward", "--reverse",
			"--batch", "--force", "--silent", "--quiet", "--verbose", "--backup", "--no-backup-if-mismatch", "--backup-if-mismatch", "--merge", "--posix",
			"--unified", "--context", "--normal", "--ed", "--binary", "--ifdef", "--basename-prefix", "--prefix", "--version-control", "--set-time",
			"--set-utc", "--remove-empty-files", "--follow-symlinks", "--read-only", "--reject-format", "--quoting-style", "--help", "--version"}}
	t["yq"] = &rule{ro: true, inPlace: true, modFlags: []string{"-i", "--inplace"}, flagWhy: "edits files in place", valued: []string{"-o", "--output-format", "-p", "--input-format", "--expression", "--indent", "-I"}}
	t["make"] = makeRule()
	t["gmake"], t["bmake"] = t["make"], t["make"]
	t["just"] = &rule{cfg: true, why: "runs recipes planq cannot see into", roFlags: []string{"-n", "--dry-run", "-l", "--list", "--summary", "--show", "-s", "--version", "--help", "--evaluate", "--variables", "--dump"},
		valued: []string{"-f", "--justfile", "-d", "--working-directory", "--set", "--shell", "--shell-arg", "--dotenv-filename", "--dotenv-path", "--color", "--list-heading", "--list-prefix", "--chooser", "--command-color"}}
}

// formatterRules defines formatters and fixers, which read unless told to
// write.
func formatterRules(t table) {
	// Formatters and fixers: they read unless told to write.
	// gofmt and its kin parse their options with Go's flag package, which
	// takes --w and -w=true for -w.
	t["gofmt"] = &rule{ro: true, goFlags: true, inPlace: true, modFlags: []string{"-w"}, flagWhy: "rewrites files", valued: []string{"-r", "-cpuprofile"}}
	t.set(t["gofmt"], "goimports", "gofumpt")
	t["golines"] = &rule{ro: true, inPlace: true, modFlags: []string{"-w", "--write-output"}, flagWhy: "rewrites files"}
	t["shfmt"] = &rule{ro: true, inPlace: true, modFlags: []string{"-w", "--write"}, flagWhy: "rewrites files", valued: []string{"-i", "--indent", "-ln", "--language-dialect", "-f", "--filename"}}
	t["prettier"] = &rule{ro: true, cfg: true, inPlace: true, modFlags: []string{"--write", "-w"}, flagWhy: "rewrites files",
		valued: []string{"--config", "--ignore-path", "--parser", "--plugin", "--stdin-filepath", "--log-level", "--cache-location", "--cache-strategy", "--tab-width", "--print-width", "--trailing-comma", "--end-of-line", "--arrow-parens", "--prose-wrap", "--quote-props"}}
	t["eslint"] = &rule{ro: true, cfg: true, inPlace: true, modFlags: []string{"--fix", "-o", "--output-file"}, flagWhy: "writes files",
		valued: []string{"-c", "--config", "-o", "--output-file", "-f", "--format", "--ext", "--ignore-path", "--rulesdir", "--parser", "--parser-options", "--resolve-plugins-relative-to", "--max-warnings", "--cache-location", "--rule", "--plugin", "--global", "--env", "--stdin-filename", "--fix-type"}}
	t["stylelint"] = &rule{ro: true, cfg: true, inPlace: true, modFlags: []string{"--fix", "-o", "--output-file"}, valued: []string{"-c", "--config", "-o", "--output-file", "-f", "--formatter", "--ignore-path", "--custom-syntax"}}
	t["markdownlint"] = &rule{ro: true, inPlace: true, modFlags: []string{"--fix", "-f", "-o", "--output"}, valued: []string{"-c", "--config", "-o", "--output", "-i", "--ignore", "-p", "--ignore-path", "-r", "--rules"}}
	t["markdownlint-cli2"] = &rule{ro: true, modFlags: []string{"--fix"}}
	biomeCheck := &rule{ro: true, inPlace: true, modFlags: []string{"--write", "--apply", "--apply-unsafe", "--fix", "--unsafe"}, flagWhy: "rewrites files"}
	t["biome"] = subsOf(map[string]*rule{
		"check": biomeCheck, "lint": biomeCheck,
		"format": {ro: true, inPlace: true, modFlags: []string{"--write"}, flagWhy: "rewrites files"},
		"ci":     ro(), "version": ro(), "rage": ro(), "explain": ro(), "search": ro(),
	}, &rule{ro: true, cfg: true, anySub: mod(whyWrites)})
	t["black"] = &rule{why: "rewrites files", inPlace: true, roFlags: []string{"--check", "--diff", "--version", "-h", "--help"}, valued: []string{"-l", "--line-length", "-t", "--target-version", "--config", "--include", "--exclude", "--extend-exclude", "--force-exclude", "--stdin-filename", "-W", "--workers", "--required-version", "--python-cell-magics"}}
	t["blue"] = t["black"]
	t["isort"] = &rule{why: "rewrites files", inPlace: true, roFlags: []string{"--check-only", "--check", "-c", "--diff", "--df", "--show-files", "--version", "-V", "-h", "--help", "--show-config"}, valued: []string{"--settings-path", "--sp", "--settings-file", "-l", "--line-length", "-p", "--project", "--profile", "--skip", "-s", "--src", "--virtual-env"}}
	t["autopep8"] = &rule{ro: true, inPlace: true, modFlags: []string{"-i", "--in-place"}, flagWhy: "rewrites files", valued: []string{"--select", "--ignore", "--max-line-length", "-j", "--jobs", "--global-config"}}
	t.set(t["autopep8"], "yapf", "autoflake")
	// LLVM's tools take single-dash long options, with one dash or two and
	// a value after =: clang-format -i, --i, -i=true.
	t["clang-format"] = &rule{ro: true, goFlags: true, inPlace: true, modFlags: []string{"-i"}, flagWhy: "rewrites files",
		valued: []string{"-style", "-assume-filename", "-lines", "-offset", "-length", "-fallback-style", "-cursor", "-files", "-qualifier-alignment"}}
	t["clang-tidy"] = &rule{ro: true, goFlags: true, inPlace: true, modFlags: []string{"-fix", "-fix-errors", "-fix-notes", "-export-fixes"},
		valued: []string{"-p", "-checks", "-config", "-config-file", "-header-filter", "-export-fixes", "-extra-arg", "-extra-arg-before", "-line-filter", "-format-style", "-vfsoverlay"}}
	t["rustfmt"] = &rule{why: "rewrites files", inPlace: true, roFlags: []string{"--check", "--version", "-V", "-h", "--help", "--print-config"}, valued: []string{"--edition", "--config-path", "--config", "--emit", "--color", "--style-edition"}}
	ruffCheck := &rule{ro: true, inPlace: true, modFlags: []string{"--fix", "--unsafe-fixes", "--add-noqa", "-o", "--output-file"}, flagWhy: "writes fixes",
		valued: []string{"--config", "--select", "--ignore", "--extend-select", "--output-format", "-o", "--output-file", "--target-version", "--line-length", "--exclude", "--extend-exclude", "--per-file-ignores", "--stdin-filename", "--cache-dir"}}
	t["ruff"] = subsOf(map[string]*rule{
		"check":  ruffCheck,
		"format": {why: "rewrites files", inPlace: true, roFlags: []string{"--check", "--diff"}, valued: []string{"--config", "--line-length", "--target-version", "--exclude", "--stdin-filename", "--cache-dir", "--range"}},
		"rule":   ro(), "config": ro(), "linter": ro(), "version": ro(), "help": ro(), "analyze": ro(), "server": ro(),
		"clean": mod(whyDeletes),
	}, &rule{ro: true, anySub: ruffCheck}) // "ruff <paths>" is the old spelling of ruff check
	tfState := subsOf(map[string]*rule{"list": ro(), "show": ro(), "pull": ro()}, &rule{ro: true, anySub: mod("changes infrastructure state")})
	t["terraform"] = subsOf(map[string]*rule{
		"plan": {ro: true, goFlags: true, modFlags: []string{"-out"}, flagWhy: "writes a plan file"}, "validate": ro(), "show": ro(), "output": ro(), "version": ro(),
		"providers": ro(), "graph": ro(), "console": ro(), "state": tfState,
		"fmt": {why: "rewrites files", goFlags: true, inPlace: true, roFlags: []string{"-check", "-diff"}},
	}, &rule{ro: true, anySub: mod("changes infrastructure or writes files")})
	t["tofu"] = t["terraform"]
}

// checkerRules defines test runners (the gate.tests policy, tests.go), type
// checkers and linters with subcommands.
func checkerRules(t table) {
	testRunnerRules(t)
	// Test runners: the gate.tests policy (tests.go).
	t["tsc"] = &rule{why: "compiles TypeScript and writes .js files", check: tscCheck, roFlags: []string{"--noEmit", "--version", "-v", "--help", "-h", "--showConfig", "--listFilesOnly", "--all"},
		valued: []string{"-p", "--project", "--target", "-t", "--module", "-m", "--outDir", "--outFile", "--rootDir", "--lib", "--jsx", "--moduleResolution", "--declarationDir", "--tsBuildInfoFile", "--generateTrace"}}
	t["vue-tsc"] = t["tsc"]
	t["golangci-lint"] = subsOf(map[string]*rule{ // custom linters are plugins: code
		"run":     {ro: true, modFlags: []string{"--fix"}, flagWhy: "writes fixes", valued: []string{"-c", "--config", "-E", "--enable", "-D", "--disable", "--timeout", "--out-format", "-j", "--concurrency", "--build-tags", "--new-from-rev", "--new-from-patch"}},
		"fmt":     {why: "rewrites files", roFlags: []string{"-d", "--diff", "--diff-colored", "--stdin"}},
		"linters": ro(), "version": ro(), "help": ro(), "config": ro(),
		"cache":   subsOf(map[string]*rule{"status": ro()}, &rule{ro: true, anySub: mod(whyDeletes)}),
		"migrate": mod(whyWrites),
	}, &rule{ro: true, cfg: true, anySub: mod("is a golangci-lint subcommand planq does not know")})
}

// interpreterRules defines interpreters and shells.
func interpreterRules(t table) {
	// Interpreters: given code on the command line, a script or code on
	// stdin, they may do anything.
	t["python"] = interpreter([]string{"-c"}, "-m", []string{"-V", "--version", "-h", "--help", "-VV"}, []string{"-W", "-X"})
	t.set(t["python"], "python3", "python2", "py", "pypy", "pypy3", "python3.8", "python3.9", "python3.10", "python3.11", "python3.12", "python3.13", "python3.14")
	t["coverage"] = subsOf(map[string]*rule{"report": ro(), "debug": ro(), "run": t["python"]}, &rule{ro: true, anySub: mod("writes a coverage report")})
	nodeValued := []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "--input-type", "--conditions", "-C", "--env-file", "--title", "--stack-size", "--test-name-pattern", "--test-reporter", "--test-reporter-destination", "--test-concurrency", "--test-timeout", "--test-shard", "--test-skip-pattern"}
	nodeScript := interpreter([]string{"-e", "--eval", "-p", "--print"}, "", []string{"-v", "--version", "-h", "--help", "-c", "--check", "--v8-options"}, nodeValued)
	nodeTest := testRunner(runner{entry: "node --test", valued: nodeValued,
		writes: []string{"--test-update-snapshots", "--test-reporter-destination", "--experimental-test-snapshots", "--watch", "--test-coverage-lcov"},
		paths:  []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file", "--test-reporter"},
		runs:   []string{"-e", "--eval", "-p", "--print"}})
	t["node"] = &rule{check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
		for _, a := range args {
			if a.static && (a.val == "--test" || strings.HasPrefix(a.val, "--test=")) {
				return nodeTest.check(c, name+" --test", args, nodeTest)
			}
			if !isFlag(a) {
				break
			}
		}
		return nodeScript.check(c, name, args, nodeScript)
	}}
	t["nodejs"] = t["node"]
	t["ruby"] = interpreter([]string{"-e"}, "", []string{"--version", "-h", "--help", "-c"}, []string{"-I", "-r", "-C", "-E", "-F", "-0"})
	t["php"] = interpreter([]string{"-r", "-B", "-R", "-F", "-E"}, "", []string{"-v", "--version", "-h", "--help", "-l", "--syntax-check", "-i", "--info", "-m", "--modules", "--ini"}, []string{"-c", "-d", "-z", "-t", "-S"})
	t["lua"] = interpreter([]string{"-e"}, "", nil, []string{"-l"})
	t["luajit"] = t["lua"]
	t["Rscript"] = interpreter([]string{"-e"}, "", []string{"--version", "--help"}, nil)
	t["deno"] = subsOf(map[string]*rule{
		"test": testRunner(runner{entry: "deno test", valued: []string{"-c", "--config", "--import-map", "--filter", "--coverage", "--junit-path", "--reporter", "--shuffle", "--parallel", "--lock", "--env-file", "--location", "--seed", "--v8-flags"},
			writes: []string{"--coverage", "--junit-path", "--lock-write", "--frozen=false", "--watch", "--doc", "--reload"}, paths: []string{"-c", "--config", "--import-map", "--env-file"}, passArgs: true}),
		"check": ro(), "lint": {ro: true, modFlags: []string{"--fix"}, flagWhy: "writes fixes"}, "info": ro(), "doc": ro(), "types": ro(), "bench": ro(),
		"fmt":  {why: "rewrites files", roFlags: []string{"--check"}},
		"eval": mod("runs code given on the command line"), "run": mod(whyScript), "task": mod(whyScript),
		"install": mod(whyInstalls), "add": mod(whyInstalls), "remove": mod(whyInstalls), "compile": mod(whyBuilds), "bundle": mod(whyBuilds), "upgrade": mod(whyInstalls), "init": mod(whyWrites),
		"serve": mod(whyScript), "repl": mod(whyScript), "jupyter": mod(whyScript), "completions": ro(),
	}, &rule{ro: true, roFlags: []string{"--version", "-V", "-h", "--help"}, anySub: mod(whyScript)}) // deno script.ts

	// Shells: judge the code they are given, wherever it comes from.
	sh := &rule{valued: []string{"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}, check: shellCheck}
	t.set(sh, shellNames...)
	t.set(&rule{check: otherShell}, "zsh", "fish", "ksh", "ksh93", "mksh", "pdksh", "ash", "busybox", "tcsh", "csh", "pwsh", "powershell",
		"nu", "xonsh", "elvish", "ion", "yash", "osh", "oil", "ysh", "es", "rc", "scsh", "oksh", "loksh", "posh")
}

// wrapperRules defines wrappers, judged by the command they run.
func wrapperRules(t table) {
	// Wrappers: the command they run decides.
	t["sudo"] = wrapper(wrap{chdir: []string{"-D", "--chdir"}, valued: []string{"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"},
		ro: []string{"-l", "--list", "-v", "--validate", "-k", "--reset-timestamp", "-K", "--remove-timestamp", "-V", "--version"}, edit: []string{"-e", "--edit"},
		shellFlags: []string{"-s", "--shell", "-i", "--login"}})
	t["doas"] = wrapper(wrap{valued: []string{"-u", "-C"}, shellFlags: []string{"-s"}})
	t["su"] = wrapper(wrap{valued: []string{"-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"}, str: []string{"-c", "--command"}, skip: 1, shell: true})
	t["runuser"] = t["su"]
	t["env"] = wrapper(wrap{valued: []string{"-u", "--unset", "-C", "--chdir", "-P", "--default-signal", "--ignore-signal", "--block-signal"}, str: []string{"-S", "--split-string"}, assigns: true,
		chdir: []string{"-C", "--chdir"}})
	t["nice"] = wrapper(wrap{valued: []string{"-n", "--adjustment"}})
	t["nohup"] = wrapper(wrap{})
	t["setsid"] = wrapper(wrap{})
	t["stdbuf"] = wrapper(wrap{valued: []string{"-i", "-o", "-e", "--input", "--output", "--error"}})
	t["ionice"] = wrapper(wrap{valued: []string{"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"}})
	t["chrt"] = wrapper(wrap{skip: 1, ro: []string{"-p", "--pid", "-m", "--max"}})
	t["taskset"] = wrapper(wrap{skip: 1, ro: []string{"-p", "--pid"}})
	t["timeout"] = wrapper(wrap{valued: []string{"-s", "--signal", "-k", "--kill-after"}, skip: 1})
	t["gtimeout"] = t["timeout"]
	t["time"] = wrapper(wrap{valued: []string{"-f", "--format", "-o", "--output"}, mod: []string{"-o", "--output"}})
	t["command"] = wrapper(wrap{ro: []string{"-v", "-V"}})
	t["builtin"] = wrapper(wrap{})
	t["exec"] = wrapper(wrap{valued: []string{"-a"}})
	t["eval"] = &rule{check: evalCheck}
	t["trap"] = &rule{check: trapCheck}
	t["xargs"] = wrapper(wrap{valued: []string{"-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--max-chars", "--process-slot-var"},
		dflt: []string{"echo"}, repl: []string{"-I", "-i", "--replace"}, appends: true})
	t["parallel"] = mod("runs commands planq does not analyse")
	t["watch"] = wrapper(wrap{valued: []string{"-n", "--interval", "-q", "--equexit"}, shellArgs: true, direct: []string{"-x", "--exec"}})
	t["strace"] = wrapper(wrap{valued: []string{"-e", "-o", "-p", "-s", "-u", "-E", "-P", "-I", "-b", "-a", "-X", "-O", "-S", "--output"}, mod: []string{"-o", "--output"}})
	t["ltrace"] = wrapper(wrap{valued: []string{"-e", "-o", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-F", "-l", "-x", "--output"}, mod: []string{"-o", "--output"}})
	t.set(wrapper(wrap{}), "unbuffer", "chronic", "dbus-run-session")
	t["caffeinate"] = wrapper(wrap{valued: []string{"-t", "-w"}})
	t["xvfb-run"] = wrapper(wrap{valued: []string{"-n", "--server-num", "-s", "--server-args", "-f", "--auth-file", "-e", "--error-file", "-p", "--xauth-protocol"}})
	t["npx"] = wrapper(wrap{valued: []string{"-p", "--package", "--registry", "--cache", "--userconfig"}, str: []string{"-c", "--call"}})
	t["pnpx"] = t["npx"]
	t["bunx"] = wrapper(wrap{valued: []string{"-p", "--package"}})
	t["uvx"] = wrapper(wrap{valued: []string{"--from", "--with", "--with-requirements", "-p", "--python", "--index", "--index-url", "--extra-index-url", "--constraints", "--overrides"}})
	t["pipx"] = subsOf(map[string]*rule{
		"run":  wrapper(wrap{valued: []string{"--spec", "--python", "--index-url", "--pip-args"}}),
		"list": ro(), "environment": ro(),
	}, &rule{ro: true, anySub: mod(whyInstalls)})
	t["dotenv"] = wrapper(wrap{valued: []string{"-e", "-v", "-c", "-f"}})
	t["direnv"] = subsOf(map[string]*rule{"exec": wrapper(wrap{skip: 1}), "status": ro(), "version": ro()}, &rule{ro: true, anySub: mod("changes direnv's allowed list")})
	t["nix-shell"] = wrapper(wrap{valued: []string{"-p", "--packages", "-A", "--attr", "-I", "--arg", "--argstr", "--option"}, str: []string{"--run", "--command"}, noneIsMod: "opens a shell"})
	t["nix"] = subsOf(map[string]*rule{
		"develop": wrapper(wrap{valued: []string{"--profile", "-f", "--file", "--expr", "--override-input"}, after: []string{"-c", "--command"}, noneIsMod: "opens a shell"}),
		"shell":   wrapper(wrap{valued: []string{"-f", "--file", "--expr"}, after: []string{"-c", "--command"}, noneIsMod: "opens a shell"}),
		"search":  ro(), "eval": ro(), "log": ro(), "why-depends": ro(), "path-info": ro(), "show-config": ro(),
		"flake": subsOf(map[string]*rule{"show": ro(), "metadata": ro(), "check": ro(), "info": ro()}, &rule{ro: true, anySub: mod(whyWrites)}),
	}, &rule{ro: true, anySub: mod("builds or installs with nix")})
}

// toolchainRules defines version control, language tool chains and package
// managers.
func toolchainRules(t table) {
	// Version control.
	t["git"] = lazily(gitRule)
	t["jj"] = lazily(jjRule)
	t["gh"] = lazily(ghRule)

	// Language tool chains and package managers.
	t["go"] = lazily(goRule)
	t["cargo"] = lazily(cargoRule)
	nodePMs := sync.OnceValue(func() [4]*rule {
		npm, yarn, pnpm, bun := nodePMRules()
		return [4]*rule{npm, yarn, pnpm, bun}
	})
	for i, n := range []string{"npm", "yarn", "pnpm", "bun"} {
		t[n] = lazily(func() *rule { return nodePMs()[i] })
	}
	t["pip"] = lazily(pipRule)
	t["pip3"] = t["pip"]
	t["uv"] = subsOf(map[string]*rule{
		"run": wrapper(wrap{valued: []string{"--with", "--with-requirements", "-p", "--python", "--package", "--extra", "--group", "--index", "--env-file", "--directory", "--project"}}),
		"pip": pipRule(), "tree": ro(), "version": ro(), "help": ro(),
		"python": subsOf(map[string]*rule{"list": ro(), "find": ro(), "dir": ro()}, &rule{ro: true, anySub: mod(whyInstalls)}),
		"tool":   subsOf(map[string]*rule{"run": wrapper(wrap{valued: []string{"--from", "--with", "-p", "--python"}}), "list": ro(), "dir": ro()}, &rule{ro: true, anySub: mod(whyInstalls)}),
	}, &rule{ro: true, valued: []string{"--directory", "--project", "--cache-dir", "--config-file", "--color"}, anySub: mod(whyInstalls)}) // sync, add, lock, venv, …
	t["poetry"] = subsOf(map[string]*rule{
		"run": wrapper(wrap{}), "show": ro(), "check": ro(), "search": ro(), "about": ro(), "help": ro(), "list": ro(),
		"version": {ro: true, posMod: 1, why: "changes the version in pyproject.toml"},
		"env":     subsOf(map[string]*rule{"info": ro(), "list": ro()}, &rule{ro: true, anySub: mod(whyInstalls)}),
		"config":  {ro: true, posMod: 2, why: "changes poetry's configuration", modFlags: []string{"--unset"}, flagWhy: "changes poetry's configuration"},
	}, &rule{ro: true, anySub: mod(whyInstalls)})
	t["pipenv"] = subsOf(map[string]*rule{"run": wrapper(wrap{}), "graph": ro(), "check": ro(), "requirements": ro(), "scripts": ro()},
		&rule{ro: true, roFlags: []string{"--venv", "--where", "--py", "--version"}, anySub: mod(whyInstalls)})
	t["bundle"] = subsOf(map[string]*rule{"exec": wrapper(wrap{}), "list": ro(), "show": ro(), "info": ro(), "check": ro(), "outdated": ro(), "platform": ro(), "version": ro()},
		&rule{why: whyInstalls, anySub: mod(whyInstalls)})
	t["bundler"] = t["bundle"]
	t["conda"] = subsOf(map[string]*rule{
		"list": ro(), "info": ro(), "search": ro(),
		"env":    subsOf(map[string]*rule{"list": ro(), "export": ro()}, &rule{ro: true, anySub: mod(whyInstalls)}),
		"config": {ro: true, modFlags: []string{"--set", "--add", "--append", "--prepend", "--remove", "--remove-key"}, flagWhy: "changes conda's configuration"},
		"run":    wrapper(wrap{valued: []string{"-n", "--name", "-p", "--prefix"}}),
	}, &rule{ro: true, anySub: mod(whyInstalls)})
	t["mamba"], t["micromamba"] = t["conda"], t["conda"]
}

// systemRules defines system package managers.
func systemRules(t table) {
	// System package managers and services.
	aptRead := map[string]*rule{"search": ro(), "show": ro(), "list": ro(), "policy": ro(), "depends": ro(), "rdepends": ro(), "showsrc": ro(),
		"changelog": ro(), "madison": ro(), "help": ro(), "info": ro(), "check-update": ro(), "repolist": ro(), "provides": ro(),
		"whatprovides": ro(), "deplist": ro(), "repoquery": ro(), "history": ro()}
	t.set(subsOf(aptRead, &rule{ro: true, valued: []string{"-o", "-c", "-t", "--target-release"}, anySub: mod(whyInstalls)}), "apt", "apt-get", "dnf", "yum", "zypper", "apk")
	t["apt-cache"] = ro()
	t["dpkg-query"] = ro()
	t["dpkg"] = &rule{why: whyInstalls, roFlags: []string{"-l", "--list", "-L", "--listfiles", "-s", "--status", "-S", "--search", "-p", "--print-avail", "--print-architecture", "--version", "--help", "--get-selections", "-c", "--contents", "-I", "--info"}}
	t["pacman"] = &rule{why: whyInstalls, roFlags: []string{"-Q", "--query", "-Ss", "-Si", "-Sl", "-V", "--version", "-h", "--help"}, check: pacmanCheck}
	t["brew"] = subsOf(map[string]*rule{"list": ro(), "ls": ro(), "info": ro(), "search": ro(), "deps": ro(), "uses": ro(), "outdated": ro(), "config": ro(),
		"doctor": ro(), "desc": ro(), "home": ro(), "leaves": ro(), "--prefix": ro(), "--version": ro(), "--cellar": ro(), "--cache": ro(), "commands": ro(), "help": ro(), "shellenv": ro()},
		&rule{ro: true, anySub: mod(whyInstalls)})
}

// interpreter builds the rule for a language interpreter: code given with a
// code flag, a script file or code on stdin may do anything; a module run
// with -m is judged as the command of the same name (python -m pytest).
func interpreter(codeFlags []string, moduleFlag string, roFlags, valued []string) *rule {
	r := &rule{why: whyScript, roFlags: roFlags, valued: valued}
	r.check = func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		return interpreterCheck(c, name, args, r, codeFlags, moduleFlag)
	}
	return r
}

// Python modules run with -m that planq knows. The value is "" when the
// module only reads, "mod:" and a reason when it writes, "pos2" when it
// writes its second file argument, and otherwise the command it is judged as.
func pythonModules() map[string]string {
	return map[string]string{
		"pytest": "pytest", "pip": "pip", "mypy": "mypy", "black": "black", "ruff": "ruff", "isort": "isort",
		"flake8": "flake8", "pylint": "pylint", "pyright": "pyright", "unittest": "", "doctest": "",
		"pydoc": "", "json.tool": "pos2", "tabnanny": "", "pyflakes": "", "pycodestyle": "", "site": "",
		"platform": "", "sysconfig": "", "uv": "uv", "poetry": "poetry", "coverage": "coverage",
		"autopep8": "autopep8", "yapf": "yapf", "bandit": "bandit",
		"build":       "mod:builds a package",
		"venv":        "mod:creates a virtual environment",
		"virtualenv":  "mod:creates a virtual environment",
		"py_compile":  "mod:writes compiled files",
		"compileall":  "mod:writes compiled files",
		"zipfile":     "mod:extracts or creates an archive",
		"tarfile":     "mod:extracts or creates an archive",
		"http.server": "mod:serves files until stopped",
	}
}
