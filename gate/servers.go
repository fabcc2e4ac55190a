package gate

import (
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Clients of servers. While the gate is locked a shell command may run in
// the OS sandbox, which holds the command and every process it starts: to
// them the project is read-only. It cannot hold a process that was running
// before and that the command only asks to act: a server. A terminal
// multiplexer's server (tmux send-keys, screen -X), a container engine
// (docker run -v, docker exec), sshd (ssh to any host, this one included),
// the init system and the schedulers (systemctl start, systemd-run, at,
// cron), an editor's server (emacsclient, nvim --remote), the desktop (its
// message bus, the windows xdotool types into, the applications xdg-open
// starts), a database server, a local HTTP API (curl to localhost, a unix
// socket, bash's /dev/tcp): each runs with the user's rights outside the
// sandbox, so what it is asked to do can write the project. A command that
// asks such a server to act is sure to modify (rule.sure): it is denied
// while locked, with the sandbox or without. One that only asks a server
// for information (tmux ls, docker ps, systemctl status) reads.
//
// The kernel holds what it can on its own (Landlock scopes signals and
// abstract unix sockets to the sandbox, a seccomp filter refuses unix
// sockets; gate/sandbox): what remains is a server reached over TCP — a
// local port, or a server elsewhere that can write here — by a program the
// parser cannot read (python3 -c, a script), which the README lists.

func serverRules(t table) {
	help := []string{"--help", "--version"}

	// Terminal multiplexers and terminals: their server runs what it is sent.
	t["tmux"] = &rule{check: tmuxCheck}
	t["screen"] = &rule{check: screenCheck}
	t["zellij"] = lazily(func() *rule {
		return serverSubs("the zellij server", []string{"list-sessions", "ls", "list-aliases", "la"}, nil, "--version", "-V", "--help", "-h")
	})
	t.set(server("its terminal multiplexer's server", "--version", "-v", "--help", "-h"), "byobu", "abduco", "dtach")
	t.set(server("the running kitty", "--version", "-v", "--help", "-h"), "kitty", "kitten")
	t["wezterm"] = lazily(func() *rule {
		return subsOf(map[string]*rule{
			"cli": serverSubs("the running WezTerm", []string{"list", "list-clients", "get-text"}, nil), "ls-fonts": ro(),
		}, &rule{ro: true, roFlags: []string{"--version", "-V", "--help", "-h"}, noSub: server("the running WezTerm"), anySub: server("the running WezTerm")})
	})
	t["alacritty"] = server("the running Alacritty", "--version", "-V", "--help", "-h")
	t.set(server("the windows it types into or clicks", "--version", "--help", "-h"), "xdotool", "ydotool", "wtype", "xte", "xvkbd", "dotool", "cliclick")
	t["osascript"] = server("the applications its Apple events reach")
	t["shortcuts"] = lazily(func() *rule {
		return serverSubs("the applications its shortcuts reach", []string{"list", "view", "help"}, nil)
	})
	t.set(server("the application the desktop opens it with", help...), "open", "xdg-open", "kde-open", "kde-open5", "gnome-open",
		"exo-open", "wslview", "sensible-browser", "x-www-browser", "www-browser", "gvfs-open")
	t["gio"] = lazily(func() *rule {
		return subsOf(map[string]*rule{"open": server("the application the desktop opens it with"), "launch": server("the application it launches"),
			"mount": server("the desktop's file system daemon"), "info": ro(), "list": ro(), "cat": ro(), "tree": ro(), "version": ro(), "help": ro()}, &rule{ro: true})
	})

	// Container engines, clusters and virtual machines: the daemon runs the
	// containers, and a bind mount or a host path writes here.
	t.set(lazily(func() *rule { return engineRule("the container engine's daemon") }), "docker", "podman", "nerdctl", "finch", "podman-remote")
	t.set(lazily(func() *rule { return composeRule("the container engine's daemon") }), "docker-compose", "podman-compose")
	t["kubectl"] = lazily(kubeRule)
	t["oc"] = t["kubectl"]
	t["helm"] = lazily(func() *rule {
		r := serverSubs("the cluster", []string{"list", "ls", "status", "get", "history", "show", "search", "template", "lint", "version", "env", "completion"},
			[]string{"install", "upgrade", "uninstall", "delete", "rollback", "test"})
		r.valued = []string{"-n", "--namespace", "--kube-context", "--kubeconfig"}
		return r
	})
	for name, reads := range map[string][]string{
		"minikube":     {"status", "version", "ip", "profile", "update-check", "options"},
		"kind":         {"get", "version"},
		"k3d":          {"version"},
		"colima":       {"list", "ls", "status", "version"},
		"limactl":      {"list", "ls", "info"},
		"lima":         nil,
		"multipass":    {"list", "ls", "info", "version", "find", "networks", "get", "help"},
		"vagrant":      {"status", "global-status", "version", "ssh-config", "help"},
		"lxc":          {"list", "ls", "info", "version", "help"},
		"incus":        {"list", "ls", "info", "version", "help"},
		"virsh":        {"list", "dominfo", "domstate", "version", "nodeinfo", "net-list", "pool-list", "help"},
		"VBoxManage":   {"list", "showvminfo", "help"},
		"vboxmanage":   {"list", "showvminfo", "help"},
		"crictl":       {"ps", "images", "pods", "inspect", "inspecti", "inspectp", "logs", "version", "info", "stats"},
		"ctr":          {"version"},
		"buildah":      {"images", "containers", "inspect", "version", "info"},
		"machinectl":   {"list", "status", "show", "list-images", "image-status", "show-image"},
		"distrobox":    {"list", "ls", "help"},
		"toolbox":      {"list", "help"},
		"orb":          {"list", "info", "version", "status"},
		"orbctl":       {"list", "info", "version", "status"},
		"skaffold":     {"version", "diagnose", "help"},
		"tilt":         {"version", "get", "describe", "help"},
		"devcontainer": {"read-configuration"},
		"devpod":       {"list", "ls", "version", "status"},
	} {
		t[name] = lazily(func() *rule { return serverSubs("the daemon that runs its containers or machines", reads, nil) })
	}
	t.set(server("another sandbox's or the host's processes", help...), "host-spawn", "distrobox-host-exec",
		"distrobox-enter", "nsenter", "systemd-nspawn")
	t["flatpak-spawn"] = &rule{ro: true, roFlags: help, check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
		for _, a := range args {
			if !a.static || a.val == "--host" {
				return asks(name+" --host", "the host, outside the flatpak sandbox")
			}
		}
		return unknownOutcome(c, name+" runs a program planq cannot see into")
	}}

	// Remote shells and file transfers: sshd, an rsync or FTP daemon, run
	// what they are sent on the host named, and that host may be this one.
	t["ssh"] = &rule{ro: true, check: sshCheck, roFlags: []string{"-V", "-G", "-Q"},
		valued: []string{"-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w"}}
	t["slogin"] = t["ssh"]
	t.set(server("sshd or the server on the host it names (this one too)", "--help", "--version", "-V"), "scp", "sftp", "mosh", "autossh", "sshpass",
		"rsh", "rlogin", "rcp", "telnet", "lftp", "ftp", "tftp", "ncftp", "ssh-copy-id", "sshfs")

	// Init systems, service managers and schedulers: they run commands later,
	// or now, from their own process.
	t["systemctl"] = lazily(func() *rule {
		r := serverSubs("systemd",
			[]string{"status", "show", "list-units", "list-unit-files", "list-timers", "list-sockets", "list-jobs", "list-machines", "list-paths",
				"list-automounts", "is-active", "is-enabled", "is-failed", "is-system-running", "cat", "get-default", "list-dependencies", "help", "show-environment"},
			[]string{"start", "stop", "restart", "reload", "try-restart", "reload-or-restart", "try-reload-or-restart", "enable", "disable", "reenable",
				"preset", "preset-all", "mask", "unmask", "link", "revert", "daemon-reload", "daemon-reexec", "kill", "clean", "freeze", "thaw",
				"set-property", "edit", "isolate", "default", "rescue", "emergency", "halt", "poweroff", "reboot", "kexec", "suspend", "hibernate",
				"hybrid-sleep", "switch-root", "set-environment", "unset-environment", "import-environment", "reset-failed", "add-wants",
				"add-requires", "set-default", "bind", "mount-image"},
			"--version", "--help", "-h")
		r.valued = []string{"-t", "--type", "--state", "-p", "--property", "-H", "--host", "-M", "--machine", "-n", "--lines", "-o", "--output"}
		r.noSub = ro() // systemctl alone lists the units
		return r
	})
	t["service"] = &rule{ro: true, check: serviceCheck}
	t.set(server("systemd or polkit", help...), "systemd-run", "run0", "pkexec")
	t["launchctl"] = lazily(func() *rule {
		return serverSubs("launchd", []string{"list", "print", "print-cache", "print-disabled", "blame", "dumpstate", "version", "help",
			"hostinfo", "managerpid", "manageruid", "managername", "error", "procinfo"}, nil)
	})
	t["loginctl"] = lazily(func() *rule {
		r := serverSubs("systemd-logind", []string{"list-sessions", "session-status", "show-session", "list-users", "user-status",
			"show-user", "list-seats", "seat-status", "show-seat"}, nil, "--version", "--help", "-h")
		r.noSub = ro()
		return r
	})
	t["at"] = server("atd", "-l", "-V", "-c", "--help")
	t.set(server("atd", help...), "batch", "atrm")
	t["atq"] = ro()
	t["crontab"] = &rule{ro: true, check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
		flags, _, _ := scan(args, r, false)
		if hasFlag(flags, "-l", "-V") {
			return outcome{}
		}
		return asks(name, "cron")
	}, valued: []string{"-u"}}
	t["anacron"] = server("cron", help...)
	t["supervisorctl"] = lazily(func() *rule {
		return serverSubs("supervisord", []string{"status", "avail", "version", "help", "pid", "tail", "maintail"}, nil, help...)
	})
	t["pm2"] = lazily(func() *rule {
		return serverSubs("the pm2 daemon", []string{"ls", "list", "l", "status", "jlist", "prettylist", "show", "describe", "info", "desc",
			"logs", "log", "id", "env"}, nil, "--version", "-v", "-V", "--help", "-h")
	})
	t["rsync"] = &rule{why: "copies files", check: rsyncCheck, roFlags: []string{"-n", "--dry-run", "--list-only", "--version", "--help"},
		valued: []string{"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "-T", "--temp-dir",
			"--password-file", "--port", "-M", "--remote-option", "--backup-dir", "--suffix", "--chmod", "--chown", "--rsync-path", "--max-size", "--min-size",
			"-B", "--block-size", "--timeout", "--compare-dest", "--copy-dest", "--link-dest", "--partial-dir", "--usermap", "--groupmap", "--log-file",
			"--write-batch", "--only-write-batch", "--read-batch", "--address", "--sockopts", "--outbuf", "--info", "--debug", "--stop-after", "--stop-at"},
		modFlags: []string{"--log-file", "--write-batch", "--only-write-batch"}}
	t["sv"] = lazily(func() *rule { return serverSubs("runit", []string{"status", "s", "check"}, nil) })
	t["rc-service"] = &rule{ro: true, check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		for _, a := range args {
			if a.static && slices.Contains([]string{"status", "--list", "-l", "--exists", "-e", "--help", "-h", "--version", "-V"}, a.val) {
				return outcome{}
			}
		}
		return asks(name, "OpenRC")
	}}
	t["rc-update"] = lazily(func() *rule { return serverSubs("OpenRC", []string{"show"}, nil) })
	t["initctl"] = lazily(func() *rule { return serverSubs("the init daemon", []string{"list", "status", "version"}, nil) })

	// The desktop's message bus and settings daemon: a method call can start
	// a unit or a program outside the sandbox.
	t["busctl"] = lazily(func() *rule {
		r := serverSubs("the D-Bus service it calls", []string{"list", "status", "monitor", "capture", "tree", "introspect", "get-property", "help"},
			[]string{"call", "emit", "set-property", "wait"}, "--version", "--help", "-h")
		r.noSub = ro()
		return r
	})
	t["gdbus"] = lazily(func() *rule {
		return serverSubs("the D-Bus service it calls", []string{"introspect", "monitor", "help"}, []string{"call", "emit", "wait"})
	})
	t["dbus-send"] = server("the D-Bus service it calls", "--help")
	t["qdbus"] = &rule{ro: true, check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		if len(args) == 0 {
			return outcome{} // lists the services
		}
		return asks(name, "the D-Bus service it calls")
	}}
	t["qdbus6"], t["qdbus-qt5"] = t["qdbus"], t["qdbus"]
	t["gsettings"] = lazily(func() *rule {
		return serverSubs("dconf's service", []string{"get", "list-schemas", "list-relocatable-schemas", "list-keys", "list-children",
			"list-recursively", "range", "describe", "writable", "help"}, nil)
	})
	t["dconf"] = lazily(func() *rule {
		return serverSubs("dconf's service", []string{"read", "list", "dump", "watch", "help"}, nil)
	})

	// Editors hand the files to the editor already running (code, subl,
	// zed, emacsclient, nvim --remote) or write them themselves.
	editor := &rule{why: whyEditor, sure: true}
	t.set(editor, "vi", "vim", "nvim", "gvim", "mvim", "neovide", "nano", "emacs", "emacsclient", "ed", "ex", "code", "code-insiders",
		"codium", "cursor", "windsurf", "subl", "atom", "mate", "micro", "kak", "hx", "helix", "joe", "pico", "mcedit", "gedit", "kate",
		"jed", "zed", "idea", "pycharm", "goland", "webstorm", "clion", "sudoedit")

	// Database servers: COPY … TO, SELECT … INTO OUTFILE, CONFIG SET dir
	// write files as the server.
	t.set(server("the database server", help...), "psql", "pg_restore", "pg_ctl", "mysql", "mariadb", "mysqladmin", "redis-cli",
		"valkey-cli", "keydb-cli", "mongo", "mongosh", "mongorestore", "mongoimport", "sqlcmd", "cqlsh", "clickhouse-client",
		"influx", "etcdctl", "consul", "nomad", "vault", "nats", "rabbitmqctl", "rabbitmqadmin", "memcached-tool")

	// Network clients: to a server on this machine (or a unix socket) they
	// are the same as the clients above.
	t.set(netClient("an HTTP client"), "http", "https", "xh", "xhs", "curlie", "grpcurl", "websocat", "wscat")
	t.set(&rule{check: ncCheck, roFlags: []string{"-h"}, valued: []string{"-p", "-s", "-w", "-i", "-X", "-x", "-q", "-O", "-I", "-T", "-V", "-W", "-M", "-m", "-e", "-c", "-o", "-P"}},
		"nc", "ncat", "netcat", "nc.openbsd", "nc.traditional")
	t["socat"] = &rule{check: socatCheck}
	t["openssl"] = &rule{check: opensslCheck}
	t["jupyter"] = &rule{check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		for _, a := range args {
			if !a.static || a.val == "--existing" || strings.HasPrefix(a.val, "--existing=") {
				return asks(name, "the running Jupyter kernel")
			}
		}
		return unknownOutcome(c, "unknown command "+name+" counts as modifying")
	}}
	t.set(&rule{check: debuggerCheck}, "gdb", "lldb")
}

// asks is the outcome of a command that asks a server to act.
func asks(name, server string) outcome {
	return outcome{mod: true, sure: true, reason: name + " has " + server + " do it, outside any sandbox"}
}

// server is the rule for a client that asks its server to act, unless
// only given one of the read flags.
func server(srv string, readFlags ...string) *rule {
	return &rule{ro: true, roFlags: readFlags, check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
		for _, a := range args {
			if a.static && slices.Contains(readFlags, a.val) {
				return outcome{}
			}
			if !isFlag(a) {
				break
			}
		}
		return asks(name, srv)
	}}
}

// serverSubs is the rule for a client with subcommands: reads only ask the
// server for information, acts (and every other subcommand) ask it to act;
// readFlags before a subcommand only print (help, version).
func serverSubs(srv string, reads, acts []string, readFlags ...string) *rule {
	act := &rule{check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome { return asks(name, srv) }}
	m := make(map[string]*rule, len(acts)+len(reads))
	for _, s := range acts {
		m[s] = act
	}
	read := ro()
	for _, s := range reads {
		m[s] = read
	}
	return &rule{ro: true, subs: m, anySub: act, noSub: act, roFlags: readFlags}
}

// engineRule is docker's (and podman's, nerdctl's) table: what only reads
// the daemon's state, and the subcommands that have it act, named so that
// their --help is read-only.
func engineRule(srv string) *rule {
	sub := func(reads ...string) *rule { return serverSubs(srv, reads, nil) }
	r := serverSubs(srv, []string{"ps", "images", "logs", "inspect", "version", "info", "stats", "top", "port", "history", "search", "events", "diff"},
		[]string{"run", "exec", "create", "start", "restart", "stop", "kill", "rm", "rmi", "build", "cp", "commit", "pull", "push", "tag", "load",
			"save", "import", "export", "login", "logout", "attach", "pause", "unpause", "wait", "update", "rename", "init", "plugin", "swarm",
			"service", "stack", "secret", "config", "node", "trust", "checkpoint", "debug", "machine", "pod", "play", "generate", "kube",
			"unshare", "auto-update", "healthcheck", "farm", "manifest", "scout", "sbom", "builder"},
		"--version", "-v", "--help")
	r.valued = []string{"-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--url", "--connection", "--remote"}
	r.noSub = ro() // docker alone prints its help
	r.subs["image"] = sub("ls", "list", "inspect", "history")
	r.subs["container"] = sub("ls", "list", "inspect", "logs", "top", "port", "stats", "diff")
	r.subs["network"] = sub("ls", "list", "inspect")
	r.subs["volume"] = sub("ls", "list", "inspect")
	r.subs["context"] = sub("ls", "list", "show", "inspect")
	r.subs["system"] = sub("df", "info", "events")
	r.subs["buildx"] = sub("ls", "inspect", "version", "du")
	r.subs["compose"] = composeRule(srv)
	return r
}

func composeRule(srv string) *rule {
	return serverSubs(srv, []string{"ps", "logs", "config", "ls", "images", "top", "version", "port", "events", "stats"},
		[]string{"up", "down", "run", "exec", "start", "stop", "restart", "build", "create", "rm", "kill", "pull", "push", "cp", "pause",
			"unpause", "scale", "watch", "wait", "attach", "alpha"}, "--version", "--help")
}

func kubeRule() *rule {
	srv := "the cluster"
	r := serverSubs(srv, []string{"get", "describe", "logs", "explain", "version", "top", "api-resources", "api-versions", "cluster-info", "diff",
		"events", "wait", "kustomize", "completion", "options"},
		[]string{"exec", "cp", "run", "apply", "create", "delete", "edit", "patch", "replace", "scale", "autoscale", "rollout", "port-forward",
			"proxy", "attach", "debug", "label", "annotate", "expose", "set", "drain", "cordon", "uncordon", "taint", "certificate", "alpha", "rsh", "rsync"},
		"--help", "-h")
	r.valued = []string{"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server"}
	r.subs["auth"] = serverSubs(srv, []string{"can-i", "whoami"}, nil)
	r.subs["plugin"] = serverSubs(srv, []string{"list"}, nil)
	kubeconfig := mod("changes kubeconfig") // a file in HOME: the sandbox holds it
	r.subs["config"] = subsOf(map[string]*rule{"view": ro(), "get-contexts": ro(), "current-context": ro(), "get-clusters": ro(), "get-users": ro()},
		&rule{ro: true, anySub: kubeconfig})
	return r
}

// tmuxReads are the tmux commands (and their aliases) that only ask the
// server for information.
var tmuxReads = []string{"list-sessions", "ls", "list-windows", "lsw", "list-panes", "lsp", "list-clients", "lsc", "list-buffers", "lsb",
	"list-commands", "lscm", "list-keys", "lsk", "has-session", "has", "show-options", "show", "show-window-options", "showw",
	"show-environment", "showenv", "show-buffer", "showb", "show-messages", "showmsgs", "capture-pane", "capturep", "server-info", "info",
	"show-hooks", "show-prompt-history", "showphist", "display-message", "display", "start-server", "start"}

// tmuxCheck: tmux's own options, then its commands (one after another,
// split by ;): those in tmuxReads only read (display-message only with
// -p), every other one — send-keys, run-shell, new-window, if-shell,
// source-file, save-buffer… and new-session when no command is given — is
// done by the tmux server.
func tmuxCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !isFlag(a) {
			break
		}
		if a.val == "--" {
			i++
			break
		}
		for j := 1; j < len(a.val); j++ {
			switch a.val[j] {
			case 'V':
				return outcome{}
			case 'C':
				return asks(name+" -C", "the tmux server")
			case 'c':
				return outcome{mod: true, reason: name + " -c runs a shell command planq does not judge"}
			case 'f', 'L', 'S', 'T':
				if j == len(a.val)-1 {
					i++
				}
				j = len(a.val)
			}
		}
	}
	cmds := args[i:]
	if len(cmds) == 0 {
		return asks(name, "the tmux server")
	}
	var cmd []arg
	judge := func() outcome {
		if len(cmd) == 0 {
			return outcome{}
		}
		w := cmd[0]
		if !w.static || !slices.Contains(tmuxReads, w.val) {
			return asks(name+" "+w.raw, "the tmux server")
		}
		hasP := false
		for _, a := range cmd[1:] {
			if !a.static || strings.Contains(a.val, "#(") {
				return asks(name+" "+w.raw, "the tmux server")
			}
			if a.val == "-p" || strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.Contains(a.val, "p") {
				hasP = true
			}
		}
		if (w.val == "display-message" || w.val == "display") && !hasP {
			return asks(name+" "+w.raw, "the tmux server")
		}
		return outcome{}
	}
	for _, a := range cmds {
		end := a.static && (a.val == ";" || strings.HasSuffix(a.val, ";"))
		if end && a.val != ";" {
			a.val = strings.TrimSuffix(a.val, ";")
			cmd = append(cmd, a)
		} else if !end {
			cmd = append(cmd, a)
		}
		if end {
			if o := judge(); o.mod {
				return o
			}
			cmd = nil
		}
	}
	return judge()
}

// screenCheck: screen -ls, -v, -Q only read; -X sends a command to a
// session's server, and anything else starts or attaches to one.
func screenCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			break
		}
		switch a.val {
		case "-ls", "-list", "-v", "-version", "--version", "-help", "--help", "-Q":
			return outcome{}
		case "-S", "-c", "-e", "-h", "-p", "-T", "-t", "-s", "-L", "-Logfile":
			i++
			continue
		}
		if !isFlag(a) || a.val == "-X" {
			break
		}
	}
	return asks(name, "the screen session's server")
}

// sshCheck: ssh to any host runs its command (or a shell) through that
// host's sshd, and the host may be this one; -V, -G and -Q only print.
func sshCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if hasFlag(flags, "-V", "-G", "-Q") || len(pos) == 0 && len(flags) > 0 {
		return outcome{}
	}
	return asks(name, "sshd on the host it names (this one too)")
}

// rsyncCheck: rsync to or from HOST:PATH, HOST::MODULE or rsync://HOST
// (or through -e, --rsync-path, --daemon) runs rsync on that host through
// sshd or an rsync daemon, and the host may be this one; between local
// paths it copies files.
func rsyncCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if hasFlag(flags, "-e", "--rsh", "--rsync-path", "--daemon", "-M", "--remote-option") {
		return asks(name, "sshd or the rsync daemon on the host it names (this one too)")
	}
	for _, p := range pos {
		v := p.val
		if !p.static {
			v = p.prefix
			if !strings.Contains(v, "/") {
				return asks(name+" "+p.raw, "a host planq cannot tell from a path")
			}
		}
		colon, slash := strings.IndexByte(v, ':'), strings.IndexByte(v, '/')
		if strings.HasPrefix(v, "rsync://") || colon > 0 && (slash < 0 || colon < slash) {
			return asks(name+" "+p.raw, "sshd or the rsync daemon on the host it names (this one too)")
		}
	}
	o := r.evalFlags(c, name, args)
	if o.mod && len(pos) > 0 {
		o.sure = c.a.writesInside(pos[len(pos)-1]) // the destination
	}
	return o
}

// serviceCheck: service --status-all and service NAME status read; the
// rest has the init system act.
func serviceCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for _, a := range args {
		if a.static && slices.Contains([]string{"--status-all", "status", "--help", "-h", "--version"}, a.val) {
			return outcome{}
		}
	}
	return asks(name, "the init system")
}

// debuggerCheck: gdb and lldb attached to a running process (-p, --pid,
// attach, gdb PROGRAM PID) change a process outside the sandbox; anything
// else runs a program planq cannot see into.
func debuggerCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	var pos []arg
	for i, a := range args {
		if !a.static {
			return unknownOutcome(c, name+" runs a program planq cannot see into")
		}
		v := a.val
		switch {
		case v == "-p" || v == "--pid" || v == "-pid" || strings.HasPrefix(v, "--pid=") || strings.HasPrefix(v, "-pid=") || v == "--attach-pid" || v == "--attach-name" || v == "-n":
			return attaches(name + " " + v)
		case strings.Contains(v, "attach") && i > 0 && (args[i-1].val == "-ex" || args[i-1].val == "-o" || args[i-1].val == "--one-line"):
			return attaches(name + " " + v)
		case !isFlag(a):
			pos = append(pos, a)
		}
	}
	if len(pos) >= 2 && isDigits(pos[len(pos)-1].val) {
		return attaches(name)
	}
	return unknownOutcome(c, "unknown command "+name+" counts as modifying (add it to gate.allow in .planq/config.yaml if it only reads)")
}

func attaches(part string) outcome {
	return outcome{mod: true, sure: true, reason: part + " attaches to a running process, which it can make do anything, outside any sandbox"}
}

// netClient is the rule for a network client planq knows only by this:
// pointed at a server on this machine (or a unix socket, or a URL planq
// cannot read) it asks that server to act; elsewhere it is unknown.
func netClient(what string) *rule {
	return &rule{check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		for i, a := range args {
			if a.static && (a.val == "--help" || a.val == "--version") && len(args) == 1 {
				return outcome{}
			}
			if a.static && strings.HasPrefix(a.val, "-") {
				opt, val, hasVal := strings.Cut(a.val, "=")
				switch opt {
				case "--unix-socket", "--abstract-unix-socket":
					return asks(name+" "+opt, "the server on that socket")
				case "--proxy", "-x", "--socks5-proxy", "--proxy-url":
					if !hasVal && i+1 < len(args) {
						val = args[i+1].val
						if !args[i+1].static {
							return asks(name+" "+opt, "a proxy planq cannot tell is not on this machine")
						}
					}
					if h, ok := urlHost(val); !ok || localHost(h) {
						return asks(name+" "+opt+" "+val, "the proxy on this machine")
					}
				case "--offline":
					return outcome{} // builds the request without sending it
				}
				continue
			}
			if h, ok := argHost(a, true); !ok {
				return asks(name+" "+a.raw, "a server planq cannot tell is not on this machine")
			} else if localHost(h) {
				return asks(name+" "+a.raw, "the server on this machine")
			}
		}
		return unknownOutcome(c, name+" is "+what+" planq does not know further")
	}}
}

// ncCheck: nc to a host on this machine, or to a unix socket (-U), talks
// to the server there; nc -l only listens.
func ncCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if hasFlag(flags, "-h") && len(pos) == 0 {
		return outcome{}
	}
	if hasFlag(flags, "-U", "--unixsock") {
		return asks(name+" -U", "the server on that socket")
	}
	for _, f := range flags {
		if (f.name == "-x" || f.name == "--proxy") && f.hasVal {
			if h, ok := argHost(f.val, false); !ok || localHost(h) {
				return asks(name+" "+f.name, "the proxy on this machine")
			}
		}
	}
	if !hasFlag(flags, "-l", "--listen") && len(pos) > 0 {
		if h, ok := argHost(pos[0], false); !ok || localHost(h) {
			return asks(name+" "+pos[0].raw, "the server on this machine")
		}
	}
	return unknownOutcome(c, name+" sends what it reads to a server planq cannot see into")
}

// socatCheck: socat with an address that connects to this machine (TCP,
// UDP, SSL, SOCKS or a proxy there) or to a unix socket talks to the
// server there.
func socatCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for _, a := range args {
		if !a.static {
			return asks(name+" "+a.raw, "a server planq cannot tell is not on this machine")
		}
		if strings.HasPrefix(a.val, "-") {
			if a.val == "-V" || a.val == "-h" || a.val == "-hh" || a.val == "-hhh" || a.val == "--help" || a.val == "--version" {
				return outcome{}
			}
			continue
		}
		kind, rest, _ := strings.Cut(a.val, ":")
		kind = strings.ToUpper(strings.SplitN(kind, ",", 2)[0])
		switch {
		case strings.HasPrefix(kind, "UNIX") || strings.HasPrefix(kind, "ABSTRACT") || kind == "LOCAL":
			return asks(name+" "+a.val, "the server on that socket")
		case strings.HasPrefix(kind, "TCP") || strings.HasPrefix(kind, "UDP") || strings.HasPrefix(kind, "SCTP") || strings.HasPrefix(kind, "DCCP") ||
			strings.HasPrefix(kind, "OPENSSL") || strings.HasPrefix(kind, "SSL") || strings.HasPrefix(kind, "SOCKS") || strings.HasPrefix(kind, "PROXY") ||
			strings.HasPrefix(kind, "UDPLITE") || strings.HasPrefix(kind, "VSOCK"):
			if strings.Contains(kind, "LISTEN") || strings.Contains(kind, "RECV") {
				continue
			}
			host := rest
			if h, _, ok := strings.Cut(rest, ":"); ok && !strings.HasPrefix(rest, "[") {
				host = h
			} else if strings.HasPrefix(rest, "[") {
				host, _, _ = strings.Cut(rest[1:], "]")
			}
			if strings.HasPrefix(kind, "VSOCK") || host == "" || localHost(host) {
				return asks(name+" "+a.val, "the server on this machine")
			}
		}
	}
	return unknownOutcome(c, "unknown command "+name+" counts as modifying (add it to gate.allow in .planq/config.yaml if it only reads)")
}

// opensslCheck: openssl s_client (and s_time) connected to this machine
// talk to the server there; other openssl commands read and write files
// planq does not judge.
func opensslCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	if len(args) > 0 && args[0].static && (args[0].val == "s_client" || args[0].val == "s_time") {
		for i, a := range args {
			if !a.static || a.val != "-connect" && a.val != "-unix" || i+1 >= len(args) {
				continue
			}
			if a.val == "-unix" {
				return asks(name+" "+args[0].val+" -unix", "the server on that socket")
			}
			if h, ok := argHost(args[i+1], false); !ok || localHost(h) {
				return asks(name+" "+args[0].val, "the server on this machine")
			}
			return unknownOutcome(c, name+" "+args[0].val+" sends what it reads to a server")
		}
		return asks(name+" "+args[0].val, "the server on this machine") // localhost:4433 by default
	}
	return unknownOutcome(c, "unknown command "+name+" counts as modifying (add it to gate.allow in .planq/config.yaml if it only reads)")
}

// argHost is the host a URL-like argument names: scheme://host…,
// host:port, host/path or just host (a bare word is a host only when
// bare). ok is false when planq cannot tell the host (a word computed at
// run time before the host ends).
func argHost(a arg, bareIsHost bool) (string, bool) {
	v := a.val
	if !a.static {
		v = a.prefix
		if !authorityEnds(v) {
			return "", false
		}
	}
	if !bareIsHost && !strings.ContainsAny(v, ":/") {
		return v, true
	}
	return urlHost(v)
}

// authorityEnds reports whether a URL's text (the literal start of a word
// computed later) holds the whole host: it has scheme:// and a /, ? or #
// after it.
func authorityEnds(prefix string) bool {
	_, rest, ok := strings.Cut(prefix, "://")
	return ok && strings.ContainsAny(rest, "/?#")
}

// urlHost is the host of a URL, with or without a scheme (curl takes
// example.com/x and localhost:8080). ok is false when it cannot be told:
// URL globs ({a,b}, [1-9]) or percent-escapes in the host.
func urlHost(u string) (string, bool) {
	rest := u
	if scheme, r, ok := strings.Cut(u, "://"); ok && !strings.ContainsAny(scheme, "/@") {
		rest = r
	} else if strings.HasPrefix(u, ":") {
		return "", true // httpie's :8080/x is localhost
	}
	if i := strings.IndexAny(rest, "/?#\\"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	host := rest
	if strings.HasPrefix(rest, "[") {
		h, _, ok := strings.Cut(rest[1:], "]")
		if !ok {
			return "", false
		}
		host = h
	} else if h, _, ok := strings.Cut(rest, ":"); ok {
		host = h
	}
	if strings.ContainsAny(host, "{}[]%*") {
		return "", false
	}
	return host, true
}

// localHost reports whether a host names this machine, or may: localhost
// and *.localhost, the machine's own name, *.local, the names containers
// use for their host, and any address that is not a public one on another
// machine (loopback, unspecified, private, link-local, shared, or one of
// this machine's). Names are not looked up: any other is taken to be
// another machine.
func localHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if h == "" {
		return true
	}
	for _, r := range h {
		if r > 0x7f {
			return true // planq does not read internationalized names: it cannot tell
		}
	}
	switch h {
	case "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "host.docker.internal", "gateway.docker.internal",
		"host.containers.internal", "host.lima.internal", "host.orb.internal":
		return true
	}
	if strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal") {
		return true
	}
	if own := hostName(); own != "" && (h == own || strings.HasPrefix(h, own+".")) {
		return true
	}
	ip, ok := parseIP(h)
	if !ok {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsUnspecified() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsMulticast() {
		return true
	}
	if ip.Is4() && netip.MustParsePrefix("100.64.0.0/10").Contains(ip) {
		return true // shared address space (carrier-grade NAT, tailnets)
	}
	return slices.Contains(ownAddrs(), ip)
}

// parseIP reads an address the way inet_aton and curl do: IPv6, dotted
// IPv4 with one to four parts, each decimal, octal (0177) or hex (0x7f).
func parseIP(h string) (netip.Addr, bool) {
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip, true
	}
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" && base != 8 {
			return netip.Addr{}, false
		}
		if digits == "" {
			digits = "0"
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	last := len(nums) - 1
	for i, n := range nums[:last] {
		if n > 0xff {
			return netip.Addr{}, false
		}
		v |= n << (24 - 8*i)
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v |= nums[last]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// hostName is this machine's name, lower-case, asked once.
var hostName = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return strings.ToLower(h)
})

// ownAddrs are this machine's addresses, asked once (only when a command
// names an address that is not obviously local).
var ownAddrs = sync.OnceValue(func() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr().Unmap())
		}
	}
	return out
})
